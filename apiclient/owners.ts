/**
 * Owner references: which object controls a child.
 *
 * @module
 */

import type { KubeObject, OwnerReference } from "./types.ts";

/** The API group of an `apiVersion` (`""` for the core group). */
function groupOf(apiVersion: string | undefined): string {
  const slash = apiVersion?.indexOf("/") ?? -1;
  return slash === -1 ? "" : apiVersion!.slice(0, slash);
}

/** What {@linkcode controllerOf} looks for. */
export interface OwnerKind {
  /** The owner kind's API group (`""` or absent for core). */
  group?: string | undefined;
  /** The owner's kind. */
  kind: string;
  /**
   * Whether owners of this kind live in a namespace. A namespaced owner
   * is in its child's namespace (owner references never cross
   * namespaces); a cluster-scoped one has no namespace. Default `true`.
   */
  namespaced?: boolean | undefined;
}

/**
 * The key of a child's controlling owner of the given kind: the
 * `ownerReferences` entry with `controller: true`, as controller-runtime's
 * `EnqueueRequestForOwner` finds it. `undefined` when the child has none of
 * that kind.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { controllerOf } from "@liken/kubernetes/apiclient";
 *
 * const child = {
 *   metadata: {
 *     name: "web-1",
 *     namespace: "shop",
 *     ownerReferences: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: "web", uid: "u1", controller: true }],
 *   },
 * };
 * assert.deepEqual(controllerOf(child, { group: "apps", kind: "ReplicaSet" }), { key: "shop/web", uid: "u1" });
 * assert.equal(controllerOf(child, { group: "apps", kind: "Deployment" }), undefined);
 * ```
 *
 * @param child The child object.
 * @param owner The owner's group, kind and scope.
 * @returns The owner's key, and the uid the child names.
 */
export function controllerOf(
  child: KubeObject,
  owner: OwnerKind,
): { key: string; uid: string | undefined } | undefined {
  const refs = child.metadata?.ownerReferences;
  if (!Array.isArray(refs)) return undefined;
  const ref = refs.find((candidate: OwnerReference) =>
    candidate?.controller === true && candidate.kind === owner.kind &&
    groupOf(candidate.apiVersion) === (owner.group ?? "") &&
    typeof candidate.name === "string"
  );
  if (ref === undefined) return undefined;
  const namespace = owner.namespaced === false
    ? undefined
    : child.metadata.namespace;
  return {
    key: namespace ? `${namespace}/${ref.name}` : ref.name,
    uid: ref.uid,
  };
}

/** The owner's type, for {@linkcode controllerRef}: a `Primary` has it. */
export interface OwnerType {
  /** The owner kind's API group (`""` or absent for core). */
  group?: string | undefined;
  /** The owner kind's version, such as `v1`. */
  version: string;
  /** The owner's kind, such as `CronJob`. */
  kind: string;
}

/**
 * The ownerReference that makes `owner` the controller of a child, as
 * controller-runtime's `NewControllerRef` builds it: the owner's
 * apiVersion, kind, name and uid, `controller: true` and
 * `blockOwnerDeletion: true` (foreground deletion of the owner waits for
 * the child). {@linkcode controllerOf} reads it back; a reconcile's
 * `context.apply` adds it by itself, so this is for children written
 * another way, and for tests that make a child as its controller would.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { controllerOf, controllerRef } from "@liken/kubernetes/apiclient";
 *
 * const CRONJOBS = { group: "batch", version: "v1", resource: "cronjobs", kind: "CronJob" };
 * const cronJob = { metadata: { name: "nightly", namespace: "ops", uid: "u-1" } };
 * const job = {
 *   metadata: { name: "nightly-1", namespace: "ops", ownerReferences: [controllerRef(cronJob, CRONJOBS)] },
 * };
 * assert.deepEqual(job.metadata.ownerReferences[0], {
 *   apiVersion: "batch/v1",
 *   kind: "CronJob",
 *   name: "nightly",
 *   uid: "u-1",
 *   controller: true,
 *   blockOwnerDeletion: true,
 * });
 * assert.deepEqual(controllerOf(job, CRONJOBS), { key: "ops/nightly", uid: "u-1" });
 * ```
 *
 * @param owner The owner object, as the API server answered it (with a
 * name and a uid).
 * @param type The owner's group, version and kind (a `Primary`, or a
 * `defineResource` definition).
 * @returns The ownerReference.
 * @throws {TypeError} When the owner has no name or no uid (the garbage
 * collector matches owners by uid).
 */
export function controllerRef(
  owner: KubeObject,
  type: OwnerType,
): OwnerReference {
  const { name, uid } = owner.metadata ?? {};
  if (!name || !uid) {
    throw new TypeError(
      `A ${type.kind} needs a metadata.name and a metadata.uid to own a child`,
    );
  }
  return {
    apiVersion: type.group ? `${type.group}/${type.version}` : type.version,
    kind: type.kind,
    name,
    uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}
