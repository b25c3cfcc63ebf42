// Which changes wake a controller: the rules of controller-runtime's
// GenerationChangedPredicate, widened to the metadata a reconcile reads.
import { jsonEqual } from "../_internal/json.ts";
import {
  objectKey,
  type ObjectRef,
  type Resource,
} from "../apiclient/resource.ts";
import type { KubeObject } from "../apiclient/types.ts";

/**
 * Whether an update of a primary object needs a reconcile: a new
 * `metadata.generation`, or changed labels, annotations, finalizers or
 * deletion timestamp. A status-only write (the controller's own, most of
 * the time) changes none of them, so it does not wake the controller again.
 * For a kind without generations (the API server sets none, as for
 * ConfigMaps) every new `resourceVersion` counts, and so does a new `uid`
 * (the object was deleted and made again while no watch was open).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { meaningfulChange } from "@liken/kubernetes/controller";
 *
 * const old = { metadata: { name: "a", generation: 1, resourceVersion: "5" } };
 * const status = { ...old, metadata: { ...old.metadata, resourceVersion: "6" } };
 * const spec = { ...old, metadata: { ...old.metadata, generation: 2, resourceVersion: "7" } };
 * assert.equal(meaningfulChange(old, status), false);
 * assert.equal(meaningfulChange(old, spec), true);
 * ```
 *
 * @param old The copy before.
 * @param object The copy after.
 * @returns Whether to reconcile.
 */
export function meaningfulChange(old: KubeObject, object: KubeObject): boolean {
  const a = old.metadata ?? {};
  const b = object.metadata ?? {};
  // Deleted and made again under the same name (seen through a relist).
  if (a.uid !== b.uid) return true;
  if (a.generation === undefined || b.generation === undefined) {
    return a.resourceVersion !== b.resourceVersion ||
      a.resourceVersion === undefined;
  }
  return a.generation !== b.generation ||
    a.deletionTimestamp !== b.deletionTimestamp ||
    !jsonEqual(a.labels, b.labels) ||
    !jsonEqual(a.annotations, b.annotations) ||
    !jsonEqual(a.finalizers, b.finalizers);
}

/**
 * The name of the index every `owns` collection of a controller keeps:
 * children by the uid of their controlling owner
 * ({@linkcode controllerUid}). A registration of the same collection on
 * shared `Collections` may ask for this index too, with that very function.
 *
 * @example Register a collection with the index a controller's owns uses
 * ```ts
 * import { Client } from "@liken/kubernetes/apiclient";
 * import { CONTROLLER_UID_INDEX, controllerUid } from "@liken/kubernetes/controller";
 * import { Collections } from "@liken/kubernetes/informer";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * await using collections = new Collections(client);
 * await using _jobs = collections.register(
 *   { group: "batch", version: "v1", resource: "jobs" },
 *   { indexers: { [CONTROLLER_UID_INDEX]: controllerUid } },
 * );
 * ```
 */
export const CONTROLLER_UID_INDEX = "controllerUID";

/**
 * The index function behind {@linkcode CONTROLLER_UID_INDEX}: the uid of an
 * object's controlling owner (the `ownerReferences` entry with `controller:
 * true`, of any kind), or none. A uid names one object in the whole
 * cluster, so one index serves every owner kind.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { controllerUid } from "@liken/kubernetes/controller";
 *
 * const child = {
 *   metadata: {
 *     name: "web-1",
 *     ownerReferences: [
 *       { apiVersion: "v1", kind: "ConfigMap", name: "x", uid: "u0" },
 *       { apiVersion: "apps/v1", kind: "ReplicaSet", name: "web", uid: "u1", controller: true },
 *     ],
 *   },
 * };
 * assert.deepEqual(controllerUid(child), ["u1"]);
 * assert.deepEqual(controllerUid({ metadata: { name: "orphan" } }), []);
 * ```
 *
 * @param object The child object.
 * @returns The controlling owner's uid, or nothing.
 */
export function controllerUid(object: KubeObject): string[] {
  const refs = object.metadata?.ownerReferences;
  if (!Array.isArray(refs)) return [];
  for (const ref of refs) {
    if (ref?.controller === true && typeof ref.uid === "string" && ref.uid) {
      return [ref.uid];
    }
  }
  return [];
}

/**
 * The key of a primary object a `watches[].map` answered: its ref must name
 * the primary collection (group and resource), with a namespace for a
 * namespaced primary and none for a cluster-scoped one.
 */
export function primaryKey(
  primary: Resource & { kind: string; namespaced?: boolean | undefined },
  ref: ObjectRef,
): string {
  if (
    ref?.resource !== primary.resource ||
    (ref.group ?? "") !== (primary.group ?? "")
  ) {
    throw new TypeError(
      `map answered ${
        ref?.group ? `${ref.resource}.${ref.group}` : ref?.resource
      } ${ref?.name}, not a ref of the primary ${primary.kind}`,
    );
  }
  if (typeof ref.name !== "string" || ref.name === "") {
    throw new TypeError(`map answered a ${primary.kind} ref without a name`);
  }
  const namespaced = primary.namespaced !== false;
  if (namespaced !== Boolean(ref.namespace)) {
    throw new TypeError(
      namespaced
        ? `map answered the ${primary.kind} ${ref.name} without a namespace`
        : `map answered the cluster-scoped ${primary.kind} ${ref.name} in namespace ${ref.namespace}`,
    );
  }
  return objectKey(ref);
}
