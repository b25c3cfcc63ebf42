/**
 * The election's timings. They are constants, not options: the write
 * guard's safety argument rests on their ratios. A leader that last renewed
 * at T has its writes refused at T+10 s ({@linkcode RENEW_DEADLINE}), gives
 * up renewing at T+15 s (one more {@linkcode RETRY_PERIOD} round), has every
 * write the guard allowed given up by T+25 s ({@linkcode REQUEST_TIMEOUT}),
 * releases then and exits by T+29 s, while another copy can take an
 * unreleased Lease only after T+30 s ({@linkcode LEASE_DURATION}). A caller
 * who shortened one of them could break that order; all of a fleet's copies
 * must also agree on them.
 *
 * @module
 */

/**
 * How long a waiting copy waits before it takes a Lease whose record did not
 * change, in milliseconds: 30 s, twice client-go's default. The extra time
 * is the safety margin: a leader that last renewed at T stops writing at
 * T+10 s (the write guard), gives up at T+15 s and exits by T+29 s, while
 * another copy can take the Lease only after T+30 s.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LEASE_DURATION } from "@liken/kubernetes/election";
 *
 * assert.equal(LEASE_DURATION, 30_000);
 * ```
 */
export const LEASE_DURATION = 30_000;

/**
 * How long a leader keeps trying to renew before it gives up, in
 * milliseconds: 10 s, as in client-go. The write guard refuses once the last
 * accepted renewal is this old.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RENEW_DEADLINE } from "@liken/kubernetes/election";
 *
 * assert.equal(RENEW_DEADLINE, 10_000);
 * ```
 */
export const RENEW_DEADLINE = 10_000;

/**
 * The pause between two renewals of a leader, and the base of a waiting
 * copy's retry, in milliseconds: 5 s (client-go uses 2 s). It sets the load on
 * the API server; an operator does not need faster failover.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RETRY_PERIOD } from "@liken/kubernetes/election";
 *
 * assert.equal(RETRY_PERIOD, 5_000);
 * ```
 */
export const RETRY_PERIOD = 5_000;

/**
 * The longest request the operator's client may send while it leads, in
 * milliseconds: pass it as the client's `timeout`. A write the guard allowed
 * just before T+10 s is given up by T+25 s: before another copy can take
 * an unreleased Lease (T+30 s), and before the elector releases it after a
 * loss (it waits for T+25 s). The timeout ends the client's wait, not the
 * write: the API server can still commit a request after the client gave up,
 * so a write that must not land late names a precondition (a
 * `resourceVersion`) that the next leader moves.
 *
 * @example
 * ```ts
 * import { Client } from "@liken/kubernetes/apiclient";
 * import { REQUEST_TIMEOUT } from "@liken/kubernetes/election";
 *
 * const client = new Client("http://127.0.0.1:9", { timeout: REQUEST_TIMEOUT });
 * void client;
 * ```
 */
export const REQUEST_TIMEOUT = LEASE_DURATION - RENEW_DEADLINE - RETRY_PERIOD;
