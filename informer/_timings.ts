// The timings and limits of the reflector (`_reflector.ts`).
/** The shortest watch timeout asked for; each watch asks for 1× to 2× this. */
export const MIN_WATCH_TIMEOUT_SECONDS = 300;
/** Silence beyond the watch's own timeout after which it is presumed dead. */
export const IDLE_MARGIN = 30_000;
/** Default wait before an absent collection is asked for again. */
export const DEFAULT_ABSENT_RECHECK = 300_000;
/**
 * A watch that closes sooner than this with no event counts as a failure;
 * one that delivered events is opened again no sooner than this after it
 * was opened, so a server that closes every watch after one event meets one
 * watch a second, not thousands. A watch open this long is trusted again.
 */
export const SHORT_WATCH = 1_000;
/**
 * Watches in a row that fail with a bad answer (a line that does not decode,
 * an ERROR event) before the reflector reads the whole collection again.
 */
export const RELIST_AFTER_FAILURES = 3;
/** The bookmark annotation that ends the initial events of a streaming list. */
export const INITIAL_EVENTS_END = "k8s.io/initial-events-end";
