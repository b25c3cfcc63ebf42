// Reads of watched kinds come from the watch's store instead of the API
// server, except where the memo knows of a newer write: such an object is
// fetched fresh, so the operator never acts on a copy older than its own.
import type { Client } from "../apiclient/client.ts";
import { NotFoundError } from "../apiclient/errors.ts";
import { objectKey, type ObjectRef, objectRef } from "../apiclient/resource.ts";
import type { KubeObject } from "../apiclient/types.ts";
import { type MemoOptions, readFresh, readList } from "../memo/requests.ts";
import type { Versions } from "../memo/versions.ts";
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
 * The store's copy of one object while the store is ready. `undefined` says
 * to read the API server (not ready, not held, held but not decoded, or not
 * covered: the ref's namespace is not the view's namespace nor in its
 * namespace set). Throws a `TypeError` if the view watches another resource
 * than the ref's.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cached, view } from "@liken/kubernetes/informer";
 *
 * const configMaps = { version: "v1", resource: "configmaps" };
 * const web = { ...configMaps, namespace: "default", name: "web" };
 * assert.equal(cached(view(configMaps), web), undefined);
 * ```
 *
 * @typeParam T The kind of the stored objects.
 * @param view The store.
 * @param ref The object.
 * @returns The copy, or `undefined`.
 */
export function cached<T extends KubeObject>(
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
 * All decoded copies the store holds, sorted by key as the API server sorts
 * a list, whether or not the store is ready.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cachedList, view } from "@liken/kubernetes/informer";
 *
 * assert.deepEqual(cachedList(view({ version: "v1", resource: "configmaps" })), []);
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

/**
 * Options of {@linkcode readOne}, {@linkcode currentList} and
 * {@linkcode list}: the view to read from, the memo, and a signal.
 *
 * @typeParam T The kind of the objects.
 */
export interface ReadOptions<T extends KubeObject = KubeObject>
  extends MemoOptions {
  /**
   * The watch of the collection; absent reads the API server (and still
   * notes the answer in the memo). For {@linkcode currentList} and
   * {@linkcode list} it must watch exactly the collection read (the same
   * resource, namespace and selectors).
   */
  view?: View<T> | undefined;
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
 * import { readOne } from "@liken/kubernetes/informer";
 * import { Versions } from "@liken/kubernetes/memo";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * await client.create("/api/v1/namespaces/default/configmaps", { metadata: { name: "web" } });
 * const web = { version: "v1", resource: "configmaps", namespace: "default", name: "web" };
 * const object = await readOne(client, web, { versions: new Versions() });
 * assert.equal(object.metadata.name, "web");
 * ```
 *
 * @typeParam T The kind of the object.
 * @param client The API client.
 * @param ref The object.
 * @param options The view, the memo, and a signal.
 * @returns The current copy.
 */
