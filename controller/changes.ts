// Which changes wake a controller: the rules of controller-runtime's
// GenerationChangedPredicate, widened to the metadata a reconcile reads.
import type { KubeObject, OwnerReference } from "../apiclient/types.ts";

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
    !sameJson(a.labels, b.labels) ||
    !sameJson(a.annotations, b.annotations) ||
    !sameJson(a.finalizers, b.finalizers);
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/** The API group of an `apiVersion` (`""` for the core group). */
function groupOf(apiVersion: string | undefined): string {
  const slash = apiVersion?.indexOf("/") ?? -1;
  return slash === -1 ? "" : apiVersion!.slice(0, slash);
}

/**
 * The key of a child's controlling owner of the given group and kind: the
 * `ownerReferences` entry with `controller: true`, in the child's
 * namespace (owner references never cross namespaces). `undefined` when the
 * child has none of that kind.
 *
 * @param child The child object.
 * @param group The owner kind's API group (`""` or absent for core).
 * @param kind The owner's kind.
 * @returns The owner's key, and the uid the child names.
 */
export function controllerOf(
  child: KubeObject,
  group: string | undefined,
  kind: string,
): { key: string; uid: string | undefined } | undefined {
  const refs = child.metadata?.ownerReferences;
  if (!Array.isArray(refs)) return undefined;
  const owner = refs.find((ref: OwnerReference) =>
    ref?.controller === true && ref.kind === kind &&
    groupOf(ref.apiVersion) === (group ?? "") && typeof ref.name === "string"
  );
  if (owner === undefined) return undefined;
  const namespace = child.metadata.namespace;
  return {
    key: namespace ? `${namespace}/${owner.name}` : owner.name,
    uid: owner.uid,
  };
}
