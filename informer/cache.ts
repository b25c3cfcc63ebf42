// Reads of watched kinds come from the watch's store instead of the API
// server, except where the memo knows of a newer write: such an object is
// fetched fresh, so the operator never acts on a copy older than its own.
import type { Client } from "../apiclient/client.ts";
import { NotFoundError } from "../apiclient/errors.ts";
import { objectKey, type ObjectRef, objectRef } from "../apiclient/resource.ts";
import type { KubeObject } from "../apiclient/types.ts";
import { freshGet, freshList, type MemoOptions } from "../memo/requests.ts";
import type { Versions } from "../memo/versions.ts";
import { labelMatcher } from "../_internal/selectors.ts";
import { compareKeys, MemoryStore } from "./_store.ts";
import {
  coversNamespace,
  members,
  normalized,
  setName,
} from "./_namespaces.ts";
import type { Source } from "./source.ts";
import type { View } from "./types.ts";

/**
 * The store's copy of one object while the store is ready, at once and
 * without a request: `undefined` when the store is not ready, does not
 * hold it (or it did not decode), or does not cover the ref's namespace.
 * Unlike {@linkcode cachedGet} it does not check the memo, so it can be
 * older than the operator's own last write; it is the read for a
 * synchronous mapping function or a metadata-only store. Throws a
 * `TypeError` if the view watches another resource than the ref's.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cachedPeek, view } from "@liken/kubernetes/informer";
 *
 * const configMaps = { version: "v1", resource: "configmaps" };
 * const web = { ...configMaps, namespace: "default", name: "web" };
 * assert.equal(cachedPeek(view(configMaps), web), undefined);
 * ```
 *
 * @typeParam T The kind of the stored objects.
 * @param view The store.
 * @param ref The object.
 * @returns The copy, or `undefined`.
 */
export function cachedPeek<T extends KubeObject>(
  view: View<T>,
  ref: ObjectRef,
): T | undefined {
  refuseOtherResource(view, ref);
  if (!coversNamespace(view.source, ref.namespace)) return undefined;
  return held(view, objectKey(ref));
}

/** The store's copy under a key while the store is ready. */
function held<T extends KubeObject>(view: View<T>, key: string): T | undefined {
  if (view.store === undefined || !view.ready()) return undefined;
  return view.store.get(key);
}

/**
 * Options of {@linkcode cachedGet} and {@linkcode cachedList}: the view to read from, the memo, and a signal.
 *
 * @typeParam T The kind of the objects.
 */
export interface CachedReadOptions<T extends KubeObject = KubeObject>
  extends MemoOptions {
  /**
   * The watch of the collection; absent reads the API server (and still
   * notes the answer in the memo). For {@linkcode cachedList} it must watch the collection read or a wider one: the
   * same resource; every namespace (then a list of one namespace, or of a
   * set, reads its part), the same namespace, or a set the list's namespaces
   * are in; no label selector (then the list's selector filters the store's
   * copies) or the list's own; the list's field selector.
   */
  view?: View<T> | undefined;
}

/** Options of {@linkcode cachedList}. */
export interface CachedListOptions<T extends KubeObject = KubeObject>
  extends CachedReadOptions<T> {
  /**
   * Only the objects one index of the view's store holds under one value
   * (see `Store.byIndex`): found through the index, not by walking the
   * store. Needs a view whose store has the index.
   */
  index?: { name: string; value: string } | undefined;
}

/**
 * One object, from the store if it is ready and its copy matches the memo's
 * version (or the memo has none for the object); otherwise fetched from the
 * API server and its version noted. Rejects with `NotFoundError` if it is
 * gone, and with a `TypeError` if the view watches another resource.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client } from "@liken/kubernetes/apiclient";
 * import { cachedGet } from "@liken/kubernetes/informer";
 * import { Versions } from "@liken/kubernetes/memo";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * await client.create("/api/v1/namespaces/default/configmaps", { metadata: { name: "web" } });
 * const web = { version: "v1", resource: "configmaps", namespace: "default", name: "web" };
 * const object = await cachedGet(client, web, { versions: new Versions() });
 * assert.equal(object.metadata.name, "web");
 * ```
 *
 * @typeParam T The kind of the object.
 * @param client The API client.
 * @param ref The object.
 * @param options The view, the memo, and a signal.
 * @returns The current copy.
 */
