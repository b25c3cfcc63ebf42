/**
 * Abortable waits on the global timers, read at call time so a fake clock
 * drives them.
 *
 * @module
 */

export { sleep } from "../apiclient/_sleep.ts";

/** A signal that aborts after a time or with a parent; clear it when done. */
export interface Bounded {
  /** Aborts at the bound, or with the parent signal. */
  signal: AbortSignal;
  /** Clears the timer and the listener on the parent. */
  clear(): void;
}

/**
 * A signal bounded in time, built from `setTimeout` (not
 * `AbortSignal.timeout`, which fake clocks do not drive).
 *
 * @param ms The bound.
 * @param what Names the bound in the timeout's message.
 * @param parent Aborts the result too.
 * @returns The signal and its clear function.
 */
export function bounded(
  ms: number,
  what: string,
  parent?: AbortSignal,
): Bounded {
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(parent?.reason);
  if (parent?.aborted) controller.abort(parent.reason);
  else parent?.addEventListener("abort", onAbort, { once: true });
  const timer = setTimeout(() => {
    controller.abort(
      new DOMException(`${what} took longer than ${ms} ms`, "TimeoutError"),
    );
  }, ms);
  return {
    signal: controller.signal,
    clear(): void {
      clearTimeout(timer);
      parent?.removeEventListener("abort", onAbort);
    },
  };
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
    const timer = setTimeout(() => resolve(false), ms);
    promise.then(
      () => {
        clearTimeout(timer);
        resolve(true);
      },
      () => {
        clearTimeout(timer);
        resolve(true);
      },
    );
  });
}
