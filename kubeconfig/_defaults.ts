// Defaults and bounds that are not part of the public surface; the option
// docs state their values.

/** The default limit of one exec credential plugin run: 60 s. */
export const DEFAULT_EXEC_TIMEOUT = 60_000;
