import {
  type Condition,
  type ConditionStatus,
  set,
} from "../conditions/mod.ts";
import type { Recorder } from "./recorder.ts";
import type { ObjectReference } from "./types.ts";

/** Options of {@linkcode transition}. */
export interface TransitionOptions {
  /** The condition after the transition. */
  condition: Condition;
  /**
   * The status that needs a person: a transition to it is a Warning, any
   * other is Normal. `False` for a condition such as `Ready`, `True` for one
   * such as `Stalled`; absent when no status needs a person. A condition bad
   * only for some reasons (a `Ready` that is `False` both while starting and
   * when failed) passes `bad` only with the failing reasons.
   */
  bad?: ConditionStatus | undefined;
}

/** Options of {@linkcode setCondition}. */
export interface SetConditionOptions {
  /** The object's conditions, changed in place. */
  list: Condition[];
  /** The condition to set. */
  next: Condition;
  /** The status that needs a person; see {@linkcode TransitionOptions.bad}. */
  bad?: ConditionStatus | undefined;
}

/**
 * Posts the Event of one condition transition, with the condition's reason
 * and message, so `kubectl get -o yaml` and `kubectl describe` show the same
 * words. A Warning when the status is the bad one, Normal otherwise. An
 * undefined recorder posts nothing.
 *
 * A caller that must post only once its status write landed calls
 * `conditions.set` while it composes the status, and this after the write.
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
 *   bad: "False",
 * });
 * await recorder.shutdown();
 * assert.equal(server.eventsAbout({ kind: "Machine", name: "m1" })[0]?.type, "Warning");
 * ```
 *
 * @param recorder The recorder, or `undefined` to post nothing.
 * @param object The object whose condition transitioned.
 * @param options The condition and the bad status.
 */
export function transition(
  recorder: Recorder | undefined,
  object: ObjectReference,
  options: TransitionOptions,
): void {
  if (recorder === undefined) return;
  const { condition, bad } = options;
  const note = { reason: condition.reason, message: condition.message };
  if (bad !== undefined && condition.status === bad) {
    recorder.warning(object, note);
  } else {
    recorder.normal(object, note);
  }
}

/**
 * Sets a condition with `conditions.set` and, when it transitioned (it is new,
 * or its status or reason changed), posts one Event with
 * {@linkcode transition}. A new message alone posts nothing. An undefined
 * recorder still sets the condition.
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
 * @param options The list, the next condition, and the bad status.
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
