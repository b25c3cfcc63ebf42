import type { Client } from "../apiclient/mod.ts";
import { cut, MAX_MESSAGE, MAX_REASON, namespaceOf } from "./_limits.ts";
import { Series } from "./_series.ts";
import { hostname, reference, writeOnce } from "./_write.ts";
import { rfc3339 } from "../_internal/time.ts";
import {
  bound,
  MAX_ATTEMPTS,
  MAX_QUEUE_LENGTH,
  MAX_RETRY_WAIT,
  MIN_ATTEMPTS,
  MIN_QUEUE_LENGTH,
  MIN_RETRY_WAIT,
  stopTimeout,
} from "./_options.ts";
import { EventDroppedError, EventWriteError } from "./errors.ts";
import type { ObjectReference } from "../apiclient/types.ts";
import type { Event, EventNote, EventType } from "./types.ts";
import { type Logger, loggerOf } from "../_internal/log.ts";
import type { EventOutcome, RecorderOptions, StopOptions } from "./options.ts";
import { stopOnAbort } from "../_internal/signals.ts";
import { sleep } from "../_internal/sleep.ts";
import { ATTEMPTS, QUEUE_LENGTH, RETRY_WAIT } from "./_options.ts";
import {
  RECORDER_STOP_TIMEOUT,
  StopTimeoutError,
} from "../_internal/stop_timeout.ts";

/**
 * Records what a component did, as core/v1 Events that `kubectl describe`
 * shows next to the object.
 *
 * Posting is fire-and-forget by design. {@linkcode Recorder.normal} and
 * {@linkcode Recorder.warning} stamp the Event with the current time, queue
 * it and return; Events are a courtesy to humans and must never slow a
 * reconcile pass or make it fail. A single background task drains the
 * queue, tries each write up to {@linkcode RecorderOptions.attempts} times
 * {@linkcode RecorderOptions.retryWait} apart, and reports an
 * {@linkcode EventWriteError} to the logger if all tries fail. Posts that
 * find the queue full are discarded and tallied in
 * {@linkcode Recorder.dropped}. Time stamps, series and the retry spacing
 * follow client-go's event recorder (`tools/record`).
 *
 * Identical Events (same object, type, reason and message) less than ten
 * minutes apart update the first one's `count` and `lastTimestamp` instead
 * of piling up, which `kubectl describe` renders as "(x37 over 1h)". The
 * recorder tracks up to 4096 such series and evicts the least recently used.
 *
 * Events are deleted by the server about an hour after their last update,
 * so durable facts belong in conditions. Events about namespace-less objects
 * are created in `default`, the only sensible namespace validation allows
 * for them. Required RBAC: `create` and `patch` on `events` in every
 * namespace the component reports into.
 *
 * A component that runs without Events holds `Recorder | undefined` and
 * writes `recorder?.warning(...)`; {@linkcode setCondition} and
 * {@linkcode transition} accept `undefined` too.
 *
 * A long-lived object: it starts in its constructor, {@linkcode Recorder.stop}
 * flushes the queue and ends it, {@linkcode Recorder.done} settles at its
 * end, `await using` stops it on leaving the scope, and aborting
 * {@linkcode RecorderOptions.signal} stops it as `stop()` does.
 *
 * @example Post Events and stop
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client } from "@liken/kubernetes/apiclient";
 * import { Recorder } from "@liken/kubernetes/events";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * const recorder = new Recorder(client, "machine-operator", { instance: "pod-1" });
 * const machine = { kind: "Machine", name: "m1", uid: "1234" };
 * recorder.warning(machine, { reason: "StepFailed", message: "The mount did not answer" });
 * recorder.warning(machine, { reason: "StepFailed", message: "The mount did not answer" });
 * await recorder.stop(); // resolves once every queued Event was written
 * const [event] = server.eventsAbout({ kind: "Machine", name: "m1" });
 * assert.equal(event?.count, 2);
 * assert.equal(event?.metadata?.namespace, "default"); // Machine is cluster-scoped
 * ```
 */
export class Recorder {
  #client: Client;
  #component: string;
  #instance: string;
  #logger: Logger;
  #queueLength: number;
  #attempts: number;
  #retryWait: number;
  #observer: ((outcome: EventOutcome) => void) | undefined;
  // The bound of a stop that names none (the signal's, `await using`).
  #stopTimeout: number | undefined;

  // A small array: the queue length bounds it, so shift() stays cheap.
  #queue: Event[] = [];
  #dropped = 0;
  #series = new Series();

