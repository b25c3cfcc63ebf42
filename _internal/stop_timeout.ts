/**
 * The error of a `stop()` whose bound ended before the work it waits for.
 * Every long-lived object that drains work on stop throws this one class,
 * and its module re-exports it.
 *
 * @module
 */

/**
 * A `stop()` gave up: its timeout or its signal ended before the object's
 * work had finished. What was still pending is in the message and in
 * {@linkcode StopTimeoutError.pending}; the timeout's `TimeoutError` or the
 * signal's reason is the `cause`. Work already started may still complete
 * after this; nothing new is started.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { StopTimeoutError } from "@liken/kubernetes/events";
 *
 * const error = new StopTimeoutError(
 *   "The Event recorder",
 *   "its last write had not returned; queued Events not written: 2",
 * );
 * assert.equal(error.name, "StopTimeoutError");
 * assert.equal(
 *   error.message,
 *   "The Event recorder did not finish stopping: its last write had not returned; queued Events not written: 2",
 * );
 * ```
 */
export class StopTimeoutError extends Error {
  /** What stopped, such as `The Event recorder`. */
  readonly subject: string;
  /** What was still pending when the stop gave up. */
  readonly pending: string;

  /**
   * Makes the error.
   *
   * @param subject What stopped, capitalized: it starts the message.
   * @param pending What was still pending, such as `2 queued Events`.
   * @param options The cause: the timeout's error or the signal's reason.
   */
  constructor(
    subject: string,
    pending: string,
    options?: { cause?: unknown } | undefined,
  ) {
    super(`${subject} did not finish stopping: ${pending}`, options);
    this.name = "StopTimeoutError";
    this.subject = subject;
    this.pending = pending;
  }
}

/**
 * How long a `stop()` waits for the work it drains: the same two options
 * for every long-lived object that has them.
 *
 * @example Bound a stop by the pod's grace period
 * ```ts
 * import { Client } from "@liken/kubernetes/apiclient";
 * import { Recorder, type StopOptions } from "@liken/kubernetes/events";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * const recorder = new Recorder(client, "demo", { instance: "pod-1" });
 * const grace = new AbortController(); // aborted when the grace period ends
 * const options: StopOptions = { signal: grace.signal, timeout: Infinity };
 * await recorder.stop(options);
 * ```
 */
export interface StopOptions {
  /** Stops waiting: the stop rejects with a {@linkcode StopTimeoutError}. */
  signal?: AbortSignal | undefined;
  /**
   * Milliseconds to wait. Default: the object's own stop timeout (see its
   * options); `NaN` means the default, a negative bound ends at once, and
   * `Infinity` (or anything past a timer's range, about 24.8 days) waits
   * for `signal` alone.
   */
  timeout?: number | undefined;
}

/**
 * Default bound on a `Recorder`'s `stop`, in milliseconds
 * (its `stopTimeout` option), which a `Controller` also reads. Flushing a healthy queue is nearly
 * instant; a server silent for this long is unlikely to recover within the
 * pod's termination grace period, and the remainder of the default 30 s is
 * better spent releasing a Lease.
 */
export const RECORDER_STOP_TIMEOUT = 5_000;
