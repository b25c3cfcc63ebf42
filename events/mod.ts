/**
 * Kubernetes Events a person reads in `kubectl describe`: never spam, never
 * block.
 *
 * A condition answers "what is true now", for automation; an Event answers
 * "what just happened", for a person; a log line holds every attempt. So a
 * component posts one Event per condition transition ({@linkcode setCondition},
 * or {@linkcode transition} after a status write) and one per action that
 * changes no condition (a pod created again, a reboot requested), never one
 * per reading or per retry.
 *
 * The {@linkcode Recorder} writes core/v1 Events through
 * `@liken/kubernetes/apiclient` from a bounded queue, sends a failed write
 * again, folds repeats into one Event with a count, cuts reasons and messages
 * to the API server's limits, and writes its queue on
 * {@linkcode Recorder.shutdown}.
 *
 * The API server deletes an Event an hour after its last write, so a fact that
 * must last longer belongs in a condition. Events about a cluster-scoped
 * object are written in `default`: `kubectl describe` finds them, `kubectl
 * events --for` only with `-n default` or `-A`.
 *
 * Permissions: those of the client; plus `--allow-sys=hostname` unless the
 * `instance` option is given (the default instance is the host name, which is
 * the pod's name in a pod). RBAC: `create` and `patch` on `events`.
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
 *   bad: "False",
 * });
 * await recorder.shutdown();
 * const [event] = server.eventsAbout({ kind: "Machine", name: "m1" });
 * assert.equal(event?.type, "Warning");
 * assert.equal(event?.reason, "MountFailed");
 * ```
 *
 * @module
 */
export * from "./recorder.ts";
export * from "./transition.ts";
export * from "./types.ts";
export { SERIES_LIMIT, SERIES_WINDOW } from "./_series.ts";
export { CLUSTER_NAMESPACE, MAX_MESSAGE, MAX_REASON } from "./_limits.ts";
