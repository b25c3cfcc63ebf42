// Reads of watched kinds come from the watch's store instead of the API
// server, except where the memo knows of a newer write: such a key is
// fetched fresh, so the operator never acts on a copy older than its own.
import type { Client } from "../apiclient/client.ts";
import { NotFoundError } from "../apiclient/errors.ts";
import type { KubeObject } from "../apiclient/types.ts";
import { readFresh, readList } from "../memo/requests.ts";
import type { Versions } from "../memo/versions.ts";
import { compareKeys } from "./_store.ts";
import type { Collection } from "./collection.ts";
import type { Store } from "./store.ts";

export { readFresh, settleStatus } from "../memo/requests.ts";
export type {
  ReadFreshOptions,
  Settled,
  SettleStatusOptions,
} from "../memo/requests.ts";

/**
 * One watch's store as the cached reads take it. Without a watch the view is
 * empty and never ready, which sends each read straight to the API server.
 *
 * @typeParam T The kind of the stored objects.
 */
export interface View<T extends KubeObject = KubeObject> {
  /** The store, or `undefined` for no watch. */
  readonly store: Store<T> | undefined;
  /**
   * Whether the store may answer: its first read is complete and the server
   * has not refused its watch since.
   *
   * @returns `true` when reads may come from the store.
   */
  ready(): boolean;
  /**
   * Whether the watch covers every object of its kind (no namespace, no
   * selector). Only such a store can stand for the whole kind, so only its
   * lists add the objects the memo knows of and the watch has not brought.
   */
  readonly whole: boolean;
}

/** Options of {@linkcode view}. */
export interface ViewOptions {
  /**
   * Whether the watch holds every object the operator writes of its kind.
   * Default: `true` when the source has no namespace and no selector.
   */
  whole?: boolean | undefined;
}

/**
 * A store together with the memo of versions this operator has seen.
 *
 * @typeParam T The kind of the stored objects.
 */
export interface Held<T extends KubeObject = KubeObject> {
  /** The store. */
  view: View<T>;
  /** The memo; absent notes nothing and counts every copy as current. */
  versions?: Versions | undefined;
}

/**
 * The view of a collection, or of none: `view(undefined)` holds nothing and
 * is never ready.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { view } from "@liken/kubernetes/informer";
 *
 * const none = view(undefined);
 * assert.equal(none.ready(), false);
 * assert.equal(none.store, undefined);
 * ```
 *
 * @typeParam T The kind of the watched objects.
 * @param collection The collection, or `undefined`.
 * @param options Whether the watch holds every object of its kind.
 * @returns The view.
 */
export function view<T extends KubeObject = KubeObject>(
  collection: Collection<T> | undefined,
  options: ViewOptions = {},
): View<T> {
  if (collection === undefined) {
    return { store: undefined, ready: () => false, whole: false };
  }
  const { namespace, labelSelector, fieldSelector } = collection.source;
  return {
    store: collection.store,
    ready: () => collection.synced(),
    whole: options.whole ?? (!namespace && !labelSelector && !fieldSelector),
  };
}

/**
 * The store's copy of one object while the store is ready. `undefined` says
 * to read the API server (not ready, not held, or held but not decoded).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cached, view } from "@liken/kubernetes/informer";
 *
 * assert.equal(cached(view(undefined), "default/web"), undefined);
 * ```
 *
 * @typeParam T The kind of the stored objects.
 * @param view The store.
 * @param key The object's store key.
 * @returns The copy, or `undefined`.
 */
export function cached<T extends KubeObject>(
  view: View<T>,
  key: string,
): T | undefined {
  if (view.store === undefined || !view.ready()) return undefined;
  return view.store.get(key);
}

/**
 * All decoded copies the store holds, sorted by key as the API server sorts
 * a list, whether or not the store is ready.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cachedList, view } from "@liken/kubernetes/informer";
 *
 * assert.deepEqual(cachedList(view(undefined)), []);
 * ```
 *
 * @typeParam T The kind of the stored objects.
 * @param view The store.
 * @returns The copies.
 */
export function cachedList<T extends KubeObject>(view: View<T>): T[] {
  const store = view.store;
  if (store === undefined) return [];
  const items: T[] = [];
  for (const key of store.keys()) {
    const item = store.get(key);
    if (item !== undefined) items.push(item);
  }
  return items;
}

/** Options of {@linkcode readOne}. */
export interface ReadOneOptions {
  /** The object's store key. */
  key: string;
  /** The object's API path, for a read from the API server. */
  path: string;
  /** Ends the read. */
  signal?: AbortSignal | undefined;
}

/**
 * One object, from the store if it is ready and its copy matches the memo's
 * version (or the memo has none for the key); otherwise fetched from the API
 * server and its version noted. Rejects with `NotFoundError` if it is gone.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client } from "@liken/kubernetes/apiclient";
 * import { readOne, view } from "@liken/kubernetes/informer";
 * import { Versions } from "@liken/kubernetes/memo";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * await client.create("/api/v1/namespaces/default/configmaps", { metadata: { name: "web" } });
 * const object = await readOne(client, { view: view(undefined), versions: new Versions() }, {
 *   key: "default/web",
 *   path: "/api/v1/namespaces/default/configmaps/web",
 * });
 * assert.equal(object.metadata.name, "web");
 * ```
 *
 * @typeParam T The kind of the object.
 * @param client The API client.
 * @param held The store and the memo.
 * @param options The key, the path, and a signal.
 * @returns The current copy.
 */
