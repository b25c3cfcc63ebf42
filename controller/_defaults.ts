// Defaults and bounds that are not part of the public surface; the option
// docs state their values.

/** The default first retry delay of a key: 5 ms (client-go's). */
export const DEFAULT_BASE_DELAY = 5;

/** The default longest retry delay of a key: 1,000 s (client-go's). */
export const DEFAULT_MAX_DELAY = 1_000_000;

/** The default overall retry rate: 10 a second (client-go's). */
export const DEFAULT_QPS = 10;

/** The default burst of retries above the rate: 100 (client-go's). */
export const DEFAULT_BURST = 100;

/** The default bound of {@linkcode WorkQueue.stop}: 30 s. */
export const DEFAULT_STOP_TIMEOUT = 30_000;

/** The longest delay `addAfter` accepts; longer ones are cut to this. */
export const MAX_ADD_AFTER = 7 * 24 * 60 * 60 * 1000;

/** The shortest resync period: 1 s. */
export const MIN_RESYNC = 1_000;

/** How often a finalizer patch is tried against concurrent writers. */
export const FINALIZER_ATTEMPTS = 5;
