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
