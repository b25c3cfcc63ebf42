/**
 * The library's one abortable wait, on the global timers read at call time
 * so a fake clock drives it.
 *
 * @module
 */

/**
 * Waits `ms` milliseconds unless `signal` aborts first; never rejects.
 *
 * @param ms How long to wait.
 * @param signal Ends the wait early.
 * @returns `true` after the full wait, `false` when the signal ended it.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise<boolean>((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
