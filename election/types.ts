/**
 * The options of the election, shared by the facade and its parts.
 *
 * @module
 */

import type { ObjectRef } from "../apiclient/resource.ts";
import type { Logger } from "../_internal/log.ts";

/**
 * Which Lease an election runs on: an `ObjectRef` whose resource is
 * `coordination.k8s.io/v1` `leases` (the default), with its namespace and
 * name required.
 *
 * @example
 * ```ts
 * import type { LeaseRef } from "@liken/kubernetes/election";
 *
 * const lease: LeaseRef = { namespace: "default", name: "demo-operator" };
 * void lease;
 * ```
 */
export type LeaseRef =
  & Partial<Omit<ObjectRef, "namespace" | "name">>
  & Required<Pick<ObjectRef, "name">>
  & { namespace: string };

/**
 * Options of a `Lead`: the Lease, the pod, the signal, the logger and the
 * hooks. The timings are not options (see the `timings` constants).
 *
 * The `logger` gets an info line for each change of state (`Acquired the
 * Lease`, `Waiting for the Lease`, `Lost the Lease`, `Released the Lease`),
 * with the fields `lease` and `identity`, and an error line with a
 * `LeaseRequestError` for each failed request of the Lease (a failure that
 * repeats is logged once), a `CallbackError` for a callback that threw, and
 * an `ElectionError` if the elector itself failed. Default: errors to
 * `console.error`.
 *
 * @example
 * ```ts
 * import type { LeadOptions } from "@liken/kubernetes/election";
 * import { jsonLogger } from "@liken/kubernetes/log";
 *
 * const options: LeadOptions = {
 *   lease: { namespace: "default", name: "demo-operator" },
 *   pod: "demo-operator-7d9f-x2x4b",
 *   logger: jsonLogger(),
 * };
 * void options;
 * ```
 *
 * @example The signal stops the election and releases the Lease
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client } from "@liken/kubernetes/apiclient";
 * import { Lead } from "@liken/kubernetes/election";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * const shutdown = new AbortController(); // aborted on SIGTERM, say
 * const lead = new Lead(client, {
 *   lease: { namespace: "default", name: "op" },
 *   pod: "op-a",
 *   signal: shutdown.signal,
 * });
 * await lead.leading();
 * shutdown.abort();
 * await lead.done; // after the release
 * assert.equal(server.leaseHolder("default", "op"), undefined);
 * ```
 */
export interface LeadOptions {
  /** Receives the election's lines (see above). Default: errors only. */
  logger?: Logger | undefined;
  /**
   * Which Lease: a `coordination.k8s.io/v1` Lease in `namespace`, named as
   * every object is, by an `ObjectRef` (its resource is always the Lease's,
   * so only the namespace and the name are required; any other `group`,
   * `version` or `resource` is refused). It is created when absent.
   */
  lease: LeaseRef;
  /**
   * The name of the pod this process runs in, without `_`. The Lease names
   * the holder as `<pod>_<8 hex digits>`: the pod is readable in the Lease's
   * `holderIdentity`, and each start of the container competes afresh.
   */
  pod: string;
  /**
   * Labels the Lease gets when this election creates it (a Lease that
   * exists keeps its own), such as the ring label of a shard member's
   * Lease. Default: none.
   */
  labels?: Readonly<Record<string, string>> | undefined;
  /**
   * Aborting it stops the election as `stop()` does: the lead's signal
   * aborts, the Lease is released (within the same bounds), and `done`
   * settles after the releases. Already aborted, the election stops at once
   * and never campaigns. Default: none.
   */
  signal?: AbortSignal | undefined;
  /**
   * Called with code 1 when a lead ends without a stop. The default,
   * `Deno.exit`, kills whatever work is still running, which must not go on
   * once another copy may hold the Lease; the kubelet then starts the
   * container again and it competes anew. Tests pass their own.
   */
  exit?: ((code: number) => void) | undefined;
  /**
   * Called when this process starts to lead. The signal aborts when the
   * lead ends, before the release, so work stops first. Default: none.
   */
  onStartedLeading?: ((signal: AbortSignal) => void) | undefined;
  /**
   * Called when a lead of this process ended (lost or stopped), after the
   * release. Unlike client-go, which calls it whenever its run returns, a
   * process that never led does not get it. Default: none.
   */
  onStoppedLeading?: (() => void) | undefined;
  /**
   * Called when the Lease names another holder than last seen, including
   * this process and `""` (nobody). Default: none.
   */
  onNewLeader?: ((identity: string) => void) | undefined;
}

/**
 * Options of `Lead.leading`.
 *
 * @example
 * ```ts
 * import type { LeadingOptions } from "@liken/kubernetes/election";
 *
 * const options: LeadingOptions = { signal: AbortSignal.timeout(60_000) };
 * void options;
 * ```
 */
export interface LeadingOptions {
  /**
   * The stop: when it aborts before this process leads, the election stops
   * (as `Lead.stop` does) and `leading` rejects with a
   * `StoppedError`. Default: none. To stop the election whenever a signal
   * aborts, leading or not, give it as `LeadOptions.signal`.
   */
  signal?: AbortSignal | undefined;
}
