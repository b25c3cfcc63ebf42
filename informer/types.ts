// The shapes the informer's parts share, here so that none of its files
// imports another in a cycle.
import type { ApiError } from "../apiclient/errors.ts";
import type { KubeObject } from "../apiclient/types.ts";
import type { Logger } from "../_internal/log.ts";
import type { Source } from "./source.ts";
import type { Indexers, Store } from "./store.ts";
import type { DeletedFinalStateUnknown } from "./tombstone.ts";

export type { Source } from "./source.ts";

/**
 * Receives each change after the store holds it. Calls come one at a time,
 * in order; a call that returns a promise is awaited before the next event
 * is read. A call that throws or rejects is logged as an error, a
 * `EventHandlerError` naming the call and the object, and the watch goes on.
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
   * An object went. Mostly it receives the object's final copy. It receives
   * a {@linkcode DeletedFinalStateUnknown} marker instead when the final
   * copy is unknown or did not decode: after a relist, for an object that
   * vanished while no watch was open; and for a delete whose copy failed
   * `decode` (or `transform`). The marker always has the object's `key`; its
   * `object` is the last copy that decoded, and is `undefined` when none
   * ever did (every copy the store saw failed `decode`). So a handler reads
   * the key from `finalState(object)` or, when that is `undefined`, from
   * the marker's `key`; it never assumes the marker carries a copy.
   *
   * @param object The final copy, or the marker (whose `object` may be
   *   `undefined`).
   */
  delete?(object: T | DeletedFinalStateUnknown<T>): void | Promise<void>;
}

/**
 * The optional parts of a watch.
 *
 * @typeParam T The kind of the watched objects.
 */
export interface CollectionOptions<T extends KubeObject = KubeObject> {
  /**
   * Receives the collection's error lines, each error of its own class
   * (field `collection`). Default: errors to `console.error`.
   */
  logger?: Logger | undefined;
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
   * end of an outage, once the store held a complete read (failures before
   * the first complete read leave no gap: that read is whole). The store is trusted again at once, while the changes
   * made during the gap are still on their way, so a caller that acts on
   * this should read the API server directly one time.
   */
  recovered?: (() => void) | undefined;
  /**
   * Called after every complete read of the collection but the first (a
   * relist: after a 410, after repeated watch failures), once the store
   * holds it and the handler was told the differences.
   */
  relisted?: (() => void) | undefined;
  /**
   * Tells which refusals mean the collection does not exist yet, typically
   * a 404 for a custom resource whose definition is not installed. Such a
   * collection reads as empty and is looked up again every `absentRecheck`
   * ms, with no request in between.
   */
  absent?: ((error: ApiError) => boolean) | undefined;
  /** Milliseconds between two asks for an absent collection. Default 5 min. */
  absentRecheck?: number | undefined;
  /**
   * Called whenever reading the whole collection fails, with the
   * `ListError` that is also logged as an error (the server's error is its
   * `cause`).
   */
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
  /**
   * Hold each object's metadata alone: lists and watches ask the API server
   * for `PartialObjectMetadata` (its `Accept` header), so the objects arrive
   * and are held as `{ apiVersion: "meta.k8s.io/v1", kind:
   * "PartialObjectMetadata", metadata }`, at a fraction of the memory of
   * whole objects (Secrets, ConfigMaps, Pods), as controller-runtime's
   * metadata-only watches and kube-rs's `metadata_watcher` do. Keys are
   * unchanged. A server that answers whole objects anyway has them cut down
   * to their metadata before `transform`. Default `false`.
   */
  metadataOnly?: boolean | undefined;
  /**
   * How the store keeps each object. `"objects"`: parsed as it arrives.
   * `"bytes"`: as its JSON text (`managedFields` cut out), with its key and
   * version found by a scan that builds no object. A reader pays for what
   * it reads: what handlers, store reads, cached reads and indexers get is
   * a frozen plain object whose top-level fields (`metadata`, `spec`,
   * `status`, `data`…) are each parsed from their own part of the text when
   * first read; it is, to every reader (keys and their order,
   * JSON.stringify, spread, structuredClone, deep equality), the parsed
   * object, frozen, though its fields are getters. The last 1024 copies
   * handed out are kept, so readers of the same version get the same
   * object. A collection with `transform` or `decode` keeps objects, since
   * they must see each object as it arrives. Measured in
   * bench/scale/results/issue-48-store.md and by bench/scale/path.ts
   * --handlers. Default `"objects"`.
   */
  storage?: "objects" | "bytes" | undefined;
  /** Named index functions the store keeps (see {@linkcode Store.byIndex}). */
  indexers?: Indexers<T> | undefined;
  /**
   * Validates or converts each object (after `transform`). One that throws
   * is reported and held without a value: handlers do not see it, reads
   * skip it, and the store still knows the object exists.
   */
  decode?: ((object: KubeObject) => T) | undefined;
  /**
   * Milliseconds a watch may stay silent before it is presumed dead and
   * opened again from its last version, once this server has been seen to
   * send a periodic bookmark. The API server's watch cache sends a BOOKMARK
   * about once a minute on every watch that allows bookmarks (this one
   * does), so silence this long means two bookmarks went missing: a
   * half-open connection (a failed node, a load balancer that dropped its
   * state, a stalled proxy) that would otherwise serve a stale store until
   * the watch's own timeout, 5 to 10 minutes plus 30 s. Where no periodic
   * bookmark was ever seen (a server without a watch cache), or after three
   * watches in a row ended this way with none seen, that longer limit
   * applies. Default 150 000 (2.5 min); at least 1 000, at most 300 000;
   * `0` turns it off.
   */
  heartbeatTimeout?: number | undefined;
  /** Ends the watch, as stopping the collection does. */
  signal?: AbortSignal | undefined;
}

/**
 * One watch's store as the cached reads take it. Without a watch the view is
 * empty and never ready, which sends each read straight to the API server.
 *
 * @typeParam T The kind of the stored objects.
 */
export interface View<T extends KubeObject = KubeObject> {
  /**
   * The collection the view stands for: the resource of every object read
   * through it, and the collection a list through it must name.
   */
  readonly source: Source;
  /**
   * The store, or `undefined` for no watch. Its source's namespace (or
   * namespace set) decides which objects it covers: a read of an object in
   * another namespace is not covered, and goes to the API server.
   */
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
   * namespace set, no selector). Only such a store can stand for the whole kind, so only its
   * lists add the objects the memo knows of and the watch has not brought.
   */
  readonly whole: boolean;
  /**
   * Whether the store holds metadata only (`PartialObjectMetadata`): the
   * cached reads refuse such a view, since their callers expect whole
   * objects.
   */
  readonly metadataOnly?: boolean | undefined;
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
 * What {@linkcode View} needs of a running watch.
 *
 * @typeParam T The kind of the watched objects.
 */
export interface Watched<T extends KubeObject = KubeObject> {
  /** The collection the watch follows. */
  readonly source: Source;
  /** The objects the watch holds. */
  readonly store: Store<T>;
  /** Whether the store holds metadata only. */
  readonly metadataOnly?: boolean | undefined;
  /**
   * Whether the store may answer reads.
   *
   * @returns `true` when it may.
   */
  synced(): boolean;
}
