import { type Client, NotFoundError } from "../apiclient/mod.ts";
import { cut, MAX_MESSAGE, MAX_REASON, namespaceOf } from "./_limits.ts";
import { keyOf, Series, SERIES_WINDOW } from "./_series.ts";
import type { Event, EventNote, EventType, ObjectReference } from "./types.ts";
import { describe } from "../_internal/errors.ts";
import { sleep } from "../_internal/sleep.ts";
import { join } from "../_internal/signals.ts";

/**
 * Capacity of the in-memory queue of unwritten Events. In normal operation
 * only a handful are ever waiting; hundreds mean the API server is
 * unreachable, and at that point keeping more would only trade memory for
 * Events nobody may ever see, so further posts are dropped and counted.
 */
export const QUEUE_LENGTH = 256;

/**
 * Total tries per write. Spaced {@linkcode RETRY_WAIT} apart, three tries
 * span about 20 s, enough to ride out an API server restart while keeping
 * the Events queued behind it from waiting long.
 */
export const ATTEMPTS = 3;

/**
 * Pause between two tries of one write, in milliseconds; the same spacing
 * client-go's recorder uses.
 */
export const RETRY_WAIT = 10_000;

/**
 * Default bound on {@linkcode Recorder.shutdown}, in milliseconds. Flushing a
 * healthy queue is nearly instant; a server silent for this long is unlikely
 * to recover within the pod's termination grace period, and the remainder
 * of the default 30 s is better spent releasing a Lease.
 */
export const SHUTDOWN_TIMEOUT = 5_000;

/** Options of {@linkcode Recorder}. */
export interface RecorderOptions {
  /**
   * Which replica reports, written to `reportingInstance` and `source.host`:
   * usually the pod name, or the node name for a host-network DaemonSet.
   * When absent or empty, `Deno.hostname()` is used (a pod's host name is its
   * name), which requires `--allow-sys=hostname`.
   */
  instance?: string;
  /**
   * Where problems are reported, one line each: every Event given up on,
   * and the first Event dropped for a full queue (later drops are only
   * counted, to avoid a flood). Defaults to standard error.
   */
  log?: (line: string) => void;
  /**
   * Ends the recorder at once: a request in flight is cut off (it may still
   * land), queued Events are lost, and later posts are dropped. Use
   * {@linkcode Recorder.shutdown} to write the queue first.
   */
  signal?: AbortSignal;
}

/** Options of {@linkcode Recorder.shutdown}. */
export interface ShutdownOptions {
  /** Stops waiting for the queue to be written. */
  signal?: AbortSignal;
  /**
   * Milliseconds to wait for the queue to be written. Default
   * {@linkcode SHUTDOWN_TIMEOUT}; `Infinity` waits for `signal` alone.
   */
  timeout?: number;
}

/** A wait that ended: the timer fired, shutdown began, or the signal ended. */
type WaitEnd = "timer" | "stop" | "abort";

/**
 * Records what a component did, as core/v1 Events that `kubectl describe`
 * shows next to the object.
 *
 * Posting is fire-and-forget by design. {@linkcode Recorder.normal} and
 * {@linkcode Recorder.warning} stamp the Event with the current time, queue
 * it and return; Events are a courtesy to humans and must never slow a
 * reconcile pass or make it fail. A single background task drains the
 * queue, tries each write up to {@linkcode ATTEMPTS} times
 * {@linkcode RETRY_WAIT} apart, and logs a line if all tries fail. Posts that
 * find the queue full are discarded and tallied in
 * {@linkcode Recorder.dropped}.
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
 * @example Post Events and shut down
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
 * await recorder.shutdown(); // resolves once every queued Event was written
 * const [event] = server.eventsAbout({ kind: "Machine", name: "m1" });
 * assert.equal(event?.count, 2);
 * assert.equal(event?.metadata?.namespace, "default"); // Machine is cluster-scoped
 * ```
 */
export class Recorder {
  #client: Client;
  #component: string;
  #instance: string;
  #log: (line: string) => void;
  #signal: AbortSignal | undefined;

  // A small array: QUEUE_LENGTH bounds it, so shift() stays cheap.
  #queue: Event[] = [];
  #dropped = 0;
  #series = new Series();

