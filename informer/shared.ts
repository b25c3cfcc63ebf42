import type { Client } from "../apiclient/client.ts";
import type { KubeObject } from "../apiclient/types.ts";
import { type Logger, loggerOf } from "../_internal/log.ts";
import { reportTo } from "./_report.ts";
import { stopOnAbort } from "../_internal/signals.ts";
import { EventHandlerError } from "./errors.ts";
import { Hub } from "./_hub.ts";
import { Listener, type Note } from "./_listener.ts";
import { normalized, setName } from "./_namespaces.ts";
import type { Store } from "./store.ts";
import type {
  CollectionOptions,
  Handler,
  Source,
  View,
  ViewOptions,
} from "./types.ts";
import { view } from "./view.ts";

/**
 * Whether {@linkcode Collections} deep-freezes the copies of its stores by
 * default. Measured with `bench/freeze_bench.ts`: see its header.
 */
const FREEZE_DEFAULT = true;

/** Options of {@linkcode Collections}. */
export interface CollectionsOptions {
  /**
   * Receives the error lines of the shared watches, each collection's with
   * its `collection` field. Default: errors to `console.error`.
   */
  logger?: Logger | undefined;
  /**
   * Deep-freeze every copy before a shared store holds it, so a handler
   * that changes an object it was handed (which every other registration
   * sees too) throws in strict mode instead of corrupting the cache.
   * Default `true`.
   */
  freeze?: boolean | undefined;
  /**
   * How a shared store keeps its objects when its registrations name no
   * `storage` (see {@linkcode CollectionOptions.storage}): one choice for
   * every collection, or one by collection, such as `(source) =>
   * source.resource === "pods" ? "bytes" : "objects"` (measured in
   * bench/scale/results/issue-48-final.md: the store of bytes wins every row
   * for Pods and loses CPU an event for a controller's watch of small
   * objects). A registration that names its `storage` must name this one to
   * share a watch with those that do not. Default `"objects"`.
   */
  storage?:
    | "objects"
    | "bytes"
    | ((source: Source) => "objects" | "bytes")
    | undefined;
  /**
   * Wraps the callbacks of each shared watch once (not per registration),
   * such as `(source, hooks) => metrics.collection(source, hooks)` for the
   * informer metrics and readiness of every collection. Default: none.
   */
  instrument?:
    | ((source: Source, hooks: WatchHooks) => WatchHooks)
    | undefined;
  /** Stops every collection, as {@linkcode Collections.stop} does. */
  signal?: AbortSignal | undefined;
}

/** The callbacks of one shared watch, as `instrument` sees them. */
export type WatchHooks = Pick<
  CollectionOptions<KubeObject>,
  "handler" | "synced" | "reopened" | "recovered" | "relisted" | "listFailed"
>;

/**
 * Options of {@linkcode Collections.register}: those of a
 * {@linkcode Collection}. `handler`, `synced`, `reopened`, `recovered`,
 * `relisted`, `listFailed`, `logger` (for this registration's calls; default:
 * the shared collections' logger) and `signal` (stops the registration) are
 * the registration's own.
 * The others shape the shared store and watch: `metadataOnly` is part of
 * what is shared (another value is another watch); `indexers` add to the
 * shared store's indexes (a name the store already has must come with the
 * very same function); and `transform`, `decode`, `absent`,
 * `absentRecheck`, `unreadyOnWatchError` and `heartbeatTimeout` must be the
 * very same (the same function or object, or left out alike) as the
 * registrations already on that watch.
 *
 * @typeParam T The kind of the watched objects.
 */
export type RegisterOptions<T extends KubeObject = KubeObject> =
  CollectionOptions<T>;

/** The options that must agree among the registrations of one watch. */
const SHAPE = [
  "transform",
  "decode",
  "absent",
  "absentRecheck",
  "unreadyOnWatchError",
  "heartbeatTimeout",
  "storage",
] as const;

type Shape = Pick<CollectionOptions<KubeObject>, (typeof SHAPE)[number]>;

