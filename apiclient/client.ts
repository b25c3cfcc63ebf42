import {
  ApiError,
  type ApiErrorOptions,
  ConflictError,
  MalformedResponseError,
  NotFoundError,
  RequestTimeoutError,
  ThrottledError,
  WriteRefusedError,
} from "./errors.ts";
import type { KubeObject, Status } from "./types.ts";
import { WatchStream } from "./watch.ts";
import { type Deadline, Deadlines } from "./_deadlines.ts";
import { MAX_TIMER, sleep } from "../_internal/sleep.ts";
import { join } from "../_internal/signals.ts";
import { describe } from "../_internal/errors.ts";
import type {
  JSONValue,
  KubernetesTunnel,
  RestClient,
  RestRequestOptions,
} from "./rest_client.ts";

/** Where the kubelet mounts each container's API credentials. */
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

// Past this size the connection is cheaper to lose than to drain.
const MAX_DRAIN = 4 << 20;
const ERROR_TEXT_LIMIT = 2048;
// setTimeout fires at once for a longer delay, so a longer limit means none.

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
}

/** Options of {@linkcode Client}. */
export interface ClientOptions {
  /**
   * The `fetch` to send with. Default: the global `fetch`, with `httpClient`
   * when one is given. Tests pass the fake API server's in-memory `fetch`.
   */
  fetch?: typeof fetch;
  /**
   * A `Deno.HttpClient` that the default `fetch` uses (for a cluster CA or a
   * client certificate). The client closes it on dispose.
   */
  httpClient?: Deno.HttpClient;
  /**
   * A directory holding a ServiceAccount `token` file, read on every request
   * (the kubelet rotates it). Absent or empty: no token is sent.
   */
  serviceAccountDir?: string;
  /**
   * Answers the `Authorization` header value for each request, or `undefined`
   * for none (kubeconfig tokens and exec plugins). Overrides
   * `serviceAccountDir`.
   */
  authorization?: () => Promise<string | undefined>;
  /**
   * The limit of one request in milliseconds, dial to last byte. Absent or 0:
   * 30 s. `Infinity`: no limit.
   */
  timeout?: number;
  /** The namespace the client's pod runs in, when known. */
  namespace?: string;
}

/** Options of one request. */
export interface RequestOptions {
  /** The body, sent as JSON (a string or bytes is sent as is). */
  body?: unknown;
  /** The body's content type. Default `application/json`. */
  contentType?: string;
  /**
   * Ends this request (in addition to the client's signal), including its
   * wait after a 429, which then answers the 429.
   */
  signal?: AbortSignal;
}

/** Options of {@linkcode Client.patch}. */
export interface PatchOptions {
  /**
   * The patch dialect: `merge` (RFC 7386), `json` (RFC 6902), `apply`
   * (server-side apply) or `strategic`. The API server reads the dialect from
   * the content type alone, so it must be stated.
   */
  type: "merge" | "json" | "apply" | "strategic";
  /** The field manager, required by `apply`. */
  fieldManager?: string;
  /** For `apply`: take fields other managers own. */
  force?: boolean;
  /** Ends this request. */
  signal?: AbortSignal;
}

/** Options of {@linkcode Client.watch}. */
export interface WatchOptions {
  /** Ends the watch. */
  signal?: AbortSignal;
  /**
   * Milliseconds the server may stay silent, while the stream waits for it,
   * before the watch is presumed dead and ends with a `WatchIdleError`.
   * Absent, 0 or `Infinity`: no limit. A watch has no total timeout.
   */
  idleTimeout?: number;
}

/** Options of {@linkcode Client.inCluster}. */
export interface InClusterOptions {
  /**
   * The directory holding `ca.crt`, `token` and `namespace`. Default
   * {@linkcode SERVICE_ACCOUNT_DIR}.
   */
  serviceAccountDir?: string;
  /**
   * The API server's URL, such as `https://127.0.0.1:6443`. Default: the
   * address `KUBERNETES_SERVICE_HOST` and `KUBERNETES_SERVICE_PORT` name. A
   * host-network pod on a control-plane machine can name its own loopback,
   * where a dead remote server cannot hold a connection.
   */
  server?: string;
  /**
   * The limit of one request in milliseconds. Absent or 0: 30 s. A leader
   * whose Lease another copy can take sets a shorter one.
   */
  timeout?: number;
}

const PATCH_TYPES: Record<PatchOptions["type"], string> = {
  merge: "application/merge-patch+json",
  json: "application/json-patch+json",
  apply: "application/apply-patch+yaml",
  strategic: "application/strategic-merge-patch+json",
};

