// A work queue of keys with client-go's `workqueue` semantics: dedup, one
// taker per key, delayed adds and per-key backoff, here on the global
// timers so that fake clocks drive it.
import { MAX_TIMER } from "../_internal/sleep.ts";
import { stopOnAbort } from "../_internal/signals.ts";
import {
  type StopOptions,
  StopTimeoutError,
} from "../_internal/stop_timeout.ts";

export type { StopOptions };
import { clamp, ExponentialBackoff, TokenBucket } from "./_limiter.ts";
import {
  DEFAULT_BASE_DELAY,
  DEFAULT_BURST,
  DEFAULT_MAX_DELAY,
  DEFAULT_QPS,
  DEFAULT_STOP_TIMEOUT,
  MAX_ADD_AFTER,
} from "./_defaults.ts";

/**
 * Hears a work queue's operations, as client-go's workqueue metrics
 * provider does. Durations are seconds.
 */
export interface WorkQueueObserver {
  /**
   * A key was queued.
   *
   * @param depth The keys waiting after the add.
   */
  added(depth: number): void;
  /**
   * A key was taken.
   *
   * @param waited Seconds it waited in the queue.
   * @param depth The keys waiting after the take.
   */
  taken(waited: number, depth: number): void;
  /**
   * The work on a key ended.
   *
   * @param worked Seconds it was worked on.
   */
  finished(worked: number): void;
  /** A key was queued after its backoff. */
  retried(): void;
}

/** Options of a {@linkcode WorkQueue}. Durations are milliseconds. */
export interface WorkQueueOptions {
  /**
   * The delay of a key's first retry; each further failure doubles it.
   * Default 5 ms; at least 1 ms.
   */
  baseDelay?: number | undefined;
  /**
   * The longest retry delay of a key. Default
   * 1,000 s; at least `baseDelay`, at most
   * 7 days.
   */
  maxDelay?: number | undefined;
  /**
   * Retries a second over all keys, once the burst is spent. Default
   * 10; `Infinity` turns the overall limit off; at
   * least 0.001.
   */
  qps?: number | undefined;
  /** Retries allowed at once above `qps`. Default 100. */
  burst?: number | undefined;
  /** Hears every operation (for metrics). Default: none. */
  observer?: WorkQueueObserver | undefined;
}

/** Options of {@linkcode WorkQueue.retry}. */
export interface RetryOptions {
  /**
   * The delay instead of the key's exponential backoff, in milliseconds
   * (cut to 7 days). Default: the backoff.
   */
  delay?: number | undefined;
}

/** Options of {@linkcode WorkQueue.take}. */
export interface TakeOptions {
  /** Ends the wait for a key; the take then answers `undefined`. */
  signal?: AbortSignal | undefined;
}

/**
 * A queue of keys to work on, with the rules of client-go's rate-limited
 * work queue:
 *
 * - A key waits in the queue at most once: adding it again before it is
 *   taken does nothing.
 * - A key is worked on by one taker at a time: a key added while it is
 *   being worked on waits until {@linkcode WorkQueue.finish}, then is queued
 *   once more.
 * - {@linkcode WorkQueue.addAfter} queues a key later; for a key already
 *   waiting, the earliest time wins.
 * - {@linkcode WorkQueue.retry} queues a key after its backoff: 5 ms doubling
 *   to 1,000 s per key, and never more than 10 retries a second (burst 100)
 *   over all keys, whichever is later; {@linkcode WorkQueue.forget} resets a
 *   key's backoff after a success.
 *
 * Time comes from `Date.now()` and the global timers at call time, so a fake
 * clock drives the queue.
 *
 * @example Take, work, finish
 * ```ts
 * import assert from "node:assert/strict";
 * import { WorkQueue } from "@liken/kubernetes/controller";
 *
 * await using queue = new WorkQueue();
 * queue.add("default/web");
 * queue.add("default/web"); // already waiting: nothing more
 * assert.equal(queue.length, 1);
 *
 * const key = await queue.take();
 * assert.equal(key, "default/web");
 * queue.add("default/web"); // being worked on: queued again after finish
 * assert.equal(queue.length, 0);
 * queue.finish("default/web");
 * assert.equal(queue.length, 1);
 * ```
 */