export async function cachedGet<T extends KubeObject = KubeObject>(
  client: Client,
  ref: ObjectRef<T> | ObjectRef,
  options: CachedReadOptions<T> = {},
): Promise<T> {
  const { view, versions } = options;
  if (view !== undefined) {
    refuseMetadataOnly(view);
    const copy = cachedPeek(view, ref);
    if (copy !== undefined && isCurrent(versions, ref, copy)) return copy;
  }
  return await freshGet<T>(client, ref, options);
}

/** The reads answer whole objects: a metadata-only store cannot. */
function refuseMetadataOnly(view: View<KubeObject>): void {
  if (view.metadataOnly === true) {
    throw new TypeError(
      `The view of ${view.source.resource} holds metadata only; read its store directly`,
    );
  }
}

/** An object of another resource is never in the view's store. */
function refuseOtherResource(view: View<KubeObject>, ref: ObjectRef): void {
  const { group = "", resource } = view.source;
  if (resource !== ref.resource || group !== (ref.group ?? "")) {
    throw new TypeError(
      `Cannot read ${
        objectKey(ref)
      } of ${ref.resource} through a view of ${resource}`,
    );
  }
}

/**
 * A list answers the collection it names: a view of another resource, of
 * other namespaces or with other selectors would answer other objects. A
 * view of every namespace answers a list of any namespace or set; one over
 * a namespace set answers a list of the same set, of a part of it, or of
 * one namespace in it. A view without a label selector answers a list with
 * one (the selector filters its copies).
 */
function refuseOtherCollection(view: View<KubeObject>, source: Source): void {
  const watched = view.source;
  const same = (a: string | undefined, b: string | undefined): boolean =>
    (a ?? "") === (b ?? "");
  const refused = (why = ""): TypeError =>
    new TypeError(
      `Cannot list ${setName(source)} through a view of ${
        setName(watched)
      }${why}`,
    );
  if (
    watched.resource !== source.resource ||
    !same(watched.group, source.group) ||
    (watched.labelSelector &&
      !same(watched.labelSelector, source.labelSelector)) ||
    !same(watched.fieldSelector, source.fieldSelector)
  ) {
    throw refused();
  }
  const wanted = source.namespaces ?? [source.namespace ?? ""];
  if (!watched.namespace && watched.namespaces === undefined) return;
  if (watched.namespaces === undefined) {
    if (!wanted.every((namespace) => same(watched.namespace, namespace))) {
      throw refused();
    }
    return;
  }
  if (!wanted.every((namespace) => watched.namespaces!.includes(namespace))) {
    throw refused(
      `: the view does not cover ${
        wanted.filter((namespace) => !coversNamespace(watched, namespace))
          .map((namespace) => namespace === "" ? "every namespace" : namespace)
          .join(", ")
      }`,
    );
  }
}

/**
 * A list from the API server; over a namespace set, one list per
 * namespace (never one across every namespace), in key order.
 */
async function listServer<T extends KubeObject>(
  client: Client,
  source: Source,
  options: CachedReadOptions<T>,
): Promise<T[]> {
  const checked = normalized(source);
  if (checked.namespaces === undefined) {
    return await freshList<T>(client, checked, options);
  }
  const items: T[] = [];
  for (const part of members(checked)) {
    for (const item of await freshList<T>(client, part, options)) {
      items.push(item);
    }
  }
  return items;
}

function isCurrent(
  versions: Versions | undefined,
  ref: ObjectRef,
  copy: KubeObject,
): boolean {
  return versions === undefined ||
    versions.current(ref, copy.metadata?.resourceVersion ?? "");
}

/** The namespace of a store key (`undefined` for a cluster-scoped one). */
function namespaceOf(key: string): string | undefined {
  const slash = key.indexOf("/");
  return slash === -1 ? undefined : key.slice(0, slash);
}