export async function readOne<T extends KubeObject>(
  client: Client,
  ref: ObjectRef,
  options: ReadOptions<T> = {},
): Promise<T> {
  const { view, versions } = options;
  if (view !== undefined) {
    refuseMetadataOnly(view);
    const copy = cached(view, ref);
    if (copy !== undefined && isCurrent(versions, ref, copy)) return copy;
  }
  return await readFresh<T>(client, ref, options);
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
 * view over a namespace set answers a list of the same set, of a part of
 * it, or of one namespace in it.
 */
function refuseOtherCollection(view: View<KubeObject>, source: Source): void {
  const watched = view.source;
  const same = (a: string | undefined, b: string | undefined): boolean =>
    (a ?? "") === (b ?? "");
  if (
    watched.resource !== source.resource ||
    !same(watched.group, source.group) ||
    !same(watched.labelSelector, source.labelSelector) ||
    !same(watched.fieldSelector, source.fieldSelector)
  ) {
    throw new TypeError(
      `Cannot list ${setName(source)} through a view of ${setName(watched)}`,
    );
  }
  const wanted = source.namespaces ?? [source.namespace ?? ""];
  if (watched.namespaces === undefined) {
    if (!wanted.every((namespace) => same(watched.namespace, namespace))) {
      throw new TypeError(
        `Cannot list ${setName(source)} through a view of ${setName(watched)}`,
      );
    }
    return;
  }
  if (!wanted.every((namespace) => watched.namespaces!.includes(namespace))) {
    throw new TypeError(
      `Cannot list ${setName(source)} through a view of ${
        setName(watched)
      }: the view does not cover ${
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
  options: ReadOptions<T>,
): Promise<T[]> {
  const checked = normalized(source);
  if (checked.namespaces === undefined) {
    return await readList<T>(client, checked, options);
  }
  const items: T[] = [];
  for (const part of members(checked)) {
    for (const item of await readList<T>(client, part, options)) {
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

/**
 * The objects of a collection, none older than the memo. With a `view`: the
 * store's copies sorted by key, where a copy that differs from the memo's
 * version, or did not decode, is fetched from the API server (and dropped if
 * it 404s); for a store that covers its whole kind, objects the memo knows
 * but the watch has not delivered yet (such as an object created a moment
 * ago) are fetched too, so a pass sees its own creations and does not make
 * them twice. Without a view: a list from the API server (see `readList`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client } from "@liken/kubernetes/apiclient";
 * import { Collection, currentList } from "@liken/kubernetes/informer";
 * import { Versions } from "@liken/kubernetes/memo";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * await client.create("/api/v1/namespaces/default/configmaps", { metadata: { name: "a" } });
 * const configMaps = { version: "v1", resource: "configmaps" };
 * const { promise: synced, resolve } = Promise.withResolvers<void>();
 * await using watch = new Collection(client, configMaps, { synced: resolve });
 * await synced;
 * const items = await currentList(client, configMaps, {
 *   view: watch.view(),
 *   versions: new Versions(),
 * });
 * assert.deepEqual(items.map((item) => item.metadata.name), ["a"]);
 * ```
 *
 * @typeParam T The kind of the objects.
 * @param client The API client.
 * @param source The collection, and its selectors.
 * @param options The view, the memo, and a signal.
 * @returns The current copies.
 */
export async function currentList<T extends KubeObject>(
  client: Client,
  source: Source,
  options: ReadOptions<T> = {},
): Promise<T[]> {
  const { view, versions } = options;
  if (view === undefined) return await listServer<T>(client, source, options);
  refuseMetadataOnly(view);
  source = normalized(source);
  refuseOtherCollection(view, source);
  const store = view.store;
  // Memo first, store second: if the watch delivers a new object in
  // between, the key shows up in the store's keys. The other order could
  // miss it in both.
  const keys = view.whole && store !== undefined && versions !== undefined
    ? versions.unheld(source, store).map(objectKey)
    : [];
  if (store !== undefined) {
    // Undecodable objects too: their current copy is read from the server.
    const tracked = store instanceof MemoryStore
      ? store.trackedKeys()
      : store.keys();
    for (const key of tracked) keys.push(key);
  }
  keys.sort(compareKeys);
  const current: T[] = [];
  let last: string | undefined;
  // The part of a set's store the list names, when it names a part.
  const narrower = source.namespace || source.namespaces !== undefined;
  const { namespaces: _, ...bare } = source;
  for (const key of keys) {
    if (key === last) continue;
    last = key;
    const ref = objectRef(bare, key);
    if (narrower && !coversNamespace(source, ref.namespace)) continue;
    const copy = held(view, key);
    if (copy !== undefined && isCurrent(versions, ref, copy)) {
      current.push(copy);
      continue;
    }
    try {
      current.push(await readFresh<T>(client, ref, options));
    } catch (error) {
      if (error instanceof NotFoundError) continue;
      throw error;
    }
  }
  return current;
}

/**
 * Every object of a collection: {@linkcode currentList} while the view's
 * store is ready, else (or without a view) a list from the API server, with
 * the source's selectors, that notes each object's version (so a store that
 * becomes ready at an older version is not trusted for them). A pass that
 * reads a kind from a store lists it only through this.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client, objectRef } from "@liken/kubernetes/apiclient";
 * import { list } from "@liken/kubernetes/informer";
 * import { Versions } from "@liken/kubernetes/memo";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * await client.create("/api/v1/namespaces/default/configmaps", { metadata: { name: "web" } });
 * const versions = new Versions();
 * const configMaps = { version: "v1", resource: "configmaps", namespace: "default" };
 * const items = await list(client, configMaps, { versions });
 * assert.equal(items.length, 1);
 * assert.equal(versions.noted(objectRef(configMaps, "default/web")), true);
 * ```
 *
 * @typeParam T The kind of the objects.
 * @param client The API client.
 * @param source The collection, and its selectors.
 * @param options The view, the memo, and a signal.
 * @returns The current copies.
 */
export async function list<T extends KubeObject>(
  client: Client,
  source: Source,
  options: ReadOptions<T> = {},
): Promise<T[]> {
  const { view } = options;
  if (view !== undefined) {
    refuseMetadataOnly(view);
    refuseOtherCollection(view, normalized(source));
    if (view.ready()) return await currentList(client, source, options);
  }
  return await listServer<T>(client, source, options);
}