/** Everything that changes what a store holds, as one string. */
function sharingKey(source: Source, metadataOnly: boolean): string {
  return JSON.stringify([
    source.group ?? "",
    source.version,
    source.resource,
    source.namespace ?? "",
    source.namespaces ?? null,
    source.labelSelector ?? "",
    source.fieldSelector ?? "",
    metadataOnly,
  ]);
}

/** One shared watch and the registrations on it. */
class Shared {
  readonly hub: Hub<KubeObject>;
  readonly shape: Shape;
  readonly listeners = new Set<Member>();
  readonly stop = new AbortController();
  readonly metadataOnly: boolean;
  /** The shared collections' logger, with this collection's field. */
  readonly logger: Logger;

  constructor(
    client: Client,
    source: Source,
    options: CollectionOptions<KubeObject>,
    freeze: boolean,
    logger: Logger,
    instrument: CollectionsOptions["instrument"],
  ) {
    this.metadataOnly = options.metadataOnly === true;
    this.logger = logger.with({ collection: setName(source) });
    const onError = reportTo(this.logger);
    this.shape = Object.fromEntries(SHAPE.map((name) => [name, options[name]]));
    const each = (fn: (member: Member) => void): void => {
      for (const member of this.listeners) fn(member);
    };
    const handler: Handler<KubeObject> = {
      add: (object) => each((m) => m.push({ kind: "add", object })),
      update: (old, object) =>
        each((m) => m.push({ kind: "update", old, object })),
      delete: (object) => each((m) => m.push({ kind: "delete", object })),
    };
    const hooks: WatchHooks = {
      handler,
      synced: () => each((m) => m.queueSynced()),
      relisted: () => each((m) => m.push({ kind: "relisted" })),
      reopened: () => each((m) => m.call("reopened")),
      recovered: () => each((m) => m.call("recovered")),
      listFailed: (error) => each((m) => m.call("listFailed", error)),
    };
    this.hub = new Hub<KubeObject>(client, source, {
      ...this.shape,
      indexers: options.indexers,
      metadataOnly: this.metadataOnly,
      ...(instrument === undefined ? hooks : instrument(source, hooks)),
      freeze,
      signal: this.stop.signal,
      onError,
    });
  }
}

/** What a registration does for its shared watch. */
interface Member {
  push(note: Note<KubeObject>): void;
  queueSynced(): void;
  call(name: "reopened" | "recovered" | "listFailed", error?: unknown): void;
  stop(): Promise<void>;
}

/**
 * Shared collections: {@linkcode Collections.register} hands out
 * registrations, and every registration on the same collection shares one
 * list and watch and one store, as client-go's shared informers do. What
 * is shared is everything that changes what the store holds: the resource
 * (group, version, resource), the namespace or namespace set, the label and
 * field selectors, and `metadataOnly`. A registration asking for the same
 * collection with another `transform` or `decode` (or another `absent`,
 * `absentRecheck`, `unreadyOnWatchError`, `heartbeatTimeout`) is refused
 * with a `TypeError` naming the option: two shapes cannot share one store,
 * and a silent second watch would double the load on the API server.
 * `indexers` merge by name: each registration may add indexes to the shared
 * store (built at once from the objects it holds), and one that gives a
 * name the store has with another function is refused with a `TypeError`
 * naming the index.
 *
 * Each registration has its own queue: the watch hands each change to every
 * registration's queue without waiting, and each registration feeds its own
 * handler in order, awaiting its promises, so a slow handler delays nothing
 * but its own registration. A registration made while its collection runs
 * first receives the objects the store holds as adds, then its `synced`
 * call once the collection's first read is in.
 *
 * The copies in a shared store are handed to every registration, so they
 * are read-only: with `freeze` (the default) each is deep-frozen before the
 * store holds it.
 *
 * @example Two registrations, one watch
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client } from "@liken/kubernetes/apiclient";
 * import { Collections } from "@liken/kubernetes/informer";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * await client.create("/api/v1/namespaces/default/configmaps", {
 *   metadata: { name: "web" },
 * });
 * await using collections = new Collections(client);
 * const configMaps = { version: "v1", resource: "configmaps", namespace: "default" };
 * const seen: string[] = [];
 * const { promise: first, resolve: firstSynced } = Promise.withResolvers<void>();
 * collections.register(configMaps, {
 *   handler: { add: (object) => void seen.push(`a ${object.metadata.name}`) },
 *   synced: firstSynced,
 * });
 * await first;
 * // Registered late: the current objects arrive as adds, then `synced`.
 * const { promise: second, resolve: secondSynced } = Promise.withResolvers<void>();
 * const late = collections.register(configMaps, {
 *   handler: { add: (object) => void seen.push(`b ${object.metadata.name}`) },
 *   synced: secondSynced,
 * });
 * await second;
 * assert.deepEqual(seen, ["a web", "b web"]);
 * assert.equal(late.store.get("default/web")?.metadata.name, "web");
 * assert.equal(server.openWatches, 1);
 * ```
 */
