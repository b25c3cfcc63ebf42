import type { Client } from "../apiclient/client.ts";
import type { KubeObject } from "../apiclient/types.ts";
import { loggerOf } from "../_internal/log.ts";
import { reportTo } from "./_report.ts";
import { Hub } from "./_hub.ts";
import { normalized, setName } from "./_namespaces.ts";
import type { Store } from "./store.ts";
import type { CollectionOptions, Source, View, ViewOptions } from "./types.ts";
import { view } from "./view.ts";

/**
 * The copy of one watched collection: its store, kept current by a watch
 * that reads, watches, resumes, relists and backs off on its own, and never
 * stops until its signal ends or {@linkcode Collection.stop} is called.
 *
 * The constructor starts the watch and returns at once. The watch reads the
 * collection (a streaming list where the server has one, else a paginated
 * list), then watches from that version, resumes closed watches, lists again
 * after a 410, and backs off while the API server fails (see the module
 * documentation for the waits). Every failed list and watch, and problems
 * that nothing else reports, go to the `logger` as error lines (default:
 * `console.error`), each error
 * as its own class that names the collection (`source`, and a readable
 * `collection` such as `default/configmaps`), the object's `ref` where there
 * is one, and the original error as `cause`: {@linkcode ListError} (a read
 * of the whole collection), {@linkcode WatchError}, {@linkcode DecodeError}
 * (a copy that fails `transform` or `decode`), {@linkcode EventHandlerError} (a
 * handler, callback or indexer that throws) and
 * {@linkcode ObjectRefusedError} (an object without a name). All are
 * {@linkcode CollectionError}s.
 *
 * @example Watch ConfigMaps and read the store
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client } from "@liken/kubernetes/apiclient";
 * import { Collection } from "@liken/kubernetes/informer";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * await client.create("/api/v1/namespaces/default/configmaps", {
 *   metadata: { name: "web" },
 * });
 * const { promise: synced, resolve } = Promise.withResolvers<void>();
 * await using configMaps = new Collection(
 *   client,
 *   { version: "v1", resource: "configmaps", namespace: "default" },
 *   { synced: resolve },
 * );
 * await synced;
 * assert.equal(configMaps.synced(), true);
 * assert.equal(configMaps.store.get("default/web")?.metadata.name, "web");
 * ```
 *
 * @example Handle changes
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client } from "@liken/kubernetes/apiclient";
 * import { Collection } from "@liken/kubernetes/informer";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * const added: string[] = [];
 * const { promise: synced, resolve } = Promise.withResolvers<void>();
 * const inDefault = { version: "v1", resource: "configmaps", namespace: "default" };
 * await using configMaps = new Collection(client, inDefault, {
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
 */
export class Collection<T extends KubeObject = KubeObject>
  implements AsyncDisposable {
  /** The collection this watch follows. */
  readonly source: Source;
  /** The objects the watch holds. */
  readonly store: Store<T>;
  /** Whether the store holds metadata only (the `metadataOnly` option). */
  readonly metadataOnly: boolean;
  /**
   * Settles when the watch has ended and no handler or `synced` call is
   * still running. Never rejects.
   */
  readonly done: Promise<void>;
  #hub: Hub<T>;
  #stop = new AbortController();

  /**
   * Starts the watch and returns at once.
   *
   * @param client The API client.
   * @param source The collection. With `namespaces`, one list and watch
   *   per namespace, merged into one store and one stream of handler calls;
   *   a `TypeError` if the set is refused (see {@linkcode Source}).
   * @param options Handler, callbacks, indexers, and the signal.
   */
  constructor(
    client: Client,
    source: Source<T> | Source,
    options: CollectionOptions<T> = {},
  ) {
    this.source = normalized(source);
    this.metadataOnly = options.metadataOnly === true;
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
    const onError = reportTo(
      loggerOf(options.logger, { collection: setName(this.source) }),
    );
    this.#hub = new Hub<T>(client, this.source, {
      ...options,
      signal: stop.signal,
      onError,
    });
    this.store = this.#hub.store;
    this.done = this.#hub.done.finally(unlink);
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
    return this.#hub.synced();
  }

  /**
   * Whether the store is being kept current: {@linkcode Collection.synced},
   * and no list or watch has failed since the last event, whole read, or
   * watch that stayed open a second. While the API server is down, or every
   * watch breaks on a line that does not decode, this answers `false` while
   * `synced()` (which decides whether reads may use the store) can stay
   * `true`. Each such failure is also an error line of the `logger`; three bad answers in
   * a row make the watch read the whole collection again.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client } from "@liken/kubernetes/apiclient";
   * import { Collection } from "@liken/kubernetes/informer";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const client = new Client(server.url, { fetch: server.fetch });
   * const { promise: synced, resolve } = Promise.withResolvers<void>();
   * await using configMaps = new Collection(client, {
   *   version: "v1",
   *   resource: "configmaps",
   * }, { synced: resolve });
   * await synced;
   * assert.equal(configMaps.current(), true);
   * ```
   *
   * @returns `true` while the watch keeps the store current.
   */
  current(): boolean {
    return this.#hub.current();
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