export class WorkQueue implements AsyncDisposable {
  /** Settles once the queue is stopped and no key is being worked on. */
  readonly done: Promise<void>;
  #queue: string[] = [];
  #head = 0;
  /** Keys that need work: queued, or added again while being worked on. */
  #dirty = new Set<string>();
  /** Keys being worked on → when they were taken. */
  #processing = new Map<string, number>();
  /** Queued keys → when they were queued. */
  #queuedAt = new Map<string, number>();
  #observer: WorkQueueObserver | undefined;
  #takers: ((key: string | undefined) => void)[] = [];
  /** Delayed keys: key → due time; the heap orders them, stale entries skipped. */
  #due = new Map<string, number>();
  #heap: [number, string][] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #armedFor = Infinity;
  #backoff: ExponentialBackoff;
  #bucket: TokenBucket;
  #stopping = false;
  #drained = Promise.withResolvers<void>();

  /**
   * Makes an empty queue.
   *
   * @param options The retry delays and the overall retry rate.
   */
  constructor(options: WorkQueueOptions = {}) {
    const base = clamp(
      options.baseDelay ?? DEFAULT_BASE_DELAY,
      1,
      MAX_ADD_AFTER,
    );
    const max = clamp(
      options.maxDelay ?? DEFAULT_MAX_DELAY,
      base,
      MAX_ADD_AFTER,
    );
    this.#backoff = new ExponentialBackoff(base, max);
    const qps = options.qps ?? DEFAULT_QPS;
    this.#bucket = new TokenBucket(
      qps === Infinity ? Infinity : clamp(qps, 0.001, 1e9),
      clamp(Math.floor(options.burst ?? DEFAULT_BURST), 1, 1e9),
    );
    this.#observer = options.observer;
    this.done = this.#drained.promise;
  }

  /** The number of keys queued and not yet taken. */
  get length(): number {
    return this.#queue.length - this.#head;
  }

  /** The number of keys taken and not yet finished. */
  get working(): number {
    return this.#processing.size;
  }

  /**
   * The work in flight, as client-go's `unfinished_work_seconds` and
   * `longest_running_processor_seconds` report it. Timed only for a queue
   * with an observer; without one both are 0.
   *
   * @returns The seconds all keys in work have run so far, summed, and the
   * longest of them.
   */
  unfinished(): { seconds: number; longest: number } {
    const now = Date.now();
    let seconds = 0;
    let longest = 0;
    if (this.#observer === undefined) return { seconds, longest };
    for (const started of this.#processing.values()) {
      const ran = Math.max(0, now - started) / 1000;
      seconds += ran;
      if (ran > longest) longest = ran;
    }
    return { seconds, longest };
  }

  /** Whether {@linkcode WorkQueue.stop} was called. */
  get stopping(): boolean {
    return this.#stopping;
  }

  /**
   * Queues a key now, unless it is queued already. A key being worked on is
   * queued again when it is finished. Does nothing once stopping.
   *
   * @param key The key.
   */
  add(key: string): void {
    if (this.#stopping || this.#dirty.has(key)) return;
    this.#dirty.add(key);
    if (this.#processing.has(key)) return;
    const observer = this.#observer;
    // Times are read only for an observer: the queue's hot path stays lean.
    const now = observer === undefined ? 0 : Date.now();
    const taker = this.#takers.shift();
    if (taker !== undefined) {
      this.#dirty.delete(key);
      this.#processing.set(key, now);
      observer?.added(this.length);
      observer?.taken(0, this.length);
      taker(key);
      return;
    }
    this.#queue.push(key);
    if (observer !== undefined) {
      this.#queuedAt.set(key, now);
      observer.added(this.length);
    }
  }

  /**
   * Queues a key after a delay. For a key already waiting, the earliest
   * time wins. A delay of 0 or less (or NaN) queues at once; one longer
   * than 7 days is cut to it.
   *
   * @param key The key.
   * @param ms The delay in milliseconds.
   */
  addAfter(key: string, ms: number): void {
    if (this.#stopping) return;
    const delay = clamp(ms, 0, MAX_ADD_AFTER);
    if (delay === 0) {
      this.add(key);
      return;
    }
    const due = Date.now() + delay;
    const waiting = this.#due.get(key);
    if (waiting !== undefined && waiting <= due) return;
    this.#due.set(key, due);
    heapPush(this.#heap, [due, key]);
    if (due < this.#armedFor) this.#arm();
  }

  /**
   * Queues a key after its backoff: the larger of its own exponential delay
   * (one more failure counted) and the overall rate limit's wait. A `delay`
   * given in the options replaces the exponential one (the failure still
   * counts, and the rate limit still holds).
   *
   * @param key The key whose work failed.
   * @param options A delay of the caller's choosing, in milliseconds.
   * @returns The delay it waits, in milliseconds.
   */
  retry(key: string, options: RetryOptions = {}): number {
    const own = this.#backoff.when(key);
    const chosen = options.delay;
    const delay = Math.max(
      chosen === undefined || Number.isNaN(chosen) ? own : chosen,
      this.#bucket.take(),
    );
    this.#observer?.retried();
    this.addAfter(key, delay);
    return delay;
  }

  /**
   * Resets a key's backoff, after its work succeeded. A delayed add of the
   * key still happens.
   *
   * @param key The key.
   */
  forget(key: string): void {
    this.#backoff.forget(key);
  }

  /**
   * How many times the key was retried since it was last forgotten.
   *
   * @param key The key.
   * @returns The count.
   */
  retries(key: string): number {
    return this.#backoff.failures(key);
  }

  /**
   * Takes the next key to work on, waiting for one if none is queued. The
   * caller owns the key until it calls {@linkcode WorkQueue.finish}.
   *
   * @param options A signal that ends the wait.
   * @returns The key, or `undefined` once the queue is stopping or the
   * signal ended.
   */
  take(options: TakeOptions = {}): Promise<string | undefined> {
    const { signal } = options;
    if (this.#stopping || signal?.aborted) return Promise.resolve(undefined);
    if (this.#head < this.#queue.length) {
      return Promise.resolve(this.#shift());
    }
    return new Promise<string | undefined>((resolve) => {
      const onAbort = (): void => {
        const at = this.#takers.indexOf(taker);
        if (at !== -1) this.#takers.splice(at, 1);
        resolve(undefined);
      };
      const taker = (key: string | undefined): void => {
        signal?.removeEventListener("abort", onAbort);
        resolve(key);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#takers.push(taker);
    });
  }

  /**
   * Ends the work on a key. If it was added meanwhile, it is queued again.
   *
   * @param key A key from {@linkcode WorkQueue.take}.
   */
  finish(key: string): void {
    const started = this.#processing.get(key);
    if (started === undefined) return;
    this.#processing.delete(key);
    if (this.#observer !== undefined) {
      this.#observer.finished(Math.max(0, Date.now() - started) / 1000);
    }
    if (this.#dirty.has(key)) {
      if (this.#stopping) this.#dirty.delete(key);
      else {
        this.#dirty.delete(key);
        this.add(key);
      }
    }
    if (this.#stopping && this.#processing.size === 0) this.#drained.resolve();
  }

  /**
   * Stops the queue: no key is handed out or added any more, delayed keys
   * are dropped, and the keys being worked on may finish within the bound.
   *
   * @param options The bound: a timeout (default
   *   30 s) and a signal.
   * @returns Settles when no key is being worked on; rejects with a
   * `StopTimeoutError` naming the unfinished keys when the bound runs out
   * or the signal aborts first.
   */
  async stop(options: StopOptions = {}): Promise<void> {
    if (!this.#stopping) {
      this.#stopping = true;
      clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#armedFor = Infinity;
      this.#due.clear();
      this.#heap.length = 0;
      this.#queue = [];
      this.#head = 0;
      this.#dirty.clear();
      this.#queuedAt.clear();
      for (const taker of this.#takers.splice(0)) taker(undefined);
      if (this.#processing.size === 0) this.#drained.resolve();
    }
    if (this.#processing.size === 0) return;
    const { signal } = options;
    const given = options.timeout;
    const timeout = given === undefined || Number.isNaN(given)
      ? DEFAULT_STOP_TIMEOUT
      : given;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let unlink = (): void => {};
    // Why the wait ended early: the bound's TimeoutError or the signal's reason.
    const expired = new Promise<{ cause: unknown }>((resolve) => {
      if (timeout < MAX_TIMER) {
        timer = setTimeout(
          () =>
            resolve({
              cause: new DOMException(
                `The stop took longer than ${timeout} ms`,
                "TimeoutError",
              ),
            }),
          clamp(timeout, 0, MAX_TIMER),
        );
      }
      unlink = stopOnAbort(signal, () => resolve({ cause: signal?.reason }));
    });
    const ended = await Promise.race([
      this.done.then(() => undefined),
      expired,
    ]);
    clearTimeout(timer);
    unlink();
    if (ended !== undefined) {
      const keys = [...this.#processing.keys()];
      throw new StopTimeoutError(
        "The work queue",
        `${keys.length} key(s) still being worked on: ${
          keys.slice(0, 10).join(", ")
        }`,
        { cause: ended.cause },
      );
    }
  }

  /** Stops the queue (for `await using`). */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }

  #shift(): string {
    const key = this.#queue[this.#head]!;
    this.#head += 1;
    // Compact now and then, so taking stays O(1) and the array does not grow.
    if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    this.#dirty.delete(key);
    const observer = this.#observer;
    if (observer === undefined) {
      this.#processing.set(key, 0);
      return key;
    }
    const now = Date.now();
    this.#processing.set(key, now);
    const queued = this.#queuedAt.get(key) ?? now;
    this.#queuedAt.delete(key);
    observer.taken(Math.max(0, now - queued) / 1000, this.length);
    return key;
  }

  /** Arms the one timer for the earliest delayed key. */
  #arm(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#armedFor = Infinity;
    const heap = this.#heap;
    while (heap.length > 0 && this.#due.get(heap[0]![1]) !== heap[0]![0]) {
      heapPop(heap);
    }
    const first = heap[0];
    if (first === undefined) return;
    this.#armedFor = first[0];
    const wait = clamp(first[0] - Date.now(), 0, MAX_TIMER);
    this.#timer = setTimeout(() => this.#fire(), wait);
  }

  #fire(): void {
    this.#timer = undefined;
    this.#armedFor = Infinity;
    const now = Date.now();
    const heap = this.#heap;
    while (heap.length > 0 && heap[0]![0] <= now) {
      const [due, key] = heapPop(heap)!;
      if (this.#due.get(key) !== due) continue;
      this.#due.delete(key);
      this.add(key);
    }
    this.#arm();
  }
}

function heapPush(heap: [number, string][], entry: [number, string]): void {
  heap.push(entry);
  let at = heap.length - 1;
  while (at > 0) {
    const parent = (at - 1) >> 1;
    if (heap[parent]![0] <= entry[0]) break;
    heap[at] = heap[parent]!;
    at = parent;
  }
  heap[at] = entry;
}

function heapPop(heap: [number, string][]): [number, string] | undefined {
  const top = heap[0];
  const last = heap.pop();
  if (top === undefined || last === undefined || heap.length === 0) return top;
  let at = 0;
  for (;;) {
    const left = at * 2 + 1;
    if (left >= heap.length) break;
    const right = left + 1;
    const child = right < heap.length && heap[right]![0] < heap[left]![0]
      ? right
      : left;
    if (heap[child]![0] >= last[0]) break;
    heap[at] = heap[child]!;
    at = child;
  }
  heap[at] = last;
  return top;
}