  // Set when shutdown begins: later posts drop, retry waits end.
  #stopping = false;
  #stop = new AbortController();
  // Set when a shutdown's signal or timeout ended first: send nothing more.
  #abandoned = false;
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
   * @param options The instance, the log, and the signal that ends the
   *   recorder.
   * @throws When `instance` is absent and the host name cannot be read
   *   (grant `--allow-sys=hostname`, or pass `instance`).
   */
  constructor(
    client: Client,
    component: string,
    options: RecorderOptions = {},
  ) {
    this.#signal = options.signal;
    this.#client = options.signal ? client.withSignal(options.signal) : client;
    this.#component = component;
    // An empty instance counts as absent: an Event with no instance
    // cannot be told apart from another replica's.
    this.#instance = options.instance || hostname();
    this.#log = options.log ?? logToStderr;
    this.#done = this.#run();
  }

  /** The `reportingComponent` of each Event. */
  get component(): string {
    return this.#component;
  }

  /** The `reportingInstance` of each Event. */
  get instance(): string {
    return this.#instance;
  }

  /** How many Events were dropped because the queue was full. */
  get dropped(): number {
    return this.#dropped;
  }

  /**
   * Resolves when the writer task has ended: after {@linkcode
   * Recorder.shutdown} wrote the queue, or when the recorder's signal ended.
   * It never rejects.
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
   * await recorder.shutdown();
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
   * await recorder.shutdown();
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
   * Stops accepting Events and flushes the queue. Semantics follow
   * client-go's broadcaster: posts made from now on are discarded (and
   * logged); every Event already queued gets exactly one try; a write
   * parked between retries is abandoned and logged rather than waited for.
   *
   * Where it goes further than client-go: the promise settles only after
   * the final request has come back, so whatever the caller does next (for
   * example giving up a Lease) is ordered after every Event write. If the
   * signal or the timeout fires first, it rejects immediately; a request
   * already sent may still complete, but nothing is sent after it, and the
   * number of Events left unwritten is logged.
   *
   * @example Release a Lease only after the last Event
   * ```ts
   * import { Client } from "@liken/kubernetes/apiclient";
   * import { Recorder } from "@liken/kubernetes/events";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const client = new Client(server.url, { fetch: server.fetch });
   * const recorder = new Recorder(client, "demo", { instance: "pod-1" });
   * try {
   *   await recorder.shutdown({ timeout: 5_000 });
   *   // Every write has returned: step down now.
   * } catch {
   *   // A write may still land after this.
   * }
   * ```
   *
   * @param options A signal and a timeout that end the wait.
   * @returns A promise that resolves once every write has returned.
   */
  shutdown(options: ShutdownOptions = {}): Promise<void> {
    if (!this.#stopping) {
      this.#stopping = true;
      this.#stop.abort();
      this.#wakeUp();
    }
    if (this.#finished) return Promise.resolve();
    const { signal } = options;
    const timeout = options.timeout ?? SHUTDOWN_TIMEOUT;
    return new Promise<void>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const settle = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
      };
      const giveUp = (cause: unknown): void => {
        settle();
        this.#abandon();
        reject(
          new Error("The Event recorder's last write had not returned", {
            cause,
          }),
        );
      };
      const onAbort = (): void => giveUp(signal?.reason);
      if (signal?.aborted) return giveUp(signal.reason);
      signal?.addEventListener("abort", onAbort, { once: true });
      if (Number.isFinite(timeout)) {
        timer = setTimeout(
          () =>
            giveUp(
              new DOMException(
                `The shutdown took longer than ${timeout} ms`,
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

  #post(object: ObjectReference, type: EventType, note: EventNote): void {
    const reason = cut(note.reason, MAX_REASON);
    if (this.#stopping || this.#signal?.aborted) {
      this.#logLine(
        `dropped the ${type} Event ${reason} about the ${object.kind} ${object.name}: the recorder has shut down`,
      );
      return;
    }
    if (this.#queue.length >= QUEUE_LENGTH) {
      if (++this.#dropped === 1) {
        this.#logLine(
          `dropped the ${type} Event ${reason} about the ${object.kind} ${object.name}: ${QUEUE_LENGTH} Events wait to be written`,
        );
      }
      return;
    }
    // Built now, not when written: the time is when it happened.
    const now = timestamp();
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
    this.#wakeUp();
  }

  /** The writer task: writes the queue until shutdown empties it or the signal ends. */
  async #run(): Promise<void> {
    const signal = this.#signal;
    const onAbort = (): void => this.#wakeUp();
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      for (;;) {
        if (signal?.aborted) return;
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
      this.#logLine(`the Event writer failed: ${describe(error)}`);
    } finally {
      signal?.removeEventListener("abort", onAbort);
      this.#wake = undefined;
      this.#finished = true;
    }
  }

  /** After shutdown: one try per remaining Event, no retries. */
  async #drain(): Promise<void> {
    for (;;) {
      if (this.#signal?.aborted) return;
      if (this.#abandoned) {
        const left = this.#queue.length;
        this.#queue = [];
        if (left > 0) {
          this.#logLine(
            `the shutdown ended before the queue was written; queued Events not written: ${left}`,
          );
        }
        return;
      }
      const event = this.#queue.shift();
      if (event === undefined) return;
      try {
        await this.#writeOnce(event);
      } catch (error) {
        if (!this.#signal?.aborted) this.#logFailure(event, error);
      }
    }
  }

  /** Normal path: tries one Event until it lands or ATTEMPTS run out. */
  async #write(event: Event): Promise<void> {
    for (let attempt = 1;; attempt++) {
      try {
        await this.#writeOnce(event);
        return;
      } catch (error) {
        if (this.#signal?.aborted) return;
        if (attempt >= ATTEMPTS || this.#stopping) {
          return this.#logFailure(event, error);
        }
        const end = await this.#wait(RETRY_WAIT);
        if (end === "abort") return;
        if (end === "stop") return this.#logFailure(event, error);
      }
    }
  }

  /** Patches the Event of an open series, or creates a new Event. */
  async #writeOnce(event: Event): Promise<void> {
    const key = keyOf(event);
    const last = Date.parse(event.lastTimestamp);
    const collection = `/api/v1/namespaces/${event.metadata.namespace}/events`;
    const held = this.#series.get(key);
    if (held !== undefined && last - held.last < SERIES_WINDOW) {
      const count = held.count + 1;
      try {
        await this.#client.patch(
          `${collection}/${encodeURIComponent(held.name)}`,
          { count, lastTimestamp: event.lastTimestamp },
          { type: "merge" },
        );
        this.#series.put(key, { name: held.name, count, last });
        return;
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error;
        // The TTL deleted the Event: the series starts again.
        this.#series.remove(key);
      }
    }
    const created = await this.#client.create<Event>(collection, event);
    const name = created?.metadata?.name;
    if (name) this.#series.put(key, { name, count: 1, last });
  }

  /** Waits `ms`, or less when shutdown begins or the signal ends. */
  async #wait(ms: number): Promise<WaitEnd> {
    const stop = this.#stop.signal;
    const signal = this.#signal;
    if (signal?.aborted) return "abort";
    if (stop.aborted) return "stop";
    if (await sleep(ms, join(signal, stop))) return "timer";
    return signal?.aborted ? "abort" : "stop";
  }

  #logFailure(event: Event, error: unknown): void {
    const { kind, name } = event.involvedObject;
    this.#logLine(
      `could not write the ${event.type} Event ${event.reason} about the ${kind} ${name}: ${
        describe(error)
      }`,
    );
  }

  #logLine(line: string): void {
    try {
      this.#log(`${this.#component}: ${line}`);
    } catch {
      // A failing log must not stop the writer or a post.
    }
  }
}

/** The present time cut to the second, as the API server stores it. */
function timestamp(): string {
  const seconds = Math.floor(Date.now() / 1000) * 1000;
  return new Date(seconds).toISOString().replace(".000Z", "Z");
}

/** Copies the fields of a reference that are set, as Go's omitempty would. */
function reference(object: ObjectReference): ObjectReference {
  const copy: ObjectReference = { kind: object.kind, name: object.name };
  if (object.apiVersion) copy.apiVersion = object.apiVersion;
  if (object.namespace) copy.namespace = object.namespace;
  if (object.uid) copy.uid = object.uid;
  return copy;
}

function hostname(): string {
  try {
    return Deno.hostname();
  } catch (cause) {
    throw new Error(
      "Cannot read the host name for the Events' reportingInstance: grant --allow-sys=hostname or pass the instance option",
      { cause },
    );
  }
}

function logToStderr(line: string): void {
  // deno-lint-ignore no-console -- the default log of a library that must report lost Events somewhere without a logger dependency; callers pass `log` to route it.
  console.error(line);
}
