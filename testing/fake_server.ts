/**
 * The fake API server: an in-memory store of Kubernetes objects that answers
 * the REST API the way the API server does, with faults a test can inject.
 *
 * @module
 */
import type {
  KubeObject,
  ObjectMeta,
  Status,
  StatusDetails,
  WatchEvent,
} from "../apiclient/types.ts";
import {
  clone,
  deepEqual,
  jsonPatch,
  mergePatch,
  PatchError,
} from "./_patch.ts";
import {
  ALL_VERBS,
  BUILT_IN_RESOURCES,
  type PrinterColumn,
  type RegisteredResource,
} from "./_registry.ts";
import {
  bothSelectors,
  fieldSelector,
  labelSelector,
  type Matcher,
} from "./_selectors.ts";
import {
  alreadyExists,
  badRequest,
  conflict,
  defaultMessage,
  expired,
  failure,
  invalid,
  noSuchResource,
  notFound,
  qualified,
  REASONS,
  StatusError,
  statusResponse,
} from "./_status.ts";
import { type Change, Store } from "./_store.ts";
import { memoryFetch, refusedError, resetError } from "./_transport.ts";
import { testCerts } from "./certs.ts";
import { discoveryResponse } from "./_discovery.ts";
import { eventErrors } from "./_events.ts";
import { flag, type ListOptions, listOptions } from "./_options.ts";
import { TableEncoder } from "./_table.ts";

export type { PrinterColumn, RegisteredResource } from "./_registry.ts";
export type {
  KubeObject,
  ObjectMeta,
  OwnerReference,
} from "../apiclient/types.ts";
import { sleep } from "../_internal/sleep.ts";

/** A resource to serve, as {@linkcode FakeApiServer.register} takes it. */
export interface ResourceDefinition {
  /** API group; `""` or absent for the core group. */
  group?: string;
  /** API version, such as `v1`. */
  version: string;
  /** Plural resource name used in paths, such as `widgets`. */
  resource: string;
  /** Kind of one object, such as `Widget`. */
  kind: string;
  /** Whether objects live in a namespace. Default `true`. */
  namespaced?: boolean;
  /** Whether the resource has a `/status` subresource. Default `false`. */
  statusSubresource?: boolean;
  /** Kind of a list. Default `<kind>List`. */
  listKind?: string;
  /** Short names for discovery, such as `wd`. */
  shortNames?: readonly string[];
  /**
   * The columns `kubectl get` shows after NAME, as a
   * CustomResourceDefinition's `additionalPrinterColumns` declares them
   * (`jsonPath` for `JSONPath`). Absent: one AGE column, as the API server
   * defaults. Ignored for the built-in kinds, which have their own columns.
   */
  printerColumns?: readonly PrinterColumn[];
}

/** One request the server received, as {@linkcode FakeApiServer.requests} keeps it. */
export interface RecordedRequest {
  /** HTTP method, such as `GET`. */
  method: string;
  /** URL path, without the query. */
  path: string;
  /** The query parameters. */
  query: URLSearchParams;
  /** The body, parsed as JSON when it is JSON; absent when empty. */
  body?: unknown;
  /** When the request arrived (`Date.now()`, so fake time when faked). */
  time: number;
}

/** Which requests to count; every field is optional. */
export interface RequestFilter {
  /** Only this HTTP method. */
  method?: string;
  /** Only this exact path, or paths the pattern matches. */
  path?: string | RegExp;
}

/** Options for {@linkcode FakeApiServer.refuse}. */
export interface RefuseOptions {
  /**
   * Only requests of this method (such as `PUT`), or of these methods (such
   * as `["POST", "PATCH"]` to refuse writes alone). Default: every method.
   */
  method?: string | readonly string[];
  /** Only this exact path, or paths the pattern matches. Default: every path. */
  path?: string | RegExp;
  /** `true`: only watch requests; `false`: only other requests. Default: both. */
  watch?: boolean;
  /** The status code to answer, such as 403, 429, 500 or 503. */
  status: number;
  /** The Status `reason`. Default: the API server's reason for the code. */
  reason?: string;
  /** The Status `message`. Default: a message like the API server's. */
  message?: string;
  /** How many requests to refuse. Default: every one until `allow()`. */
  count?: number;
  /** Sets `details.retryAfterSeconds` in the Status body. */
  retryAfterSeconds?: number;
  /** Sets the `Retry-After` response header. */
  retryAfterHeader?: number | string;
}

/** A refusal in force; made by {@linkcode FakeApiServer.refuse}. */
export interface Refusal {
  /** Ends the refusal. */
  allow(): void;
  /** How many more requests it refuses (`Infinity` without a count). */
  readonly remaining: number;
}

/** Options for {@linkcode FakeApiServer.serve}. */
export interface ServeOptions {
  /** Serve HTTPS with the test certificate (see `testCerts`). Default `false`. */
  tls?: boolean;
}

/** The fake served over the network; made by {@linkcode FakeApiServer.serve}. */
export interface ServedApiServer extends AsyncDisposable {
  /** Base URL, such as `https://127.0.0.1:41234`. */
  readonly url: string;
  /** The CA certificate (PEM) to trust for HTTPS; absent for plain HTTP. */
  readonly caCert: string | undefined;
  /** The port it listens on (kept across `down()`/`up()`). */
  readonly port: number;
}

/** Options for {@linkcode FakeApiServer.holdLease}. */
export interface HoldLeaseOptions {
  /** Namespace of the Lease. */
  namespace: string;
  /** Name of the Lease. */
  name: string;
  /** The holder to write (`holderIdentity`). */
  identity: string;
  /** When the holder last renewed. Default: now. */
  renewTime?: Date | number;
  /** When the holder acquired it. Default: `renewTime`. */
  acquireTime?: Date | number;
  /** `leaseDurationSeconds`. Default 30. */
  leaseDurationSeconds?: number;
  /** `leaseTransitions`. Default: the stored value, or absent. */
  leaseTransitions?: number;
}

/** Options for {@linkcode FakeApiServer.landAfterNextRead}. */
export interface LandAfterNextReadOptions {
  /** The object path whose next GET triggers the write. */
  path: string;
  /**
   * Changes the object before it is written again; answer a new object or
   * change the given copy. Default: write it unchanged at a new version.
   */
  mutate?: (object: KubeObject) => KubeObject | void;
}

/** Which Events {@linkcode FakeApiServer.eventsAbout} answers. */
export interface EventsAboutOptions {
  /** Kind of the involved object. */
  kind: string;
  /** Name of the involved object. */
  name: string;
  /** Namespace of the involved object. Default: any. */
  namespace?: string;
}

/** Options for {@linkcode FakeApiServer.corruptNextWatchLine}. */
export interface CorruptOptions {
  /**
   * `true`: send the first half of the line, no newline, then end the stream.
   * `false` (default): send a malformed JSON line and keep the stream open.
   */
  truncate?: boolean;
}

/** Options for {@linkcode FakeApiServer}. */
export interface FakeApiServerOptions {
  /** Base URL of the in-memory server. Default `http://apiserver.test`. */
  url?: string;
  /** Milliseconds between the bookmarks of a watch. Default 60 000. */
  bookmarkInterval?: number;
  /**
   * Record `metadata.managedFields` on every create, update and patch, as
   * the API server does (one entry per manager and operation; the field
   * sets are left empty). Default `false`, which keeps objects short.
   */
  managedFields?: boolean;
}

