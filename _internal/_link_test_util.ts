/**
 * Faults for election tests. A faulty network link in front of the fake API
 * server's in-memory fetch, for one candidate: it can cut the candidate off,
 * refuse its requests, lose their answers after the server applied them,
 * hold its requests and land them when it resumes, and land its writes late
 * (after the candidate gave up on them). And a pausable process: while it is
 * paused, its timers and the answers to its requests wait, as on a stopped
 * node, and run when it resumes.
 *
 * Not part of the package: tests only.
 *
 * @module
 */

import { AsyncLocalStorage } from "node:async_hooks";

const current = new AsyncLocalStorage<Process>();

type Handle = ReturnType<typeof setTimeout>;

/**
 * A process of the simulation. Code started with {@linkcode Process.run}
 * belongs to it, and so do the timers that code sets (through the timers of
 * {@linkcode installProcessTimers}) and, through its link, the answers to its
 * requests. While paused, all of those wait; on resume they run in the order
 * they came due, each after the previous one's promises settled.
 */
export class Process {
  /**
   * How fast this process's clock runs against the test's clock: `1.05`
   * runs 5% fast. Its `Date.now()` and its timers follow it (see
   * {@linkcode installProcessTimers}).
   */
  rate = 1;
  /** The instant at which this process's clock agrees with the test's. */
  origin = 0;
  #paused = false;
  #queue: { run: () => void; handle?: Handle }[] = [];

  /** Whether the process is paused. */
  get paused(): boolean {
    return this.#paused;
  }

  /**
   * Runs `fn` as this process.
   *
   * @param fn What to run.
   * @returns What `fn` returned.
   */
  run<T>(fn: () => T): T {
    return current.run(this, fn);
  }

  /**
   * Runs `fn` as this process now, or on resume when paused.
   *
   * @param fn What to run.
   * @param handle The timer it belongs to, so a clear drops it.
   */
  deliver(fn: () => void, handle?: Handle): void {
    if (this.#paused) this.#queue.push({ run: fn, ...handle && { handle } });
    else this.run(fn);
  }

  /** Stops the process: nothing of it runs until {@linkcode Process.resume}. */
  pause(): void {
    this.#paused = true;
  }

  /** Runs what came due while paused, one item per zero-delay timer. */
  resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    const queue = this.#queue;
    this.#queue = [];
    for (const item of queue) {
      // The timer is the fake clock's own (not routed through a process).
      (baseTimers?.setTimeout ?? setTimeout)(() => {
        if (item.handle && cleared.delete(item.handle)) return;
        this.run(item.run);
      }, 0);
    }
  }
}

/**
 * Runs `fn` outside every process, such as the kubelet's restart of one.
 *
 * @param fn What to run.
 * @returns What `fn` returned.
 */
export function outsideProcesses<T>(fn: () => T): T {
  return current.exit(fn);
}

/** Timers cleared while their callback waited in a paused process. */
const cleared = new Set<Handle>();
let baseTimers:
  | { setTimeout: typeof setTimeout; clearTimeout: typeof clearTimeout }
  | undefined;

/**
 * Routes each timer set by code of a {@linkcode Process} through it, so a
 * paused process's timers wait, and runs its clock at its `rate`: its
 * `Date.now()` reads `origin + (now - origin) * rate`, and a timer of `ms`
 * fires after `ms / rate` of the test's time. Install it after the fake
 * clock, and dispose it before the clock.
 *
 * @returns Puts the timers back.
 */
export function installProcessTimers(): Disposable {
  const base = {
    setTimeout: globalThis.setTimeout,
    clearTimeout: globalThis.clearTimeout,
  };
  baseTimers = base;
  const baseNow = Date.now;
  Date.now = (): number => {
    const now = baseNow.call(Date);
    const process = current.getStore();
    if (!process || process.rate === 1) return now;
    return Math.round(process.origin + (now - process.origin) * process.rate);
  };
  globalThis.setTimeout = ((
    callback: (...args: unknown[]) => void,
    ms?: number,
    ...args: unknown[]
  ): Handle => {
    const process = current.getStore();
    if (!process) return base.setTimeout(callback, ms, ...args);
    const wait = process.rate === 1 ? ms : Math.max(0, ms ?? 0) / process.rate;
    const handle: Handle = base.setTimeout(
      () => process.deliver(() => callback(...args), handle),
      wait,
    );
    return handle;
  }) as typeof setTimeout;
  globalThis.clearTimeout = ((handle?: Handle): void => {
    if (handle !== undefined) cleared.add(handle);
    base.clearTimeout(handle);
  }) as typeof clearTimeout;
  return {
    [Symbol.dispose](): void {
      globalThis.setTimeout = base.setTimeout;
      globalThis.clearTimeout = base.clearTimeout;
      Date.now = baseNow;
      baseTimers = undefined;
      cleared.clear();
    },
  };
}

/** One request the link holds, and how to let it go. */
interface Held {
  land(): void;
}

/** A fetch wrapper with faults that a test switches on and off. */
export class FaultyLink {
  /** Requests fail as a refused connection (no answer, status 0). */
  partitioned = false;
  /** Requests are answered here with this status (0: off). */
  refusing = 0;
  /** Each write is sent to the server this many ms late (0: off). */
  lateWrites = 0;
  /**
   * Requests reach the server, which applies them, but their answers are
   * lost: the caller sees a reset connection.
   */
  loseAnswers = false;
  /**
   * Each answer arrives this many ms after the server applied the request
   * (0: at once), so a request can be in flight when its process pauses.
   */
  latency = 0;
  /** The process whose answers wait while it is paused. */
  process: Process | undefined;
  /** Called at each request and at each answer delivered. */
  onEvent: (() => void) | undefined;
  /** Requests held while paused; sent when the link resumes. */
  #held: Held[] = [];
  #paused = false;
  #lateLand = new Map<ReturnType<typeof setTimeout>, () => void>();
  #inner: typeof fetch;
  /** Requests that reached the server, by method. */
  sent: Record<string, number> = {};
  /** Requests the server has not answered yet. */
  active = 0;

