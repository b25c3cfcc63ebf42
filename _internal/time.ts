// The one formatter of a metav1.Time: the API server stores and answers
// times to the second, so a time written finer would not compare equal to
// the copy it answers (a condition's lastTransitionTime, an Event's
// timestamps, the fake's creationTimestamp).

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
