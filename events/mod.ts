/**
 * Kubernetes Events a person reads in `kubectl describe`: never spam, never
 * block.
 *
 * Three channels, three audiences: a status condition states the present,
 * for controllers and `kubectl wait`; an Event tells a human what changed
 * recently; the log keeps every detail and every retry. Hence the rule of
 * thumb: one Event per condition change ({@linkcode setCondition}, or
 * {@linkcode transition} once the status write succeeded) and one per
 * deliberate action that moves no condition (recreating a pod, asking for a
 * reboot), but none for routine readings or individual retries.
 *
 * The {@linkcode Recorder} queues Events in memory (bounded), writes them as
 * core/v1 Events through `@liken/kubernetes/apiclient`, retries failed
 * writes a few times, folds identical repeats into one Event with a count,
 * trims reasons and messages to the server's byte limits, and flushes what
 * is queued on {@linkcode Recorder.stop}. Its tunables (queue length,
 * attempts, retry wait, stop bound) are options with documented defaults;
 * Events it gives up on or drops are logged as errors,
 * {@linkcode EventWriteError} and {@linkcode EventDroppedError}, and a stop
 * that runs out of time rejects with {@linkcode StopTimeoutError}.
 *
 * Events expire about an hour after their last update (the API server's
 * `--event-ttl`), so anything that must stay visible longer belongs in a
 * condition. Objects without a namespace get their Events in `default`:
 * `kubectl describe` shows them, while `kubectl events --for` needs
 * `-n default` or `-A` to find them.
 *
 * Permissions: whatever the client needs, plus `--allow-sys=hostname` when
 * no `instance` option is given, since the default instance is the host
 * name (in a pod, the pod's name). RBAC: `create` and `patch` on `events`.
 *
 * @example One recorder per component
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client } from "@liken/kubernetes/apiclient";
 * import type { Condition } from "@liken/kubernetes/conditions";
 * import { Recorder, setCondition } from "@liken/kubernetes/events";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * const recorder = new Recorder(client, "machine-operator", { instance: "pod-1" });
 * const machine = { kind: "Machine", name: "m1", uid: "1234" };
 * const conditions: Condition[] = [];
 * setCondition(recorder, machine, {
 *   list: conditions,
 *   next: { type: "Ready", status: "False", reason: "MountFailed", message: "The mount did not answer" },
 *   bad: { Ready: "False" },
 * });
 * await recorder.stop();
 * const [event] = server.eventsAbout({ kind: "Machine", name: "m1" });
 * assert.equal(event?.type, "Warning");
 * assert.equal(event?.reason, "MountFailed");
 * ```
 *
 * @module
 */
export * from "./errors.ts";
export * from "./options.ts";
export * from "./recorder.ts";
export * from "./transition.ts";
export * from "./types.ts";
export { StopTimeoutError } from "../_internal/stop_timeout.ts";
