/**
 * The reflector's backoff, as client-go's: 800 ms doubling to a 30 s base,
 * each wait jittered up to twice its base (so the longest wait is 60 s), and
 * back to 800 ms once two minutes passed since the last backoff began.
 */
export const INITIAL_BACKOFF = 800;
/** The largest base of a wait; the jitter can double it. */
export const MAX_BACKOFF = 30_000;
/** The quiet time after which the next failure starts from the initial wait. */
export const BACKOFF_RESET = 120_000;

/** Exponential backoff with jitter and a reset after a healthy stretch. */
export class Backoff {
  #base = INITIAL_BACKOFF;
  #lastStart: number | undefined;
  #random: (() => number) | undefined;

  /** `random` is for tests; absent, `Math.random` is read at each call. */
  constructor(random?: () => number) {
    this.#random = random;
  }

  /**
   * The next wait in milliseconds. `now` defaults to `Date.now()`, read at
   * call time so a fake clock drives it.
   */
  next(now: number = Date.now()): number {
    if (
      this.#lastStart !== undefined && now - this.#lastStart > BACKOFF_RESET
    ) {
      this.#base = INITIAL_BACKOFF;
    }
    this.#lastStart = now;
    const base = this.#base;
    this.#base = Math.min(base * 2, MAX_BACKOFF);
    const draw = this.#random ?? Math.random;
    return Math.round(base + draw() * base);
  }
}
