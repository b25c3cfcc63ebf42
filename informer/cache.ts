// Reads of watched kinds come from the watch's store instead of the API
// server, except where the memo knows of a newer write: such a key is
// fetched fresh, so the operator never acts on a copy older than its own.
import type { Client } from "../apiclient/client.ts";
import { NotFoundError } from "../apiclient/errors.ts";
import { objectKey, type ObjectRef, objectRef } from "../apiclient/resource.ts";
import type { KubeObject } from "../apiclient/types.ts";
import { type MemoOptions, readFresh, readList } from "../memo/requests.ts";
import type { Versions } from "../memo/versions.ts";
import { compareKeys, MemoryStore } from "./_store.ts";
import type { View } from "./types.ts";

/**
 * The store's copy of one object while the store is ready. `undefined` says
 * to read the API server (not ready, not held, or held but not decoded).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cached, view } from "@liken/kubernetes/informer";
 *
 * const configMaps = view({ version: "v1", resource: "configmaps" });
 * assert.equal(cached(configMaps, "default/web"), undefined);
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
 * Options of {@linkcode readOne}: the memo and a signal, and the view to
 * read from.
 *
 * @typeParam T The kind of the object.
 */
export interface ReadOneOptions<T extends KubeObject = KubeObject>
  extends MemoOptions {
  /**
   * The watch of the object's collection; absent reads the API server (and
   * still notes the answer in the memo).
   */
  view?: View<T> | undefined;
}

/**
 * One object, from the store if it is ready and its copy matches the memo's
 * version (or the memo has none for the key); otherwise fetched from the API
 * server and its version noted. Rejects with `NotFoundError` if it is gone,
 * and with a `TypeError` if the view watches another resource.
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
  options: ReadOneOptions<T> = {},
): Promise<T> {
  const { view, versions } = options;
  const key = objectKey(ref);
  if (view !== undefined) {
    refuseMetadataOnly(view);
    const { group = "", resource } = view.source;
    if (resource !== ref.resource || group !== (ref.group ?? "")) {
      throw new TypeError(
        `Cannot read ${key} of ${ref.resource} through a view of ${resource}`,
      );
    }
    const copy = cached(view, key);
    if (copy !== undefined && isCurrent(versions, key, copy)) return copy;
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

function isCurrent(
  versions: Versions | undefined,
  key: string,
  copy: KubeObject,
): boolean {
  return versions === undefined ||
    versions.current(key, copy.metadata?.resourceVersion ?? "");
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
 * const configMaps = view({ version: "v1", resource: "configmaps" });
 * assert.deepEqual(await currentList(client, configMaps), []);
 * ```
 *
 * @typeParam T The kind of the objects.
 * @param client The API client.
 * @param view The store, and the collection it watches.
 * @param options The memo and a signal.
 * @returns The current copies.
 */
export async function currentList<T extends KubeObject>(
  client: Client,
  view: View<T>,
  options: MemoOptions = {},
): Promise<T[]> {
  refuseMetadataOnly(view);
  const { versions } = options;
  const store = view.store;
  // Memo first, store second: if the watch delivers a new object in
  // between, the key shows up in the store's keys. The other order could
  // miss it in both.
  const keys = view.whole && store !== undefined && versions !== undefined
    ? versions.unheld(store)
    : [];
  if (store !== undefined) {
    // Undecodable objects too: their current copy is read from the server.
    const held = store instanceof MemoryStore
      ? store.trackedKeys()
      : store.keys();
    for (const key of held) keys.push(key);
  }
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
        await readFresh<T>(client, objectRef(view.source, key), options),
      );
    } catch (error) {
      if (error instanceof NotFoundError) continue;
      throw error;
    }
  }
  return current;
}

/**
 * Every object of a collection: {@linkcode currentList} while the store is
 * ready, else a list from the API server (with the watch's selectors) that
 * notes each object's version (so a store that becomes ready at an older
 * version is not trusted for them). A pass that reads a kind from a store
 * lists it only through this.
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
 * const configMaps = view({ version: "v1", resource: "configmaps", namespace: "default" });
 * const items = await list(client, configMaps, { versions });
 * assert.equal(items.length, 1);
 * assert.equal(versions.noted("default/web"), true);
 * ```
 *
 * @typeParam T The kind of the objects.
 * @param client The API client.
 * @param view The store, and the collection it watches.
 * @param options The memo and a signal.
 * @returns The current copies.
 */
export async function list<T extends KubeObject>(
  client: Client,
  view: View<T>,
  options: MemoOptions = {},
): Promise<T[]> {
  refuseMetadataOnly(view);
  if (view.ready()) return await currentList(client, view, options);
  const { labelSelector, fieldSelector } = view.source;
  return await readList<T>(client, view.source, {
    ...options,
    labelSelector,
    fieldSelector,
  });
}
