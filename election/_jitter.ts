// Defaults and bounds that are not part of the public surface; the option
// docs state their values.

/**
 * The jitter factor of a waiting copy's retry, as client-go's: it reads the
 * Lease every `RETRY_PERIOD` plus up to 1.2 periods, 5 to 11 s, so copies
 * that started together do not stay in step.
 */
export const JITTER_FACTOR = 1.2;
