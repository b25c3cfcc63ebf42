/**
 * One acting copy of a singleton operator, elected on a
 * `coordination.k8s.io/v1` Lease, and a write guard that stops its writes
 * before another copy can act.
 *
 * Two copies of an operator that act at once race: both create a pod for one
 * object, or overwrite each other's status. A rolling update, a node
 * partition or a replica count above one each run a second copy, so the copy
 * that acts is the one that holds the Lease; the others wait and read it.
 *
 * `new Lead(client, options)` starts campaigning for the Lease;
 * `await lead.leading()` waits until this copy holds it; `lead.stop()` (or
 * `await using`) ends the election and releases the Lease.
 *
 * The elector has client-go's semantics (it is not client-go): the Lease
 * lasts 30 s, a leader renews every 5 s and gives up after 10 s without a
 * renewal, a waiting copy reads every 5 to 11 s. On top of that:
 *
 * - **The write guard** {@linkcode Lead.mayWrite} refuses once the last
 *   accepted renewal, timed when it was sent, is 10 s old. Pass it to the
 *   operator's client (`client.withWriteGuard(lead.mayWrite)`), whose
 *   requests end within {@linkcode REQUEST_TIMEOUT}.
 * - **Exit on loss**: a lead that ends without a stop logs and exits
 *   the process, so nothing in flight keeps writing; the kubelet restarts it
 *   as a new candidate.
 * - **This pod's own expired Lease** is taken at once: an earlier process of
 *   the same pod (its identity starts with `<pod>_`) has ended.
 * - **A second release** after a stop clears the Lease when a late
 *   renewal made the first release conflict.
 *
 * Timeline of a leader that last renewed at T: the guard refuses writes at
 * T+10 s, the elector gives up at T+15 s, a write the guard allowed is given
 * up by T+25 s, the elector releases the Lease only then (client-go releases
 * at T+15 s, which would let another copy act beside that write) and exits
 * by T+29 s, and another copy can take an unreleased Lease only after
 * T+30 s. Failover: a released Lease is taken on a waiting copy's next read,
 * within 11 s; an abandoned one within 30 s + two reads (at most 52 s) after
 * its last write.
 *
 * The election is not fencing. A paused leader can resume and finish a
 * request it sent before; a write that must not land late names a
 * precondition (a `resourceVersion`) that the next leader moves.
 *
 * The timings (a 30 s Lease, a 10 s renew deadline, a 5 s retry period and
 * a 15 s request timeout) are fixed constants, not options: the timeline
 * above is the write guard's safety argument, and it holds only for these
 * ratios.
 *
 * Permissions: only those of the client (`--allow-net` to the API server).
 *
 * @example A singleton operator
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client, WriteRefusedError } from "@liken/kubernetes/apiclient";
 * import { Lead, REQUEST_TIMEOUT } from "@liken/kubernetes/election";
 * import { type LogRecord, sinkLogger } from "@liken/kubernetes/log";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, {
 *   fetch: server.fetch,
 *   timeout: REQUEST_TIMEOUT,
 * });
 * const records: LogRecord[] = [];
 * const lead = new Lead(client, {
 *   lease: { namespace: "default", name: "demo-operator" },
 *   pod: "demo-operator-5c7d9-abcde",
 *   logger: sinkLogger((record) => records.push(record)),
 * });
 * await lead.leading();
 * assert.equal(records[0]!.msg, "Acquired the Lease");
 *
 * // The operator writes through a guarded client; the elector's is not.
 * const writer = client.withWriteGuard(lead.mayWrite);
 * const configMaps = writer
 *   .resource({ version: "v1", resource: "configmaps" })
 *   .namespace("default");
 * await configMaps.create({ metadata: { name: "a" } });
 *
 * await lead.stop();
 * await assert.rejects(
 *   configMaps.create({ metadata: { name: "b" } }),
 *   WriteRefusedError,
 * );
 * ```
 *
 * @module
 */

export { Lead } from "./lead.ts";
export type { LeadingOptions, LeadOptions, LeaseRef } from "./types.ts";
export {
  CallbackError,
  type CallbackName,
  ElectionError,
  LeaseLostError,
  LeaseRequestError,
  NotLeadingError,
  StoppedError,
} from "./errors.ts";
export {
  LEASE_DURATION,
  RENEW_DEADLINE,
  REQUEST_TIMEOUT,
  RETRY_PERIOD,
} from "./timings.ts";
