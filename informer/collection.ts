import type { Client } from "../apiclient/client.ts";
import type { ApiError } from "../apiclient/errors.ts";
import type { KubeObject } from "../apiclient/types.ts";
import { Informer } from "./_reflector.ts";
import type { Indexers, Store } from "./store.ts";
import type { DeletedFinalStateUnknown } from "./tombstone.ts";
import { type View, view, type ViewOptions } from "./cache.ts";

/**
 * The collection a watch follows, and the part of it. A selector makes the
 * API server filter, so objects the operator never reads are never sent.
 */
export interface Source {
  /** The API group; empty or absent for the core group. */
  group?: string | undefined;
  /** The group's version, such as `v1`. */
  version: string;
  /** The resource's plural name, such as `configmaps`. */
  resource: string;
  /**
   * The namespace to watch; empty or absent for every namespace, or for a
   * cluster-scoped kind.
   */
  namespace?: string | undefined;
  /** A label selector, such as `app=web`. */
  labelSelector?: string | undefined;
  /** A field selector, such as `metadata.name=web`. */
  fieldSelector?: string | undefined;
}

/**
 * Receives each change after the store holds it. Calls come one at a time,
 * in order; a call that returns a promise is awaited before the next event
 * is read. A call that throws or rejects is reported and the watch goes on.
 *
 * @typeParam T The kind of the watched objects.
 */
export interface Handler<T extends KubeObject = KubeObject> {
  /**
   * An object the store did not hold (or held only undecoded) arrived.
   *
   * @param object The new copy.
   */
  add?(object: T): void | Promise<void>;
  /**
   * A held object changed. A relist calls it only for objects whose
   * `resourceVersion` moved, as client-go's shared informer does for a
   * handler without a resync period (its plain informer calls it for every
   * object a relist finds again).
   *
   * @param old The copy the store held.
   * @param object The new copy.
   */
  update?(old: T, object: T): void | Promise<void>;
  /**
   * An object went. After a relist, an object that vanished while no watch
   * was open arrives as a {@linkcode DeletedFinalStateUnknown}.
   *
   * @param object The last copy, or the marker.
   */
  delete?(object: T | DeletedFinalStateUnknown<T>): void | Promise<void>;
}

/**
 * The optional parts of a watch.
 *
 * @typeParam T The kind of the watched objects.
 */
export interface CollectionOptions<T extends KubeObject = KubeObject> {
  /** Receives each change. Leave it out when only the store is wanted. */
  handler?: Handler<T> | undefined;
  /**
   * Called once, when the complete first read is in the store and the handler
   * has been called for all of it. Work done before then read the API
   * server directly and can have missed an edit made before the watch began,
   * so this is the moment to run it again.
   */
  synced?: (() => void | Promise<void>) | undefined;
  /**
   * Called for every watch the API server opens after the first one.
   * Servers end watches on their own schedule, so an occasional call is
   * routine; frequent calls mean connections drop faster than they are
   * useful. Refused watches and the wait of an absent collection don't count.
   */
  reopened?: (() => void) | undefined;
  /**
   * Called when a watch opens again after a failed attempt, such as at the
   * end of an outage. The store is trusted again at once, while the changes
   * made during the gap are still on their way, so a caller that acts on
   * this should read the API server directly one time.
   */
  recovered?: (() => void) | undefined;
  /**
   * Tells which refusals mean the collection does not exist yet, typically
   * a 404 for a custom resource whose definition is not installed. Such a
   * collection reads as empty and is looked up again every `absentRecheck`
   * ms, with no request in between.
   */
  absent?: ((error: ApiError) => boolean) | undefined;
  /** Milliseconds between two asks for an absent collection. Default 5 min. */
  absentRecheck?: number | undefined;
  /** Called with the error whenever reading the whole collection fails. */
  listFailed?: ((error: unknown) => void) | undefined;
  /**
   * Trims each object before the store holds it, after `managedFields` is
   * removed. It may change the object in place or answer a new one.
   */
  transform?: ((object: KubeObject) => KubeObject | undefined) | undefined;
  /**
   * When `true`, every watch failure (not just 401 and 403) makes the store
   * unready, and it stays so until a watch opens again.
   */
  unreadyOnWatchError?: boolean | undefined;
  /** Named index functions the store keeps (see {@linkcode Store.byIndex}). */
  indexers?: Indexers<T> | undefined;
  /**
   * Validates or converts each object (after `transform`). One that throws
   * is reported and held without a value: handlers do not see it, reads
   * skip it, and the store still knows the object exists.
   */
  decode?: ((object: KubeObject) => T) | undefined;
  /**
   * Receives what goes wrong inside the watch that nothing else reports: a
   * copy that fails `decode`, a handler that throws. Default: `console.error`.
   */
  report?: ((error: unknown) => void) | undefined;
  /** Ends the watch. */
  signal?: AbortSignal | undefined;
}

