/**
 * The fake API server: an in-memory store of Kubernetes objects that answers
 * the REST API the way the API server does, with faults a test can inject.
 * This file is the facade; routing, the verbs, watches, faults and serving
 * live in the private files beside it.
 *
 * @module
 */
import type { ObjectRef } from "../apiclient/resource.ts";
import type { KubeObject } from "../apiclient/types.ts";
import { sleep } from "../_internal/sleep.ts";
import { clone } from "./_verbs/patch.ts";
import { builtIn, registeredResource } from "./_store/registry.ts";
import { memoryFetch, refusedError, resetError } from "./_http/transport.ts";
import { resourceKey } from "./_store/objects.ts";
import { objectTarget, pathOf } from "./_http/route.ts";
import { putObject } from "./_verbs/direct.ts";
import { ServerState } from "./_store/state.ts";
import { GarbageCollector } from "./_store/gc.ts";
import { failureResponse, receive } from "./_http/dispatch.ts";
import { respond } from "./_admission/webhooks.ts";
import { converting } from "./_crds/conversion.ts";
import { serveDefinitions } from "./_crds/crd.ts";
import { loadCluster } from "./_builtins/fresh_cluster.ts";
import { withWarnings } from "./_admission/admit.ts";
import { matchPath, Refusals } from "./_http/faults.ts";
import { Listeners } from "./_http/serve.ts";
import { eventsAbout, expireEvents, storedEvents } from "./_store/event_log.ts";
import {
  heldLease,
  holderOf,
  type LeaseObject,
  leaseRef,
} from "./_store/leases.ts";
import type {
  CorruptOptions,
  EventObject,
  EventsAboutOptions,
  FakeApiServerOptions,
  HoldLeaseOptions,
  LandAfterNextReadOptions,
  RecordedRequest,
  Refusal,
  RefuseOptions,
  RegisteredResource,
  RequestFilter,
  ResourceRegistration,
  ServedApiServer,
  ServeOptions,
} from "./types.ts";

/**
 * An in-memory Kubernetes API server for tests.
 *
 * It serves Namespaces, ConfigMaps, Secrets, Pods, Services, Events (core/v1),
 * Leases (coordination.k8s.io/v1) and CustomResourceDefinitions from the
 * start, and any resource a test {@linkcode FakeApiServer.register}s. Objects
 * get a resourceVersion from one global counter, a uid, a
 * creationTimestamp and a generation; creates, updates, patches, deletes,
 * lists and watches answer what the API server answers, and failures are
 * `Status` objects worded like its own. Server-side apply tracks field
 * managers and answers their conflicts; the garbage collector deletes
 * dependents whose owners are gone (Background, Foreground and Orphan
 * propagation); gets, lists and watches answer metadata alone when asked.
 *
 * Use {@linkcode FakeApiServer.fetch} in memory (no sockets, deterministic
 * on fake time) or {@linkcode FakeApiServer.serve} over HTTP or HTTPS.
 *
 * A CustomResourceDefinition created through the API is served as
 * kube-apiserver serves it: defaults, 422 with the API server's causes for a
 * bad name or a schema that is not structural, Established soon after;
 * discovery and REST paths per served version; objects pruned (a `Warning`
 * per unknown field, 400 under `fieldValidation=Strict`), defaulted and
 * validated (422) against the version's schema and its CEL rules, updates
 * ratcheted;
 * the status and scale subresources; selectable fields; deprecated versions'
 * `Warning`; versions sharing objects (`conversion: None`) or converted by a
 * conversion webhook (`conversion: Webhook`, one `ConversionReview` per
 * object crossing versions, checked in the API server's words); printer columns;
 * list types for server-side apply; strategic merge refused (415). Deleting it removes
 * the resource and its objects at once.
 *
 * Where it differs from the API server, on purpose, is listed in the module
 * doc of `@liken/kubernetes/testing`.
 *
 * A GET that asks for a Table (`Accept: application/json;as=Table;v=v1;
 * g=meta.k8s.io`, as `kubectl get` and `kubectl get -w` send) is answered
 * with the API server's columns for the built-in kinds, and NAME plus the
 * registered `printerColumns` (else AGE) for other resources; see
 * {@linkcode ResourceRegistration.printerColumns}.
 *
 * @example Create, read back, and see what the server received
 * ```ts
 * import assert from "node:assert/strict";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const res = await server.fetch(
 *   `${server.url}/api/v1/namespaces/default/configmaps`,
 *   {
 *     method: "POST",
 *     headers: { "content-type": "application/json" },
 *     body: JSON.stringify({ metadata: { name: "a" }, data: { k: "v" } }),
 *   },
 * );
 * assert.equal(res.status, 201);
 * await res.body?.cancel();
 * assert.deepEqual(
 *   server.object("/api/v1/namespaces/default/configmaps/a")?.metadata.name,
 *   "a",
 * );
 * assert.equal(server.count({ method: "POST" }), 1);
 * ```
 */
