// Which changes wake a controller: the rules of controller-runtime's
// GenerationChangedPredicate, widened to the metadata a reconcile reads.
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
    !sameJson(a.labels, b.labels) ||
    !sameJson(a.annotations, b.annotations) ||
    !sameJson(a.finalizers, b.finalizers);
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}
