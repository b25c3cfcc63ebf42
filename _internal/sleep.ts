/**
 * The library's abortable waits, on the global timers read at call time so a
 * fake clock drives them.
 *
 * @module
 */

/**
 * The longest delay one `setTimeout` keeps: a longer one (or `NaN`) fires at
 * once, so longer waits are chained from timers of at most this length.
 */
export const MAX_TIMER = 2 ** 31 - 1;

/**
 * Waits `ms` milliseconds unless `signal` aborts first; never rejects. Any
 * length is safe: a wait past {@linkcode MAX_TIMER} is chained, and a
 * negative or non-numeric one ends at once.
 *
 * @param ms How long to wait.
 * @param signal Ends the wait early.
 * @returns `true` after the full wait, `false` when the signal ended it.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  let left = ms > 0 ? ms : 0;
  return new Promise<boolean>((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const arm = (): void => {
      const step = Math.min(left, MAX_TIMER);
      left -= step;
      timer = setTimeout(left > 0 ? arm : done, step);
    };
    const done = (): void => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    arm();
  });
}

/**
 * Waits for a promise at most `ms` milliseconds.
 *
 * @param promise What to wait for; it is not cancelled.
 * @param ms The bound.
 * @returns `true` when the promise settled in time.
 */
export function within(
  promise: Promise<unknown>,
  ms: number,
): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), Math.min(ms, MAX_TIMER));
    const settled = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    promise.then(settled, settled);
  });
}