interface SendOptions extends RequestOptions {
  accept?: string;
}

interface Shared {
  server: string;
  fetch: typeof fetch;
  httpClient: Deno.HttpClient | undefined;
  authorization: (() => Promise<string | undefined>) | undefined;
  timeout: number;
  namespace: string | undefined;
  deadlines: Deadlines;
}

interface Bound {
  signal: AbortSignal | undefined;
  waitSignal: AbortSignal | undefined;
  guard: (() => void) | undefined;
  observer: ((outcome: Outcome) => void) | undefined;
}

/**
 * A client of one Kubernetes API server.
 *
 * It sends JSON requests, maps failures to typed errors, waits out short 429s,
 * and opens streaming watches. The builders (`withSignal`, `withWaitSignal`,
 * `withWriteGuard`, `withObserver`) answer new clients that share this one's
 * connections.
 *
 * @example Read an object from the fake API server
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client } from "@liken/kubernetes/apiclient";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * await client.create("/api/v1/namespaces/default/configmaps", {
 *   metadata: { name: "settings" },
 *   data: { color: "blue" },
 * });
 * const read = await client.get<{ metadata: { name?: string }; data: Record<string, string> }>(
 *   "/api/v1/namespaces/default/configmaps/settings",
 * );
 * assert.equal(read.data.color, "blue");
 * ```
 */
export class Client implements Disposable {
  #shared: Shared;
  #bound: Bound;