/** A Kubernetes Event as the helpers read it. */
export interface EventObject extends KubeObject {
  /** The object the Event is about. */
  involvedObject?: {
    kind?: string;
    name?: string;
    namespace?: string;
    uid?: string;
    apiVersion?: string;
  };
  /** Short machine-readable reason. */
  reason?: string;
  /** Human-readable message. */
  message?: string;
  /** `Normal` or `Warning`. */
  type?: string;
  /** How many times it happened. */
  count?: number;
}

interface Route {
  resource: RegisteredResource;
  namespace: string | undefined;
  name: string | undefined;
  subresource: string | undefined;
}

interface RefusalRule extends RefuseOptions {
  left: number;
}

interface Listener {
  tls: boolean;
  port: number;
  server: Deno.HttpServer | undefined;
  stopping: Promise<void>[];
  /** The signal of every request it serves; aborted when it stops. */
  stop: AbortController;
}

const JSON_HEADERS = { "content-type": "application/json" };
const NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
const INITIAL_EVENTS_END = "k8s.io/initial-events-end";
/** The preconditions a delete can carry, as its conflict message names them. */
const PRECONDITIONS = [
  ["uid", "UID"],
  ["resourceVersion", "ResourceVersion"],
] as const;
const CONTINUE_EXPIRED =
  "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.";

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function apiVersionOf(resource: RegisteredResource): string {
  return resource.group === ""
    ? resource.version
    : `${resource.group}/${resource.version}`;
}

function resourceKey(resource: RegisteredResource): string {
  return `${resource.group}/${resource.resource}`;
}

function objectKey(
  resource: RegisteredResource,
  namespace: string | undefined,
  name: string,
): string {
  return resource.namespaced ? `${namespace ?? ""}/${name}` : name;
}

/** RFC 3339 with seconds, as the API server writes metav1.Time. */
function timestamp(ms = Date.now()): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** RFC 3339 with microseconds, as the API server writes metav1.MicroTime. */
function microTime(at: Date | number): string {
  const ms = typeof at === "number" ? at : at.getTime();
  return new Date(ms).toISOString().replace(/Z$/, "000Z");
}

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: JSON_HEADERS });
}

function encodeContinue(rv: number, start: string): string {
  return btoa(JSON.stringify({ v: "meta.k8s.io/v1", rv, start: `${start}\0` }));
}

function decodeContinue(token: string): { rv: number; start: string } {
  try {
    const decoded = JSON.parse(atob(token));
    if (
      decoded.v !== "meta.k8s.io/v1" || !Number.isInteger(decoded.rv) ||
      decoded.rv === 0 || typeof decoded.start !== "string"
    ) throw new Error("bad token");
    return { rv: decoded.rv, start: decoded.start.replace(/\0$/, "") };
  } catch {
    throw badRequest(
      "continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)",
    );
  }
}