  // Set when the stop begins: later posts drop, retry waits end.
  #stopping = false;
  #stop = new AbortController();
  // Set when a stop's signal or timeout ended first: send nothing more.
  #abandoned = false;
  // Aborted with the abandonment: a write in flight ends with the stop's
  // bound rather than the client's request timeout.
  #requests = new AbortController();
  #finished = false;
  #wake: (() => void) | undefined;
  #done: Promise<void>;

  /**
   * Starts a recorder and its writer task.
   *
   * @param client The client to write with. Its write guard and observer
   *   apply to every write.
   * @param component Name of the reporting component, written to
   *   `reportingComponent` and `source.component` (e.g. `machine-operator`).
   * @param options The instance, the queue, retry and stop tunables, the
   *   logger, and the signal that stops the recorder.
   * @throws {HostnameError} When `instance` is absent and the host name
   *   cannot be read (grant `--allow-sys=hostname`, or pass `instance`).
   */
  constructor(
    client: Client,
    component: string,
    options: RecorderOptions = {},
  ) {
    this.#client = client;
    this.#component = component;
    // An empty instance counts as absent: an Event with no instance
    // cannot be told apart from another replica's.
    this.#instance = options.instance || hostname();
    this.#logger = loggerOf(options.logger, { recorder: component });
    this.#observer = options.observer;
    this.#queueLength = bound(
      options.queueLength,
      QUEUE_LENGTH,
      MIN_QUEUE_LENGTH,
      MAX_QUEUE_LENGTH,
      true,
    );
    this.#attempts = bound(
      options.attempts,
      ATTEMPTS,
      MIN_ATTEMPTS,
      MAX_ATTEMPTS,
      true,
    );
    this.#retryWait = bound(
      options.retryWait,
      RETRY_WAIT,
      MIN_RETRY_WAIT,
      MAX_RETRY_WAIT,
      false,
    );
    this.#stopTimeout = stopTimeout(options.stopTimeout, RECORDER_STOP_TIMEOUT);
    this.#done = this.#run();
    // The signal stops the recorder as stop() does; nobody awaits that
    // stop, so a bound that ends it first is logged.
    const unlink = stopOnAbort(options.signal, () => {
      this.stop().catch((error) =>
        this.#logger.error(error, "Stopping the recorder failed")
      );
    });
    void this.#done.then(unlink);
  }

  /** The `reportingComponent` of each Event. */
  get component(): string {
    return this.#component;
  }

  /** The `reportingInstance` of each Event. */
  get instance(): string {
    return this.#instance;
  }

  /**
   * How many Events were dropped because the queue was full.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client } from "@liken/kubernetes/apiclient";
   * import { Recorder } from "@liken/kubernetes/events";
   * import { discardLogger } from "@liken/kubernetes/log";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const client = new Client(server.url, { fetch: server.fetch });
   * await using recorder = new Recorder(client, "demo", {
   *   instance: "pod-1",
   *   queueLength: 1,
   *   logger: discardLogger(),
   * });
   * const machine = { kind: "Machine", name: "m1" };
   * recorder.normal(machine, { reason: "First", message: "" });
   * recorder.normal(machine, { reason: "Second", message: "" }); // the queue is full
   * assert.equal(recorder.dropped(), 1);
   * ```
   *
   * @returns The number of Events dropped for a full queue.
   */
  dropped(): number {
    return this.#dropped;
  }

  /**
   * Resolves when the writer task has ended: after the stop (by
   * {@linkcode Recorder.stop}, `await using` or the signal) wrote the queue
   * or gave up on it, and the last write returned. It never rejects.
   */
  get done(): Promise<void> {
    return this.#done;
  }

  /**
   * Queues a Normal Event: routine news such as a completed step or an action
   * taken. Never blocks or throws; the write happens in the background.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client } from "@liken/kubernetes/apiclient";
   * import { Recorder } from "@liken/kubernetes/events";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const client = new Client(server.url, { fetch: server.fetch });
   * const recorder = new Recorder(client, "demo", { instance: "pod-1" });
   * recorder.normal(
   *   { kind: "Pod", namespace: "default", name: "p" },
   *   { reason: "Created", message: "Created the pod again" },
   * );
   * await recorder.stop();
   * const [event] = server.eventsAbout({ kind: "Pod", name: "p", namespace: "default" });
   * assert.equal(event?.type, "Normal");
   * ```
   *
   * @param object The object the Event is about.
   * @param note The reason and message.
   */
  normal(object: ObjectReference, note: EventNote): void {
    this.#post(object, "Normal", note);
  }

  /**
   * Queues a Warning Event, for something a human should look into. Never
   * blocks or throws; the write happens in the background.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client } from "@liken/kubernetes/apiclient";
   * import { Recorder } from "@liken/kubernetes/events";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const client = new Client(server.url, { fetch: server.fetch });
   * const recorder = new Recorder(client, "demo", { instance: "pod-1" });
   * recorder.warning(
   *   { kind: "Pod", namespace: "default", name: "p" },
   *   { reason: "BackOff", message: "The pod keeps failing" },
   * );
   * await recorder.stop();
   * const [event] = server.eventsAbout({ kind: "Pod", name: "p", namespace: "default" });
   * assert.equal(event?.reason, "BackOff");
   * ```
   *
   * @param object The object the Event is about.
   * @param note The reason and message.
   */
  warning(object: ObjectReference, note: EventNote): void {
    this.#post(object, "Warning", note);
  }

  /**
   * Stops accepting Events and flushes the queue: the one stop verb.
   * Semantics follow client-go's broadcaster (`Shutdown`): posts made from
   * now on are discarded (each logged as an error); every Event already
   * queued gets exactly one try; a write parked between retries is
   * abandoned and reported rather than waited for. Calling it again joins
   * the same stop.
   *
   * Where it goes further than client-go: the promise settles only after
   * the final request has come back, so whatever the caller does next (for
   * example giving up a Lease) is ordered after every Event write. If the
   * signal or the timeout fires first, it rejects at once with a
   * {@linkcode StopTimeoutError} (whose `cause` is the signal's reason or
   * the timeout's `TimeoutError`); the write in flight is aborted, nothing
   * is sent after it, and the number of Events left unwritten is logged.
   * (An aborted write may still have reached the server.) Aborting {@linkcode RecorderOptions.signal} starts
   * the same stop with no options, and logs that error.
   *
   * @example Release a Lease only after the last Event
   * ```ts
   * import { Client } from "@liken/kubernetes/apiclient";
   * import { Recorder, StopTimeoutError } from "@liken/kubernetes/events";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const client = new Client(server.url, { fetch: server.fetch });
   * const recorder = new Recorder(client, "demo", { instance: "pod-1" });
   * try {
   *   await recorder.stop({ timeout: 5_000 });
   *   // Every write has returned: step down now.
   * } catch (error) {
   *   if (!(error instanceof StopTimeoutError)) throw error;
   *   // The write in flight was aborted; it may have reached the server.
   * }
   * ```
   *
   * @param options A signal and a timeout that end the wait (default: the
   *   recorder's {@linkcode RecorderOptions.stopTimeout}).
   * @returns A promise that resolves once every write has returned.
   * @throws {StopTimeoutError} When the signal or the timeout ends the wait
   *   first.
   */
  stop(options: StopOptions = {}): Promise<void> {
    if (!this.#stopping) {
      this.#stopping = true;
      this.#stop.abort();
      this.#wakeUp();
    }
    if (this.#finished) return Promise.resolve();
    const { signal } = options;
    const timeout = typeof options.timeout === "number" &&
        !Number.isNaN(options.timeout)
      ? stopTimeout(options.timeout, RECORDER_STOP_TIMEOUT)
      : this.#stopTimeout;
    return new Promise<void>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const settle = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
      };
      const giveUp = (cause: unknown): void => {
        settle();
        const left = this.#queue.length;
        this.#abandon();
        reject(
          new StopTimeoutError(
            `The Event recorder ${this.#component}`,
            `its last write had not returned; queued Events not written: ${left}`,
            { cause },
          ),
        );
      };
      const onAbort = (): void => giveUp(signal?.reason);
      if (signal?.aborted) return giveUp(signal.reason);
      signal?.addEventListener("abort", onAbort, { once: true });
      if (timeout !== undefined) {
        timer = setTimeout(
          () =>
            giveUp(
              new DOMException(
                `The stop took longer than ${timeout} ms`,
                "TimeoutError",
              ),
            ),
          timeout,
        );
      }
      this.#done.then(() => {
        settle();
        resolve();
      });
    });
  }

  /**
   * Stops the recorder with its default bound, for `await using`: the same
   * as {@linkcode Recorder.stop} with no options.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client } from "@liken/kubernetes/apiclient";
   * import { Recorder } from "@liken/kubernetes/events";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const client = new Client(server.url, { fetch: server.fetch });
   * {
   *   await using recorder = new Recorder(client, "demo", { instance: "pod-1" });
   *   recorder.normal({ kind: "Machine", name: "m1" }, { reason: "Started", message: "" });
   * } // the queue is written here
   * assert.equal(server.eventsAbout({ kind: "Machine", name: "m1" }).length, 1);
   * ```
   *
   * @returns The stop's promise.
   * @throws {StopTimeoutError} When the default bound ends the wait first.
   */
  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  #post(object: ObjectReference, type: EventType, note: EventNote): void {
    const reason = cut(note.reason, MAX_REASON);
    if (this.#stopping) {
      this.#observe("dropped");
      this.#logger.error(
        new EventDroppedError(object, type, reason, "stopped"),
        "Event dropped",
      );
      return;
    }
    if (this.#queue.length >= this.#queueLength) {
      this.#observe("dropped");
      if (++this.#dropped === 1) {
        this.#logger.error(
          new EventDroppedError(
            object,
            type,
            reason,
            "full",
            this.#queueLength,
          ),
          "Event dropped",
        );
      }
      return;
    }
    // Built now, not when written: the time is when it happened.
    const now = rfc3339();
    this.#queue.push({
      apiVersion: "v1",
      kind: "Event",
      metadata: {
        generateName: `${object.name}.`,
        namespace: namespaceOf(object),
      },
      involvedObject: reference(object),
      reason,
      message: cut(note.message, MAX_MESSAGE),
      type,
      source: { component: this.#component, host: this.#instance },
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
      reportingComponent: this.#component,
      reportingInstance: this.#instance,
    });
    this.#wakeUp();
  }

  #wakeUp(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  #abandon(): void {
    this.#abandoned = true;
    this.#requests.abort(
      new DOMException("The Event recorder's stop gave up", "AbortError"),
    );
    this.#wakeUp();
  }

  /** The writer task: writes the queue until the stop empties it. */
  async #run(): Promise<void> {
    try {
      for (;;) {
        if (this.#stopping) return await this.#drain();
        const event = this.#queue.shift();
        if (event === undefined) {
          await new Promise<void>((resolve) => this.#wake = resolve);
          continue;
        }
        await this.#write(event);
      }
    } catch (error) {
      // Not expected; the task must still end, so done resolves.
      this.#logger.error(error, "Event writer failed");
    } finally {
      this.#wake = undefined;
      this.#finished = true;
    }
  }

  /** After the stop began: one try per remaining Event, no retries. */
  async #drain(): Promise<void> {
    for (;;) {
      if (this.#abandoned) {
        const left = this.#queue.length;
        this.#queue = [];
        if (left > 0) {
          this.#logger.info(
            "The stop ended before the queue was written",
            { unwritten: left },
          );
        }
        return;
      }
      const event = this.#queue.shift();
      if (event === undefined) return;
      try {
        this.#observe(
          await writeOnce(this.#client, this.#series, event, {
            signal: this.#requests.signal,
          }),
        );
      } catch (error) {
        this.#giveUp(event, error);
      }
    }
  }

  /** Normal path: tries one Event until it lands or the attempts run out. */
  async #write(event: Event): Promise<void> {
    for (let attempt = 1;; attempt++) {
      try {
        this.#observe(
          await writeOnce(this.#client, this.#series, event, {
            signal: this.#requests.signal,
          }),
        );
        return;
      } catch (error) {
        if (attempt >= this.#attempts || this.#stopping) {
          return this.#giveUp(event, error);
        }
        // A stop during the wait gives the write up rather than wait.
        if (!(await sleep(this.#retryWait, this.#stop.signal))) {
          return this.#giveUp(event, error);
        }
      }
    }
  }

  /** Reports an Event given up on. */
  #giveUp(event: Event, error: unknown): void {
    this.#observe("failed");
    // The stop's StopTimeoutError already names the write it cut short.
    if (this.#abandoned) return;
    this.#logger.error(new EventWriteError(event, error), "Event not written");
  }

  /** Tells the observer an outcome; its failure is dropped. */
  #observe(outcome: EventOutcome): void {
    const observer = this.#observer;
    if (observer === undefined) return;
    try {
      observer(outcome);
    } catch {
      // An observer's failure must not change what the recorder does.
    }
  }
}
