/**
 * A fetch that holds requests, for the tests of stops: a test keeps a
 * request in flight, stops the object that sent it, and checks that no
 * request is left open once the stop has resolved.
 *
 * Not part of the package: tests only.
 *
 * @module
 */

/** Which requests a closed {@linkcode Gate} holds: by method and URL. */
export type GateMatch = (method: string, url: URL) => boolean;

/** One request the gate holds. */
interface Held {
  what: string;
  go(): void;
}

/**
 * A fetch that holds requests while closed, so a test can keep a write in
 * flight; an aborted request rejects at once, as a real one does.
 */
export class Gate {
  #inner: typeof fetch;
  #match: GateMatch | undefined;
  #waiting = new Set<Held>();
  /** Requests that reached the gate. */
  arrived = 0;
  /** `METHOD path` of each request the gate held, in order. */
  readonly log: string[] = [];

  /**
   * Wraps a fetch.
   *
   * @param inner The fetch that answers the requests let through.
   */
  constructor(inner: typeof fetch) {
    this.#inner = inner;
  }

  /**
   * Holds the requests that arrive from now on: every one, or those
   * `match` accepts.
   *
   * @param match Which requests to hold; default every one.
   */
  close(match: GateMatch = () => true): void {
    this.#match = match;
  }

  /** Lets the held requests go on, and holds no more. */
  open(): void {
    this.#match = undefined;
    for (const held of [...this.#waiting]) held.go();
  }

  /** How many requests the gate holds now (an aborted one is not held). */
  get held(): number {
    return this.#waiting.size;
  }

  /** `METHOD path` of each request the gate holds now. */
  holding(): string[] {
    return [...this.#waiting].map((held) => held.what);
  }

  /** The wrapped fetch. */
  fetch: typeof fetch = (input, init) => {
    this.arrived++;
    const match = this.#match;
    const method = init?.method ??
      (input instanceof Request ? input.method : "GET");
    const url = new URL(input instanceof Request ? input.url : input);
    if (match === undefined || !match(method, url)) {
      return this.#inner(input, init);
    }
    const signal = init?.signal ?? undefined;
    const what = `${method} ${url.pathname}`;
    this.log.push(what);
    return new Promise<Response>((resolve, reject) => {
      const held: Held = {
        what,
        go: (): void => {
          this.#waiting.delete(held);
          signal?.removeEventListener("abort", onAbort);
          resolve(this.#inner(input, init));
        },
      };
      const onAbort = (): void => {
        this.#waiting.delete(held);
        reject(signal?.reason);
      };
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      this.#waiting.add(held);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  };
}

/** The clock {@linkcode settledWithin} moves: the testing module's FakeTime. */
export interface Ticking {
  tick(ms: number): Promise<void>;
  now(): number;
}

/**
 * Moves fake time in steps until `promise` settles (a stop, say), and
 * answers the fake milliseconds it took; throws when it has not settled
 * within `limit`. What was held can be checked right after, before the
 * clock moves on.
 *
 * @param time The fake clock.
 * @param promise What to wait for.
 * @param limit The most fake time to give it.
 * @param step How far each tick moves the clock.
 * @returns The fake milliseconds until it settled.
 */
export async function settledWithin(
  time: Ticking,
  promise: Promise<unknown>,
  limit: number,
  step = 100,
): Promise<number> {
  let settled = false;
  const watched = promise.then(
    () => void (settled = true),
    () => void (settled = true),
  );
  const start = time.now();
  // Microtasks first: a promise already settled needs no tick.
  await Promise.resolve();
  await Promise.resolve();
  while (!settled) {
    if (time.now() - start >= limit) {
      throw new Error(`Not settled within ${limit} ms of fake time`);
    }
    await time.tick(step);
  }
  await watched;
  return time.now() - start;
}
