import type { KubeObject } from "../apiclient/types.ts";

/**
 * What a handler's `delete` receives in place of the final copy when that
 * copy is unknown: the object vanished while no watch was open (a relist no
 * longer found it), or its final copy failed `decode`. `key` always names
 * the object; `object` is the last copy that decoded, and `undefined` when
 * none ever did, so a handler must not assume a marker carries a copy
 * ({@linkcode finalState} answers `T | undefined` for either shape).
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
 *
 * // No copy ever decoded: only the key is known.
 * const bare = new DeletedFinalStateUnknown("default/web", undefined);
 * assert.equal(bare.object, undefined);
 * assert.equal(finalState(bare) ?? bare.key, "default/web");
 * ```
 *
 * @typeParam T The kind of the watched objects.
 */
export class DeletedFinalStateUnknown<T extends KubeObject = KubeObject> {
  /** The object's store key. */
  readonly key: string;
  /**
   * The last copy of the object that decoded, or `undefined` when no copy of
   * it ever decoded (every copy the store saw failed the collection's
   * `decode` or `transform`); without those options it is always a copy.
   */
  readonly object: T | undefined;

  /**
   * Makes a marker.
   *
   * @param key The object's store key.
   * @param object The last copy that decoded, or `undefined` when none did.
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
