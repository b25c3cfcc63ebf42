/**
 * A watch cache: a local copy of each collection an operator reads, kept
 * current by a watch, and cached reads that never answer a copy older than
 * the operator's own writes.
 *
 * - {@linkcode Collection} runs the reflector of one collection: a streaming list
 *   (or a paginated list, limit 500), then a watch with bookmarks from that
 *   version; it resumes closed watches from the last version delivered,
 *   lists again after a 410 (never at an older view), and never stops
 *   until its signal ends. While the server fails it backs off as client-go
 *   does: a base of 800 ms doubling up to 30 s, each wait jittered up to
 *   twice its base (so waits reach 60 s), starting over after two minutes
 *   without a failure. A relist replaces the store and hands the handler the
 *   differences.
 * - The store ({@linkcode Store}) holds objects by key without
 *   `managedFields`, with optional indexes.
 * - {@linkcode cachedGet} and {@linkcode cachedList} read from the store
 *   when it is ready and the memo (`@liken/kubernetes/memo`) says its copy
 *   is current, and from the API server otherwise (the memo's `freshGet`
 *   and `freshList` read the server alone); a list may be narrower than its
 *   view (a namespace, a label selector, an index value), and from a ready
 *   store it never sends a list request. {@linkcode cachedPeek} is the
 *   store's copy at once, without the memo. They name
 *   the target as every module does: the client, then which object (an
 *   `ObjectRef`) or which collection (a {@linkcode Source}), then options
 *   with the store as `view` (absent: read the API server), the memo as
 *   `versions`, and a `signal`.
 * - {@linkcode watchOne} follows one object by name.
 * - Every failure a collection logs is a
 *   {@linkcode CollectionError} naming the collection and, where there is
 *   one, the object: {@linkcode ListError}, {@linkcode WatchError},
 *   {@linkcode DecodeError}, {@linkcode EventHandlerError},
 *   {@linkcode ObjectRefusedError}.
 *
 * Permissions: only the network access of the client.
 *
 * @example A store, a write, and a read that is never older than the write
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client, type KubeObject } from "@liken/kubernetes/apiclient";
 * import { Collection, cachedGet } from "@liken/kubernetes/informer";
 * import { Versions } from "@liken/kubernetes/memo";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * const versions = new Versions();
 * const configMaps = { version: "v1", resource: "configmaps" };
 * const { promise: synced, resolve } = Promise.withResolvers<void>();
 * await using watch = new Collection(client, configMaps, { synced: resolve });
 * await synced;
 *
 * type ConfigMap = KubeObject & { data?: Record<string, string> };
 * const web = { ...configMaps, namespace: "default", name: "web" };
 * // A client bound to the memo notes each write's version.
 * const handle = client.withMemo(versions).resource<ConfigMap>(configMaps)
 *   .namespace("default");
 * const made = await handle.create({ metadata: { name: "web" }, data: { a: "1" } });
 * // Whether or not the watch delivered it yet, the read answers the write.
 * const read = await cachedGet(client, web, { view: watch.view(), versions });
 * assert.equal(read.metadata.resourceVersion, made.metadata.resourceVersion);
 * ```
 *
 * @module
 */

export { Collection } from "./collection.ts";
export {
  cachedGet,
  cachedList,
  type CachedListOptions,
  cachedPeek,
  type CachedReadOptions,
} from "./cache.ts";
export {
  CollectionError,
  type CollectionErrorOptions,
  DecodeError,
  EventHandlerError,
  type EventHandlerErrorOptions,
  ListError,
  type ListErrorOptions,
  ObjectRefusedError,
  type ObjectRefusedErrorOptions,
  WatchError,
} from "./errors.ts";
export { watchOne, type WatchOneOptions } from "./one.ts";
export type { Indexers, Store } from "./store.ts";
export { DeletedFinalStateUnknown, finalState } from "./tombstone.ts";
export type {
  CollectionOptions,
  Handler,
  Source,
  View,
  ViewOptions,
  Watched,
} from "./types.ts";
export { view } from "./view.ts";
export {
  Collections,
  type CollectionsOptions,
  type RegisterOptions,
  type Registration,
  type WatchHooks,
} from "./shared.ts";
