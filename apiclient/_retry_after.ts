// The wait a server asks for, bounded: any number it states (up to 1e9 and
// beyond) reads as at most MAX_RETRY_AFTER_SECONDS.
import type { Status } from "./types.ts";
import { MAX_RETRY_AFTER_SECONDS } from "./_limits.ts";

/** A stated wait within 0 and {@linkcode MAX_RETRY_AFTER_SECONDS}. */
export function boundedWait(seconds: number): number {
  return seconds > 0 ? Math.min(seconds, MAX_RETRY_AFTER_SECONDS) : 0;
}

/**
 * A Status's `details.retryAfterSeconds` as a bounded whole number of
 * seconds, or 0 when it states none (or not a positive number).
 */
export function statedRetryAfter(status: Status | undefined): number {
  const stated = status?.details?.retryAfterSeconds;
  return typeof stated === "number" ? boundedWait(Math.floor(stated)) : 0;
}