export async function readOne<T extends KubeObject>(
  client: Client,
  held: Held<T>,
  options: ReadOneOptions,
): Promise<T> {
  const { key, path, signal } = options;
  const copy = cached(held.view, key);
  if (copy !== undefined && isCurrent(held.versions, key, copy)) return copy;
  return await readFresh<T>(client, {
    versions: held.versions,
    key,
    path,
    signal,
  });
}

function isCurrent(
  versions: Versions | undefined,
  key: string,
  copy: KubeObject,
): boolean {
  return versions === undefined ||
    versions.current(key, copy.metadata?.resourceVersion ?? "");
}

/** Options of {@linkcode currentList}. */
export interface CurrentListOptions {
  /** Answers the API path of the object a key names (see `memo.pathOfKey`). */
  path: (key: string) => string;
  /** Ends the reads. */
  signal?: AbortSignal | undefined;
}

/**
 * The store's copies sorted by key, none older than the memo: a key whose
 * copy differs from the memo's version, or did not decode, is fetched from
 * the API server (and dropped if it 404s). For a store that covers its whole
 * kind, keys the memo knows but the watch has not delivered yet (such as an
 * object created a moment ago) are fetched too, so a pass sees its own
 * creations and does not make them twice.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client } from "@liken/kubernetes/apiclient";
 * import { currentList, view } from "@liken/kubernetes/informer";
 *
 * const client = new Client("http://127.0.0.1:9");
 * const items = await currentList(client, { view: view(undefined) }, { path: (key) => key });
 * assert.deepEqual(items, []);
 * ```
 *
 * @typeParam T The kind of the objects.
 * @param client The API client.
 * @param held The store and the memo.
 * @param options How to name each object's path, and a signal.
 * @returns The current copies.
 */
export async function currentList<T extends KubeObject>(
  client: Client,
  held: Held<T>,
  options: CurrentListOptions,
): Promise<T[]> {
  const { view, versions } = held;
  const store = view.store;
  // Memo first, store second: if the watch delivers a new object in
  // between, the key shows up in the store's keys. The other order could
  // miss it in both.
  const keys = view.whole && store !== undefined && versions !== undefined
    ? versions.unheld(store)
    : [];
  if (store !== undefined) { for (const key of store.keys()) keys.push(key); }
  keys.sort(compareKeys);
  const current: T[] = [];
  let last: string | undefined;
  for (const key of keys) {
    if (key === last) continue;
    last = key;
    const copy = cached(view, key);
    if (copy !== undefined && isCurrent(versions, key, copy)) {
      current.push(copy);
      continue;
    }
    try {
      current.push(
        await readFresh<T>(client, {
          versions,
          key,
          path: options.path(key),
          signal: options.signal,
        }),
      );
    } catch (error) {
      if (error instanceof NotFoundError) continue;
      throw error;
    }
  }
  return current;
}

/** Options of {@linkcode list}. */
export interface ListOptions {
  /**
   * The collection's API path with the watch's selectors and no
   * `resourceVersion`, for the list while the store is not ready.
   */
  listPath: string;
  /** Answers the API path of the object a key names. */
  path: (key: string) => string;
  /** Ends the reads. */
  signal?: AbortSignal | undefined;
}

/**
 * Every object of a kind: {@linkcode currentList} while the store is ready,
 * else a list from the API server that notes each object's version (so a
 * store that becomes ready at an older version is not trusted for them).
 * A pass that reads a kind from a store lists it only through this.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client } from "@liken/kubernetes/apiclient";
 * import { list, view } from "@liken/kubernetes/informer";
 * import { Versions } from "@liken/kubernetes/memo";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * await client.create("/api/v1/namespaces/default/configmaps", { metadata: { name: "web" } });
 * const versions = new Versions();
 * const items = await list(client, { view: view(undefined), versions }, {
 *   listPath: "/api/v1/namespaces/default/configmaps",
 *   path: (key) => `/api/v1/namespaces/default/configmaps/${key.split("/")[1]}`,
 * });
 * assert.equal(items.length, 1);
 * assert.equal(versions.noted("default/web"), true);
 * ```
 *
 * @typeParam T The kind of the objects.
 * @param client The API client.
 * @param held The store and the memo.
 * @param options The list path, how to name each object's path, a signal.
 * @returns The current copies.
 */
export async function list<T extends KubeObject>(
  client: Client,
  held: Held<T>,
  options: ListOptions,
): Promise<T[]> {
  if (held.view.ready()) {
    return await currentList(client, held, {
      path: options.path,
      signal: options.signal,
    });
  }
  return await readList<T>(client, {
    versions: held.versions,
    path: options.listPath,
    signal: options.signal,
  });
}