/** What a list keeps of the copies it finds: its scope as one test. */
type Scope<T> = (copy: T) => boolean;

/**
 * The test of the list's namespaces, label selectors (the view's and the
 * list's) and index; a copy fetched from the server must pass it, a copy
 * of the store the parts the store does not already answer.
 */
function scopeOf<T extends KubeObject>(
  view: View<T>,
  source: Source,
  index: CachedListOptions<T>["index"],
): { fetched: Scope<T>; held: Scope<T> } {
  const fail = (message: string): Error =>
    new TypeError(`The label selector of ${setName(source)}: ${message}`);
  const ours = labelMatcher(source.labelSelector, fail);
  const theirs = labelMatcher(view.source.labelSelector, fail);
  const narrower = !!source.namespace || source.namespaces !== undefined;
  const inScope = (copy: T): boolean =>
    !narrower || coversNamespace(source, copy.metadata?.namespace);
  const labelled = (copy: T): boolean =>
    (ours === undefined || ours(copy)) &&
    (theirs === undefined || theirs(copy));
  const indexer = index === undefined ? undefined : indexerOf(view, index.name);
  const indexed = (copy: T): boolean => {
    if (indexer === undefined) return index === undefined;
    try {
      return indexer(copy).includes(index!.value);
    } catch {
      return false;
    }
  };
  return {
    fetched: (copy) =>
      inScope(copy) && labelled(copy) && coversNamespace(
        view.source,
        copy.metadata?.namespace,
      ) && indexed(copy),
    held: (copy) => inScope(copy) && (ours === undefined || ours(copy)),
  };
}

/** The function of a store's index, or a TypeError when it has none. */
function indexerOf<T extends KubeObject>(
  view: View<T>,
  name: string,
): ((object: T) => readonly string[]) | undefined {
  const store = view.store;
  if (store === undefined) {
    throw new TypeError(
      `Cannot read the index ${name} of ${setName(view.source)}: no store`,
    );
  }
  if (!(store instanceof MemoryStore)) return undefined;
  const indexer = store.indexer(name);
  if (indexer === undefined) {
    throw new TypeError(
      `The store of ${setName(view.source)} has no index named ${name}`,
    );
  }
  return indexer;
}

/** The store's part of {@linkcode cachedList}, for a ready store. */
async function fromStore<T extends KubeObject>(
  client: Client,
  view: View<T>,
  source: Source,
  options: CachedListOptions<T>,
): Promise<T[]> {
  const { versions, index } = options;
  const scope = scopeOf(view, source, index);
  const store = view.store;
  const { namespaces: _, ...bare } = source;
  const narrower = !!source.namespace || source.namespaces !== undefined;
  // Memo first, store second: if the watch delivers a new object in
  // between, the key shows up in the store's keys. The other order could
  // miss it in both.
  // With an index, a held copy older than the memo may be indexed under
  // another value than the object now has (an adopted child): such keys
  // are read too.
  const keys = view.whole && store !== undefined && versions !== undefined
    ? versions.unheld(
      bare,
      index === undefined ? store : {
        has: (key) => {
          const copy = store.get(key);
          return copy !== undefined &&
            isCurrent(versions, objectRef(bare, key), copy);
        },
      },
    ).map(objectKey)
    : [];
  if (store !== undefined) {
    if (index !== undefined) {
      for (const key of store.indexKeys(index.name, index.value)) {
        keys.push(key);
      }
    } else {
      // Undecodable objects too: their current copy is read from the server.
      // Only the list's namespaces are sorted, not the whole store.
      const tracked = store instanceof MemoryStore
        ? [store.entries().keys(), store.undecodable().keys()]
        : [store.keys()];
      for (const part of tracked) {
        for (const key of part) {
          if (!narrower || coversNamespace(source, namespaceOf(key))) {
            keys.push(key);
          }
        }
      }
    }
  }
  keys.sort(compareKeys);
  const current: T[] = [];
  let last: string | undefined;
  for (const key of keys) {
    if (key === last) continue;
    last = key;
    const ref = objectRef(bare, key);
    if (narrower && !coversNamespace(source, ref.namespace)) continue;
    const copy = held(view, key);
    if (copy !== undefined && isCurrent(versions, ref, copy)) {
      if (scope.held(copy)) current.push(copy);
      continue;
    }
    try {
      const fresh = await freshGet<T>(client, ref, options);
      if (scope.fetched(fresh)) current.push(fresh);
    } catch (error) {
      if (error instanceof NotFoundError) continue;
      throw error;
    }
  }
  return current;
}

