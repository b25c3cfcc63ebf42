// Defaults and bounds that are not part of the public surface; the option
// docs state their values.

/**
 * Where the kubelet mounts each container's API credentials (the Kubernetes
 * docs, "Accessing the Kubernetes API from a Pod").
 */
export const SERVICE_ACCOUNT_DIR =
  "/var/run/secrets/kubernetes.io/serviceaccount";

/** The default limit of one request, dial to last byte: 30 s. */
export const DEFAULT_TIMEOUT = 30_000;

/**
 * The most a request waits out 429 answers in all, in seconds, before it
 * answers {@linkcode ThrottledError}. While the API server starts the storage
 * of a CRD it just received it answers 429 for a second or two; a request that
 * waits gets the object. A server that throttles longer is overloaded, and the
 * caller's own, longer retry handles it.
 */
export const MAX_THROTTLE_WAIT_SECONDS = 10;

/**
 * The longest wait a server may ask for, in seconds: 60. A `Retry-After`
 * header or a Status's `details.retryAfterSeconds` above it (up to any number,
 * such as `1e9`) reads as 60 s, so a broken server or proxy cannot park a
 * caller for years nor, past a timer's range, make its waits fire at once.
 * It matches the longest backoff of an informer.
 */
export const MAX_RETRY_AFTER_SECONDS = 60;

/** The most warnings an {@linkcode Outcome} carries: 32. */
export const MAX_WARNINGS = 32;

/** The longest warning text an {@linkcode Outcome} carries, in UTF-8 bytes: 1 KiB. */
export const MAX_WARNING_BYTES = 1024;

/**
 * The default limit of one watch line, in characters (UTF-16 code units; a
 * character of the ASCII JSON that API servers send is one byte): 32 Mi. The
 * API server refuses a request body over 3 MiB and etcd stores at most about
 * 1.5 MiB an object, so a line past this is not an object of the API: the
 * stream ends with a {@linkcode MalformedResponseError} rather than buffer it
 * without bound.
 */
export const MAX_LINE_LENGTH = 32 * 1024 * 1024;
