/**
 * The recorder's options and their defaults.
 *
 * @module
 */

import type { Logger } from "../_internal/log.ts";

/**
 * Default capacity of the in-memory queue of unwritten Events
 * ({@linkcode RecorderOptions.queueLength}). In normal operation only a
 * handful are ever waiting; hundreds mean the API server is unreachable,
 * and at that point keeping more would only trade memory for Events nobody
 * may ever see, so further posts are dropped and counted.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { QUEUE_LENGTH } from "@liken/kubernetes/events";
 *
 * assert.equal(QUEUE_LENGTH, 256);
 * ```
 */
export const QUEUE_LENGTH = 256;

/**
 * Default total tries per write ({@linkcode RecorderOptions.attempts}).
 * Spaced {@linkcode RETRY_WAIT} apart, three tries span about 20 s, enough
 * to ride out an API server restart while keeping the Events queued behind
 * it from waiting long.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ATTEMPTS } from "@liken/kubernetes/events";
 *
 * assert.equal(ATTEMPTS, 3);
 * ```
 */
export const ATTEMPTS = 3;

/**
 * Default pause between two tries of one write, in milliseconds
 * ({@linkcode RecorderOptions.retryWait}); the same spacing client-go's
 * event recorder uses.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RETRY_WAIT } from "@liken/kubernetes/events";
 *
 * assert.equal(RETRY_WAIT, 10_000);
 * ```
 */
export const RETRY_WAIT = 10_000;

/**
 * Default bound on {@linkcode Recorder.stop}, in milliseconds
 * ({@linkcode RecorderOptions.stopTimeout}). Flushing a healthy queue is nearly
 * instant; a server silent for this long is unlikely to recover within the
 * pod's termination grace period, and the remainder of the default 30 s is
 * better spent releasing a Lease.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { STOP_TIMEOUT } from "@liken/kubernetes/events";
 *
 * assert.equal(STOP_TIMEOUT, 5_000);
 * ```
 */
export const STOP_TIMEOUT = 5_000;

/**
 * Options of {@linkcode Recorder}. The `logger` (field `recorder`: the
 * component) gets an info line when a stop abandons queued Events, and an
 * error line for each Event given up on ({@linkcode EventWriteError}), the
 * first Event dropped for a full queue and every Event posted after the
 * stop ({@linkcode EventDroppedError}), and the {@linkcode StopTimeoutError}
 * of a stop the signal started; by default errors go to `console.error`.
 *
 * @example Tunables and the logger
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client } from "@liken/kubernetes/apiclient";
 * import { QUEUE_LENGTH, Recorder, type RecorderOptions } from "@liken/kubernetes/events";
 * import { sinkLogger } from "@liken/kubernetes/log";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * const errors: unknown[] = [];
 * const options: RecorderOptions = {
 *   instance: "pod-1",
 *   queueLength: QUEUE_LENGTH * 4, // a component that posts in bursts
 *   attempts: 5,
 *   retryWait: 2_000,
 *   stopTimeout: 10_000, // the bound of stop(), await using and the signal
 *   logger: sinkLogger((record) => {
 *     if (record.v === undefined) errors.push(record.err);
 *   }),
 * };
 * await using recorder = new Recorder(client, "demo", options);
 * recorder.normal({ kind: "Machine", name: "m1" }, { reason: "Started", message: "" });
 * await recorder.stop();
 * assert.deepEqual(errors, []);
 * ```
 */
export interface RecorderOptions {
  /** Receives the recorder's lines (see above). Default: errors only. */
  logger?: Logger | undefined;
  /**
   * Which replica reports, written to `reportingInstance` and `source.host`:
   * usually the pod name, or the node name for a host-network DaemonSet.
   * When absent or empty, `Deno.hostname()` is used (a pod's host name is its
   * name), which requires `--allow-sys=hostname`.
   */
  instance?: string | undefined;
  /**
   * How many Events may wait to be written; posts beyond are dropped and
   * counted by {@linkcode Recorder.dropped}. Default
   * {@linkcode QUEUE_LENGTH} (256); kept within 1 to 65536, a fraction
   * rounded down, `NaN` meaning the default.
   */
  queueLength?: number | undefined;
  /**
   * Total tries per write before the Event is given up on. Default
   * {@linkcode ATTEMPTS} (3); kept within 1 to 100, a fraction rounded
   * down, `NaN` meaning the default.
   */
  attempts?: number | undefined;
  /**
   * Milliseconds between two tries of one write. Default
   * {@linkcode RETRY_WAIT} (10 s); kept within 100 ms and 1 hour, `NaN`
   * meaning the default.
   */
  retryWait?: number | undefined;
  /**
   * Milliseconds a stop that names no `timeout` waits for the queue to be
   * written: the bound of {@linkcode Recorder.stop} without options, of
   * `await using`, and of the stop {@linkcode RecorderOptions.signal}
   * starts. Default {@linkcode STOP_TIMEOUT} (5 s); `NaN` means the
   * default, a negative bound ends at once, and `Infinity` (or anything past
   * a timer's range, about 24.8 days) waits without a bound.
   */
  stopTimeout?: number | undefined;
  /**
   * Aborting it stops the recorder as `stop()` does: posts from then on
   * are dropped, each queued Event gets one try within
   * {@linkcode RecorderOptions.stopTimeout}, and {@linkcode Recorder.done}
   * settles once the last write returned. A stop the bound ends first hands
   * its {@linkcode StopTimeoutError} to the logger. Default: none.
   */
  signal?: AbortSignal | undefined;
  /**
   * Hears what became of each posted Event (see {@linkcode EventOutcome}),
   * for metrics. It is called synchronously; what it throws is dropped.
   * Default: none.
   */
  observer?: ((outcome: EventOutcome) => void) | undefined;
}

/**
 * What became of one posted Event, as the recorder's
 * {@linkcode RecorderOptions.observer} hears it: `created` (a new Event),
 * `patched` (the `count` and `lastTimestamp` of its open series),
 * `dropped` (the queue was full or the recorder stopping; every drop, not
 * just the first that is logged), or `failed` (given up on after its
 * attempts).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client } from "@liken/kubernetes/apiclient";
 * import { type EventOutcome, Recorder } from "@liken/kubernetes/events";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * const outcomes: EventOutcome[] = [];
 * const recorder = new Recorder(client, "demo", {
 *   instance: "pod-1",
 *   observer: (outcome) => outcomes.push(outcome),
 * });
 * const machine = { kind: "Machine", name: "m1" };
 * recorder.normal(machine, { reason: "Started", message: "" });
 * recorder.normal(machine, { reason: "Started", message: "" });
 * await recorder.stop();
 * assert.deepEqual(outcomes, ["created", "patched"]);
 * ```
 */
export type EventOutcome = "created" | "patched" | "dropped" | "failed";

export type { StopOptions } from "../_internal/stop_timeout.ts";