/**
 * The objects of a collection from a watch's store (the view), none older
 * than the memo: the store's copies sorted by key, where a copy that
 * differs from the memo's version, or did not decode, is fetched from the
 * API server (and dropped if it 404s); for a store that holds every object
 * the operator writes of its kind (`whole`), objects the memo knows but the
 * watch has not delivered yet (such as an object created a moment ago) are
 * fetched too, so a pass sees its own creations and does not make them
 * twice. No list request is sent: the API server is asked only about those
 * objects, one GET each.
 *
 * The list may be narrower than the view: one namespace (or a set) of a
 * view of every namespace, a label selector the view does not have (it
 * filters the copies), and an `index` of the store (only the objects it
 * holds under one value, found without walking the store; an object that
 * did not decode is not indexed, so it is left out).
 *
 * While the view's store is not ready, and without a view, it is a list
 * from the API server instead (see `freshList`), with the source's
 * selectors (and the view's), noting each object's version (so a store that
 * becomes ready at an older version is not trusted for them); with `index`,
 * the server's answer is filtered through the store's index function.
 *
 * @example One namespace and one index value, through a view of every namespace
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client, type KubeObject } from "@liken/kubernetes/apiclient";
 * import { cachedList, Collection } from "@liken/kubernetes/informer";
 * import { Versions } from "@liken/kubernetes/memo";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * for (const namespace of ["a", "b"]) {
 *   await client.create("/api/v1/namespaces", { metadata: { name: namespace } });
 *   await client.create(`/api/v1/namespaces/${namespace}/configmaps`, {
 *     metadata: { name: "web", labels: { app: "web" } },
 *   });
 * }
 * const configMaps = { version: "v1", resource: "configmaps" };
 * const app = (object: KubeObject) => [object.metadata.labels?.app ?? ""];
 * const { promise: synced, resolve } = Promise.withResolvers<void>();
 * await using watch = new Collection(client, configMaps, {
 *   indexers: { app },
 *   synced: resolve,
 * });
 * await synced;
 * const items = await cachedList(client, { ...configMaps, namespace: "b" }, {
 *   view: watch.view(),
 *   versions: new Versions(),
 *   index: { name: "app", value: "web" },
 * });
 * assert.deepEqual(items.map((item) => item.metadata.namespace), ["b"]);
 * ```
 *
 * @typeParam T The kind of the objects.
 * @param client The API client.
 * @param source The collection, and its selectors.
 * @param options The view, the index, the memo, and a signal.
 * @returns The current copies.
 */
export async function cachedList<T extends KubeObject = KubeObject>(
  client: Client,
  source: Source<T> | Source,
  options: CachedListOptions<T> = {},
): Promise<T[]> {
  const { view, index } = options;
  if (view === undefined) {
    if (index !== undefined) {
      throw new TypeError(
        `Cannot read the index ${index.name} of ${setName(source)}: no view`,
      );
    }
    return await listServer<T>(client, source, options);
  }
  refuseMetadataOnly(view);
  source = normalized(source);
  refuseOtherCollection(view, source);
  if (view.ready()) return await fromStore(client, view, source, options);
  const scope = scopeOf(view, source, index);
  const selectors = [view.source.labelSelector, source.labelSelector];
  const labelSelector = [...new Set(selectors.filter(Boolean))].join(",");
  const items = await listServer<T>(
    client,
    { ...source, ...(labelSelector ? { labelSelector } : {}) },
    options,
  );
  return index === undefined ? items : items.filter(scope.fetched);
}
