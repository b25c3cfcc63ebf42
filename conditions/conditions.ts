import { rfc3339 } from "../_internal/time.ts";

/** A condition's verdict; `Unknown` means the component cannot tell yet. */
export type ConditionStatus = "True" | "False" | "Unknown";

/**
 * One condition, with the JSON shape of `metav1.Condition`.
 *
 * `lastTransitionTime` is when the status last changed, not when the
 * condition was last written; `observedGeneration` is the
 * `metadata.generation` the condition judged.
 */
export interface Condition {
  /** The condition's type, such as `Ready`; unique within a list. */
  type: string;
  /** `True`, `False` or `Unknown`. */
  status: ConditionStatus;
  /** The generation of the object this condition was computed from. */
  observedGeneration?: number;
  /** A CamelCase reason for the status, for machines. */
  reason: string;
  /** A sentence for people; may carry values that change on each pass. */
  message: string;
  /**
   * When the status last changed (RFC 3339, to the second). {@linkcode set}
   * always stores one: `next`'s when the status changed and it states one,
   * else the held one, else the present time.
   */
  lastTransitionTime?: string;
}

/**
 * Puts a copy of `next` into `list` in place of the condition of the same
 * type, or appends it, and answers whether the condition transitioned: it is new, or its
 * status or reason changed. A new message alone is no transition, because
 * messages often carry a value that changes on every pass.
 *
 * The transition time moves only when the status changes, so `kubectl get`
 * answers "Ready since when", not "written when". A changed status takes
 * `next.lastTransitionTime`, or the present time cut to the second (the API
 * server stores seconds, and a status composed again must compare equal to
 * the stored one).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type Condition, set } from "@liken/kubernetes/conditions";
 *
 * const list: Condition[] = [];
 * set(list, { type: "Ready", status: "False", reason: "Starting", message: "" });
 * const since = list[0]!.lastTransitionTime;
 * // The same status with a new message: no transition, time kept.
 * assert.equal(set(list, { type: "Ready", status: "False", reason: "Starting", message: "2 of 3" }), false);
 * assert.equal(list[0]!.lastTransitionTime, since);
 * assert.equal(list[0]!.message, "2 of 3");
 * ```
 *
 * @param list The conditions to change, in place.
 * @param next The condition to set.
 * @returns Whether the condition is new or its status or reason changed.
 */
export function set(list: Condition[], next: Condition): boolean {
  const index = list.findIndex((held) => held.type === next.type);
  const held = list[index];
  if (held === undefined) {
    list.push({ ...next, lastTransitionTime: transitionTime(next) });
    return true;
  }
  const statusChanged = held.status !== next.status;
  // A held condition without a time (written by other code) gets one: the
  // API server requires it of a metav1.Condition.
  const lastTransitionTime = statusChanged
    ? transitionTime(next)
    : held.lastTransitionTime || transitionTime(next);
  list[index] = { ...next, lastTransitionTime };
  return statusChanged || held.reason !== next.reason;
}

/**
 * Answers the condition of one type, or `undefined` when the list holds none.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { find } from "@liken/kubernetes/conditions";
 *
 * assert.equal(find([], "Ready"), undefined);
 * ```
 *
 * @param list The conditions to search (may be absent, as in a fresh status).
 * @param type The condition type to find.
 * @returns The condition, or `undefined`.
 */
export function find(
  list: readonly Condition[] | undefined,
  type: string,
): Condition | undefined {
  return list?.find((condition) => condition.type === type);
}

/** The time a condition whose status changed records. */
function transitionTime(next: Condition): string {
  return next.lastTransitionTime || rfc3339();
}
