/**
 * A faulty network link in front of the fake API server's in-memory fetch,
 * for one candidate of an election test: it can cut the candidate off,
 * refuse its requests, pause it (hold its requests and land them when it
 * resumes), and land its writes late (after the candidate gave up on them).
 *
 * Not part of the package: tests only.
 *
 * @module
 */

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
        const timer = setTimeout(land, ms);
        this.#lateLand.set(timer, land);
      });
    } else {
      answer = send();
    }
    return await raceAbort(answer, signal);
  };
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

/**
 * A small deterministic random source (mulberry32), so a seed replays.
 *
 * @param seed Any 32-bit integer.
 * @returns A function like `Math.random`.
 */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