/**
 * An in-memory Kubernetes API server for tests.
 *
 * It serves Namespaces, ConfigMaps, Secrets, Pods, Services, Events (core/v1),
 * Leases (coordination.k8s.io/v1) and CustomResourceDefinitions from the
 * start, and any resource a test {@linkcode FakeApiServer.register}s. Objects
 * get a resourceVersion from one global counter, a uid, a
 * creationTimestamp and a generation; creates, updates, patches, deletes,
 * lists and watches answer what the API server answers, and failures are
 * `Status` objects worded like its own.
 *
 * Use {@linkcode FakeApiServer.fetch} in memory (no sockets, deterministic
 * on fake time) or {@linkcode FakeApiServer.serve} over HTTP or HTTPS.
 *
 * Where it differs from the API server, on purpose:
 * - Namespaces need not exist for objects to be created in them. Deleting
 *   a Namespace deletes it and everything in it at once (no Terminating
 *   phase).
 * - Apply patches (`application/apply-patch+yaml`) must be JSON; they are
 *   merged like a merge patch, create the object when it is absent, and need
 *   `fieldManager`. No managed fields are tracked.
 * - Strategic merge patches are merged like merge patches (lists replace).
 * - Every object gets a `generation` (the API server gives one only to
 *   custom resources and a few built-in kinds), so code that reads it can be
 *   tested with any kind; it moves when anything but `metadata` and `status`
 *   changes, and on status changes too when the resource has no status
 *   subresource, as for custom resources.
 * - Field selectors read any dotted path of the object (the API server
 *   answers 400 for a field it does not index), so a test need not know the
 *   per-kind lists.
 * - History is kept until {@linkcode FakeApiServer.compact}, so a test
 *   decides when a version becomes too old.
 * - A watch without `timeoutSeconds` (or with 0) stays open until it is
 *   cancelled, where the API server picks 30 to 60 minutes; a test would
 *   otherwise see watches end at a random time.
 * - A watch without `sendInitialEvents` and without a version gets the
 *   current objects and no `k8s.io/initial-events-end` bookmark, as from an
 *   API server with the WatchList feature off (with it on, such a watch
 *   that allows bookmarks also gets that bookmark), so a client cannot come
 *   to depend on it.
 * - Bookmarks carry only `resourceVersion` in `metadata` (the API server's
 *   built-in kinds also write `creationTimestamp: null`).
 * - No defaults are applied to objects (a Pod gets no `status.phase`, a
 *   Service no cluster IP), so the Tables `kubectl get` prints show what
 *   is stored.
 *
 * A GET that asks for a Table (`Accept: application/json;as=Table;v=v1;
 * g=meta.k8s.io`, as `kubectl get` and `kubectl get -w` send) is answered
 * with the API server's columns for the built-in kinds, and NAME plus the
 * registered `printerColumns` (else AGE) for other resources; see
 * {@linkcode ResourceDefinition.printerColumns}.
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

  #store = new Store();
  #resources: RegisteredResource[] = [...BUILT_IN_RESOURCES];
  #requests: RecordedRequest[] = [];
  #refusals: RefusalRule[] = [];
  #watches = new Set<WatchStream>();
  #listeners: Listener[] = [];
  #landings: LandAfterNextReadOptions[] = [];
  #created = new Map<string, number>();
  #createdCount = 0;
  #nameSeed = 1;
  #down = false;
  #latency = 0;
  #corrupt: CorruptOptions | undefined;
  #bookmarkInterval: number;
  #managedFields: boolean;
  #manager = "unknown";
  #disposed = new AbortController();
  #downSignal = new AbortController();

  /** Makes a server with the built-in resources and no objects. */
  constructor(options: FakeApiServerOptions = {}) {
    this.url = (options.url ?? "http://apiserver.test").replace(/\/$/, "");
    this.#bookmarkInterval = options.bookmarkInterval ?? 60_000;
    this.#managedFields = options.managedFields ?? false;
    this.fetch = memoryFetch((request) => {
      if (this.#down) return Promise.reject(refusedError(request.url));
      return this.handle(request);
    });
  }

  /** Every request the server received, oldest first. */
  get requests(): readonly RecordedRequest[] {
    return this.#requests;
  }

  /** The resources it serves, built-in and registered. */
  get resources(): readonly RegisteredResource[] {
    return this.#resources;
  }

  /** The newest resourceVersion of the store, as a string. */
  get resourceVersion(): string {
    return String(this.#store.rv);
  }

  /** How many watch streams are open. */
  get openWatches(): number {
    return this.#watches.size;
  }

  /** Whether the server is down (see {@linkcode FakeApiServer.down}). */
  get isDown(): boolean {
    return this.#down;
  }

  /**
   * Serves a resource, such as a custom resource.
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
  register(definition: ResourceDefinition): RegisteredResource {
    const resource: RegisteredResource = {
      group: definition.group ?? "",
      version: definition.version,
      resource: definition.resource,
      kind: definition.kind,
      listKind: definition.listKind ?? `${definition.kind}List`,
      namespaced: definition.namespaced ?? true,
      statusSubresource: definition.statusSubresource ?? false,
      verbs: ALL_VERBS,
    };
    if (definition.shortNames) resource.shortNames = definition.shortNames;
    if (definition.printerColumns) {
      resource.printerColumns = Object.freeze(
        definition.printerColumns.map((c) => Object.freeze({ ...c })),
      );
    }
    this.#resources = this.#resources.filter((r) =>
      !(r.group === resource.group && r.version === resource.version &&
        r.resource === resource.resource)
    );
    this.#resources.push(Object.freeze(resource));
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
    const url = new URL(request.url);
    const method = request.method.toUpperCase();
    const text = method === "GET" || method === "HEAD"
      ? ""
      : await request.text();
    let body: unknown = undefined;
    if (text !== "") {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    const recorded: RecordedRequest = {
      method,
      path: url.pathname,
      query: url.searchParams,
      time: Date.now(),
    };
    if (body !== undefined) recorded.body = body;
    this.#requests.push(recorded);
    // A delayed request fails as its connection does: aborted or reset.
    if (this.#latency > 0) await this.#sleep(this.#latency, request.signal);
    try {
      const refused = this.#refused(method, url);
      if (refused) return refused;
      return this.#route(method, url, text, body, request);
    } catch (error) {
      if (error instanceof StatusError) {
        return statusResponse(error.status, error.headers);
      }
      if (error instanceof PatchError) {
        return statusResponse(
          failure(
            422,
            "Invalid",
            "the server rejected our request due to an error in our request",
            {
              causes: [{
                reason: "UnexpectedServerResponse",
                message: error.message,
              }],
            },
          ),
        );
      }
      if (request.signal.aborted) throw error;
      return statusResponse(
        failure(
          500,
          "InternalError",
          `Internal error occurred: ${(error as Error)?.message ?? error}`,
        ),
      );
    }
  }

  // ---------------------------------------------------------------- routing

  #route(
    method: string,
    url: URL,
    text: string,
    body: unknown,
    request: Request,
  ): Response {
    const path = url.pathname;
    const discovered = this.#discovery(path);
    if (discovered) return discovered;
    if (!path.startsWith("/api/") && !path.startsWith("/apis/")) {
      return new Response("404 page not found\n", {
        status: 404,
        headers: { "content-type": "text/plain; charset=utf-8" },
      });
    }
    const route = this.#parse(path);
    if (!route) throw noSuchResource();
    const { resource, namespace, name, subresource } = route;
    if (subresource !== undefined && subresource !== "status") {
      throw noSuchResource();
    }
    if (subresource === "status" && !resource.statusSubresource) {
      throw noSuchResource();
    }
    const query = url.searchParams;
    // The API server names the manager of a write by fieldManager, else by
    // the client's user agent.
    this.#manager = query.get("fieldManager") ??
      (request.headers.get("user-agent") ?? "unknown").split("/")[0]!;
    switch (method) {
      case "GET": {
        // kubectl get asks for a Table (as=Table in Accept) to print.
        const table = TableEncoder.negotiate(resource, {
          accept: request.headers.get("accept"),
          query,
        });
        if (flag(query, "watch")) {
          const options = listOptions(query);
          return this.#watch(route, query, options, request.signal, table);
        }
        return name === undefined
          ? this.#list(resource, namespace, query, table)
          : this.#get(route, path, table);
      }
      case "POST":
        if (name !== undefined) throw methodNotAllowed();
        if (resource.namespaced && namespace === undefined) {
          throw noSuchResource();
        }
        return this.#create(resource, namespace, body, query);
      case "PUT":
        if (name === undefined) throw methodNotAllowed();
        return this.#update(route, name, body, query);
      case "PATCH":
        if (name === undefined) throw methodNotAllowed();
        return this.#patch(route, name, text, request, query);
      case "DELETE":
        return name === undefined
          ? this.#deleteCollection(resource, namespace, query)
          : this.#delete(route, name, body);
      default:
        throw methodNotAllowed();
    }
  }

  #discovery(path: string): Response | undefined {
    return discoveryResponse(path, this.#resources);
  }

  #find(
    group: string,
    version: string,
    plural: string,
  ): RegisteredResource | undefined {
    return this.#resources.find((r) =>
      r.group === group && r.version === version && r.resource === plural
    );
  }

  #parse(path: string): Route | undefined {
    const parts = path.split("/").slice(1).map((p) => decodeURIComponent(p));
    if (parts[parts.length - 1] === "") parts.pop();
    let group: string;
    let version: string;
    let rest: string[];
    if (parts[0] === "api" && parts.length >= 2) {
      group = "";
      version = parts[1]!;
      rest = parts.slice(2);
    } else if (parts[0] === "apis" && parts.length >= 3) {
      group = parts[1]!;
      version = parts[2]!;
      rest = parts.slice(3);
    } else return undefined;
    let namespace: string | undefined;
    if (
      rest[0] === "namespaces" && rest.length >= 3 &&
      this.#find(group, version, rest[2]!)?.namespaced
    ) {
      namespace = rest[1];
      rest = rest.slice(2);
    }
    if (rest.length === 0 || rest.length > 3) return undefined;
    const resource = this.#find(group, version, rest[0]!);
    if (!resource) return undefined;
    const name = rest[1];
    if (resource.namespaced && namespace === undefined && name !== undefined) {
      return undefined;
    }
    return { resource, namespace, name, subresource: rest[2] };
  }

  // ---------------------------------------------------------------- faults

  #refused(method: string, url: URL): Response | undefined {
    const watch = flag(url.searchParams, "watch") ?? false;
    const rule = this.#refusals.find((r) =>
      (r.method === undefined ||
        (typeof r.method === "string" ? [r.method] : r.method).some((m) =>
          m.toUpperCase() === method
        )) &&
      matchPath(r.path, url.pathname) &&
      (r.watch === undefined || r.watch === watch)
    );
    if (!rule) return undefined;
    if (--rule.left <= 0) {
      this.#refusals = this.#refusals.filter((r) => r !== rule);
    }
    const details: StatusDetails = {};
    let message = rule.message;
    if (message === undefined && rule.status === 403) {
      message = this.#forbidden(method, url, details);
    }
    if (rule.retryAfterSeconds !== undefined) {
      details.retryAfterSeconds = rule.retryAfterSeconds;
    }
    const headers: Record<string, string> = {};
    if (rule.retryAfterHeader !== undefined) {
      headers["retry-after"] = String(rule.retryAfterHeader);
    }
    return statusResponse(
      failure(
        rule.status,
        rule.reason ?? REASONS[rule.status] ?? "Unknown",
        message ?? defaultMessage(rule.status),
        Object.keys(details).length > 0 ? details : undefined,
      ),
      headers,
    );
  }

  #forbidden(method: string, url: URL, details: StatusDetails): string {
    const route = this.#parse(url.pathname);
    if (!route) return defaultMessage(403);
    const { resource, namespace, name } = route;
    const watch = flag(url.searchParams, "watch") ?? false;
    const verb = method === "GET"
      ? (watch ? "watch" : name === undefined ? "list" : "get")
      : method === "POST"
      ? "create"
      : method === "PUT"
      ? "update"
      : method === "PATCH"
      ? "patch"
      : name === undefined
      ? "deletecollection"
      : "delete";
    if (name !== undefined) details.name = name;
    if (resource.group !== "") details.group = resource.group;
    details.kind = resource.resource;
    const what = name === undefined
      ? qualified(resource)
      : `${qualified(resource)} "${name}"`;
    const scope = namespace === undefined
      ? "at the cluster scope"
      : `in the namespace "${namespace}"`;
    return `${what} is forbidden: User "system:serviceaccount:default:default" cannot ${verb} resource "${resource.resource}" in API group "${resource.group}" ${scope}`;
  }

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
    for (const watch of [...this.#watches]) watch.error(resetError());
    for (const listener of this.#listeners) this.#stopListening(listener);
  }

  /**
   * Brings the server up again after {@linkcode FakeApiServer.down}, on the
   * same ports (it throws if another process took a port meanwhile).
   */
  up(): void {
    if (!this.#down) return;
    this.#down = false;
    this.#downSignal = new AbortController();
    for (const listener of this.#listeners) this.#listen(listener);
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
    const rule: RefusalRule = { ...options, left: options.count ?? Infinity };
    this.#refusals.push(rule);
    return {
      allow: () => {
        this.#refusals = this.#refusals.filter((r) => r !== rule);
      },
      get remaining() {
        return Math.max(0, rule.left);
      },
    };
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
    for (const watch of [...this.#watches]) watch.close();
  }

  /**
   * Corrupts the next line any watch writes: a truncated line followed by
   * the end of the stream, or a malformed JSON line.
   *
   * @param options `truncate: true` for a truncated last line.
   */
  corruptNextWatchLine(options: CorruptOptions = {}): void {
    this.#corrupt = options;
  }

  /** Forgets all history: watches and continue tokens from older versions get 410. */
  compact(): void {
    this.#store.compact();
  }

  /**
   * Counts the requests received that match the filter.
   *
   * @param filter Method and/or path.
   * @returns How many.
   */
  count(filter: RequestFilter = {}): number {
    return this.#requests.filter((r) =>
      (filter.method === undefined ||
        filter.method.toUpperCase() === r.method) &&
      matchPath(filter.path, r.path)
    ).length;
  }

  // ------------------------------------------------------ direct store access

  /**
   * The stored object at a path, such as
   * `/api/v1/namespaces/default/configmaps/a`, or `undefined`.
   *
   * @param path The object's path.
   * @returns A copy of the object.
   */
  object<T extends KubeObject = KubeObject>(path: string): T | undefined {
    const { resource, key } = this.#objectPath(path);
    return clone(this.#store.peek(resourceKey(resource), key)) as
      | T
      | undefined;
  }

  /**
   * Writes an object at a path directly, as another client would, with no
   * checks: it gets a new resourceVersion, and watches see it.
   *
   * @param path The object's path.
   * @param object The object; name and namespace come from the path.
   * @returns A copy of the stored object.
   */
  put<T extends KubeObject = KubeObject>(path: string, object: T): T {
    const { resource, key, namespace, name } = this.#objectPath(path);
    const existing = this.#store.peek(resourceKey(resource), key);
    const next = clone(object) as KubeObject;
    next.apiVersion = apiVersionOf(resource);
    next.kind = resource.kind;
    next.metadata = { ...next.metadata, name };
    if (resource.namespaced) next.metadata.namespace = namespace!;
    else delete next.metadata.namespace;
    next.metadata.uid ??= existing?.metadata.uid ?? crypto.randomUUID();
    next.metadata.creationTimestamp ??= existing?.metadata.creationTimestamp ??
      timestamp();
    next.metadata.generation ??= existing?.metadata.generation ?? 1;
    if (!existing) this.#created.set(next.metadata.uid, ++this.#createdCount);
    return clone(this.#store.write(resourceKey(resource), key, next)) as T;
  }

  /**
   * Deletes an object directly (finalizers are ignored); watches see it.
   *
   * @param path The object's path.
   * @returns Whether an object was there.
   */
  remove(path: string): boolean {
    const { resource, key } = this.#objectPath(path);
    return this.#store.delete(resourceKey(resource), key) !== undefined;
  }

  #objectPath(
    path: string,
  ): {
    resource: RegisteredResource;
    namespace: string | undefined;
    name: string;
    key: string;
  } {
    const route = this.#parse(path);
    if (!route || route.name === undefined || route.subresource) {
      throw new TypeError(`Not the path of an object: ${path}`);
    }
    return {
      resource: route.resource,
      namespace: route.namespace,
      name: route.name,
      key: objectKey(route.resource, route.namespace, route.name),
    };
  }

  // ------------------------------------------------------------------ events

  /** Drops all Events at once, as their one-hour time to live would. */
  expireEvents(): void {
    const events = BUILT_IN_RESOURCES.find((r) => r.resource === "events")!;
    for (const [key] of this.#store.all(resourceKey(events))) {
      this.#store.delete(resourceKey(events), key);
    }
  }

  /**
   * All stored Events, oldest first (by creation, not by name).
   *
   * @returns Copies of the Events.
   */
  events(): EventObject[] {
    const events = BUILT_IN_RESOURCES.find((r) => r.resource === "events")!;
    return this.#store.all(resourceKey(events))
      .map(([, e]) => e as EventObject)
      .sort((a, b) =>
        (this.#created.get(a.metadata.uid ?? "") ?? 0) -
        (this.#created.get(b.metadata.uid ?? "") ?? 0)
      )
      .map((e) => clone(e));
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
    return this.events().filter((e) =>
      e.involvedObject?.kind === options.kind &&
      e.involvedObject?.name === options.name &&
      (options.namespace === undefined ||
        (e.involvedObject?.namespace ?? "") === options.namespace)
    );
  }

  // ------------------------------------------------------------------ leases

  /**
   * Writes a Lease as another process holding it would.
   *
   * @param options The Lease and its holder.
   * @returns A copy of the stored Lease.
   */
  holdLease(options: HoldLeaseOptions): KubeObject {
    const path =
      `/apis/coordination.k8s.io/v1/namespaces/${options.namespace}/leases/${options.name}`;
    const existing = this.object<
      KubeObject & { spec?: Record<string, unknown> }
    >(
      path,
    );
    const renew = options.renewTime ?? Date.now();
    const spec: Record<string, unknown> = {
      holderIdentity: options.identity,
      leaseDurationSeconds: options.leaseDurationSeconds ?? 30,
      acquireTime: microTime(options.acquireTime ?? renew),
      renewTime: microTime(renew),
    };
    const transitions = options.leaseTransitions ??
      existing?.spec?.leaseTransitions;
    if (transitions !== undefined) spec.leaseTransitions = transitions;
    return this.put(path, {
      metadata: existing?.metadata ?? {},
      spec,
    } as KubeObject);
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
    const lease = this.object<
      KubeObject & { spec?: { holderIdentity?: string } }
    >(
      `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases/${name}`,
    );
    const holder = lease?.spec?.holderIdentity;
    return holder === undefined || holder === "" ? undefined : holder;
  }

  /**
   * After the next GET of `path` is answered, writes the object again at a
   * new version (changed by `mutate` when given): the reader's next
   * conditional update then conflicts, like a write that landed after its
   * client gave up on it.
   *
   * @param options The path and the change.
   */
  landAfterNextRead(options: LandAfterNextReadOptions): void {
    this.#landings.push(options);
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
    const listener: Listener = {
      tls: options.tls ?? false,
      port: 0,
      server: undefined,
      stopping: [],
      stop: new AbortController(),
    };
    this.#listen(listener);
    if (this.#down) this.#stopListening(listener);
    this.#listeners.push(listener);
    const scheme = listener.tls ? "https" : "http";
    const served: ServedApiServer = {
      url: `${scheme}://127.0.0.1:${listener.port}`,
      caCert: listener.tls ? testCerts.caCert : undefined,
      port: listener.port,
      [Symbol.asyncDispose]: async () => {
        this.#listeners = this.#listeners.filter((l) => l !== listener);
        this.#stopListening(listener);
        await Promise.all(listener.stopping);
      },
    };
    return Promise.resolve(served);
  }

  #listen(listener: Listener): void {
    listener.stop = new AbortController();
    const base = {
      hostname: "127.0.0.1",
      port: listener.port,
      onListen(): void {},
      onError: (error: unknown) =>
        statusResponse(
          failure(500, "InternalError", `Internal error occurred: ${error}`),
        ),
    };
    const handler = (request: Request): Promise<Response> | Response => {
      if (this.#down) {
        return statusResponse(
          failure(503, "ServiceUnavailable", defaultMessage(503)),
        );
      }
      // Deno.serve's request.signal also aborts when a response completes
      // (and warns when read), so the handler gets the listener's signal
      // instead: stopping the listener ends its open watches, which would
      // otherwise hold shutdown() forever. A client that goes away cancels
      // the response body.
      const init: RequestInit & { duplex?: string } = {
        method: request.method,
        headers: request.headers,
        body: request.body,
        signal: listener.stop.signal,
      };
      if (request.body) init.duplex = "half";
      return this.handle(new Request(request.url, init));
    };
    const server = listener.tls
      ? Deno.serve({
        ...base,
        cert: testCerts.serverCert,
        key: testCerts.serverKey,
      }, handler)
      : Deno.serve(base, handler);
    listener.server = server;
    listener.port = server.addr.port;
  }

  #stopListening(listener: Listener): void {
    const server = listener.server;
    if (!server) return;
    listener.server = undefined;
    listener.stop.abort(resetError());
    // shutdown() closes the listening socket at once; the promise waits for
    // the open responses, which down() and dispose end.
    listener.stopping.push(server.shutdown().then(() => server.finished));
  }

  /** Ends every watch, stops every network server, and cancels pending delays. */
  async [Symbol.asyncDispose](): Promise<void> {
    this.#disposed.abort(new Error("The fake API server was disposed"));
    for (const watch of [...this.#watches]) watch.close();
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const listener of listeners) this.#stopListening(listener);
    await Promise.all(listeners.flatMap((l) => l.stopping));
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

  // ------------------------------------------------------------------- verbs

  #get(route: Route, path: string, table?: TableEncoder): Response {
    const { resource, namespace, name } = route;
    const stored = this.#store.peek(
      resourceKey(resource),
      objectKey(resource, namespace, name!),
    );
    if (!stored) throw notFound(resource, name!);
    const response = json(table ? table.object(stored) : stored);
    const at = this.#landings.findIndex((l) =>
      l.path.replace(/\/$/, "") === path.replace(/\/$/, "")
    );
    if (at >= 0) {
      const [landing] = this.#landings.splice(at, 1);
      const copy = clone(stored);
      const changed = landing!.mutate?.(copy) ?? copy;
      this.#store.write(
        resourceKey(resource),
        objectKey(resource, namespace, name!),
        changed,
      );
    }
    return response;
  }

  #selector(query: URLSearchParams): Matcher {
    return bothSelectors(
      labelSelector(query.get("labelSelector")),
      fieldSelector(query.get("fieldSelector")),
    );
  }

  #list(
    resource: RegisteredResource,
    namespace: string | undefined,
    query: URLSearchParams,
    table?: TableEncoder,
  ): Response {
    const selected = this.#selector(query);
    const filtered = query.has("labelSelector") || query.has("fieldSelector");
    const options = listOptions(query);
    const limit = Number(query.get("limit") ?? 0);
    let rv = this.#store.rv;
    let start: string | undefined;
    if (options.continue) {
      const decoded = decodeContinue(options.continue);
      if (decoded.rv > 0 && decoded.rv < this.#store.compacted) {
        // The API server answers a token to go on from the newest version.
        const status = failure(410, "Expired", CONTINUE_EXPIRED);
        status.metadata = { continue: encodeContinue(-1, decoded.start) };
        throw new StatusError(status);
      }
      if (decoded.rv > 0) rv = decoded.rv;
      start = decoded.start;
    } else if (options.match === "Exact") {
      const asked = Number(options.resourceVersion);
      if (!Number.isInteger(asked) || asked <= 0) {
        throw badRequest(
          `invalid resource version: ${options.resourceVersion}`,
        );
      }
      if (asked < this.#store.compacted) {
        throw expired("The resourceVersion for the provided list is too old.");
      }
      if (asked < rv) rv = asked;
    }
    const entries = rv === this.#store.rv
      ? this.#store.all(resourceKey(resource))
      : this.#store.snapshot(resourceKey(resource), rv);
    const prefix = namespace === undefined ? undefined : `${namespace}/`;
    const matching = entries.filter(([key, object]) =>
      (prefix === undefined || key.startsWith(prefix)) &&
      (start === undefined || key > start) &&
      selected(object)
    );
    const page = limit > 0 ? matching.slice(0, limit) : matching;
    const metadata: Record<string, unknown> = { resourceVersion: String(rv) };
    if (page.length < matching.length) {
      metadata.continue = encodeContinue(rv, page[page.length - 1]![0]);
      if (!filtered) {
        metadata.remainingItemCount = matching.length - page.length;
      }
    }
    const list = {
      kind: resource.listKind,
      apiVersion: apiVersionOf(resource),
      metadata,
      items: page.map(([, object]) => object),
    };
    return json(table ? table.list(list) : list);
  }

  #create(
    resource: RegisteredResource,
    namespace: string | undefined,
    body: unknown,
    query: URLSearchParams,
    apply = false,
  ): Response {
    const object = this.#decode(body, resource);
    const meta = object.metadata;
    if (resource.namespaced) {
      if (
        meta.namespace !== undefined && meta.namespace !== "" &&
        meta.namespace !== namespace
      ) {
        throw badRequest(
          "the namespace of the provided object does not match the namespace sent on the request",
        );
      }
      meta.namespace = namespace!;
    } else delete meta.namespace;
    const rkey = resourceKey(resource);
    if (!meta.name) {
      if (!meta.generateName) {
        throw invalid(resource.kind, "", [{
          field: "metadata.name",
          reason: "FieldValueRequired",
          message: "Required value: name or generateName is required",
        }], resource.group);
      }
      do {
        meta.name = meta.generateName + this.#suffix();
      } while (
        this.#store.peek(rkey, objectKey(resource, namespace, meta.name))
      );
    }
    const key = objectKey(resource, namespace, meta.name);
    if (this.#store.peek(rkey, key)) throw alreadyExists(resource, meta.name);
    this.#validate(resource, object);
    delete meta.resourceVersion;
    delete meta.deletionTimestamp;
    delete (meta as Record<string, unknown>).deletionGracePeriodSeconds;
    meta.uid = crypto.randomUUID();
    meta.creationTimestamp = timestamp();
    meta.generation = 1;
    const record = object as KubeObject & { status?: unknown };
    if (resource.statusSubresource) {
      // The API server drops the status a create sends when the resource
      // has a status subresource; a Namespace starts Active.
      delete record.status;
      if (resource.resource === "namespaces" && resource.group === "") {
        record.status = { phase: "Active" };
      }
    }
    this.#manage(object, resource, apply ? "Apply" : "Update", undefined);
    if (query.get("dryRun") === "All") return json(object, 201);
    this.#created.set(meta.uid, ++this.#createdCount);
    return json(this.#store.write(rkey, key, object), 201);
  }

  #manage(
    object: KubeObject,
    resource: RegisteredResource,
    operation: "Apply" | "Update",
    subresource: string | undefined,
  ): void {
    if (!this.#managedFields) return;
    const entry: Record<string, unknown> = {
      manager: this.#manager,
      operation,
      apiVersion: apiVersionOf(resource),
      time: timestamp(),
      fieldsType: "FieldsV1",
      fieldsV1: {},
    };
    if (subresource) entry.subresource = subresource;
    const others = (object.metadata.managedFields ?? []).filter((f) => {
      const field = f as Record<string, unknown>;
      return !(field.manager === entry.manager &&
        field.operation === operation && field.subresource === subresource);
    });
    object.metadata.managedFields = [...others, entry];
  }

  #decode(body: unknown, resource: RegisteredResource): KubeObject {
    if (!isObject(body)) {
      throw badRequest(
        typeof body === "string"
          ? `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml`
          : "Object 'Kind' is missing in the request body",
      );
    }
    // apiVersion and kind first, as the API server writes them.
    const object = {
      ...clone(body),
      apiVersion: apiVersionOf(resource),
      kind: resource.kind,
    } as unknown as KubeObject;
    const ordered = {
      apiVersion: object.apiVersion,
      kind: object.kind,
      ...object,
    } as KubeObject;
    if (!isObject(ordered.metadata)) ordered.metadata = {};
    return ordered;
  }

  #suffix(): string {
    // A deterministic sequence that looks like the API server's random one.
    let n = (this.#nameSeed = (this.#nameSeed * 1103515245 + 12345) % 2 ** 31);
    let out = "";
    for (let i = 0; i < 5; i++) {
      out += NAME_ALPHABET[n % NAME_ALPHABET.length];
      n = Math.floor(n / NAME_ALPHABET.length);
    }
    return out;
  }

  #validate(resource: RegisteredResource, object: KubeObject): void {
    if (resource.group !== "" || resource.resource !== "events") return;
    const errors = eventErrors(object as EventObject);
    if (errors.length > 0) {
      throw invalid("Event", object.metadata.name ?? "", errors);
    }
  }

  #update(
    route: Route,
    name: string,
    body: unknown,
    query: URLSearchParams,
  ): Response {
    const { resource, namespace, subresource } = route;
    const object = this.#decode(body, resource);
    if (object.metadata.name !== undefined && object.metadata.name !== name) {
      throw badRequest(
        `the name of the object (${object.metadata.name}) does not match the name on the URL (${name})`,
      );
    }
    if (
      resource.namespaced && object.metadata.namespace !== undefined &&
      object.metadata.namespace !== "" &&
      object.metadata.namespace !== namespace
    ) {
      throw badRequest(
        "the namespace of the provided object does not match the namespace sent on the request",
      );
    }
    const key = objectKey(resource, namespace, name);
    const existing = this.#store.peek(resourceKey(resource), key);
    if (!existing) throw notFound(resource, name);
    const sent = object.metadata.resourceVersion;
    if (sent && sent !== existing.metadata.resourceVersion) {
      throw conflict(resource, name);
    }
    return this.#commit(route, name, existing, object, subresource, query, 200);
  }

  #patch(
    route: Route,
    name: string,
    text: string,
    request: Request,
    query: URLSearchParams,
  ): Response {
    const { resource, namespace } = route;
    const type = (request.headers.get("content-type") ?? "").split(";")[0]!
      .trim().toLowerCase();
    const kinds = [
      "application/merge-patch+json",
      "application/json-patch+json",
      "application/strategic-merge-patch+json",
      "application/apply-patch+yaml",
    ];
    if (!kinds.includes(type)) {
      throw new StatusError(failure(
        415,
        "UnsupportedMediaType",
        `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml`,
      ));
    }
    let patch: unknown;
    try {
      patch = JSON.parse(text);
    } catch (error) {
      throw badRequest(`error decoding patch: ${(error as Error).message}`);
    }
    const apply = type === "application/apply-patch+yaml";
    if (apply && !query.get("fieldManager")) {
      throw invalid("PatchOptions", "", [{
        field: "fieldManager",
        reason: "FieldValueRequired",
        message: "Required value: is required for apply patch",
      }], "meta.k8s.io");
    }
    const key = objectKey(resource, namespace, name);
    const existing = this.#store.peek(resourceKey(resource), key);
    if (!existing) {
      if (!apply || route.subresource) throw notFound(resource, name);
      const object = this.#decode(patch, resource);
      object.metadata.name ??= name;
      return this.#create(resource, namespace, object, query, true);
    }
    const patched = type === "application/json-patch+json"
      ? jsonPatch(existing, patch)
      : mergePatch(existing, patch);
    const object = this.#decode(patched, resource);
    const sent = object.metadata.resourceVersion;
    if (sent && sent !== existing.metadata.resourceVersion) {
      throw conflict(resource, name);
    }
    object.metadata.name = name;
    if (resource.namespaced) object.metadata.namespace = namespace!;
    return this.#commit(
      route,
      name,
      existing,
      object,
      route.subresource,
      query,
      200,
      apply,
    );
  }

  /** The rules every update and patch shares, then the write. */
  #commit(
    route: Route,
    name: string,
    existing: KubeObject,
    sent: KubeObject,
    subresource: string | undefined,
    query: URLSearchParams,
    code: number,
    apply = false,
  ): Response {
    const { resource, namespace } = route;
    const rkey = resourceKey(resource);
    const key = objectKey(resource, namespace, name);
    type Full = KubeObject & { status?: unknown; [key: string]: unknown };
    const old = existing as Full;
    let next: Full;
    if (subresource === "status") {
      // A write to /status changes the status alone.
      next = clone(old);
      const status = (sent as Full).status;
      if (status === undefined) delete next.status;
      else next.status = clone(status);
    } else {
      next = clone(sent) as Full;
      const meta: ObjectMeta = next.metadata;
      meta.name = name;
      if (resource.namespaced) meta.namespace = namespace!;
      else delete meta.namespace;
      meta.uid = old.metadata.uid!;
      meta.creationTimestamp = old.metadata.creationTimestamp!;
      copyOptional(meta, old.metadata, "deletionTimestamp");
      copyOptional(meta, old.metadata, "deletionGracePeriodSeconds");
      meta.generation = old.metadata.generation ?? 1;
      if (resource.statusSubresource) {
        // The object's own path ignores status when /status exists.
        if (old.status === undefined) delete next.status;
        else next.status = clone(old.status);
      }
      if (specChanged(old, next, resource.statusSubresource)) {
        meta.generation += 1;
      }
    }
    next.metadata.resourceVersion = old.metadata.resourceVersion!;
    this.#validate(resource, next);
    if (this.#managedFields && subresource !== "status") {
      // managedFields is the server's to write; compare without it.
      copyManaged(next.metadata, old.metadata);
    }
    if (deepEqual(next, old)) return json(old, code);
    this.#manage(next, resource, apply ? "Apply" : "Update", subresource);
    if (query.get("dryRun") === "All") return json(next, code);
    if (
      next.metadata.deletionTimestamp &&
      (next.metadata.finalizers ?? []).length === 0
    ) {
      // The last finalizer went: the object goes.
      this.#store.write(rkey, key, next);
      return json(this.#store.delete(rkey, key), code);
    }
    return json(this.#store.write(rkey, key, next), code);
  }

  #delete(route: Route, name: string, body: unknown): Response {
    const { resource, namespace } = route;
    if (route.subresource) throw methodNotAllowed();
    const rkey = resourceKey(resource);
    const key = objectKey(resource, namespace, name);
    const existing = this.#store.peek(rkey, key);
    if (!existing) throw notFound(resource, name);
    const preconditions = isObject(body) && isObject(body.preconditions)
      ? body.preconditions
      : {};
    for (const [field, label] of PRECONDITIONS) {
      const wanted = preconditions[field];
      const held = existing.metadata[field];
      if (typeof wanted === "string" && wanted !== held) {
        throw conflict(
          resource,
          name,
          `Precondition failed: ${label} in precondition: ${wanted}, ${label} in object meta: ${held}`,
        );
      }
    }
    if ((existing.metadata.finalizers ?? []).length > 0) {
      // Finalizers hold the object: it is only marked for deletion.
      if (existing.metadata.deletionTimestamp) return json(existing);
      const marked = clone(existing);
      marked.metadata.deletionTimestamp = timestamp();
      (marked.metadata as Record<string, unknown>).deletionGracePeriodSeconds =
        0;
      marked.metadata.generation = (marked.metadata.generation ?? 1) + 1;
      return json(this.#store.write(rkey, key, marked));
    }
    const last = this.#store.delete(rkey, key)!;
    if (resource.group === "" && resource.resource === "namespaces") {
      // The namespace controller deletes what the namespace held.
      for (const held of this.#resources.filter((r) => r.namespaced)) {
        for (const [inner] of this.#store.all(resourceKey(held))) {
          if (inner.startsWith(`${name}/`)) {
            this.#store.delete(resourceKey(held), inner);
          }
        }
      }
    }
    if (resource.group === "" && resource.resource === "pods") {
      return json(last);
    }
    const details: StatusDetails = { name };
    if (resource.group !== "") details.group = resource.group;
    details.kind = resource.resource;
    details.uid = existing.metadata.uid!;
    const success: Status = {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Success",
      details,
    };
    return json(success);
  }

  #deleteCollection(
    resource: RegisteredResource,
    namespace: string | undefined,
    query: URLSearchParams,
  ): Response {
    const selected = this.#selector(query);
    const rkey = resourceKey(resource);
    const prefix = namespace === undefined ? undefined : `${namespace}/`;
    const deleted: KubeObject[] = [];
    for (const [key, object] of this.#store.all(rkey)) {
      if (prefix !== undefined && !key.startsWith(prefix)) continue;
      if (!selected(object)) continue;
      const last = this.#store.delete(rkey, key);
      if (last) deleted.push(last);
    }
    return json({
      kind: resource.listKind,
      apiVersion: apiVersionOf(resource),
      metadata: { resourceVersion: String(this.#store.rv) },
      items: deleted,
    });
  }

  // ------------------------------------------------------------------- watch

  #watch(
    route: Route,
    query: URLSearchParams,
    options: ListOptions,
    signal: AbortSignal,
    table?: TableEncoder,
  ): Response {
    const { resource, namespace, name } = route;
    let selected = this.#selector(query);
    if (name !== undefined) {
      const bySelector = selected;
      selected = (o) =>
        bySelector(o) && (o as KubeObject).metadata.name === name;
    }
    const { bookmarks, sendInitialEvents } = options;
    const rvText = options.resourceVersion;
    let from: number | undefined;
    if (rvText !== "" && rvText !== "0") {
      from = Number(rvText);
      if (!Number.isInteger(from) || from < 0) {
        throw badRequest(`resourceVersion: Invalid value: "${rvText}"`);
      }
    }
    // As the watch cache decides: the current objects first when asked
    // for, or by default when no version is given; sendInitialEvents=false
    // without a version starts at the newest version, with nothing replayed.
    const initial = sendInitialEvents ?? from === undefined;
    const since = from ?? this.#store.rv;
    const timeoutText = query.get("timeoutSeconds");
    const timeout = timeoutText === null ? undefined : Number(timeoutText);

    const rkey = resourceKey(resource);
    const inScope = (object: KubeObject | undefined): boolean =>
      object !== undefined &&
      (namespace === undefined || object.metadata.namespace === namespace) &&
      selected(object);

    const onAbort = (): void => watch.close();
    const watch = new WatchStream(
      () => this.#takeCorruption(),
      () => {
        this.#watches.delete(watch);
        signal.removeEventListener("abort", onAbort);
      },
      table,
    );
    this.#watches.add(watch);
    const events: WatchEvent[] = [];
    let open = true;
    if (initial) {
      for (const [, object] of this.#store.all(rkey)) {
        if (inScope(object)) events.push({ type: "ADDED", object });
      }
      // The end marker only when asked for, and only with bookmarks allowed.
      if (sendInitialEvents && bookmarks) {
        events.push(this.#bookmark(resource, true));
      }
    } else if (since < this.#store.compacted) {
      events.push({
        type: "ERROR",
        object: failure(
          410,
          "Expired",
          `too old resource version: ${since} (${this.#store.compacted})`,
        ),
      });
      open = false;
    } else {
      for (const change of this.#store.since(rkey, since)) {
        const event = translate(change, inScope);
        if (event) events.push(event);
      }
    }
    const response = watch.start(events);
    if (!open) {
      watch.close();
      return response;
    }
    watch.onChange = this.#store.subscribe((change) => {
      if (change.resource !== rkey) return;
      const event = translate(change, inScope);
      if (event) watch.send(event);
    });
    // timeoutSeconds=0 asks for the server's default (30 to 60 min there),
    // which the fake leaves open.
    const lasts = timeout !== undefined && Number.isFinite(timeout) &&
        timeout > 0
      ? timeout * 1000
      : undefined;
    if (bookmarks) {
      watch.bookmarks(
        this.#bookmarkInterval,
        lasts,
        () => watch.send(this.#bookmark(resource, false)),
      );
    }
    if (lasts !== undefined) watch.closeAfter(lasts);
    if (signal.aborted) watch.close();
    else signal.addEventListener("abort", onAbort, { once: true });
    return response;
  }

  #bookmark(resource: RegisteredResource, end: boolean): WatchEvent {
    const metadata: ObjectMeta = { resourceVersion: String(this.#store.rv) };
    if (end) metadata.annotations = { [INITIAL_EVENTS_END]: "true" };
    return {
      type: "BOOKMARK",
      object: {
        kind: resource.kind,
        apiVersion: apiVersionOf(resource),
        metadata,
      },
    };
  }

  #takeCorruption(): CorruptOptions | undefined {
    const corrupt = this.#corrupt;
    this.#corrupt = undefined;
    return corrupt;
  }
}

function copyOptional(
  to: ObjectMeta,
  from: ObjectMeta,
  field: "deletionTimestamp" | "deletionGracePeriodSeconds",
): void {
  const record = from as Record<string, unknown>;
  const target = to as Record<string, unknown>;
  if (record[field] === undefined) delete target[field];
  else target[field] = record[field];
}

function copyManaged(to: ObjectMeta, from: ObjectMeta): void {
  if (from.managedFields === undefined) delete to.managedFields;
  else to.managedFields = clone(from.managedFields);
}

function specChanged(
  old: Record<string, unknown>,
  next: Record<string, unknown>,
  statusSubresource: boolean,
): boolean {
  const skip = new Set(["metadata", "apiVersion", "kind"]);
  if (statusSubresource) skip.add("status");
  const keys = new Set([...Object.keys(old), ...Object.keys(next)]);
  for (const key of keys) {
    if (skip.has(key)) continue;
    if (!deepEqual(old[key], next[key])) return true;
  }
  return false;
}

function matchPath(
  pattern: string | RegExp | undefined,
  path: string,
): boolean {
  if (pattern === undefined) return true;
  if (typeof pattern === "string") {
    return pattern.replace(/\/$/, "") === path.replace(/\/$/, "");
  }
  pattern.lastIndex = 0;
  return pattern.test(path);
}

function methodNotAllowed(): StatusError {
  return new StatusError(
    failure(
      405,
      "MethodNotAllowed",
      "the server does not allow this method on the requested resource",
      {},
    ),
  );
}

/** What one watch sees of a change, given what it selects. */
function translate(
  change: Change,
  inScope: (object: KubeObject | undefined) => boolean,
): WatchEvent | undefined {
  const was = inScope(change.previous);
  if (change.type === "DELETED") {
    return was ? { type: "DELETED", object: change.object } : undefined;
  }
  const now = inScope(change.object);
  if (now) return { type: was ? "MODIFIED" : "ADDED", object: change.object };
  // An object that stops matching leaves the watch as DELETED.
  return was ? { type: "DELETED", object: change.object } : undefined;
}

const encoder = new TextEncoder();
const FLUSH_SIZE = 64 * 1024;

/**
 * One open watch: a stream of NDJSON lines. Events written in one turn of the
 * event loop go out as one chunk (at most 64 KiB), as the API server flushes
 * a watch only once no more events wait, so clients meet real chunking.
 */
class WatchStream {
  #pending = "";
  #flushQueued = false;
  onChange: (() => void) | undefined;
  #takeCorruption: () => CorruptOptions | undefined;
  #onEnd: () => void;
  #table: TableEncoder | undefined;
  #controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  #ticker: ReturnType<typeof setTimeout> | undefined;
  #closer: ReturnType<typeof setTimeout> | undefined;
  #ended = false;

  constructor(
    takeCorruption: () => CorruptOptions | undefined,
    onEnd: () => void,
    table?: TableEncoder,
  ) {
    this.#takeCorruption = takeCorruption;
    this.#onEnd = onEnd;
    this.#table = table;
  }

  start(initial: WatchEvent[]): Response {
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
        for (const event of initial) this.send(event);
      },
      cancel: () => this.#end(),
    });
    return new Response(body, { headers: JSON_HEADERS });
  }

  send(event: WatchEvent): void {
    if (this.#ended || !this.#controller) return;
    const line =
      JSON.stringify(this.#table ? this.#table.event(event) : event) + "\n";
    const corrupt = this.#takeCorruption();
    if (corrupt?.truncate) {
      this.#pending += line.slice(0, Math.max(1, line.length >> 1));
      this.close();
      return;
    }
    this.#pending += corrupt
      ? line.slice(0, Math.max(1, line.length >> 1)) + "\n"
      : line;
    if (this.#pending.length >= FLUSH_SIZE) this.#flush();
    else if (!this.#flushQueued) {
      this.#flushQueued = true;
      queueMicrotask(() => {
        this.#flushQueued = false;
        this.#flush();
      });
    }
  }

  #flush(): void {
    if (this.#pending === "" || this.#ended || !this.#controller) return;
    const chunk = this.#pending;
    this.#pending = "";
    try {
      this.#controller.enqueue(encoder.encode(chunk));
    } catch {
      this.#end();
    }
  }

  /**
   * Sends a bookmark every `ms`, and one 2 s before the watch's timeout
   * `lasts` ends it, as the watch cache does, so a client resumes from a
   * version as new as possible.
   */
  bookmarks(ms: number, lasts: number | undefined, fn: () => void): void {
    const last = lasts === undefined ? undefined : Date.now() + lasts - 2_000;
    const schedule = (): void => {
      const wait = last === undefined ? ms : Math.min(ms, last - Date.now());
      if (wait > 0) this.#ticker = setTimeout(tick, wait);
    };
    const tick = (): void => {
      if (this.#ended) return;
      fn();
      if (!this.#ended) schedule();
    };
    schedule();
  }

  closeAfter(ms: number): void {
    this.#closer = setTimeout(() => this.close(), ms);
  }

  close(): void {
    if (this.#ended) return;
    this.#flush();
    try {
      this.#controller?.close();
    } catch { /* already closed */ }
    this.#end();
  }

  error(reason: unknown): void {
    if (this.#ended) return;
    this.#flush();
    try {
      this.#controller?.error(reason);
    } catch { /* already closed */ }
    this.#end();
  }

  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    clearTimeout(this.#ticker);
    clearTimeout(this.#closer);
    this.onChange?.();
    this.#onEnd();
  }
}