  /**
   * Wraps a fetch.
   *
   * @param inner The fake API server's fetch.
   */
  constructor(inner: typeof fetch) {
    this.#inner = inner;
  }

  /** Holds every request from now on. */
  pause(): void {
    this.#paused = true;
  }

  /** Sends the held requests (they land late) and stops holding. */
  resume(): void {
    this.#paused = false;
    const held = this.#held;
    this.#held = [];
    for (const h of held) h.land();
  }

  /** Ends every fault, landing whatever is held or late now. */
  heal(): void {
    this.partitioned = false;
    this.refusing = 0;
    this.lateWrites = 0;
    this.loseAnswers = false;
    this.resume();
    for (const [timer, land] of this.#lateLand) {
      clearTimeout(timer);
      land();
    }
    this.#lateLand.clear();
  }

  /** Whether requests are held or late. */
  get pending(): number {
    return this.#held.length + this.#lateLand.size;
  }

  /** The wrapped fetch. */
  readonly fetch: typeof fetch = async (input, init) => {
    this.onEvent?.();
    const request = new Request(input, init);
    const signal = init?.signal ?? undefined;
    if (signal?.aborted) throw signal.reason;
    if (this.partitioned) {
      throw new TypeError("Connection refused (test partition)");
    }
    if (this.refusing) {
      return Response.json({
        kind: "Status",
        apiVersion: "v1",
        status: "Failure",
        reason: this.refusing === 403 ? "Forbidden" : "InternalError",
        code: this.refusing,
        message: "refused by the test",
      }, { status: this.refusing });
    }
    const body = request.method === "GET" || request.method === "HEAD"
      ? undefined
      : await request.text();
    // The server receives a copy without the caller's signal: a request the
    // caller gave up on can still land.
    const send = (): Promise<Response> => {
      this.sent[request.method] = (this.sent[request.method] ?? 0) + 1;
      this.active++;
      return this.#inner(request.url, {
        method: request.method,
        headers: request.headers,
        ...(body === undefined ? {} : { body }),
      }).finally(() => this.active--);
    };
    let answer: Promise<Response>;
    if (this.#paused) {
      answer = new Promise<Response>((resolve, reject) => {
        this.#held.push({ land: () => send().then(resolve, reject) });
      });
    } else if (this.lateWrites && request.method !== "GET") {
      const ms = this.lateWrites;
      answer = new Promise<Response>((resolve, reject) => {
        const land = (): void => {
          this.#lateLand.delete(timer);
          send().then(resolve, reject);
        };
        const timer = outsideProcesses(() => setTimeout(land, ms));
        this.#lateLand.set(timer, land);
      });
    } else {
      answer = send();
    }
    if (this.latency) {
      const ms = this.latency;
      const applied = answer;
      // The network's timer, not the process's: it runs while it is paused.
      answer = outsideProcesses(() =>
        applied.then((response) =>
          new Promise<Response>((resolve) => setTimeout(resolve, ms, response))
        )
      );
    }
    if (this.loseAnswers) {
      answer = answer.then(async (response) => {
        await response.body?.cancel();
        throw new TypeError("Connection reset (test: answer lost)");
      });
    }
    const process = this.process;
    if (process) {
      // A paused process takes in its answers, and each chunk of their
      // bodies (a watch's events), when it resumes.
      const arrived = answer;
      answer = new Promise<Response>((resolve, reject) => {
        arrived.then(
          (response) =>
            process.deliver(() => resolve(gated(response, process))),
          (error) => process.deliver(() => reject(error)),
        );
      });
    }
    const answered = await raceAbort(answer, signal);
    this.onEvent?.();
    return answered;
  };
}

/**
 * The response with its body read through the process: a chunk that arrives
 * while the process is paused is taken in when it resumes, so a paused
 * process's watches hand it nothing (no handler runs, no reconcile starts).
 */
function gated(response: Response, process: Process): Response {
  const upstream = response.body;
  if (upstream === null) return response;
  const reader = upstream.getReader();
  const body = new ReadableStream<Uint8Array>({
    pull: (controller) =>
      new Promise<void>((resolve) => {
        const settle = (step: () => void): void =>
          process.deliver(() => {
            try {
              step();
            } catch {
              // Cancelled meanwhile: nobody reads it.
            }
            resolve();
          });
        reader.read().then(
          ({ value, done }) =>
            settle(() => done ? controller.close() : controller.enqueue(value)),
          (error) => settle(() => controller.error(error)),
        );
      }),
    cancel: (reason) => reader.cancel(reason),
  }, { highWaterMark: 0 });
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/** Answers `answer`, or rejects when `signal` aborts first (and drops it). */
function raceAbort(
  answer: Promise<Response>,
  signal: AbortSignal | undefined,
): Promise<Response> {
  if (!signal) return answer;
  return new Promise<Response>((resolve, reject) => {
    let done = false;
    const onAbort = (): void => {
      if (done) return;
      done = true;
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    answer.then(
      (response) => {
        signal.removeEventListener("abort", onAbort);
        if (done) {
          // The caller gave up: consume the answer nobody reads.
          response.body?.cancel().catch(() => {});
          return;
        }
        done = true;
        resolve(response);
      },
      (error) => {
        signal.removeEventListener("abort", onAbort);
        if (done) return;
        done = true;
        reject(error);
      },
    );
  });
}
