/**
 * The recorder's options and their defaults.
 *
 * @module
 */

import type { Logger } from "../_internal/log.ts";

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
 * import { Recorder, type RecorderOptions } from "@liken/kubernetes/events";
 * import { sinkLogger } from "@liken/kubernetes/log";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * const errors: unknown[] = [];
 * const options: RecorderOptions = {
 *   instance: "pod-1",
 *   queueLength: 1024, // a component that posts in bursts
 *   attempts: 5,
 *   retryWait: 2_000,
 *   stopTimeout: 10_000, // the bound of stop(), await using and the signal
 *   logger: sinkLogger((record) => errors.push(record.err), { verbosity: -1 }),
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
   * 256; kept within 1 to 65536, a fraction
   * rounded down, `NaN` meaning the default.
   */
  queueLength?: number | undefined;
  /**
   * Total tries per write before the Event is given up on. Default
   * 3; kept within 1 to 100, a fraction rounded
   * down, `NaN` meaning the default.
   */
  attempts?: number | undefined;
  /**
   * Milliseconds between two tries of one write. Default
   * 10 s; kept within 100 ms and 1 hour, `NaN`
   * meaning the default.
   */
  retryWait?: number | undefined;
  /**
   * Milliseconds a stop that names no `timeout` waits for the queue to be
   * written: the bound of {@linkcode Recorder.stop} without options, of
   * `await using`, and of the stop {@linkcode RecorderOptions.signal}
   * starts. Default 5 s; `NaN` means the
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