  /**
   * Makes a client of the server at `server`.
   *
   * @param server The API server's base URL, such as `https://10.0.0.1:443`.
   * @param options The transport, credentials and request timeout.
   */
  constructor(server: string, options: ClientOptions = {}) {
    const httpClient = options.httpClient;
    const serviceAccountDir = options.serviceAccountDir;
    let authorization = options.authorization;
    if (authorization === undefined && serviceAccountDir) {
      authorization = () => readToken(`${serviceAccountDir}/token`);
    }
    this.#shared = {
      server: server.replace(/\/+$/, ""),
      fetch: options.fetch ??
        (httpClient
          ? (input, init) => fetch(input, { ...init, client: httpClient })
          : (input, init) => fetch(input, init)),
      httpClient,
      authorization,
      timeout: requestTimeout(options.timeout),
      namespace: options.namespace,
      deadlines: new Deadlines(),
    };
    this.#bound = {
      signal: undefined,
      waitSignal: undefined,
      guard: undefined,
      observer: undefined,
    };
  }

  /**
   * Makes a client from the pod's environment and its ServiceAccount: the
   * server from `KUBERNETES_SERVICE_HOST`/`KUBERNETES_SERVICE_PORT` (an IPv6
   * host in brackets), the cluster CA from `ca.crt`, the token from `token`
   * (read on every request), the namespace from `namespace`.
   *
   * Needs `--allow-env=KUBERNETES_SERVICE_HOST,KUBERNETES_SERVICE_PORT`,
   * `--allow-read=<serviceAccountDir>` and `--allow-net=<api host>`.
   *
   * Trust: the client trusts the cluster CA, but Deno adds it to its default
   * roots rather than replacing them (no setting removes them; see the
   * README's security notes). In a cluster the API server's address is a
   * private IP or a `.svc` name, which no public CA certifies.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client } from "@liken/kubernetes/apiclient";
   * import { fakeServiceAccount } from "@liken/kubernetes/testing";
   *
   * await using account = await fakeServiceAccount({ namespace: "demo" });
   * using client = await Client.inCluster({
   *   serviceAccountDir: account.dir,
   *   server: "https://127.0.0.1:6443",
   * });
   * assert.equal(client.defaultNamespace, "demo");
   * ```
   *
   * @param options The credentials directory, server and timeout.
   * @returns A client of the cluster's API server.
   */
  static async inCluster(options: InClusterOptions = {}): Promise<Client> {
    const dir = options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
    const server = options.server ?? serverFromEnvironment();
    const caPath = `${dir}/ca.crt`;
    let ca: string;
    try {
      ca = await Deno.readTextFile(caPath);
    } catch (cause) {
      throw new Error(
        `Cannot read the ServiceAccount CA ${caPath}: ${describe(cause)}`,
        { cause },
      );
    }
    if (
      !/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.test(ca)
    ) {
      throw new Error(`The ServiceAccount CA ${caPath} holds no certificate`);
    }
    const tokenPath = `${dir}/token`;
    try {
      await Deno.stat(tokenPath);
    } catch (cause) {
      throw new Error(
        `Cannot read the ServiceAccount token ${tokenPath}: ${describe(cause)}`,
        { cause },
      );
    }
    let namespace: string | undefined;
    try {
      namespace = (await Deno.readTextFile(`${dir}/namespace`)).trim() ||
        undefined;
    } catch {
      namespace = undefined;
    }
    let httpClient: Deno.HttpClient;
    try {
      httpClient = Deno.createHttpClient({ caCerts: [ca] });
    } catch (cause) {
      throw new Error(
        `The ServiceAccount CA ${caPath} holds no valid certificate: ${
          describe(cause)
        }`,
        { cause },
      );
    }
    const options2: ClientOptions = { httpClient, serviceAccountDir: dir };
    if (options.timeout !== undefined) options2.timeout = options.timeout;
    if (namespace !== undefined) options2.namespace = namespace;
    return new Client(server, options2);
  }

  /** The API server's base URL. */
  get server(): string {
    return this.#shared.server;
  }

  /** The namespace of the client's pod or context, when known. */
  get defaultNamespace(): string | undefined {
    return this.#shared.namespace;
  }

  /**
   * Answers a client whose requests, and whose waits after a 429, end when
   * `signal` aborts. It shares this client's connections.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client } from "@liken/kubernetes/apiclient";
   *
   * const controller = new AbortController();
   * controller.abort();
   * const client = new Client("http://127.0.0.1:9").withSignal(controller.signal);
   * await assert.rejects(client.get("/api/v1/pods"));
   * ```
   *
   * @param signal Ends every request of the new client.
   * @returns A new client bound to `signal`.
   */
  withSignal(signal: AbortSignal): Client {
    return this.#with({ signal, waitSignal: undefined });
  }

  /**
   * Answers a client whose waits after a 429 end when `signal` aborts (the
   * request then answers the 429), while a request already sent runs to its
   * end. A writer that must know whether its write landed uses this rather
   * than {@linkcode Client.withSignal}: a write cut off may still land.
   *
   * @example
   * ```ts
   * import { Client } from "@liken/kubernetes/apiclient";
   *
   * const stopping = new AbortController();
   * const client = new Client("http://127.0.0.1:9").withWaitSignal(stopping.signal);
   * void client;
   * ```
   *
   * @param signal Ends the waits after a 429.
   * @returns A new client.
   */
  withWaitSignal(signal: AbortSignal): Client {
    return this.#with({ waitSignal: signal });
  }

  /**
   * Answers a client that calls `guard` before it sends each request that is
   * not a GET, and before each resend after a 429. A guard that throws
   * refuses: nothing is sent and the request rejects with a
   * {@linkcode WriteRefusedError} whose cause is the guard's error. A leader
   * uses it to stop writing the moment it cannot show it holds its Lease; it
   * covers every write, including those other modules send through it.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client, WriteRefusedError } from "@liken/kubernetes/apiclient";
   *
   * const client = new Client("http://127.0.0.1:9").withWriteGuard(() => {
   *   throw new Error("Not leading");
   * });
   * await assert.rejects(
   *   client.delete("/api/v1/namespaces/a/configmaps/b"),
   *   WriteRefusedError,
   * );
   * ```
   *
   * @param guard Throws to refuse a write.
   * @returns A new client.
   */
  withWriteGuard(guard: () => void): Client {
    return this.#with({ guard });
  }

  /**
   * Answers a client that calls `observe` with the final outcome of each
   * request (after any wait for a 429), success or failure. A caller that
   * logs a failure and carries on still leaves a record there.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client, type Outcome } from "@liken/kubernetes/apiclient";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const outcomes: Outcome[] = [];
   * const client = new Client(server.url, { fetch: server.fetch })
   *   .withObserver((outcome) => outcomes.push(outcome));
   * await client.get("/api/v1/namespaces/default/configmaps/absent").catch(() => {});
   * assert.equal(outcomes[0]?.status, 404);
   * ```
   *
   * @param observe Hears each outcome.
   * @returns A new client.
   */
  withObserver(observe: (outcome: Outcome) => void): Client {
    return this.#with({ observer: observe });
  }

  #with(bound: Partial<Bound>): Client {
    const client = new Client(this.#shared.server);
    client.#shared = this.#shared;
    client.#bound = { ...this.#bound, ...bound };
    return client;
  }

  /**
   * Sends one request and answers the decoded JSON body (`undefined` for an
   * empty body).
   *
   * A 404 rejects with {@linkcode NotFoundError}, a 409 with
   * {@linkcode ConflictError}, any other status outside 2xx with
   * {@linkcode ApiError}. A 429 is sent again after the wait the server asks
   * for (`Retry-After`, else the Status's `retryAfterSeconds`, else 1 s), for
   * at most {@linkcode MAX_THROTTLE_WAIT_SECONDS} in all, then rejects with
   * {@linkcode ThrottledError}.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client } from "@liken/kubernetes/apiclient";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const client = new Client(server.url, { fetch: server.fetch });
   * const list = await client.request<{ items: unknown[] }>(
   *   "GET",
   *   "/api/v1/namespaces/default/configmaps?labelSelector=app%3Ddemo",
   * );
   * assert.deepEqual(list.items, []);
   * ```
   *
   * @typeParam T The type of the answer.
   * @param method The HTTP method.
   * @param path The API path, with its query.
   * @param options The body, its content type, and a signal.
   * @returns The decoded answer.
   */
  request<T>(
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<T> {
    return this.#request(method, path, options, "json") as Promise<T>;
  }

  async #request(
    method: string,
    path: string,
    options: SendOptions,
    mode: "json" | "bytes",
  ): Promise<unknown> {
    // The status of the last answer, which the observer hears even when the
    // body then fails (malformed, cut off, timed out): the server answered.
    const answer = { status: 0 };
    let value: unknown;
    try {
      value = await this.#send(method, path, options, mode, answer);
    } catch (error) {
      this.#observe({ method, path, status: answer.status, error });
      throw error;
    }
    this.#observe({ method, path, status: answer.status });
    return value;
  }

  /** Sends until an answer that is not a 429 it can wait out. */
  async #send(
    method: string,
    path: string,
    options: SendOptions,
    mode: "json" | "bytes",
    answer: { status: number },
  ): Promise<unknown> {
    let waited = 0;
    for (;;) {
      try {
        return await this.#open(method, path, options, mode, answer);
      } catch (error) {
        if (!(error instanceof ThrottledError)) throw error;
        // A streamed body is spent: it cannot be sent again.
        if (options.body instanceof ReadableStream) throw error;
        const wait = Math.max(error.retryAfterSeconds, 1);
        if (waited + wait > MAX_THROTTLE_WAIT_SECONDS) throw error;
        const waitSignal = this.#bound.waitSignal ?? this.#bound.signal;
        const full = await sleep(
          wait * 1000,
          options.signal === undefined
            ? waitSignal
            : join(waitSignal, options.signal),
        );
        if (!full) throw error;
        waited += wait;
      }
    }
  }

  #observe(outcome: Outcome): void {
    const observer = this.#bound.observer;
    if (!observer) return;
    try {
      observer(outcome);
    } catch {
      // An observer's failure must not change the request's answer.
    }
  }

  /**
   * Reads one object (or a list).
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client, NotFoundError } from "@liken/kubernetes/apiclient";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const client = new Client(server.url, { fetch: server.fetch });
   * await assert.rejects(client.get("/api/v1/namespaces/default/secrets/x"), NotFoundError);
   * ```
   *
   * @typeParam T The type of the answer.
   * @param path The API path.
   * @param options A signal.
   * @returns The decoded object.
   */
  get<T>(path: string, options: { signal?: AbortSignal } = {}): Promise<T> {
    return this.request<T>("GET", path, options);
  }

  /**
   * Creates an object in a collection (POST) and answers the stored copy.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client } from "@liken/kubernetes/apiclient";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const client = new Client(server.url, { fetch: server.fetch });
   * const made = await client.create("/api/v1/namespaces/default/configmaps", {
   *   metadata: { generateName: "cm-" },
   * });
   * assert.ok(made.metadata.name?.startsWith("cm-"));
   * ```
   *
   * @typeParam T The object's type.
   * @param collectionPath The collection's API path.
   * @param object The object to create.
   * @param options A signal.
   * @returns The stored copy.
   */
  create<T extends KubeObject>(
    collectionPath: string,
    object: T,
    options: { signal?: AbortSignal } = {},
  ): Promise<T & KubeObject> {
    return this.request<T & KubeObject>("POST", collectionPath, {
      ...options,
      body: object,
    });
  }

  /**
   * Replaces an object (PUT), conditional on its `metadata.resourceVersion`
   * when it states one, and answers the stored copy.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client, ConflictError } from "@liken/kubernetes/apiclient";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const client = new Client(server.url, { fetch: server.fetch });
   * const path = "/api/v1/namespaces/default/configmaps/a";
   * const made = await client.create("/api/v1/namespaces/default/configmaps", { metadata: { name: "a" } });
   * await client.replace(path, { ...made, data: { k: "1" } });
   * // The first copy is stale now.
   * await assert.rejects(client.replace(path, { ...made, data: { k: "2" } }), ConflictError);
   * ```
   *
   * @typeParam T The object's type.
   * @param path The object's API path.
   * @param object The new object.
   * @param options A signal.
   * @returns The stored copy.
   */
  replace<T extends KubeObject>(
    path: string,
    object: T,
    options: { signal?: AbortSignal } = {},
  ): Promise<T & KubeObject> {
    return this.request<T & KubeObject>("PUT", path, {
      ...options,
      body: object,
    });
  }

  /**
   * Writes an object's status through its status subresource (PUT to
   * `path + "/status"`), so a spec someone edited meanwhile stays theirs, and
   * answers the server's copy, which the caller uses for its next write. The
   * answer is a new object: `object` is never changed, so after a failure the
   * caller still holds the status the server did not take. The object should
   * state `apiVersion` and `kind` (a copy from a list may lack them).
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client } from "@liken/kubernetes/apiclient";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const client = new Client(server.url, { fetch: server.fetch });
   * const pod = await client.create("/api/v1/namespaces/default/pods", {
   *   apiVersion: "v1",
   *   kind: "Pod",
   *   metadata: { name: "p" },
   *   spec: { containers: [] },
   * });
   * const stored = await client.replaceStatus("/api/v1/namespaces/default/pods/p", {
   *   ...pod,
   *   status: { phase: "Running" },
   * });
   * assert.equal(stored.status.phase, "Running");
   * ```
   *
   * @typeParam T The object's type.
   * @param path The object's API path (without `/status`).
   * @param object The object with the status to write.
   * @param options A signal.
   * @returns The server's copy.
   */
  replaceStatus<T extends KubeObject>(
    path: string,
    object: T,
    options: { signal?: AbortSignal } = {},
  ): Promise<T & KubeObject> {
    return this.request<T & KubeObject>("PUT", `${path}/status`, {
      ...options,
      body: object,
    });
  }

  /**
   * Patches an object and answers the stored copy. The dialect is stated,
   * because the server reads it from the content type alone.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client } from "@liken/kubernetes/apiclient";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const client = new Client(server.url, { fetch: server.fetch });
   * await client.create("/api/v1/namespaces/default/configmaps", { metadata: { name: "a" } });
   * const patched = await client.patch<{ metadata: object; data: Record<string, string> }>(
   *   "/api/v1/namespaces/default/configmaps/a",
   *   { data: { k: "v" } },
   *   { type: "merge" },
   * );
   * assert.equal(patched.data.k, "v");
   * ```
   *
   * @typeParam T The object's type.
   * @param path The object's API path.
   * @param patch The patch document.
   * @param options The dialect, field manager, force, and a signal.
   * @returns The stored copy.
   */
  patch<T>(path: string, patch: unknown, options: PatchOptions): Promise<T> {
    const query = new URLSearchParams();
    if (options.fieldManager) query.set("fieldManager", options.fieldManager);
    if (options.force) query.set("force", "true");
    const sep = path.includes("?") ? "&" : "?";
    const full = query.size ? `${path}${sep}${query}` : path;
    const request: RequestOptions = {
      body: options.type === "apply" ? JSON.stringify(patch) : patch,
      contentType: PATCH_TYPES[options.type],
    };
    if (options.signal) request.signal = options.signal;
    return this.request<T>("PATCH", full, request);
  }

  /**
   * Deletes an object and answers the server's answer (the object, or a
   * `Status`).
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client, NotFoundError } from "@liken/kubernetes/apiclient";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const client = new Client(server.url, { fetch: server.fetch });
   * await client.create("/api/v1/namespaces/default/configmaps", { metadata: { name: "a" } });
   * await client.delete("/api/v1/namespaces/default/configmaps/a");
   * await assert.rejects(client.get("/api/v1/namespaces/default/configmaps/a"), NotFoundError);
   * ```
   *
   * @typeParam T The answer's type.
   * @param path The object's API path.
   * @param options Delete options (as the body) and a signal.
   * @returns The server's answer.
   */
  delete<T = Status>(
    path: string,
    options: { body?: unknown; signal?: AbortSignal } = {},
  ): Promise<T> {
    return this.request<T>("DELETE", path, options);
  }

  /**
   * Opens a watch and resolves once the server accepted it (a status outside
   * 2xx rejects with the same errors as {@linkcode Client.request}, without
   * waiting out a 429: the caller's backoff does). The request timeout limits
   * only the wait for the answer's headers; the stream itself has no total
   * limit, only `idleTimeout`.
   *
   * `path` carries the query, such as
   * `/api/v1/configmaps?watch=1&resourceVersion=42&allowWatchBookmarks=true`.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client } from "@liken/kubernetes/apiclient";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const client = new Client(server.url, { fetch: server.fetch });
   * await client.create("/api/v1/namespaces/default/configmaps", { metadata: { name: "a" } });
   * await using stream = await client.watch("/api/v1/namespaces/default/configmaps?watch=1");
   * for await (const event of stream) {
   *   assert.equal(event.type, "ADDED");
   *   break;
   * }
   * ```
   *
   * @typeParam T The kind of the watched objects.
   * @param path The collection's API path with the watch query.
   * @param options A signal and an idle limit.
   * @returns The event stream.
   */
  async watch<T extends KubeObject = KubeObject>(
    path: string,
    options: WatchOptions = {},
  ): Promise<WatchStream<T>> {
    const idleTimeout = idleLimit(options.idleTimeout);
    const answer = { status: 0 };
    try {
      const response = await this.#open(
        "GET",
        path,
        {
          ...(options.signal ? { signal: options.signal } : {}),
        },
        "stream",
        answer,
      );
      const stream = new WatchStream<T>(response.body!, {
        method: "GET",
        path,
        signal: this.#streamSignal(options.signal),
        idleTimeout,
      });
      this.#observe({ method: "GET", path, status: answer.status });
      return stream;
    } catch (error) {
      this.#observe({ method: "GET", path, status: answer.status, error });
      throw error;
    }
  }

  /** The signal that ends a stream: the request's and the client's. */
  #streamSignal(signal: AbortSignal | undefined): AbortSignal | undefined {
    const bound = this.#bound.signal;
    if (!signal) return bound;
    return bound ? AbortSignal.any([signal, bound]) : signal;
  }

  /**
   * Sends a request the way the generated API classes of
   * `@cloudydeno/kubernetes-apis` do, so `new CoreV1Api(client)` runs on this
   * client (it satisfies their `RestClient` contract structurally). JSON
   * streams answer one parsed object per NDJSON line; tunnels (exec, attach,
   * port-forward) are not supported and reject with a clear error.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client } from "@liken/kubernetes/apiclient";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const client = new Client(server.url, { fetch: server.fetch });
   * const list = await client.performRequest({
   *   method: "GET",
   *   path: "/api/v1/namespaces/default/configmaps",
   *   expectJson: true,
   * }) as { items: unknown[] };
   * assert.deepEqual(list.items, []);
   * ```
   *
   * @param options The request, as the generated classes state it.
   * @returns The answer: a tunnel, a stream of JSON values or bytes, a JSON
   * value, or bytes.
   */
  readonly performRequest: RestClient["performRequest"] = ((
    options: RestRequestOptions,
  ) => this.#performRequest(options)) as RestClient["performRequest"];

  async #performRequest(
    options: RestRequestOptions,
  ): Promise<
    | KubernetesTunnel
    | ReadableStream<JSONValue>
    | ReadableStream<Uint8Array>
    | JSONValue
    | Uint8Array
  > {
    const query = options.querystring?.toString();
    const path = query ? `${options.path}?${query}` : options.path;
    if (options.expectTunnel) {
      throw new Error(
        `${options.method} ${path}: tunnels (exec, attach, port-forward) are not supported by this client`,
      );
    }
    const send: SendOptions = {};
    if (options.abortSignal) send.signal = options.abortSignal;
    if (options.contentType) send.contentType = options.contentType;
    if (options.accept) send.accept = options.accept;
    if (options.bodyJson !== undefined) send.body = options.bodyJson;
    else if (options.bodyRaw !== undefined) send.body = options.bodyRaw;
    else if (options.bodyStream !== undefined) send.body = options.bodyStream;
    if (!options.expectStream) {
      return await this.#request(
        options.method,
        path,
        send,
        options.expectJson ? "json" : "bytes",
      ) as JSONValue | Uint8Array;
    }
    const answer = { status: 0 };
    try {
      const response = await this.#open(
        options.method,
        path,
        send,
        "stream",
        answer,
      );
      this.#observe({ method: options.method, path, status: answer.status });
      if (!options.expectJson) return response.body!;
      const lines = new WatchStream(response.body!, {
        method: options.method,
        path,
        signal: this.#streamSignal(options.abortSignal),
        raw: true,
      });
      return ReadableStream.from(
        lines as AsyncIterable<unknown>,
      ) as ReadableStream<JSONValue>;
    } catch (error) {
      this.#observe({
        method: options.method,
        path,
        status: answer.status,
        error,
      });
      throw error;
    }
  }

  /** Closes the client's `Deno.HttpClient`, if it made or was given one. */
  [Symbol.dispose](): void {
    this.#shared.httpClient?.close();
  }

  /**
   * Sends once. A `json` or `bytes` answer is read whole within the timeout;
   * a `stream` answer returns with its body unread once headers arrived.
   */
  async #open(
    method: string,
    path: string,
    options: SendOptions,
    mode: "stream",
    answer: { status: number },
  ): Promise<Response>;
  async #open(
    method: string,
    path: string,
    options: SendOptions,
    mode: "json" | "bytes",
    answer: { status: number },
  ): Promise<unknown>;
  async #open(
    method: string,
    path: string,
    options: SendOptions,
    mode: "json" | "bytes" | "stream",
    answer: { status: number },
  ): Promise<unknown> {
    answer.status = 0;
    const { guard, signal: boundSignal } = this.#bound;
    if (guard && method !== "GET") {
      try {
        guard();
      } catch (cause) {
        throw new WriteRefusedError(method, path, cause);
      }
    }
    // A plain record: Deno's fetch takes it on a cheaper path than a Headers
    // object (measured: about 30 µs a request on loopback).
    const headers: Record<string, string> = {
      Accept: options.accept ?? "application/json",
    };
    const authorize = this.#shared.authorization;
    if (authorize !== undefined) {
      const authorization = await authorize();
      if (authorization) headers.Authorization = authorization;
    }
    let body: BodyInit | undefined;
    if (options.body !== undefined) {
      body = typeof options.body === "string" ||
          options.body instanceof Uint8Array ||
          options.body instanceof ReadableStream
        ? options.body as BodyInit
        : JSON.stringify(options.body);
      headers["Content-Type"] = options.contentType ?? "application/json";
    }
    const timeout = this.#shared.timeout;
    let deadline: Deadline | undefined;
    let signal: AbortSignal | undefined;
    if (timeout <= MAX_TIMER) {
      const timer = new AbortController();
      deadline = this.#shared.deadlines.add(
        timeout,
        () => timer.abort(new RequestTimeoutError(method, path, timeout)),
      );
      signal = timer.signal;
    }
    // One signal needs no combining; AbortSignal.any costs an allocation and
    // a registration on each source.
    if (boundSignal !== undefined) signal = join(signal, boundSignal);
    if (options.signal !== undefined) signal = join(signal, options.signal);
    try {
      const init: RequestInit = { method, headers };
      if (signal !== undefined) init.signal = signal;
      if (body !== undefined) init.body = body;
      let response: Response;
      try {
        response = await this.#shared.fetch(this.#shared.server + path, init);
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        throw error;
      }
      const status = response.status;
      answer.status = status;
      if (status < 200 || status > 299) {
        const text = await readErrorText(response, signal);
        throw errorFor(method, path, response, text);
      }
      if (mode === "stream") {
        if (!response.body) {
          throw new MalformedResponseError("the answer has no body to stream", {
            method,
            path,
          });
        }
        return response;
      }
      if (mode === "bytes") return await readBody(response, signal, bytesOf);
      const text = await readBody(response, signal, textOf);
      try {
        return JSON.parse(text);
      } catch (cause) {
        // Checked only on failure, so a normal answer is not scanned twice.
        if (text.trim() === "") return undefined;
        throw new MalformedResponseError(
          `malformed JSON answer (status ${status}): ${
            text.slice(0, 200).trimEnd()
          }`,
          { method, path, cause },
        );
      }
    } finally {
      if (deadline !== undefined) this.#shared.deadlines.done(deadline);
    }
  }
}

