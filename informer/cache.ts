// A pass reads watched kinds from the store, not from the API server, and
// never gets a copy older than the operator's own writes: the memo's
// versions say which copies are current, and the rest are read fresh.
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
 * One watch's store as the cached reads take it. The view of no watch holds
 * nothing and is never ready, so every read goes to the API server.
 *
 * @typeParam T The kind of the stored objects.
 */
export interface View<T extends KubeObject = KubeObject> {
  /** The store, or `undefined` for no watch. */
  readonly store: Store<T> | undefined;
  /**
   * Whether the store answers: it holds the whole first read and its watch
   * is allowed.
   *
   * @returns `true` when reads may come from the store.
   */
  ready(): boolean;
  /**
   * Whether the watch takes every object of its kind (no namespace, no
   * selector). Only then does a list from the store also answer objects the
   * operator wrote that the store does not hold yet.
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
 * A store and the memo of the copies the operator wrote or read.
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
 * Every decoded copy in the store, in the order of their keys (the order of
 * a list from the API server), ready or not.
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
 * One object: the store's copy when the store is ready and the copy is at
 * the version the memo noted (or the memo noted none), else the API server's
 * copy, whose version is noted. A missing object rejects with `NotFoundError`.
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
 * The store's copies in key order, each one current: a copy at another
 * version than the memo noted, or one that did not decode, is replaced by
 * the API server's copy, and an object the API server no longer holds is
 * left out. A whole store also answers each object the memo noted that it
 * does not hold yet (one the operator just created), so a pass does not
 * create it again.
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
  // The memo's keys are read before the store's: the watch can take a
  // created object between the two reads, and in this order the key is in
  // one read or both, never in neither.
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
