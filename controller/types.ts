// The shapes of the controller's options and of one reconcile.
import type { Client } from "../apiclient/client.ts";
import type { ObjectRef } from "../apiclient/resource.ts";
import type { KubeObject } from "../apiclient/types.ts";
import type { DiagnosticsOptions } from "../_internal/diagnostics.ts";
import type { Lead } from "../election/lead.ts";
import type { Recorder } from "../events/recorder.ts";
import type { CollectionOptions, Source } from "../informer/types.ts";
import type { Versions } from "../memo/versions.ts";
import type { WorkQueueOptions } from "./queue.ts";

/**
 * The collection a controller reconciles: a watch source plus the kind of
 * its objects, which is how children name their owner
 * (`ownerReferences[].kind`).
 */
export interface Primary extends Source {
  /** The kind of the objects, such as `Greeting`. */
  kind: string;
  /**
   * Whether the kind lives in namespaces: a namespaced primary owns
   * children of its own namespace, a cluster-scoped one (a Namespace, a
   * ClusterIssuer) children anywhere. Default `true`.
   */
  namespaced?: boolean | undefined;
}

/**
 * A watch of another collection whose changes map to primary keys.
 *
 * @typeParam C The kind of the watched objects.
 */
export interface Watch<C extends KubeObject = KubeObject> {
  /** The collection to watch. */
  source: Source;
  /**
   * Answers the primary keys (`namespace/name`, or `name`) an object
   * concerns. Called for adds, updates (the old copy and the new) and
   * deletes (the final copy, or the last known one of a
   * `DeletedFinalStateUnknown`; the controller's watches have no `decode`,
   * so there is always one). A throw is reported to `onError` as a
   * `WatchMapError`, and the keys it had not answered yet are
   * not reconciled for that change.
   */
  map: (object: C) => Iterable<string>;
}

/**
 * What a reconcile asks for next: `undefined` (done, until something
 * changes), or a reconcile again after a delay in milliseconds.
 */
export type Action = { requeueAfter: number } | undefined;

/**
 * One reconcile of one key.
 *
 * @typeParam T The kind of the primary objects.
 */
export interface ReconcileContext<T extends KubeObject = KubeObject> {
  /** The key, `namespace/name` (or `name` for a cluster-scoped kind). */
  readonly key: string;
  /** The primary object's reference. */
  readonly ref: ObjectRef;
  /**
   * The primary object: the cached copy when the memo says it is current,
   * else the API server's; `undefined` when it is gone.
   */
  readonly object: T | undefined;
  /**
   * The client to write with: with an election, it carries the write guard,
   * so no write leaves after the Lease is lost.
   */
  readonly client: Client;
  /**
   * The memo of versions, for `written`, `readOne`, `settleStatus` and
   * `finalizer`; one memo serves every kind (it files notes by ref).
   */
  readonly versions: Versions;
  /**
   * Aborts when the controller stops, or, with an election, at the first
   * refusal of its write guard (the reconcile's side effects outside the
   * API must end then too).
   */
  readonly signal: AbortSignal;
  /** How many times this key failed in a row before this reconcile. */
  readonly retries: number;
  /**
   * Reads any object the memo-aware way (`readOne`): from the controller's
   * watch of its collection when that holds a current copy, else from the
   * API server.
   *
   * @typeParam C The kind of the object.
   * @param ref The object.
   * @returns The object, or `undefined` when it does not exist.
   */
  read<C extends KubeObject = KubeObject>(
    ref: ObjectRef,
  ): Promise<C | undefined>;
}

/**
 * The reconcile function: makes the world match one primary object.
 *
 * @typeParam T The kind of the primary objects.
 */
export type Reconcile<T extends KubeObject = KubeObject> = (
  context: ReconcileContext<T>,
) => Action | void | Promise<Action | void>;

/** The callbacks of a watch the controller makes, as `instrument` sees them. */
export type WatchHooks = Pick<
  CollectionOptions<KubeObject>,
  "handler" | "synced" | "reopened" | "recovered" | "relisted" | "listFailed"
>;

/** What a controller reports to an observer (for metrics). */
export interface ControllerObserver {
  /**
   * A reconcile ended.
   *
   * @param result `success`, `requeue` (a requeue of 0 ms or less),
   * `requeue_after` or `error`: the values of controller-runtime's `result`
   * label.
   * @param seconds How long it ran.
   */
  reconciled(
    result: "success" | "requeue" | "requeue_after" | "error",
    seconds: number,
  ): void;
}

/**
 * Options of a {@linkcode Controller}.
 *
 * @typeParam T The kind of the primary objects.
 */
export interface ControllerOptions<T extends KubeObject = KubeObject>
  extends DiagnosticsOptions {
  /** The controller's name, in logs and metrics (such as `greeting`). */
  name: string;
  /** The primary collection: one reconcile per object of it. */
  for: Primary;
  /**
   * Child collections: a change of a child reconciles its controlling
   * owner (the `ownerReferences` entry with `controller: true` of the
   * primary's kind and group, in the child's namespace).
   */
  owns?: readonly Source[] | undefined;
  /** Other collections, mapped to primary keys by a function. */
  watches?: readonly Watch[] | undefined;
  /** Makes the world match one primary object. */
  reconcile: Reconcile<T>;
  /**
   * Chooses the delay before a failed key runs again, in milliseconds;
   * `undefined` takes the queue's per-key backoff (5 ms doubling to
   * 1,000 s, and at most 10 retries a second overall). Default: the backoff.
   */
  errorPolicy?:
    | ((error: unknown, context: ReconcileContext<T>) => number | undefined)
    | undefined;
  /** Reconciles at once, never two of one key. Default 1; at most 1,000. */
  concurrency?: number | undefined;
  /**
   * Reconciles every primary object again this often, in milliseconds.
   * Default: never (changes and requeues only). At least 1 s.
   */
  resync?: number | undefined;
  /**
   * Whether an update of a primary object needs a reconcile. Default
   * {@linkcode meaningfulChange}: a new generation, labels, annotations,
   * finalizers or deletion, so the controller's own status writes do not
   * wake it.
   */
  changed?: ((old: T, object: T) => boolean) | undefined;
  /**
   * The election: reconcile only while leading, write through its write
   * guard, and release the Lease last when stopping. Default: none (always
   * reconcile).
   */
  lead?: Lead | undefined;
  /**
   * The Event recorder to stop (its queued Events written) before the Lease
   * goes. Give it a client with the election's write guard
   * (`client.withWriteGuard(lead.mayWrite)`), so that after a lost Lease
   * its queue is refused rather than written.
   */
  recorder?: Recorder | undefined;
  /** The memo of versions. Default: a new one. */
  versions?: Versions | undefined;
  /** The work queue's backoff, rate limit and observer. */
  queue?: WorkQueueOptions | undefined;
  /**
   * How long `stop` waits for reconciles in flight, in milliseconds.
   * Default 30 s.
   */
  stopTimeout?: number | undefined;
  /** Hears reconciles (for metrics); the queue's observer is in `queue`. */
  observer?: ControllerObserver | undefined;
  /**
   * Wraps the callbacks of each watch the controller makes, such as
   * `(source, hooks) => metrics.collection(source, hooks)` for the
   * informer metrics and readiness. Default: none.
   */
  instrument?:
    | ((source: Source, hooks: WatchHooks) => WatchHooks)
    | undefined;
  /** Stops the controller, as {@linkcode Controller.stop} does. */
  signal?: AbortSignal | undefined;
}
