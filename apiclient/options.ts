/**
 * The options of {@linkcode Client} and of its requests, with their defaults,
 * and the {@linkcode Outcome} an observer hears.
 *
 * @module
 */

/**
 * Where the kubelet mounts each container's API credentials (the Kubernetes
 * docs, "Accessing the Kubernetes API from a Pod").
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SERVICE_ACCOUNT_DIR } from "@liken/kubernetes/apiclient";
 *
 * assert.equal(SERVICE_ACCOUNT_DIR, "/var/run/secrets/kubernetes.io/serviceaccount");
 * ```
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
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ThrottledError, MAX_RETRY_AFTER_SECONDS } from "@liken/kubernetes/apiclient";
 *
 * const error = new ThrottledError("busy", { method: "GET", path: "/x", status: 429 }, 1e9);
 * assert.equal(error.retryAfterSeconds, MAX_RETRY_AFTER_SECONDS);
 * ```
 */
export const MAX_RETRY_AFTER_SECONDS = 60;

/** The final answer to one request, for an observer. */
export interface Outcome {
  /** The HTTP method. */
  method: string;
  /** The API path. */
  path: string;
  /**
   * The HTTP status of the last answer, or 0 when none came (the connection
   * failed, a signal ended the request, or the write guard refused it).
   */
  status: number;
  /** The error the caller received, or `undefined` on success. */
  error?: unknown;
  /**
   * Milliseconds from the first send to the final answer (`Date.now()`, so a
   * fake clock drives it): the waits after 429s are included; for a watch,
   * until its answer's headers.
   */
  duration: number;
}

/** Options of {@linkcode Client}. */
export interface ClientOptions {
  /**
   * The `fetch` to send with. Default: the global `fetch`, with `httpClient`
   * when one is given. Tests pass the fake API server's in-memory `fetch`.
   */
  fetch?: typeof fetch | undefined;
  /**
   * A `Deno.HttpClient` that the default `fetch` uses (for a cluster CA or a
   * client certificate). The client closes it on dispose. Default: none.
   */
  httpClient?: Deno.HttpClient | undefined;
  /**
   * A directory holding a ServiceAccount `token` file, read on every request
   * (the kubelet rotates it). Absent or empty: no token is sent.
   */
  serviceAccountDir?: string | undefined;
  /**
   * Answers the `Authorization` header value for each request, or `undefined`
   * for none (kubeconfig tokens and exec plugins). Overrides
   * `serviceAccountDir`. Default: none.
   */
  authorization?: (() => Promise<string | undefined>) | undefined;
  /**
   * The limit of one request in milliseconds, dial to last byte. Absent or 0:
   * {@linkcode DEFAULT_TIMEOUT} (30 s). `Infinity`: no limit.
   */
  timeout?: number | undefined;
  /** The namespace the client's pod runs in, when known. Default: none. */
  namespace?: string | undefined;
}

/** Options of one request. */
export interface RequestOptions {
  /** The body, sent as JSON (a string or bytes is sent as is). */
  body?: unknown;
  /** The body's content type. Default `application/json`. */
  contentType?: string | undefined;
  /**
   * The `Accept` header, such as
   * `application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json`
   * for a metadata-only list. Default `application/json`.
   */
  accept?: string | undefined;
  /**
   * Ends this request (in addition to the client's signal), including its
   * wait after a 429, which then answers the 429.
   */
  signal?: AbortSignal | undefined;
}

/** Options of {@linkcode Client.delete}. */
export interface DeleteOptions {
  /** The `DeleteOptions` body (preconditions, propagation policy). */
  body?: unknown;
  /** Ends this request. */
  signal?: AbortSignal | undefined;
}

/** Options of {@linkcode Client.apply}. */
export interface ApplyOptions {
  /** The field manager whose fields the applied object states. Required. */
  fieldManager: string;
  /** Take fields other managers own. Default `false`. */
  force?: boolean | undefined;
  /** Ends this request. */
  signal?: AbortSignal | undefined;
}

/** Options of {@linkcode Client.patch}. */
export interface PatchOptions {
  /**
   * The patch dialect: `merge` (RFC 7386), `json` (RFC 6902), `apply`
   * (server-side apply) or `strategic`. The API server reads the dialect from
   * the content type alone (the Kubernetes API docs name one content type per
   * dialect), so it must be stated.
   */
  type: "merge" | "json" | "apply" | "strategic";
  /** The field manager, required by `apply`. Default: none. */
  fieldManager?: string | undefined;
  /** For `apply`: take fields other managers own. Default `false`. */
  force?: boolean | undefined;
  /** Ends this request. */
  signal?: AbortSignal | undefined;
}

/** Options of {@linkcode Client.watch}. */
export interface WatchOptions {
  /** Ends the watch. */
  signal?: AbortSignal | undefined;
  /**
   * Milliseconds the server may stay silent, while the stream waits for it,
   * before the watch is presumed dead and ends with a `WatchIdleError`.
   * Absent, 0 or `Infinity`: no limit. A watch has no total timeout.
   */
  idleTimeout?: number | undefined;
  /**
   * The longest event line the watch takes, in characters; a longer one ends
   * the stream with a `MalformedResponseError`. Absent or 0: 32 Mi
   * (`MAX_LINE_LENGTH`).
   */
  maxLineLength?: number | undefined;
  /**
   * The `Accept` header, such as
   * `application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json`
   * for a metadata-only watch. Default `application/json`.
   */
  accept?: string | undefined;
}

/** Options of {@linkcode Client.inCluster}. */
export interface InClusterOptions {
  /**
   * The directory holding `ca.crt`, `token` and `namespace`. Default
   * {@linkcode SERVICE_ACCOUNT_DIR}.
   */
  serviceAccountDir?: string | undefined;
  /**
   * The API server's URL, such as `https://127.0.0.1:6443`. Default: the
   * address `KUBERNETES_SERVICE_HOST` and `KUBERNETES_SERVICE_PORT` name. A
   * host-network pod on a control-plane machine can name its own loopback,
   * where a dead remote server cannot hold a connection.
   */
  server?: string | undefined;
  /**
   * The limit of one request in milliseconds. Absent or 0: 30 s. A leader
   * whose Lease another copy can take sets a shorter one.
   */
  timeout?: number | undefined;
}
