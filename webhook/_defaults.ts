// Defaults and bounds that are not part of the public surface; the option
// docs state their values.

/** The port controller-runtime's webhook server listens on. */
export const WEBHOOK_PORT = 9443;

/** The body limit controller-runtime applies: 7 MiB. */
export const MAX_REVIEW_BYTES: number = 7 * 1024 * 1024;