export class Collections implements AsyncDisposable {
  #client: Client;
  #freeze: boolean;
  #instrument: CollectionsOptions["instrument"];
  #logger: Logger;
  #storage: ((source: Source) => "objects" | "bytes") | undefined;
  #shared = new Map<string, Shared>();
  #stopped = false;
  #stopping = new Set<Promise<void>>();
  #unlink: () => void = () => {};

  /**
   * Makes an empty set of shared collections; each watch starts with its
   * first registration.
   *
   * @param client The API client.
   * @param options Whether to freeze stored copies, how stores keep them,
   *   logger, signal.
   */
  constructor(client: Client, options: CollectionsOptions = {}) {
    this.#client = client;
    this.#freeze = options.freeze ?? FREEZE_DEFAULT;
    const { storage } = options;
    this.#storage = typeof storage === "function"
      ? storage
      : storage === undefined
      ? undefined
      : () => storage;
    this.#instrument = options.instrument;
    this.#logger = loggerOf(options.logger);
    this.#unlink = stopOnAbort(options.signal, () => void this.stop());
  }

  /**
   * Registers on the shared collection of `source`, starting its watch if
   * this is the first registration.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client } from "@liken/kubernetes/apiclient";
   * import { Collections } from "@liken/kubernetes/informer";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const client = new Client(server.url, { fetch: server.fetch });
   * await using collections = new Collections(client);
   * const configMaps = { version: "v1", resource: "configmaps" };
   * const trim = (object: { metadata: object }) => object;
   * collections.register(configMaps, { transform: trim });
   * assert.throws(
   *   () => collections.register(configMaps, { transform: (o) => o }),
   *   TypeError,
   * );
   * ```
   *
   * @example Indexes of several registrations merge by name
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client, type KubeObject } from "@liken/kubernetes/apiclient";
   * import { Collections } from "@liken/kubernetes/informer";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const client = new Client(server.url, { fetch: server.fetch });
   * await client.create("/api/v1/namespaces/default/configmaps", {
   *   metadata: { name: "web", labels: { app: "web" } },
   * });
   * await using collections = new Collections(client);
   * const configMaps = { version: "v1", resource: "configmaps" };
   * const { promise: synced, resolve } = Promise.withResolvers<void>();
   * collections.register(configMaps, { synced: resolve });
   * await synced;
   * // Added to the running store, built from what it holds.
   * const app = (object: KubeObject) => [object.metadata.labels?.app ?? ""];
   * const late = collections.register(configMaps, { indexers: { app } });
   * assert.deepEqual(late.store.indexKeys("app", "web"), ["default/web"]);
   * // The same name with another function is refused, naming the index.
   * assert.throws(
   *   () => collections.register(configMaps, { indexers: { app: () => [] } }),
   *   /its index app is another function/,
   * );
   * ```
   *
   * @typeParam T The kind of the watched objects.
   * @param source The collection (see {@linkcode Source}).
   * @param options The registration's handler and callbacks, and the
   *   collection's shape (see {@linkcode RegisterOptions}).
   * @returns The registration.
   */
  register<T extends KubeObject = KubeObject>(
    source: Source,
    options: RegisterOptions<T> = {},
  ): Registration<T> {
    if (this.#stopped) {
      throw new Error("The shared collections were stopped");
    }
    const checked = normalized(source);
    const metadataOnly = options.metadataOnly === true;
    const key = sharingKey(checked, metadataOnly);
    let shared = this.#shared.get(key);
    const storage = options.storage ?? this.#storage?.(checked);
    const given =
      (storage === options.storage
        ? options
        : { ...options, storage }) as unknown as CollectionOptions<KubeObject>;
    if (shared === undefined) {
      shared = new Shared(
        this.#client,
        checked,
        given,
        this.#freeze,
        this.#logger,
        this.#instrument,
      );
      this.#shared.set(key, shared);
    } else {
      for (const name of SHAPE) {
        if (shared.shape[name] !== given[name]) {
          throw new TypeError(
            `Cannot share the watch of ${
              setName(checked)
            }: its ${name} is not the same as the first registration's; pass the very same ${name} (or leave it out alike), or watch with a Collection of its own`,
          );
        }
      }
      const indexers = given.indexers ?? {};
      const store = shared.hub.store;
      for (const [name, indexer] of Object.entries(indexers)) {
        const held = store.indexer(name);
        if (held !== undefined && held !== indexer) {
          throw new TypeError(
            `Cannot share the watch of ${
              setName(checked)
            }: its index ${name} is another function than the one registered before; give one index name one function (define it once and pass the same function), or another name`,
          );
        }
      }
      store.addIndexers(indexers);
    }
    const entry = shared;
    return new Joined<T>(entry, options, () => this.#leave(key, entry));
  }

  /** The last registration left: stop the watch. */
  #leave(key: string, shared: Shared): Promise<void> {
    if (this.#shared.get(key) === shared) this.#shared.delete(key);
    shared.stop.abort(
      new DOMException("The watch was stopped", "AbortError"),
    );
    const done = shared.hub.done;
    this.#stopping.add(done);
    void done.then(() => this.#stopping.delete(done));
    return done;
  }

  /**
   * How many shared watches run.
   *
   * @returns The number of collections with at least one registration.
   */
  size(): number {
    return this.#shared.size;
  }

  /**
   * Whether every running collection's first read is in its store.
   *
   * @returns `true` when all first reads are in (also with none running).
   */
  synced(): boolean {
    for (const shared of this.#shared.values()) {
      if (!shared.hub.firstRead) return false;
    }
    return true;
  }

  /**
   * Stops every registration and every watch, and waits until the last
   * handler call returned. Later calls of `register` throw.
   *
   * @returns Settles when everything ended.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unlink();
    const stops: Promise<void>[] = [];
    for (const shared of [...this.#shared.values()]) {
      for (const member of [...shared.listeners]) {
        stops.push(member.stop());
      }
    }
    await Promise.all(stops);
    await Promise.all([...this.#stopping]);
  }

  /** Stops everything (for `await using`). */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }
}

/**
 * One registration on a shared collection (made by
 * {@linkcode Collections.register}): its own handler calls, fed from its
 * own queue, its own `synced`, and the collection's shared store. It is a
 * running watch as {@linkcode view} takes it.
 *
 * @typeParam T The kind of the watched objects.
 */
export interface Registration<T extends KubeObject = KubeObject>
  extends AsyncDisposable {
  /** The collection (with its namespace set sorted and without duplicates). */
  readonly source: Source;
  /** The shared store: read-only, and frozen with `freeze`. */
  readonly store: Store<T>;
  /** Whether the store holds metadata only. */
  readonly metadataOnly: boolean;
  /**
   * Whether this registration is synced (client-go's HasSynced of a
   * registration): its handler was handed the current objects once and the
   * collection's first read is in (its `synced` call has begun), and the
   * store may answer reads.
   *
   * @returns `true` when synced.
   */
  synced(): boolean;
  /**
   * Whether the shared watch keeps the store current (see
   * `Collection.current`).
   *
   * @returns `true` while it does.
   */
  current(): boolean;
  /**
   * How many changes wait in this registration's queue for its handler
   * (the call in progress not counted): how far it lags, for a metric.
   *
   * @returns The number of waiting changes.
   */
  pending(): number;
  /**
   * The shared store as the cached reads take it (see {@linkcode view}):
   * ready once this registration is synced.
   *
   * @param options Whether the watch holds every object of its kind.
   * @returns The view.
   */
  view(options?: ViewOptions): View<T>;
  /**
   * Ends the registration: drops its waiting changes and waits until its
   * handler call in progress returned. The last registration of a
   * collection also stops its watch, and waits until it ended.
   *
   * @returns Settles when the registration (and maybe the watch) ended.
   */
  stop(): Promise<void>;
}

/** A registration as its shared watch drives it. */
class Joined<T extends KubeObject> implements Registration<T>, Member {
  /** The collection (with its namespace set sorted and without duplicates). */
  readonly source: Source;
  /** The shared store: read-only, and frozen with `freeze`. */
  readonly store: Store<T>;
  /** Whether the store holds metadata only. */
  readonly metadataOnly: boolean;
  #shared: Shared;
  #listener: Listener<T>;
  #options: RegisterOptions<T>;
  #onError: (error: unknown) => void;
  #syncQueued = false;
  #reached = false;
  #stopped: Promise<void> | undefined;
  #leave: () => Promise<void>;
  #unlink: () => void = () => {};

