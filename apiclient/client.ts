/**
 * The {@linkcode Client} of one Kubernetes API server: a facade over the
 * private parts that send (`_transport.ts`), wait out 429s (`_throttle.ts`),
 * decode (`_decode.ts`), serve the generated API classes (`_rest.ts`) and
 * read the in-cluster configuration (`_in_cluster.ts`).
 *
 * @module
 */
import type { KubeObject, Status } from "./types.ts";
import type {
  ApplyOptions,
  ClientOptions,
  DeleteOptions,
  GetOptions,
  InClusterOptions,
  Outcome,
  PatchOptions,
  RequestOptions,
  WatchOptions,
  WriteOptions,
} from "./options.ts";
import type { Memo, Resource } from "./resource.ts";
import type {
  PerformRequest,
  RestClient,
  RestRequestOptions,
} from "./rest_client.ts";
import type { WatchStream } from "./watch.ts";
import { ResourceClient } from "./handle.ts";
import type { PathClient } from "./path_client.ts";
import { inClusterConfig } from "./_in_cluster.ts";
import { performRequest } from "./_rest.ts";
import { openWatch, request } from "./_request.ts";
import { deleteRequest, patchRequest, writeRequest } from "./_query.ts";
import { type Bound, createShared, type Shared } from "./_transport.ts";

/**
 * A client of one Kubernetes API server.
 *
 * It sends JSON requests, maps failures to typed errors, waits out short 429s,
 * and opens streaming watches, by path or through the handle of a collection
 * ({@linkcode Client.resource}). The builders (`withSignal`, `withWaitSignal`,
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
 * const path = "/api/v1/namespaces/default/configmaps";
 * await client.create(path, { metadata: { name: "a" }, data: { color: "blue" } });
 * const read = await client.get<{ data: Record<string, string> }>(`${path}/a`);
 * assert.equal(read.data.color, "blue");
 * ```
 */
export class Client implements Disposable, PathClient, RestClient {
  #shared: Shared;
  #bound: Bound;
  #memo: Memo | undefined;

