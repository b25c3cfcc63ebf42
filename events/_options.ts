/** The recorder's tunables: defaults, bounds, and their resolution. */

import { MAX_TIMER } from "../_internal/sleep.ts";

/** Bounds of `RecorderOptions.queueLength`. */
export const MIN_QUEUE_LENGTH = 1;
/** See {@linkcode MIN_QUEUE_LENGTH}. */
export const MAX_QUEUE_LENGTH = 65_536;

/** Bounds of `RecorderOptions.attempts`. */
export const MIN_ATTEMPTS = 1;
/** See {@linkcode MIN_ATTEMPTS}. */
export const MAX_ATTEMPTS = 100;

/** Bounds of `RecorderOptions.retryWait`, in ms. */
export const MIN_RETRY_WAIT = 100;
/** See {@linkcode MIN_RETRY_WAIT}. */
export const MAX_RETRY_WAIT = 3_600_000;

/**
 * A number option within `[min, max]`: absent, `NaN` or not a number gives
 * the default; a fraction is rounded down when `integer`.
 */
export function bound(
  value: number | undefined,
  fallback: number,
  min: number,
  max: number,
  integer: boolean,
): number {
  if (typeof value !== "number" || Number.isNaN(value)) return fallback;
  const clamped = Math.min(Math.max(value, min), max);
  return integer ? Math.floor(clamped) : clamped;
}

/**
 * The bound of one stop, in ms, or `undefined` for none: absent or `NaN`
 * gives the default, a negative one ends at once, and `Infinity` (or any
 * length past a timer's range) waits for the signal alone.
 */
export function stopTimeout(
  value: number | undefined,
  fallback: number,
): number | undefined {
  if (typeof value !== "number" || Number.isNaN(value)) return fallback;
  if (value > MAX_TIMER) return undefined;
  return Math.max(value, 0);
}

/**
 * Default capacity of the in-memory queue of unwritten Events
 * ({@linkcode RecorderOptions.queueLength}). In normal operation only a
 * handful are ever waiting; hundreds mean the API server is unreachable,
 * and at that point keeping more would only trade memory for Events nobody
 * may ever see, so further posts are dropped and counted.
 */
export const QUEUE_LENGTH = 256;

/**
 * Default total tries per write ({@linkcode RecorderOptions.attempts}).
 * Spaced {@linkcode RETRY_WAIT} apart, three tries span about 20 s, enough
 * to ride out an API server restart while keeping the Events queued behind
 * it from waiting long.
 */
export const ATTEMPTS = 3;

/**
 * Default pause between two tries of one write, in milliseconds
 * ({@linkcode RecorderOptions.retryWait}); the same spacing client-go's
 * event recorder uses.
 */
export const RETRY_WAIT = 10_000;