  constructor(
    shared: Shared,
    options: RegisterOptions<T>,
    leave: () => Promise<void>,
  ) {
    this.#shared = shared;
    this.#options = options;
    this.#leave = leave;
    this.source = shared.hub.source;
    this.store = shared.hub.store as unknown as Store<T>;
    this.metadataOnly = shared.metadataOnly;
    this.#onError = reportTo(
      options.logger === undefined
        ? shared.logger
        : loggerOf(options.logger, { collection: setName(this.source) }),
    );
    const source = this.source;
    this.#listener = new Listener<T>({
      handler: options.handler,
      synced: options.synced,
      relisted: options.relisted,
      failed: (error, call, object) =>
        this.#onError(
          new EventHandlerError(source, {
            call,
            ref: object === undefined ? undefined : {
              ...bare(source),
              namespace: object.metadata?.namespace,
              name: object.metadata?.name ?? "",
            },
            cause: error,
          }),
        ),
      reached: () => void (this.#reached = true),
    });
    // The objects the store holds now, as adds; then `synced` at once if
    // the first read is already in (else it comes with the first read).
    for (const key of shared.hub.store.keys()) {
      const object = shared.hub.store.get(key) as T | undefined;
      if (object !== undefined) this.#listener.push({ kind: "add", object });
    }
    if (shared.hub.firstRead) this.queueSynced();
    shared.listeners.add(this);
    this.#unlink = stopOnAbort(options.signal, () => void this.stop());
  }

  /** Queues a note (the shared watch calls it). */
  push(note: Note<KubeObject>): void {
    this.#listener.push(note as Note<T>);
  }

  /** Queues the `synced` note, once. */
  queueSynced(): void {
    if (this.#syncQueued) return;
    this.#syncQueued = true;
    this.#listener.push({ kind: "synced" });
  }

  /** Runs one of the callbacks that are not queued. */
  call(name: "reopened" | "recovered" | "listFailed", error?: unknown): void {
    const callback = this.#options[name];
    if (callback === undefined) return;
    try {
      (callback as (error?: unknown) => void)(error);
    } catch (thrown) {
      this.#onError(
        new EventHandlerError(bare(this.source), { call: name, cause: thrown }),
      );
    }
  }

  /** See {@linkcode Registration.synced}. */
  synced(): boolean {
    return this.#reached && this.#shared.hub.synced();
  }

  /** See {@linkcode Registration.current}. */
  current(): boolean {
    return this.#shared.hub.current();
  }

  /** See {@linkcode Registration.pending}. */
  pending(): number {
    return this.#listener.pending();
  }

  /** See {@linkcode Registration.view}. */
  view(options: ViewOptions = {}): View<T> {
    return view(this, options);
  }

  /** See {@linkcode Registration.stop}. */
  stop(): Promise<void> {
    if (this.#stopped !== undefined) return this.#stopped;
    this.#unlink();
    const shared = this.#shared;
    shared.listeners.delete(this);
    const calls = this.#listener.stop();
    const watch = shared.listeners.size === 0 ? this.#leave() : undefined;
    this.#stopped = Promise.all([calls, watch]).then(() => {});
    return this.#stopped;
  }

  /** Ends the registration (for `await using`). */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }
}

function bare(source: Source): Source {
  const { namespaces: _, ...rest } = source;
  return rest;
}
