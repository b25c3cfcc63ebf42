import {
  type Condition,
  type ConditionStatus,
  set,
} from "../conditions/mod.ts";
import type { Recorder } from "./recorder.ts";
import type { ObjectReference } from "../apiclient/types.ts";

/**
 * The status of each condition type that calls for human attention, such as
 * `{ Available: "False", Degraded: "True" }`: positive conditions (`Ready`,
 * `Available`) are bad when `False`, negative ones (`Stalled`, `Degraded`)
 * when `True`, so one map serves every condition of an object. A type it
 * does not name is never alarming.
 */
export type BadStatuses = Readonly<Record<string, ConditionStatus>>;

/** Options of {@linkcode transition}. */
export interface TransitionOptions {
  /** The condition after the transition. */
  condition: Condition;
  /**
   * The statuses that call for human attention, by condition type:
   * reaching one posts a Warning, anything else a Normal Event. If only
   * some reasons are alarming (`Ready=False` while booting is fine, after a
   * crash it is not), pass `bad` only alongside those reasons.
   */
  bad?: BadStatuses | undefined;
}

/** Options of {@linkcode setCondition}. */
export interface SetConditionOptions {
  /** The object's conditions, changed in place. */
  list: Condition[];
  /** The condition to set. */
  next: Condition;
  /** The statuses that need a person; see {@linkcode TransitionOptions.bad}. */
  bad?: BadStatuses | undefined;
}

/**
 * Reports a condition change as an Event that reuses the condition's own
 * reason and message, so the object's YAML and `kubectl describe` tell the
 * same story in the same words. The type is Warning when `bad` names the
 * condition's type with its new status, Normal otherwise. With no recorder it does nothing.
 *
 * Use it instead of {@linkcode setCondition} when the Event should depend
 * on the status write succeeding: set the condition while building the
 * status, write it, then call this.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client } from "@liken/kubernetes/apiclient";
 * import { Recorder, transition } from "@liken/kubernetes/events";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * const recorder = new Recorder(client, "demo", { instance: "pod-1" });
 * const machine = { kind: "Machine", name: "m1" };
 * transition(recorder, machine, {
 *   condition: { type: "Ready", status: "False", reason: "MountFailed", message: "No answer" },
 *   bad: { Ready: "False" },
 * });
 * await recorder.stop();
 * assert.equal(server.eventsAbout({ kind: "Machine", name: "m1" })[0]?.type, "Warning");
 * ```
 *
 * @param recorder The recorder, or `undefined` to post nothing.
 * @param object The object whose condition transitioned.
 * @param options The condition and the bad statuses.
 */
export function transition(
  recorder: Recorder | undefined,
  object: ObjectReference,
  options: TransitionOptions,
): void {
  if (recorder === undefined) return;
  const { condition, bad } = options;
  const note = { reason: condition.reason, message: condition.message };
  const alarming = bad !== undefined && Object.hasOwn(bad, condition.type) &&
    bad[condition.type] === condition.status;
  if (alarming) {
    recorder.warning(object, note);
  } else {
    recorder.normal(object, note);
  }
}

/**
 * Updates a condition list with `conditions.set` and, only if that counts
 * as a transition (a new condition type, or a changed status or reason),
 * reports it via {@linkcode transition}. A reworded message is not news to
 * a reader, so it posts nothing. The list is updated even when `recorder`
 * is `undefined`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { Condition } from "@liken/kubernetes/conditions";
 * import { setCondition } from "@liken/kubernetes/events";
 *
 * const list: Condition[] = [];
 * const next: Condition = { type: "Ready", status: "True", reason: "Serving", message: "" };
 * assert.equal(setCondition(undefined, { kind: "Machine", name: "m1" }, { list, next }), true);
 * assert.equal(list[0]?.status, "True");
 * ```
 *
 * @param recorder The recorder, or `undefined` to post nothing.
 * @param object The object whose condition is set.
 * @param options The list, the next condition, and the bad statuses.
 * @returns Whether the condition transitioned.
 */
export function setCondition(
  recorder: Recorder | undefined,
  object: ObjectReference,
  options: SetConditionOptions,
): boolean {
  const transitioned = set(options.list, options.next);
  if (transitioned) {
    transition(recorder, object, { condition: options.next, bad: options.bad });
  }
  return transitioned;
}
