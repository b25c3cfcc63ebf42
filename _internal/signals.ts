/**
 * Signal helpers shared by the modules.
 *
 * @module
 */

import { MAX_TIMER } from "./sleep.ts";

/**
 * Combines an optional signal with another.
 *
 * @param signal The first signal, if any.
 * @param other The second signal.
 * @returns A signal that aborts when either does.
 */
export function join(
  signal: AbortSignal | undefined,
  other: AbortSignal,
): AbortSignal {
  return signal === undefined ? other : AbortSignal.any([signal, other]);
}

/** A signal that aborts after a time or with a parent; clear it when done. */
export interface Bounded {
  /** Aborts at the bound, or with the parent signal. */
  signal: AbortSignal;
  /** Clears the timer and the listener on the parent. */
  clear(): void;
}

/**
 * A signal bounded in time, built from `setTimeout` rather than
 * `AbortSignal.timeout` (which sinon's fake clock does not drive).
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
  }, Math.min(ms, MAX_TIMER));
  return {
    signal: controller.signal,
    clear(): void {
      clearTimeout(timer);
      parent?.removeEventListener("abort", onAbort);
    },
  };
}

/**
 * The one way a long-lived object follows its `signal` option: an aborted
 * signal calls `stop` at once, a later abort calls it then.
 *
 * @param signal The object's signal, if any.
 * @param stop Starts the object's stop (its promise is the caller's).
 * @returns Removes the listener (call it once the object has stopped).
 */
export function stopOnAbort(
  signal: AbortSignal | undefined,
  stop: () => void,
): () => void {
  if (signal === undefined) return () => {};
  if (signal.aborted) {
    stop();
    return () => {};
  }
  signal.addEventListener("abort", stop, { once: true });
  return () => signal.removeEventListener("abort", stop);
}
