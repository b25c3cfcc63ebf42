/**
 * {@linkcode ResourceClient}: a handle of one collection, in the spirit of
 * kube-rs's `Api<K>`. It derives every path from its {@linkcode Resource}
 * and every query from its options, and sends through a client's path-based
 * calls (a {@linkcode PathClient}); its `status` is a
 * {@linkcode StatusClient}.
 *
 * @module
 */
import { PARSE, type ParseOption } from "../_internal/parse.ts";
import type {
  ApplyOptions,
  DeleteOptions,
  GetOptions,
  ListOptions,
  PatchOptions,
  ResourceWatchOptions,
  WriteOptions,
} from "./options.ts";
import type { PathClient } from "./path_client.ts";
import { collectionPath, objectPath, type Resource } from "./resource.ts";
import { StatusClient } from "./status_handle.ts";
import type { KubeList, KubeObject, Status } from "./types.ts";
import type { WatchStream } from "./watch.ts";
import { listPath, watchPath } from "./_query.ts";
import { checked, describe, named, placed, target } from "./_scope.ts";
import { noted } from "./_memo.ts";

/**
 * A handle of one collection: the resource across all namespaces (or
 * cluster-scoped), or in the one namespace its {@linkcode Resource} names;
 * {@linkcode ResourceClient.namespace} answers one scoped to a namespace.
 * `client.resource(GREETINGS).namespace("default")` is the usual way in.
 *
 * Namespaces: with `namespaced: false` the handle is cluster-scoped and
 * refuses a namespace. An object's own `metadata.namespace` places a
 * create, replace or apply through a handle that names none; one that
 * differs from the handle's is refused. Every other call that names an
 * object of a resource with `namespaced: true` needs a handle with a
 * namespace. When `namespaced` is unknown, a handle without a namespace
 * sends cluster-scoped paths, as the API server names them.
 *
 * Failures reject as the client's calls do ({@linkcode NotFoundError},
 * {@linkcode ConflictError}, ...); a call the handle refuses rejects with a
 * `TypeError` before anything is sent.
 *
 * @example Create, read, list with a selector, patch, delete
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client, type KubeObject } from "@liken/kubernetes/apiclient";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * interface ConfigMap extends KubeObject {
 *   data?: Record<string, string>;
 * }
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * const configMaps = client
 *   .resource<ConfigMap>({ version: "v1", resource: "configmaps", namespaced: true })
 *   .namespace("default");
 * await configMaps.create({ metadata: { name: "a", labels: { app: "web" } } });
 * await configMaps.patch("a", { data: { k: "v" } }, { type: "merge" });
 * assert.equal((await configMaps.get("a")).data?.k, "v");
 * const listed = await configMaps.list({ labelSelector: "app=web" });
 * assert.deepEqual(listed.items.map((item) => item.metadata.name), ["a"]);
 * await configMaps.delete("a", { propagationPolicy: "Background" });
 * ```
 *
 * @typeParam T The kind of the collection's objects.
 */
export class ResourceClient<T extends KubeObject = KubeObject> {
  #client: PathClient;
  #resource: Resource;

  /**
   * Makes a handle of `resource` that sends through `client`
   * (`client.resource(resource)` does this).
   *
   * @param client The client to send through.
   * @param resource The collection.
   * @throws {TypeError} When a resource with `namespaced: false` names a
   * namespace.
   */
  constructor(client: PathClient, resource: Resource) {
    this.#client = client;
    this.#resource = checked(resource);
  }