/**
 * The copy of one watched collection: its store, kept current by a watch
 * that reads, watches, resumes, relists and backs off on its own, and never
 * stops until its signal ends or {@linkcode Collection.stop} is called.
 *
 * Make one with {@linkcode start}.
 *
 * @example Watch ConfigMaps and read the store
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client } from "@liken/kubernetes/apiclient";
 * import { start } from "@liken/kubernetes/informer";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * await client.create("/api/v1/namespaces/default/configmaps", {
 *   metadata: { name: "web" },
 * });
 * const { promise: synced, resolve } = Promise.withResolvers<void>();
 * await using configMaps = start(
 *   client,
 *   { version: "v1", resource: "configmaps", namespace: "default" },
 *   { synced: resolve },
 * );
 * await synced;
 * assert.equal(configMaps.synced(), true);
 * assert.equal(configMaps.store.get("default/web")?.metadata.name, "web");
 * ```
 *
 * @typeParam T The kind of the watched objects.
 */
export class Collection<T extends KubeObject = KubeObject>
  implements AsyncDisposable {
  /** The collection this watch follows. */
  readonly source: Source;
  /** The objects the watch holds. */
  readonly store: Store<T>;
  /**
   * Settles when the watch has ended and no handler or `synced` call is
   * still running. Never rejects.
   */
  readonly done: Promise<void>;
  #informer: Informer<T>;
  #stop = new AbortController();

  /**
   * Starts the watch at once; see {@linkcode start}.
   *
   * @param client The API client.
   * @param source The collection.
   * @param options Handler, callbacks, indexers, and the signal.
   */
  constructor(
    client: Client,
    source: Source,
    options: CollectionOptions<T> = {},
  ) {
    this.source = { ...source };
    const stop = this.#stop;
    const outer = options.signal;
    let unlink = (): void => {};
    if (outer !== undefined) {
      if (outer.aborted) stop.abort(outer.reason);
      else {
        const onAbort = (): void => stop.abort(outer.reason);
        outer.addEventListener("abort", onAbort, { once: true });
        unlink = () => outer.removeEventListener("abort", onAbort);
      }
    }
    const report = options.report ?? defaultReport(describe(source));
    this.#informer = new Informer<T>(client, this.source, {
      ...options,
      signal: stop.signal,
      report,
    });
    this.store = this.#informer.store;
    this.done = this.#informer.run().catch(report).finally(unlink);
  }

  /**
   * Whether the store may answer reads: the complete first read is in, and
   * no watch attempt since the last successful one was refused with 401 or
   * 403 (with `unreadyOnWatchError`, refused in any way or broken). An outage
   * alone leaves it answering; the watch catches up once the server is back.
   *
   * @returns `true` when the store answers.
   */
  synced(): boolean {
    return this.#informer.synced();
  }

  /**
   * The store as the cached reads take it (see {@linkcode view}).
   *
   * @param options Whether the watch holds every object of its kind.
   * @returns The view.
   */
  view(options: ViewOptions = {}): View<T> {
    return view(this, options);
  }

  /**
   * Stops the watch and waits until the last handler call returned.
   *
   * @returns Settles with {@linkcode Collection.done}.
   */
  stop(): Promise<void> {
    this.#stop.abort(new DOMException("The watch was stopped", "AbortError"));
    return this.done;
  }

  /** Stops the watch (for `await using`). */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }
}

/**
 * Starts a watch of one collection and returns at once. The watch reads the
 * collection (a streaming list where the server has one, else a paginated
 * list), then watches from that version, resumes closed watches, lists again
 * after a 410, and backs off (800 ms doubling to 30 s, with jitter) while the
 * API server fails, until the signal ends.
 *
 * @example Handle changes
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client } from "@liken/kubernetes/apiclient";
 * import { start } from "@liken/kubernetes/informer";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * const added: string[] = [];
 * const { promise: synced, resolve } = Promise.withResolvers<void>();
 * await using pods = start(client, { version: "v1", resource: "configmaps" }, {
 *   handler: { add: (object) => void added.push(object.metadata.name!) },
 *   synced: resolve,
 * });
 * await synced;
 * await client.create("/api/v1/namespaces/default/configmaps", {
 *   metadata: { name: "new" },
 * });
 * while (added.length === 0) await new Promise((r) => setTimeout(r, 1));
 * assert.deepEqual(added, ["new"]);
 * ```
 *
 * @typeParam T The kind of the watched objects.
 * @param client The API client.
 * @param source The collection and its selectors.
 * @param options Handler, callbacks, indexers, and the signal that ends it.
 * @returns The running collection.
 */
export function start<T extends KubeObject = KubeObject>(
  client: Client,
  source: Source,
  options: CollectionOptions<T> = {},
): Collection<T> {
  return new Collection<T>(client, source, options);
}

/** Names a source in a report, such as `default/configmaps [app=web]`. */
export function describe(source: Source): string {
  let name = source.resource;
  if (source.group) name += `.${source.group}`;
  if (source.namespace) name = `${source.namespace}/${name}`;
  if (source.fieldSelector) name += ` (${source.fieldSelector})`;
  if (source.labelSelector) name += ` [${source.labelSelector}]`;
  return name;
}

function defaultReport(what: string): (error: unknown) => void {
  return (error: unknown): void => {
    // deno-lint-ignore no-console
    console.error(`Watching ${what}:`, error);
  };
}