export class FakeApiServer implements AsyncDisposable {
  /** Base URL of the in-memory server; pass it with {@linkcode FakeApiServer.fetch}. */
  readonly url: string;
  /** A `fetch` that reaches this server in memory, with no sockets. */
  readonly fetch: typeof fetch;

  #state: ServerState;
  #gc: GarbageCollector;
  #refusals = new Refusals();
  #listeners: Listeners;
  #down = false;
  #latency = 0;
  #disposed = new AbortController();
  #downSignal = new AbortController();

  /** Makes a server with the built-in resources and a fresh cluster's objects. */
  constructor(options: FakeApiServerOptions = {}) {
    this.url = (options.url ?? "http://apiserver.test").replace(/\/$/, "");
    this.#state = new ServerState({
      bookmarkInterval: options.bookmarkInterval,
      managedFields: options.managedFields ?? true,
    });
    this.#state.webhookTransport = {
      fetch: options.webhookFetch,
      resolveService: options.resolveService,
    };
    this.#state.namespaceLifecycle = options.namespaceLifecycle ?? true;
    this.#state.freshCluster = options.freshCluster ?? true;
    serveDefinitions(this.#state);
    if (this.#state.freshCluster) loadCluster(this.#state);
    this.#gc = new GarbageCollector(
      this.#state,
      options.garbageCollectionDelay,
    );
    this.#listeners = new Listeners(
      (request) => this.handle(request),
      () => this.#down,
    );
    this.fetch = memoryFetch((request) => {
      if (this.#down) return Promise.reject(refusedError(request.url));
      return this.handle(request);
    });
  }

  /** Every request the server received, oldest first. */
  get requests(): readonly RecordedRequest[] {
    return this.#state.requests;
  }

  /** The resources it serves, built-in and registered. */
  get resources(): readonly RegisteredResource[] {
    return this.#state.resources;
  }

  /** The newest resourceVersion of the store, as a string. */
  get resourceVersion(): string {
    return String(this.#state.store.rv);
  }

  /** How many watch streams are open. */
  get openWatches(): number {
    return this.#state.watches.size;
  }

  /** Whether the server is down (see {@linkcode FakeApiServer.down}). */
  get isDown(): boolean {
    return this.#down;
  }

  /**
   * Serves a resource, such as a custom resource. Every built-in resource
   * of kube-apiserver 1.37 is served from the start; registering one
   * changes nothing and returns it as served.
   *
   * @example A namespaced custom resource with a status subresource
   * ```ts
   * import assert from "node:assert/strict";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * server.register({
   *   group: "example.com",
   *   version: "v1",
   *   resource: "widgets",
   *   kind: "Widget",
   *   statusSubresource: true,
   * });
   * const res = await server.fetch(
   *   `${server.url}/apis/example.com/v1/namespaces/default/widgets`,
   * );
   * assert.equal((await res.json()).kind, "WidgetList");
   * ```
   *
   * @example Printer columns, as `kubectl get` shows them
   * ```ts
   * import assert from "node:assert/strict";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * server.register({
   *   group: "example.com",
   *   version: "v1",
   *   resource: "widgets",
   *   kind: "Widget",
   *   printerColumns: [
   *     { name: "Size", type: "integer", jsonPath: ".spec.size" },
   *     { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
   *   ],
   * });
   * const path = `${server.url}/apis/example.com/v1/namespaces/default/widgets`;
   * const made = await server.fetch(path, {
   *   method: "POST",
   *   body: JSON.stringify({ metadata: { name: "w1" }, spec: { size: 3 } }),
   * });
   * await made.body?.cancel();
   * const res = await server.fetch(path, {
   *   headers: { accept: "application/json;as=Table;v=v1;g=meta.k8s.io" },
   * });
   * const table = await res.json();
   * assert.equal(table.kind, "Table");
   * assert.deepEqual(
   *   table.columnDefinitions.map((c: { name: string }) => c.name),
   *   ["Name", "Size", "Age"],
   * );
   * assert.deepEqual(table.rows[0].cells.slice(0, 2), ["w1", 3]);
   * assert.match(table.rows[0].cells[2], /^\d+s$/);
   * ```
   *
   * @param definition The resource.
   * @returns The resource as discovery lists it.
   */
  register(definition: ResourceRegistration): RegisteredResource {
    // The fake serves every built-in kind already, with more than a
    // registration can say (its subresources, defaults, status strategy).
    const served = builtIn(
      definition.group ?? "",
      definition.version,
      definition.resource,
    );
    if (served !== undefined) return served;
    const resource = registeredResource(definition);
    const state = this.#state;
    state.resources = state.resources.filter((r) =>
      !(r.group === resource.group && r.version === resource.version &&
        r.resource === resource.resource)
    );
    state.resources.push(Object.freeze(resource));
    return resource;
  }

  /**
   * Answers one request: the handler behind both the in-memory `fetch` and
   * the network server. It does not check `down()`; the transports do.
   *
   * @param request The request.
   * @returns The response.
   */
  async handle(request: Request): Promise<Response> {
    const { method, url, text, body, recorded } = await receive(
      this.#state,
      request,
    );
    // A delayed request fails as its connection does: aborted or reset.
    if (this.#latency > 0) await this.#sleep(this.#latency, request.signal);
    const state = this.#state;
    state.warnings = [];
    try {
      const refused = this.#refusals.answer(method, url, state.resources);
      if (refused) return refused;
      return await converting(
        state,
        url,
        method,
        request.signal,
        // Each round of a conversion answers the request anew.
        () =>
          respond(state, {
            method,
            url,
            text,
            body: clone(body),
            recorded,
          }, request),
      );
    } catch (error) {
      return withWarnings(failureResponse(error, request), state.warnings);
    }
  }

  // ---------------------------------------------------------------- faults

  /**
   * Takes the server down: every open watch stream errors the way a reset
   * connection does, a request waiting out {@linkcode FakeApiServer.latency}
   * fails the same way, the in-memory `fetch` rejects new requests with the
   * `TypeError` Deno's `fetch` gives for a refused connection, and every
   * network server stops listening, so its port refuses connections (over
   * the network a delayed request is answered 500 instead, and a request on
   * a kept-alive connection that slips in is answered 503).
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * server.down();
   * await assert.rejects(server.fetch(`${server.url}/api/v1/namespaces`), TypeError);
   * server.up();
   * const res = await server.fetch(`${server.url}/api/v1/namespaces`);
   * assert.equal(res.status, 200);
   * await res.body?.cancel();
   * ```
   */
  down(): void {
    if (this.#down) return;
    this.#down = true;
    this.#downSignal.abort(resetError());
    for (const watch of [...this.#state.watches]) watch.error(resetError());
    this.#listeners.down();
  }

  /**
   * Brings the server up again after {@linkcode FakeApiServer.down}, on the
   * same ports (it throws if another process took a port meanwhile).
   */
  up(): void {
    if (!this.#down) return;
    this.#down = false;
    this.#downSignal = new AbortController();
    this.#listeners.up();
  }

  /**
   * Refuses the requests that match with a Status of the given code, for
   * `count` requests or until `allow()`. Refused requests are still
   * recorded in {@linkcode FakeApiServer.requests}.
   *
   * @example Throttle the next request
   * ```ts
   * import assert from "node:assert/strict";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * server.refuse({ status: 429, count: 1, retryAfterHeader: 2 });
   * const res = await server.fetch(`${server.url}/api/v1/namespaces`);
   * assert.equal(res.status, 429);
   * assert.equal(res.headers.get("retry-after"), "2");
   * assert.equal((await res.json()).reason, "TooManyRequests");
   * ```
   *
   * @param options What to refuse and how.
   * @returns A handle that ends the refusal.
   */
  refuse(options: RefuseOptions): Refusal {
    return this.#refusals.add(options);
  }

  /**
   * Delays every request by `ms` milliseconds of (possibly fake) time before
   * it is answered; `0` removes the delay.
   *
   * @param ms The delay.
   */
  latency(ms: number): void {
    this.#latency = Math.max(0, ms);
  }

  /** Ends every open watch stream cleanly, as a server that closes a watch does. */
  cutWatches(): void {
    for (const watch of [...this.#state.watches]) watch.close();
  }

  /**
   * Stops (or, with `false`, starts again) the periodic bookmarks of every
   * watch, open or to come, as an API server without a watch cache sends
   * none. The bookmark that ends a streaming list's initial events and the
   * one 2 s before a watch's timeout still go.
   *
   * @param stopped `true` (default) to stop them, `false` to send them again.
   */
  stopBookmarks(stopped = true): void {
    this.#state.bookmarksStopped = stopped;
  }

  /**
   * Corrupts the next line any watch writes: a truncated line followed by
   * the end of the stream, or a malformed JSON line.
   *
   * @param options `truncate: true` for a truncated last line.
   */
  corruptNextWatchLine(options: CorruptOptions = {}): void {
    this.#state.corrupt = options;
  }

  /** Forgets all history: watches and continue tokens from older versions get 410. */
  compact(): void {
    this.#state.store.compact();
  }

  /**
   * Counts the requests received that match the filter.
   *
   * @param filter Method and/or path.
   * @returns How many.
   */
  count(filter: RequestFilter = {}): number {
    return this.#state.requests.filter((r) =>
      (filter.method === undefined ||
        filter.method.toUpperCase() === r.method) &&
      matchPath(filter.path, r.path)
    ).length;
  }

  // ------------------------------------------------------ direct store access

  /**
   * The stored object at a path, such as
   * `/api/v1/namespaces/default/configmaps/a`, or named by an
   * {@linkcode ObjectRef}; `undefined` when there is none.
   *
   * @param object The object's path, or its reference.
   * @returns A copy of the object.
   * @throws {TypeError} When it names no object of a served resource.
   */
  object<T extends KubeObject = KubeObject>(
    object: string | ObjectRef,
  ): T | undefined {
    const { resource, key } = objectTarget(this.#state.resources, object);
    return clone(this.#state.store.peek(resourceKey(resource), key)) as
      | T
      | undefined;
  }

  /**
   * Writes an object directly, as another client would, with no checks: it
   * gets a new resourceVersion, and watches see it.
   *
   * @param object The object's path, or its {@linkcode ObjectRef}.
   * @param value The object; name and namespace come from the path.
   * @returns A copy of the stored object.
   * @throws {TypeError} When it names no object of a served resource.
   */
  put<T extends KubeObject = KubeObject>(
    object: string | ObjectRef,
    value: T,
  ): T {
    return putObject(this.#state, object, value);
  }

  /**
   * Deletes an object directly (finalizers are ignored); watches see it,
   * and the garbage collector then collects its dependents.
   *
   * @param object The object's path, or its {@linkcode ObjectRef}.
   * @returns Whether an object was there.
   * @throws {TypeError} When it names no object of a served resource.
   */
  remove(object: string | ObjectRef): boolean {
    const { resource, key } = objectTarget(this.#state.resources, object);
    return this.#state.store.delete(resourceKey(resource), key) !== undefined;
  }

  // ------------------------------------------------------------------ events

  /** Drops all Events at once, as their one-hour time to live would. */
  expireEvents(): void {
    expireEvents(this.#state);
  }

  /**
   * All stored Events, oldest first (by creation, not by name).
   *
   * @returns Copies of the Events.
   */
  events(): EventObject[] {
    return storedEvents(this.#state);
  }

  /**
   * The Events about one object, oldest first.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const res = await server.fetch(`${server.url}/api/v1/namespaces/default/events`, {
   *   method: "POST",
   *   body: JSON.stringify({
   *     metadata: { generateName: "a." },
   *     involvedObject: { kind: "ConfigMap", name: "a", namespace: "default" },
   *     reason: "Made",
   *   }),
   * });
   * await res.body?.cancel();
   * const about = server.eventsAbout({ kind: "ConfigMap", name: "a" });
   * assert.deepEqual(about.map((e) => e.reason), ["Made"]);
   * ```
   *
   * @param options Kind, name and optionally namespace of the object.
   * @returns Copies of the Events.
   */
  eventsAbout(options: EventsAboutOptions): EventObject[] {
    return eventsAbout(this.events(), options);
  }

  // ------------------------------------------------------------------ leases

  /**
   * Writes a Lease as another process holding it would (the fields
   * client-go's `leaderelection` writes).
   *
   * @param options The Lease and its holder.
   * @returns A copy of the stored Lease.
   */
  holdLease(options: HoldLeaseOptions): KubeObject {
    const ref = leaseRef(options.namespace, options.name);
    return this.put(ref, heldLease(options, this.object<LeaseObject>(ref)));
  }

  /**
   * The identity that holds a Lease, or `undefined` when the Lease is absent
   * or names no holder.
   *
   * @param namespace Namespace of the Lease.
   * @param name Name of the Lease.
   * @returns The holder.
   */
  leaseHolder(namespace: string, name: string): string | undefined {
    return holderOf(this.object<LeaseObject>(leaseRef(namespace, name)));
  }

  /**
   * After the next GET of `path` is answered, writes the object again at a
   * new version (changed by `mutate` when given): the reader's next
   * conditional update then conflicts, like a write that landed after its
   * client gave up on it.
   *
   * @param options The object (path or reference) and the change.
   */
  landAfterNextRead(options: LandAfterNextReadOptions): void {
    this.#state.landings.push({
      path: pathOf(options.path),
      mutate: options.mutate,
    });
  }

  // ---------------------------------------------------------------- serving

  /**
   * Serves the fake over the network on 127.0.0.1 and a free port, HTTP or
   * HTTPS with the test certificate. Dispose the answer to stop it.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * await using served = await server.serve();
   * const res = await fetch(`${served.url}/api/v1/namespaces/default/configmaps`);
   * assert.equal((await res.json()).kind, "ConfigMapList");
   * ```
   *
   * @param options `tls: true` for HTTPS.
   * @returns The URL, the CA to trust, and the disposer.
   */
  serve(options: ServeOptions = {}): Promise<ServedApiServer> {
    return Promise.resolve(this.#listeners.serve(options));
  }

  /**
   * Ends every watch, stops every network server, and cancels pending
   * delays; the same as `[Symbol.asyncDispose]()`.
   */
  async stop(): Promise<void> {
    this.#disposed.abort(new Error("The fake API server was disposed"));
    this.#gc.stop();
    for (const watch of [...this.#state.watches]) watch.close();
    await this.#listeners.stop();
  }

  /** Ends every watch, stops every network server, and cancels pending delays. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  // Waits on the (possibly fake) clock; ends early, rejecting, when the
  // client aborts, the server goes down (a reset connection) or is disposed.
  async #sleep(ms: number, signal: AbortSignal): Promise<void> {
    const ended = AbortSignal.any([
      signal,
      this.#downSignal.signal,
      this.#disposed.signal,
    ]);
    if (!(await sleep(ms, ended))) throw ended.reason;
  }
}
