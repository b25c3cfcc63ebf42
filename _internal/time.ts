// The formatters of the API server's two time types, one copy each: a
// metav1.Time is stored to the second, so a time written finer would not
// compare equal to the copy the server answers (a condition's
// lastTransitionTime, an Event's timestamps, the fake's creationTimestamp);
// a metav1.MicroTime (a Lease's times) has six fractional digits.

/**
 * Formats epoch milliseconds as RFC 3339 in UTC, cut to the second, as the
 * API server writes a `metav1.Time`: such as `2030-01-01T00:00:05Z`.
 *
 * @param ms Epoch milliseconds. Default: now (`Date.now()`, read at call time).
 * @returns The time.
 */
export function rfc3339(ms: number = Date.now()): string {
  const seconds = Math.floor(ms / 1000) * 1000;
  return new Date(seconds).toISOString().replace(/\.000Z$/, "Z");
}

/**
 * Formats a time as RFC 3339 in UTC with six fractional digits, as the API
 * server writes a `metav1.MicroTime`: such as `2026-12-02T11:38:29.123000Z`
 * (milliseconds are all a `Date` has; the last three digits are zero).
 *
 * @param at Epoch milliseconds or a `Date`. Default: now (read at call time).
 * @returns The time.
 */
export function microTime(at: number | Date = Date.now()): string {
  const ms = typeof at === "number" ? at : at.getTime();
  return new Date(ms).toISOString().replace(/Z$/, "000Z");
}
