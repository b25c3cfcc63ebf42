// The retry delays of a work queue, as client-go's default controller rate
// limiter computes them: the larger of a per-key exponential backoff and an
// overall token bucket.

/** Clamps an outside number to a finite value in `[min, max]`. */
export function clamp(value: number, min: number, max: number): number {
  if (Number.isNaN(value)) return min;
  return Math.min(Math.max(value, min), max);
}

/** Per-key failure counts and the backoff they give. */
export class ExponentialBackoff {
  #base: number;
  #max: number;
  #failures = new Map<string, number>();

  constructor(base: number, max: number) {
    this.#base = base;
    this.#max = max;
  }

  /** The delay of the key's next retry; counts one more failure. */
  when(key: string): number {
    const failures = this.#failures.get(key) ?? 0;
    this.#failures.set(key, failures + 1);
    // 2^1024 is Infinity, so a long run of failures stays at the cap.
    return Math.min(this.#base * 2 ** failures, this.#max);
  }

  /** How many failures the key has now. */
  failures(key: string): number {
    return this.#failures.get(key) ?? 0;
  }

  /** Forgets the key's failures (it succeeded). */
  forget(key: string): void {
    this.#failures.delete(key);
  }
}

/**
 * A token bucket: `burst` tokens, refilled at `qps` a second. A take that
 * finds no token reserves the next one and answers the wait for it, as
 * golang.org/x/time/rate's `Reserve` does.
 */
export class TokenBucket {
  #qps: number;
  #burst: number;
  #tokens: number;
  #last: number;

  constructor(qps: number, burst: number) {
    this.#qps = qps;
    this.#burst = burst;
    this.#tokens = burst;
    this.#last = Date.now();
  }

  /** Takes one token; answers the milliseconds until it is there. */
  take(): number {
    if (this.#qps === Infinity) return 0;
    const now = Date.now();
    // A clock that went back refills nothing.
    const elapsed = Math.max(0, now - this.#last);
    this.#last = now;
    this.#tokens = Math.min(
      this.#burst,
      this.#tokens + (elapsed * this.#qps) / 1000,
    );
    this.#tokens -= 1;
    return this.#tokens >= 0 ? 0 : (-this.#tokens * 1000) / this.#qps;
  }
}