/**
 * Reads a whole body with the runtime's native reader (far cheaper than a JS
 * read loop), but answers the moment `signal` aborts: a body that stalls part
 * way must not hold the request past its timeout, even if the runtime's own
 * abort leaves the read pending.
 */
function readBody<T>(
  response: Response,
  signal: AbortSignal | undefined,
  read: (response: Response) => Promise<T>,
): Promise<T> {
  if (signal === undefined) return read(response);
  if (signal.aborted) {
    response.body?.cancel(signal.reason).catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    read(response).then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener("abort", onAbort);
        reject(signal.aborted ? signal.reason : error);
      },
    );
  });
}

const textOf = (response: Response): Promise<string> => response.text();
const bytesOf = (response: Response): Promise<Uint8Array> => response.bytes();

function serverFromEnvironment(): string {
  const host = Deno.env.get("KUBERNETES_SERVICE_HOST");
  const port = Deno.env.get("KUBERNETES_SERVICE_PORT");
  if (!host || !port) {
    throw new Error(
      "Not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are unset (pass `server` to name the API server)",
    );
  }
  const bracketed = host.includes(":") && !host.startsWith("[")
    ? `[${host}]`
    : host;
  return `https://${bracketed}:${port}`;
}

async function readToken(path: string): Promise<string | undefined> {
  let token: string;
  try {
    token = await Deno.readTextFile(path);
  } catch (cause) {
    throw new Error(
      `Cannot read the ServiceAccount token ${path}: ${describe(cause)}`,
      { cause },
    );
  }
  token = token.trim();
  return token ? `Bearer ${token}` : undefined;
}

