/**
 * The options of {@linkcode Client} and of its requests, with their defaults,
 * and the {@linkcode Outcome} an observer hears.
 *
 * @module
 */

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
  /**
   * The texts of the last answer's `Warning` headers (RFC 7234, `299 -
   * "text"`), such as a deprecated API version or an unknown field under
   * `fieldValidation: "Warn"`; absent when it had none. As client-go does,
   * only code 299 counts. Bounded: at most 32 texts,
   * each cut to 1 KiB of UTF-8.
   */
  warnings?: string[] | undefined;
}

/** Options of {@linkcode Client}. */
export interface ClientOptions {
  /**
   * The `fetch` to send with. Default: the global `fetch`, with `httpClient`
   * when one is given. Tests pass the fake API server's in-memory `fetch`.
   */
  fetch?: typeof fetch | undefined;
  /**
   * The `Deno.HttpClient` that `fetch` sends through (for a cluster CA or a
   * client certificate), or a function that makes one. The client closes it
   * on dispose. Default: none (the global pool).
   *
   * Give a function so that the client can replace a dead connection. Deno's
   * fetch speaks HTTP/2 to the API server: one `Deno.HttpClient` holds one
   * TCP connection, which carries every request and watch of the client
   * (and of the clients derived from it, such as a Lease's). When that
   * connection goes silent without closing (a network path that drops its
   * packets, a NAT or load balancer that lost its state), the pool would
   * send every later request down it until the kernel gives up on it
   * (minutes; indefinitely if something in the path still acknowledges):
   * no renewal, no relist. With a function, a request that gets no answer
   * within `timeout` or its caller's limit (a signal aborted with a
   * `TimeoutError`, as the elector's on each Lease request), or a watch that
   * falls silent past its `idleTimeout` or is cancelled with a
   * `WatchIdleError` (the informer's heartbeat), makes the client call it
   * again for a new pool, at most once per 5 s; the next request dials a
   * new connection, and requests in flight on the old one go on until they
   * end. This does what client-go's HTTP/2
   * health check (a PING after 30 s of silence, the connection closed 15 s
   * later without an answer) does, from the timeouts the client already
   * has: Deno's fetch sends no PING. `kubeconfig` and the in-cluster
   * configuration give a function. With `fetch` given too, `fetch` gets the
   * current one as `init.client`.
   */
  httpClient?: Deno.HttpClient | (() => Deno.HttpClient) | undefined;
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
   * 30 s. `Infinity`: no limit.
   */
  timeout?: number | undefined;
  /** The namespace the client's pod runs in, when known. Default: none. */
  namespace?: string | undefined;
  /**
   * Hears each text of an answer's `Warning` headers (see
   * {@linkcode Outcome.warnings}), with the request's outcome, before the
   * observers hear it; every client derived from this one shares it. One
   * that throws changes nothing. Default: none (kubectl prints them as
   * `Warning: text`; client-go logs them).
   */
  onWarning?: ((text: string, outcome: Outcome) => void) | undefined;
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

/** Options of a read of one object ({@linkcode Client.get}). */
export interface GetOptions {
  /**
   * The `Accept` header, such as
   * `application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json`
   * for metadata only. Default `application/json`.
   */
  accept?: string | undefined;
  /** Ends this request. */
  signal?: AbortSignal | undefined;
}

/**
 * Options of a read of a collection (`ResourceClient.list`), sent as its
 * query (the Kubernetes API docs, "API concepts": efficient detection of
 * changes, retrieving large results in chunks).
 */
export interface ListOptions extends GetOptions {
  /** A label selector, such as `app=web`. Default: every object. */
  labelSelector?: string | undefined;
  /** A field selector, such as `metadata.name=web`. Default: every object. */
  fieldSelector?: string | undefined;
  /** The most objects of one page; the answer's `metadata.continue` asks for the next. Default: all. */
  limit?: number | undefined;
  /** The `metadata.continue` of the page before. */
  continue?: string | undefined;
  /**
   * The version the answer may not be older than (`"0"`: any, from the
   * watch cache). Default: the newest, read from etcd.
   */
  resourceVersion?: string | undefined;
  /** How `resourceVersion` binds: `NotOlderThan` or `Exact`. Default: the server's. */
  resourceVersionMatch?: "NotOlderThan" | "Exact" | undefined;
}

/**
 * The options every write shares, sent as its query. The API server names
 * them (the Kubernetes API docs, "API concepts": dry-run, field validation,
 * field management).
 */
export interface WriteOptions {
  /**
   * `All`: the server checks and admits the write, then stores nothing and
   * answers the object as it would have stored it. Default: none.
   */
  dryRun?: "All" | undefined;
  /**
   * What the server does with a field the schema does not know, or a field
   * set twice: `Strict` refuses the write, `Warn` takes it and answers a
   * `Warning` header, `Ignore` drops it. Default: the server's (`Warn`
   * since Kubernetes 1.27).
   */
  fieldValidation?: "Strict" | "Warn" | "Ignore" | undefined;
  /**
   * The field manager the written fields are recorded under. Default: the
   * server derives one from the `User-Agent`.
   */
  fieldManager?: string | undefined;
  /** Ends this request. */
  signal?: AbortSignal | undefined;
}

/** Options of {@linkcode Client.delete}. */
export interface DeleteOptions {
  /**
   * The `DeleteOptions` body as it is, for a field the options below do not
   * name. Not together with them.
   */
  body?: unknown;
  /** Delete only the object with this `uid`, or at this `resourceVersion`; else 409. */
  preconditions?: Preconditions | undefined;
  /**
   * What happens to the objects this one owns: `Background` (the garbage
   * collector deletes them after), `Foreground` (this one waits for them) or
   * `Orphan` (they stay). Default: the kind's (`Background` for most).
   */
  propagationPolicy?: "Background" | "Foreground" | "Orphan" | undefined;
  /** Seconds before a pod is killed; 0 at once. Default: the object's. */
  gracePeriodSeconds?: number | undefined;
  /** `All`: the server checks the delete and deletes nothing. Default: none. */
  dryRun?: "All" | undefined;
  /** Ends this request. */
  signal?: AbortSignal | undefined;
}

/** The preconditions of a delete: it happens only when each stated one holds. */
export interface Preconditions {
  /** The object's `metadata.uid`: not a new object of the same name. */
  uid?: string | undefined;
  /** The object's `metadata.resourceVersion`: not changed since it was read. */
  resourceVersion?: string | undefined;
}

/** Options of {@linkcode Client.apply}. */
export interface ApplyOptions extends WriteOptions {
  /** The field manager whose fields the applied object states. Required. */
  fieldManager: string;
  /** Take fields other managers own. Default `false`. */
  force?: boolean | undefined;
}

/** Options of {@linkcode Client.patch}. */
export interface PatchOptions extends WriteOptions {
  /**
   * The patch dialect: `merge` (RFC 7386), `json` (RFC 6902), `apply`
   * (server-side apply) or `strategic`. The API server reads the dialect from
   * the content type alone (the Kubernetes API docs name one content type per
   * dialect), so it must be stated.
   */
  type: "merge" | "json" | "apply" | "strategic";
  /** For `apply`: take fields other managers own. Default `false`. */
  force?: boolean | undefined;
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
   * characters.
   */
  maxLineLength?: number | undefined;
  /**
   * The `Accept` header, such as
   * `application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json`
   * for a metadata-only watch. Default `application/json`.
   */
  accept?: string | undefined;
}

/**
 * Options of a watch of a collection (`ResourceClient.watch`): the query the
 * API server reads (the Kubernetes API docs, "API concepts": efficient
 * detection of changes, watch bookmarks, streaming lists), and the stream's
 * own options.
 */
export interface ResourceWatchOptions extends WatchOptions {
  /**
   * The version to watch from: events after it. Default: the server's
   * choice (for a watch without `sendInitialEvents`, "any": the watch
   * starts with an ADDED for each object it holds).
   */
  resourceVersion?: string | undefined;
  /** How `resourceVersion` binds; `NotOlderThan` with `sendInitialEvents`. */
  resourceVersionMatch?: "NotOlderThan" | "Exact" | undefined;
  /**
   * Send every object first, then a bookmark annotated
   * `k8s.io/initial-events-end` (a streaming list). Default: not sent.
   */
  sendInitialEvents?: boolean | undefined;
  /** Ask for BOOKMARK events that carry the newest version. Default: not sent. */
  allowWatchBookmarks?: boolean | undefined;
  /** Seconds after which the server ends the watch. Default: the server's (30 to 60 min). */
  timeoutSeconds?: number | undefined;
  /** A label selector, such as `app=web`. Default: every object. */
  labelSelector?: string | undefined;
  /** A field selector, such as `metadata.name=web`. Default: every object. */
  fieldSelector?: string | undefined;
}

/** Options of {@linkcode Client.inCluster}. */
export interface InClusterOptions {
  /**
   * The directory holding `ca.crt`, `token` and `namespace`. Default
   * `/var/run/secrets/kubernetes.io/serviceaccount`.
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
  /** Hears each `Warning` header text, as {@linkcode ClientOptions.onWarning}. Default: none. */
  onWarning?: ClientOptions["onWarning"];
}