  /**
   * Makes a client of the server at `server`.
   *
   * @param server The API server's base URL, such as `https://10.0.0.1:443`.
   * @param options The transport, credentials and request timeout.
   */
  constructor(server: string, options: ClientOptions = {}) {
    this.#shared = createShared(server, options);
    if (options.namespace !== undefined) {
      this.defaultNamespace = options.namespace;
    }
    this.#bound = {
      signal: undefined,
      waitSignal: undefined,
      guard: undefined,
      observers: [],
    };
  }

  /**
   * Makes a client from the pod's environment and its ServiceAccount, where
   * client-go's `rest.InClusterConfig` finds them: the server from
   * `KUBERNETES_SERVICE_HOST`/`KUBERNETES_SERVICE_PORT` (an IPv6 host in
   * brackets), the cluster CA from `ca.crt`, the token from `token` (read on
   * every request), the namespace from `namespace`. A missing or wrong piece
   * rejects with an {@linkcode InClusterConfigError} naming it.
   *
   * Needs `--allow-env=KUBERNETES_SERVICE_HOST,KUBERNETES_SERVICE_PORT`,
   * `--allow-read=<serviceAccountDir>` and `--allow-net=<api host>`.
   *
   * Trust: the client trusts the cluster CA, but Deno adds it to its default
   * roots rather than replacing them (no setting removes them; see "TLS
   * trust" in SECURITY.md). In a cluster the API server's address is a
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
   * @throws {InClusterConfigError} Outside a cluster, or when the CA or the
   * token file is missing or unusable.
   */
  static async inCluster(options: InClusterOptions = {}): Promise<Client> {
    const config = await inClusterConfig(options);
    return new Client(config.server, config.options);
  }

  /** The API server's base URL. */
  get server(): string {
    return this.#shared.server;
  }

  /**
   * The namespace of the client's pod or context, when known (absent
   * otherwise, as the `RestClient` contract declares it).
   */
  readonly defaultNamespace?: string;

  /**
   * Answers a client whose requests, and whose waits after a 429, end when
   * `signal` aborts, with its reason. It shares this client's connections.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client } from "@liken/kubernetes/apiclient";
   *
   * // A server that never answers: only the signal ends the request.
   * const silent = (_: unknown, init?: RequestInit): Promise<Response> =>
   *   new Promise((_, reject) => init?.signal?.addEventListener("abort", reject));
   * const controller = new AbortController();
   * const client = new Client("http://api.test", { fetch: silent })
   *   .withSignal(controller.signal);
   * const pods = client.get("/api/v1/pods");
   * controller.abort(new Error("Shutting down"));
   * await assert.rejects(pods, { message: "Shutting down" });
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
   * request (after any wait for a 429), success or failure. Observers add
   * up: this client's hear first, each hears each outcome once (even if
   * added twice), and one that throws stops neither others nor the request.
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
    const observers = new Set([...this.#bound.observers, observe]);
    return this.#with({ observers: [...observers] });
  }

  /**
   * Answers a client whose writes and gets through the resource-scoped
   * handles (`client.resource(r)…create`, `replace`, `patch`, `apply`,
   * `delete`, `get`, and the same on `.status`) each take their turn in
   * `memo` and note the resourceVersion the server answers, so a cached read
   * through the same memo is never older than what this client saw. A dry run is not
   * noted; a create with `generateName` is noted under the name it got.
   * The path-based calls (`client.create(path, …)`) are not. It replaces
   * a memo bound before.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client } from "@liken/kubernetes/apiclient";
   * import { Versions } from "@liken/kubernetes/memo";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const versions = new Versions();
   * const client = new Client(server.url, { fetch: server.fetch }).withMemo(versions);
   * const web = { version: "v1", resource: "configmaps", namespace: "default", name: "web" };
   * const made = await client.resource(web).create({ metadata: { name: "web" } });
   * assert.equal(versions.current(web, made.metadata.resourceVersion!), true);
   * assert.equal(versions.current(web, "0"), false); // an older copy
   * ```
   *
   * @param memo The memo, such as a `Versions`.
   * @returns A new client.
   */
  withMemo(memo: Memo): Client {
    const client = this.#with({});
    client.#memo = memo;
    return client;
  }

  /** The memo this client notes its writes in ({@linkcode Client.withMemo}). */
  get memo(): Memo | undefined {
    return this.#memo;
  }

  /**
   * Answers the handle of a collection, as {@linkcode ResourceClient}
   * describes: `client.resource(r).namespace("default").get("web")`.
   *
   * @typeParam T The kind of the collection's objects; inferred from a
   *   typed `Resource` (`client.resource(DEPLOYMENTS)` answers Deployments).
   * @param resource The collection.
   * @returns The handle.
   */
  resource<T extends KubeObject = KubeObject>(
    // The plain `Resource` keeps `client.resource<T>(untyped)` working.
    resource: Resource<T> | Resource,
  ): ResourceClient<T> {
    return new ResourceClient<T>(this, resource);
  }

  #with(bound: Partial<Bound>): Client {
    const namespace = this.#shared.namespace;
    const client = new Client(
      this.#shared.server,
      namespace === undefined ? {} : { namespace },
    );
    client.#shared = this.#shared;
    client.#bound = { ...this.#bound, ...bound };
    client.#memo = this.#memo;
    return client;
  }

  /**
   * Sends one request and answers the decoded JSON body (`undefined` for an
   * empty body). Failures reject with {@linkcode NotFoundError} (404),
   * {@linkcode ConflictError} (409) or {@linkcode ApiError}; a 429 is sent
   * again after the server's wait (at most 10 s
   * in all), then rejects with {@linkcode ThrottledError}.
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
    return this.#object<T>(method, path, options, "json");
  }

  // Sends a request whose answer must be an object (a list's items an array;
  // else a MalformedResponseError), or any JSON for `request`.
  #object<T>(
    method: string,
    path: string,
    options: RequestOptions,
    mode: "object" | "object?" | "json" = "object",
  ): Promise<T> {
    const shared = this.#shared;
    const bound = this.#bound;
    return request(shared, bound, method, path, options, mode) as Promise<T>;
  }

  /**
   * Reads one object (or a list). An answer that is not a JSON object (or a
   * list whose `items` is not an array) rejects with a
   * {@linkcode MalformedResponseError} naming the method and path.
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
   * @param options A signal, and the `Accept` header.
   * @returns The decoded object.
   */
  get<T>(path: string, options: GetOptions = {}): Promise<T> {
    return this.#object<T>("GET", path, options);
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
   * @param options Dry run, field validation, field manager and a signal.
   * @returns The stored copy.
   */
  create<T extends KubeObject>(
    collectionPath: string,
    object: T,
    options: WriteOptions = {},
  ): Promise<T & KubeObject> {
    const { url, request } = writeRequest(collectionPath, object, options);
    return this.#object<T & KubeObject>("POST", url, request);
  }

  /**
   * Replaces an object (PUT), conditional on its `metadata.resourceVersion`
   * when it states one (optimistic concurrency, the Kubernetes API docs), and
   * answers the stored copy.
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
   * @param options Dry run, field validation, field manager and a signal.
   * @returns The stored copy.
   */
  replace<T extends KubeObject>(
    path: string,
    object: T,
    options: WriteOptions = {},
  ): Promise<T & KubeObject> {
    const { url, request } = writeRequest(path, object, options);
    return this.#object<T & KubeObject>("PUT", url, request);
  }

  /**
   * Writes an object's status through its status subresource (PUT to
   * `path + "/status"`), as `ResourceClient.status.replace` does (see there,
   * with an example) for a path.
   *
   * @typeParam T The object's type.
   * @param path The object's API path (without `/status`).
   * @param object The object with the status to write.
   * @param options Dry run, field validation, field manager and a signal.
   * @returns The server's copy.
   */
  replaceStatus<T extends KubeObject>(
    path: string,
    object: T,
    options: WriteOptions = {},
  ): Promise<T & KubeObject> {
    return this.replace(`${path}/status`, object, options);
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
   * @param options The dialect, field manager, force, dry run, field
   * validation and a signal.
   * @returns The stored copy.
   */
  patch<T>(path: string, patch: unknown, options: PatchOptions): Promise<T> {
    const { url, request } = patchRequest(path, patch, options);
    return this.#object<T>("PATCH", url, request);
  }

  /**
   * Server-side apply: sends `object` (the fields this manager wants set,
   * with `apiVersion`, `kind` and `metadata.name`) as an apply patch and
   * answers the server's copy. The server creates the object when it is
   * absent, removes the fields this manager applied before and no longer
   * applies (unless another manager owns them), and answers 409 (a
   * `ConflictError` whose Status `details.causes` name the fields) when
   * another manager owns a field at another value, unless `force` takes it.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client } from "@liken/kubernetes/apiclient";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const client = new Client(server.url, { fetch: server.fetch });
   * const applied = await client.apply<{ metadata: object; data: Record<string, string> }>(
   *   "/api/v1/namespaces/default/configmaps/a",
   *   { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" }, data: { k: "v" } },
   *   { fieldManager: "my-operator" },
   * );
   * assert.equal(applied.data.k, "v");
   * ```
   *
   * @typeParam T The object's type.
   * @param path The object's API path.
   * @param object The applied configuration.
   * @param options The field manager (required), `force`, dry run, field
   * validation and a signal.
   * @returns The server's copy.
   * @throws {TypeError} When `fieldManager` is empty.
   */
  apply<T>(path: string, object: unknown, options: ApplyOptions): Promise<T> {
    if (!options.fieldManager) {
      return Promise.reject(
        new TypeError("Server-side apply needs a fieldManager"),
      );
    }
    return this.patch<T>(path, object, { ...options, type: "apply" });
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
   * @param options Preconditions, propagation policy, grace period and dry
   * run (or a whole `DeleteOptions` body), and a signal.
   * @returns The server's answer.
   * @throws {TypeError} When both a body and the options are given.
   */
  async delete<T = Status>(
    path: string,
    options: DeleteOptions = {},
  ): Promise<T> {
    const request = deleteRequest(options);
    return await this.#object<T>("DELETE", path, request, "object?");
  }

  /**
   * Opens a watch (`path` with its query, such as `?watch=1&resourceVersion=42`)
   * and resolves once the server accepted it; a refusal rejects as in
   * {@linkcode Client.request}, without waiting out a 429 (the caller's
   * backoff does). The request timeout limits only the wait for headers; the
   * stream has no total limit, only `idleTimeout`. The stream is asked for
   * uncompressed (`Accept-Encoding: identity`): kube-apiserver gzips a
   * streaming list (`sendInitialEvents`) as one gzip member per flush, and
   * Deno's fetch ends a body after its first member (a list of 1,000
   * objects ended after 23).
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
  watch<T extends KubeObject = KubeObject>(
    path: string,
    options: WatchOptions = {},
  ): Promise<WatchStream<T>> {
    return openWatch<T>(this.#shared, this.#bound, path, options);
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
  readonly performRequest: PerformRequest =
    ((options: RestRequestOptions) =>
      performRequest(this.#shared, this.#bound, options)) as PerformRequest;

  /**
   * Closes the client's `Deno.HttpClient`, if it made or was given one;
   * later requests (of every client derived from this one) then reject with
   * an error that says so.
   */
  [Symbol.dispose](): void {
    const shared = this.#shared;
    if (shared.httpClient === undefined && shared.pool === undefined) return;
    shared.disposed = true;
    shared.httpClient?.close();
    shared.pool?.close();
  }
}