/** Checks a request timeout: absent or 0 means the default. */
function requestTimeout(ms: number | undefined): number {
  if (ms === undefined || ms === 0) return DEFAULT_TIMEOUT;
  if (!(ms > 0)) {
    throw new RangeError(
      `The request timeout must be a positive number of milliseconds: ${ms}`,
    );
  }
  return ms;
}

/** Checks a watch's idle limit: absent, 0 or beyond a timer's range is none. */
function idleLimit(ms: number | undefined): number | undefined {
  if (ms === undefined || ms === 0 || ms > MAX_TIMER) return undefined;
  if (!(ms > 0)) {
    throw new RangeError(
      `The idle timeout must be a positive number of milliseconds: ${ms}`,
    );
  }
  return ms;
}

/**
 * Reads the first 2 KiB of an error body, then drains up to a cap so the
 * connection can be reused, and cancels whatever is left.
 */
async function readErrorText(
  response: Response,
  signal: AbortSignal | undefined,
): Promise<string> {
  const body = response.body;
  if (!body) return "";
  const reader = body.getReader();
  const kept: Uint8Array[] = [];
  let keptBytes = 0;
  let total = 0;
  const onAbort = (): void => {
    reader.cancel(signal?.reason).catch(() => {});
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    while (total < MAX_DRAIN) {
      const { value, done } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (keptBytes < ERROR_TEXT_LIMIT) {
        const part = value.subarray(0, ERROR_TEXT_LIMIT - keptBytes);
        kept.push(part);
        keptBytes += part.byteLength;
      }
    }
  } catch {
    // The text is best effort; the status already says what failed.
  } finally {
    signal?.removeEventListener("abort", onAbort);
    await reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(keptBytes);
  let offset = 0;
  for (const part of kept) {
    bytes.set(part, offset);
    offset += part.byteLength;
  }
  return new TextDecoder().decode(bytes).trimEnd();
}

function errorFor(
  method: string,
  path: string,
  response: Response,
  text: string,
): ApiError {
  const status = response.status;
  let statusObject: Status | undefined;
  try {
    const parsed = JSON.parse(text);
    if (parsed && typeof parsed === "object" && parsed.kind === "Status") {
      statusObject = parsed as Status;
    }
  } catch {
    statusObject = undefined;
  }
  const detail = statusObject?.message ?? text;
  const statusText = response.statusText ? ` ${response.statusText}` : "";
  const message = `${method} ${path}: ${status}${statusText}${
    detail ? `: ${detail}` : ""
  }`;
  const options: ApiErrorOptions = {
    method,
    path,
    status,
    statusObject,
    text: statusObject ? undefined : text,
  };
  if (status === 404) return new NotFoundError(message, options);
  if (status === 409) return new ConflictError(message, options);
  if (status === 429) {
    return new ThrottledError(
      message,
      options,
      retryAfter(response.headers.get("Retry-After"), statusObject),
    );
  }
  return new ApiError(message, options);
}

/** The seconds a 429 asks for: Retry-After, else the Status's, else 0. */
function retryAfter(header: string | null, status: Status | undefined): number {
  const seconds = header === null ? NaN : Number(header.trim());
  if (Number.isInteger(seconds) && seconds > 0) return seconds;
  const stated = status?.details?.retryAfterSeconds;
  return typeof stated === "number" && stated > 0 ? Math.floor(stated) : 0;
}
