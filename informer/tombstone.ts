import type { KubeObject } from "../apiclient/types.ts";

/**
 * What a handler's `delete` receives for an object that vanished while no
 * watch was open: a relist no longer found it, so its final state is
 * unknown. `object` is the last copy the store held, or `undefined` when no
 * copy of it ever decoded.
 *
 * @example Unwrap a delete
 * ```ts
 * import assert from "node:assert/strict";
 * import { DeletedFinalStateUnknown, finalState } from "@liken/kubernetes/informer";
 *
 * const copy = { metadata: { namespace: "default", name: "web" } };
 * const marker = new DeletedFinalStateUnknown("default/web", copy);
 * assert.equal(finalState(marker), copy);
 * assert.equal(finalState(copy), copy);
 * ```
 *
 * @typeParam T The kind of the watched objects.
 */
export class DeletedFinalStateUnknown<T extends KubeObject = KubeObject> {
  /** The object's store key. */
  readonly key: string;
  /** The last copy the store held, if any copy decoded. */
  readonly object: T | undefined;

  /**
   * Makes a marker.
   *
   * @param key The object's store key.
   * @param object The last copy the store held.
   */
  constructor(key: string, object: T | undefined) {
    this.key = key;
    this.object = object;
  }
}

/**
 * The last known copy of a deleted object, whether the handler received the
 * object itself or a {@linkcode DeletedFinalStateUnknown} marker.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DeletedFinalStateUnknown, finalState } from "@liken/kubernetes/informer";
 *
 * assert.equal(finalState(new DeletedFinalStateUnknown("gone", undefined)), undefined);
 * ```
 *
 * @typeParam T The kind of the watched objects.
 * @param deleted What the handler's `delete` received.
 * @returns The copy, or `undefined` when the marker holds none.
 */
export function finalState<T extends KubeObject>(
  deleted: T | DeletedFinalStateUnknown<T>,
): T | undefined {
  return deleted instanceof DeletedFinalStateUnknown ? deleted.object : deleted;
}