  /**
   * The collection this handle names (a copy), with its namespace when it
   * is scoped to one.
   */
  get resource(): Resource {
    return { ...this.#resource };
  }

  /**
   * The collection's API path, as this handle sends its lists and watches
   * (for messages and error details; the handle builds every request's path
   * and query itself).
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client } from "@liken/kubernetes/apiclient";
   *
   * const client = new Client("http://127.0.0.1:9");
   * const pods = client.resource({ version: "v1", resource: "pods" }).namespace("demo");
   * assert.equal(pods.path, "/api/v1/namespaces/demo/pods");
   * ```
   */
  get path(): string {
    return collectionPath(this.#resource);
  }

  /**
   * Answers a handle of the same resource in `namespace`.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client } from "@liken/kubernetes/apiclient";
   *
   * const client = new Client("http://127.0.0.1:9");
   * const pods = client.resource({ version: "v1", resource: "pods", namespaced: true });
   * assert.equal(pods.namespace("demo").resource.namespace, "demo");
   * const nodes = client.resource({ version: "v1", resource: "nodes", namespaced: false });
   * assert.throws(() => nodes.namespace("demo"), TypeError);
   * ```
   *
   * @param namespace The namespace.
   * @returns The scoped handle.
   * @throws {TypeError} When the resource is cluster-scoped
   * (`namespaced: false`), or `namespace` is empty.
   */
  namespace(namespace: string): ResourceClient<T> {
    if (typeof namespace !== "string" || namespace === "") {
      throw new TypeError(
        `A namespace of ${describe(this.#resource)} must be a non-empty string`,
      );
    }
    return new ResourceClient<T>(this.#client, {
      ...this.#resource,
      namespace,
    });
  }

  /**
   * The handle of the collection's `status` subresource, so a spec someone
   * edited meanwhile stays theirs.
   *
   * @example
   * ```ts
   * import { Client } from "@liken/kubernetes/apiclient";
   *
   * const client = new Client("http://127.0.0.1:9");
   * const deployments = client.resource({ group: "apps", version: "v1", resource: "deployments" });
   * const status = deployments.namespace("demo").status;
   * void status;
   * ```
   */
  get status(): StatusClient<T> {
    return new StatusClient<T>(this.#client, this.#resource);
  }

  /**
   * Reads one object.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client, NotFoundError } from "@liken/kubernetes/apiclient";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const client = new Client(server.url, { fetch: server.fetch });
   * const secrets = client.resource({ version: "v1", resource: "secrets" }).namespace("default");
   * await assert.rejects(secrets.get("absent"), NotFoundError);
   * ```
   *
   * @param name The object's name.
   * @param options The `Accept` header (metadata only, say) and a signal.
   * @returns The object.
   */
  async get(name: string, options: GetOptions = {}): Promise<T> {
    const ref = named(this.#resource, name, "get");
    return await noted(
      this.#client.memo,
      ref,
      options,
      () => this.#client.get<T>(objectPath(ref), options),
    );
  }

  /**
   * Reads the collection, or one page of it (`limit`, then `continue` with
   * the answer's `metadata.continue`), as the API server filters it by the
   * selectors.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client } from "@liken/kubernetes/apiclient";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const client = new Client(server.url, { fetch: server.fetch });
   * const configMaps = client.resource({ version: "v1", resource: "configmaps" });
   * const page = await configMaps.list({ labelSelector: "app=web", limit: 10 });
   * assert.deepEqual(page.items, []);
   * ```
   *
   * @param options The selectors, the page, the version, the `Accept`
   * header and a signal.
   * @returns The list.
   * @throws {RangeError} For a `limit` that is not a whole number above 0.
   */
  async list(options: ListOptions = {}): Promise<KubeList<T>> {
    const path = listPath(collectionPath(this.#resource), options);
    const read: GetOptions = {};
    if (options.accept !== undefined) read.accept = options.accept;
    if (options.signal !== undefined) read.signal = options.signal;
    const parse = (options as ParseOption)[PARSE];
    if (parse !== undefined) (read as ParseOption)[PARSE] = parse;
    return await this.#client.get<KubeList<T>>(path, read);
  }

  /**
   * Opens a watch of the collection (see `Client.watch` for the stream's
   * limits); the handle builds its query from `options`.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client, type KubeObject } from "@liken/kubernetes/apiclient";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const client = new Client(server.url, { fetch: server.fetch });
   * const configMaps = client.resource<KubeObject>({ version: "v1", resource: "configmaps" })
   *   .namespace("default");
   * await configMaps.create({ metadata: { name: "a" } });
   * await using stream = await configMaps.watch({ allowWatchBookmarks: true });
   * for await (const event of stream) {
   *   assert.equal(event.type, "ADDED");
   *   break;
   * }
   * ```
   *
   * @param options The version, the selectors, bookmarks, a streaming
   * list's initial events, the server's timeout, and the stream's options.
   * @returns The event stream.
   * @throws {RangeError} For a `timeoutSeconds` that is not a whole number.
   */
  async watch(options: ResourceWatchOptions = {}): Promise<WatchStream<T>> {
    const path = watchPath(collectionPath(this.#resource), options);
    return await this.#client.watch<T>(path, options);
  }

  /**
   * Creates an object (`metadata.name`, or `metadata.generateName` for a
   * name the server makes) and answers the stored copy.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client, NotFoundError } from "@liken/kubernetes/apiclient";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const client = new Client(server.url, { fetch: server.fetch });
   * const configMaps = client.resource({ version: "v1", resource: "configmaps" });
   * // The object names its namespace; a dry run stores nothing.
   * await configMaps.create({ metadata: { name: "a", namespace: "default" } }, { dryRun: "All" });
   * await assert.rejects(configMaps.namespace("default").get("a"), NotFoundError);
   * ```
   *
   * @param object The object.
   * @param options Dry run, field validation, field manager and a signal.
   * @returns The stored copy.
   */
  async create(object: T, options: WriteOptions = {}): Promise<T> {
    const collection = placed(this.#resource, object, "create");
    const path = collectionPath(collection);
    const ref = { ...collection, name: object?.metadata?.name ?? "" };
    return await noted(
      this.#client.memo,
      ref,
      options,
      () => this.#client.create(path, object, options),
    );
  }

  /**
   * Replaces the object `metadata.name` names (PUT), conditional on its
   * `metadata.resourceVersion` when it states one, and answers the stored
   * copy.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client, ConflictError, type KubeObject } from "@liken/kubernetes/apiclient";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const client = new Client(server.url, { fetch: server.fetch });
   * const configMaps = client.resource<KubeObject & { data?: Record<string, string> }>(
   *   { version: "v1", resource: "configmaps" },
   * ).namespace("default");
   * const made = await configMaps.create({ metadata: { name: "a" } });
   * await configMaps.replace({ ...made, data: { k: "1" } });
   * await assert.rejects(configMaps.replace({ ...made, data: { k: "2" } }), ConflictError);
   * ```
   *
   * @param object The new object.
   * @param options Dry run, field validation, field manager and a signal.
   * @returns The stored copy.
   */
  async replace(object: T, options: WriteOptions = {}): Promise<T> {
    const ref = target(this.#resource, object, "replace");
    return await noted(
      this.#client.memo,
      ref,
      options,
      () => this.#client.replace(objectPath(ref), object, options),
    );
  }

  /**
   * Patches an object in one of the API server's dialects and answers the
   * stored copy.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client } from "@liken/kubernetes/apiclient";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const client = new Client(server.url, { fetch: server.fetch });
   * const configMaps = client.resource({ version: "v1", resource: "configmaps" }).namespace("default");
   * await configMaps.create({ metadata: { name: "a" } });
   * const patched = await configMaps.patch("a", { metadata: { labels: { app: "web" } } }, {
   *   type: "merge",
   *   fieldManager: "my-operator",
   * });
   * assert.equal(patched.metadata.labels?.app, "web");
   * ```
   *
   * @param name The object's name.
   * @param patch The patch document.
   * @param options The dialect, field manager, force, dry run, field
   * validation and a signal.
   * @returns The stored copy.
   */
  async patch(
    name: string,
    patch: unknown,
    options: PatchOptions,
  ): Promise<T> {
    const ref = named(this.#resource, name, "patch");
    return await noted(
      this.#client.memo,
      ref,
      options,
      () => this.#client.patch<T>(objectPath(ref), patch, options),
    );
  }

  /**
   * Server-side apply of `object` (with `apiVersion`, `kind` and
   * `metadata.name`), which the server creates when it is absent; see
   * `Client.apply`.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client, type KubeObject } from "@liken/kubernetes/apiclient";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const client = new Client(server.url, { fetch: server.fetch });
   * const configMaps = client.resource<KubeObject & { data?: Record<string, string> }>(
   *   { version: "v1", resource: "configmaps" },
   * ).namespace("default");
   * const applied = await configMaps.apply(
   *   { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" }, data: { k: "v" } },
   *   { fieldManager: "my-operator", force: true },
   * );
   * assert.equal(applied.data?.k, "v");
   * ```
   *
   * @typeParam A The applied configuration's type.
   * @param object The applied configuration.
   * @param options The field manager (required), force, dry run, field
   * validation and a signal.
   * @returns The server's copy.
   * @throws {TypeError} When `fieldManager` is empty.
   */
  async apply<A extends KubeObject>(
    object: A,
    options: ApplyOptions,
  ): Promise<T> {
    const ref = target(this.#resource, object, "apply");
    return await noted(
      this.#client.memo,
      ref,
      options,
      () => this.#client.apply<T>(objectPath(ref), object, options),
    );
  }

  /**
   * Deletes an object and answers the server's answer: the object while
   * finalizers hold it (and for some kinds, such as pods), else a `Status`.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client, ConflictError } from "@liken/kubernetes/apiclient";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const client = new Client(server.url, { fetch: server.fetch });
   * const configMaps = client.resource({ version: "v1", resource: "configmaps" }).namespace("default");
   * const made = await configMaps.create({ metadata: { name: "a" } });
   * await assert.rejects(configMaps.delete("a", { preconditions: { uid: "other" } }), ConflictError);
   * await configMaps.delete("a", { preconditions: { uid: made.metadata.uid } });
   * ```
   *
   * @param name The object's name.
   * @param options Preconditions, propagation policy, grace period, dry run
   * (sent as the `DeleteOptions` body) and a signal.
   * @returns The object, or a `Status`.
   */
  async delete(name: string, options: DeleteOptions = {}): Promise<T | Status> {
    const ref = named(this.#resource, name, "delete");
    const dryRun = options.dryRun ?? dryRunOf(options.body);
    return await noted(
      this.#client.memo,
      ref,
      { dryRun, signal: options.signal },
      () => this.#client.delete<T | Status>(objectPath(ref), options),
    );
  }
}

/** A dry run named in a DeleteOptions body given as it is. */
function dryRunOf(body: unknown): "All" | undefined {
  const dryRun = (body as { dryRun?: unknown } | null | undefined)?.dryRun;
  return Array.isArray(dryRun) && dryRun.includes("All") ? "All" : undefined;
}
