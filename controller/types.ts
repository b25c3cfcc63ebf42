// The shapes of the controller's options and of one reconcile.
import type { Client } from "../apiclient/client.ts";
import type { ObjectRef, Resource } from "../apiclient/resource.ts";
import type { KubeObject } from "../apiclient/types.ts";
import type { Logger } from "../_internal/log.ts";
import type { Lead } from "../election/lead.ts";
import type { Condition } from "../conditions/mod.ts";
import type { BadStatuses } from "../events/transition.ts";
import type { Schema } from "../resource/schema.ts";
import type { RecorderOptions } from "../events/options.ts";
import type { Recorder } from "../events/recorder.ts";
import type { EventNote } from "../events/types.ts";
import type { Source } from "../informer/types.ts";
import type { Versions } from "../memo/versions.ts";
import type { Collections, WatchHooks } from "../informer/shared.ts";
import type { Metrics } from "../metrics/metrics.ts";
import type { WorkQueueOptions } from "./queue.ts";

/**
 * The collection a controller reconciles: a watch source plus the kind of
 * its objects, which is how children name their owner
 * (`ownerReferences[].kind`).
 */
export interface Primary<T extends KubeObject = KubeObject> extends Source<T> {
  /** The kind of the objects, such as `Greeting`. */
  kind: string;
  /**
   * Whether the kind lives in namespaces: a namespaced primary owns
   * children of its own namespace, a cluster-scoped one (a Namespace, a
   * ClusterIssuer) children anywhere. Default `true`.
   */
  namespaced?: boolean | undefined;
  /**
   * The structural schema of the whole object, as a `defineResource`
   * definition carries it (pass the definition as `for` and it is there):
   * {@linkcode ReconcileContext.status} writes `observedGeneration` only
   * where it names one, refuses a status it would prune, and compares
   * statuses as the API server stores them (defaulted). Default: none.
   */
  schema?: Schema | undefined;
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
   * Answers the primary objects an object concerns, as `ObjectRef`s of the
   * primary collection (its group and resource; a namespace for a
   * namespaced primary, none for a cluster-scoped one), such as
   * `objectRef(PRIMARY, "shop/web")` or `{ ...PRIMARY, namespace, name }`.
   * Called for adds, updates (the old copy and the new) and deletes (the
   * final copy, or the last known one of a `DeletedFinalStateUnknown`; the
   * controller's watches have no `decode`, so there is always one). A throw,
   * or a ref of another resource or scope, is logged as an error, a
   * `WatchMapError`, and the refs it had not answered yet are not
   * reconciled for that change.
   */
  map: (object: C) => Iterable<ObjectRef>;
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
   * so no write leaves after the Lease is lost; it is bound to the
   * controller's memo (`Client.withMemo`), so the writes of its handles to
   * the collections the controller watches note their versions, and the
   * cached reads never answer a copy older than them.
   */
  readonly client: Client;
  /**
   * The memo of versions, for `cachedGet`, `freshGet`, `settleStatus` and
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
   * The controller's logger with this pass's fields: `controller`,
   * `namespace` (for a namespaced kind), `name`, `reconcileID` (new on
   * each pass) and `attempt` (`retries + 1`), as controller-runtime's
   * request logger. A reconcile that throws is logged on it as
   * `Reconciler error`.
   */
  readonly logger: Logger;
  /**
   * Reads any object the memo-aware way (`cachedGet`): from the controller's
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
  /**
   * The primary's children of one `owns` collection, from that
   * collection's store in one call: the objects whose controlling
   * ownerReference (`controller: true`) names the primary (its uid, kind and
   * group), in the primary's namespace (anywhere for a cluster-scoped
   * primary), sorted by key. Found through the store's index of children
   * by controlling owner ({@linkcode CONTROLLER_UID_INDEX}), never by a list
   * request, and never older than the controller's own writes: a child the
   * memo knows at another version than the store's (such as one just
   * applied or deleted) is read from the API server (`cachedList` with the
   * index). While the store is not ready (its watch was refused), the
   * children come from a list of the API server instead. Empty
   * when the primary is gone.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client, type KubeObject } from "@liken/kubernetes/apiclient";
   * import { Controller } from "@liken/kubernetes/controller";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const client = new Client(server.url, { fetch: server.fetch });
   * const SECRETS = { version: "v1", resource: "secrets" };
   * await client.create("/api/v1/namespaces/default/configmaps", { metadata: { name: "a" } });
   * const seen: string[][] = [];
   * await using controller = new Controller(client, {
   *   name: "mirror",
   *   for: { version: "v1", resource: "configmaps", kind: "ConfigMap" },
   *   owns: [SECRETS],
   *   reconcile: async (context) => {
   *     const name = `${context.ref.name}-1`;
   *     await context.apply({ apiVersion: "v1", kind: "Secret", metadata: { name, namespace: "default" } });
   *     // The child just applied is there, whether or not the watch has brought it.
   *     const children = await context.children<KubeObject>(SECRETS);
   *     seen.push(children.map((child) => child.metadata.name!));
   *   },
   * });
   * await controller.idle();
   * assert.deepEqual(seen[0], ["a-1"]);
   * ```
   *
   * @typeParam C The kind of the children.
   * @param resource The `owns` collection (its group and resource).
   * @returns The children.
   * @throws {TypeError} When the controller does not own that resource.
   */
  children<C extends KubeObject = KubeObject>(
    resource: Resource<C> | Resource,
  ): Promise<C[]>;
  /**
   * The controller's Event recorder (`recorder` or `events`), or
   * `undefined` when it has none.
   */
  readonly recorder: Recorder | undefined;
  /**
   * Server-side applies a desired child of the primary object: it adds the
   * controller ownerReference (`controller: true`, `blockOwnerDeletion:
   * true`, the primary's apiVersion, kind, name and uid), sends with the
   * controller's name as the field manager, and notes the answer in the
   * memo.
   *
   * Which collection: `options.resource` when given (its group and version
   * must be the child's `apiVersion`), else the group and version of the
   * child's `apiVersion` and a plural guessed from its `kind` as
   * apimachinery's `UnsafeGuessKindToResource` does (lowercase; a final `s`
   * takes `es`, a final `y` becomes `ies`, anything else takes `s`). Give
   * `resource` for a kind that rule gets wrong (`Ingress`, `Endpoints`). The
   * child is namespaced when `resource.namespaced` says so, else when it
   * names a namespace.
   *
   * Refused with a `TypeError` before any request (the garbage collector
   * ignores such references, the Kubernetes docs say): a child in another
   * namespace than a namespaced primary, a cluster-scoped child (one without
   * a namespace) of a namespaced primary, a child whose ownerReferences
   * name another controller, and an apply when the primary is gone.
   *
   * Force: `options.force`, else the controller's `applyForce` (default
   * `true`). With force off, fields another manager owns reject the apply
   * with an `ApplyConflictError`.
   *
   * A child first made by create or replace keeps the fields its old
   * `Update` entry of `managedFields` owns (no `csaupgrade` migration): the
   * apply co-owns them, and a field the apply stops stating is not removed.
   *
   * @typeParam C The child's kind.
   * @param child The desired child: `apiVersion`, `kind`, `metadata.name`,
   * and the fields the controller owns.
   * @param options The collection and the force.
   * @returns The API server's copy.
   */
  apply<C extends KubeObject>(
    child: C,
    options?: ApplyChildOptions,
  ): Promise<C>;
  /**
   * Deletes a child the primary no longer wants (`Background` propagation),
   * noting it in the memo. A child already gone is fine.
   *
   * @param ref The child.
   * @returns Whether this call deleted it (`false` on a 404).
   */
  deleteChild(ref: ObjectRef): Promise<boolean>;
  /**
   * Writes the primary's status in one call: the fields of `patch` over the
   * held status (`null` removes a field, `undefined` leaves it), and each
   * condition of `patch.conditions` set by the conditions module's `set`
   * (`lastTransitionTime` moves only when the status changes).
   *
   * `observedGeneration` (the primary's `metadata.generation`) goes where
   * the primary's schema ({@linkcode Primary.schema}, a `defineResource`
   * definition's) names it: `status.observedGeneration`, and each condition
   * that states none. Without a schema, each condition takes it (a
   * `metav1.Condition` has the field) and the status only with
   * `options.observedGeneration` (which decides the status's field in
   * either case): a field the API server prunes would make the status
   * differ from the held one on every pass, a write per reconcile.
   *
   * With a schema, a status it would prune (a field it does not name) is
   * refused with a `TypeError` naming the fields, before any request; the
   * status is defaulted by it, and nothing is sent when the result
   * deep-equals the held status. Otherwise the status subresource is
   * replaced conditional on the resourceVersion (`settleStatus`): a merge
   * patch would replace the whole `conditions` list (RFC 7386 replaces
   * arrays) and so drop a condition another writer added meanwhile, while a
   * stale replace draws a 409, after which the status is computed again
   * once from a fresh copy.
   *
   * After the write lands, each condition that transitioned (new, or a
   * changed status or reason, as `set` says) posts an Event through the
   * controller's recorder, its object reference made from the primary
   * (`transition` of the events module); Warning when `options.bad` names
   * the condition's type with its new status.
   *
   * @param patch The status fields and conditions.
   * @param options The statuses that need a person, and `observedGeneration`.
   * @returns Whether a write landed.
   */
  status(patch: StatusPatch, options?: StatusOptions): Promise<boolean>;
  /**
   * Posts a Normal Event about the primary object through the controller's
   * recorder, its object reference made from the primary (apiVersion, kind,
   * namespace, name and uid); nothing without a recorder. Fire-and-forget,
   * as the recorder's own `normal` is.
   *
   * @param note The reason and message.
   */
  normal(note: EventNote): void;
  /**
   * Posts a Warning Event about the primary object, as
   * {@linkcode ReconcileContext.normal} does.
   *
   * @param note The reason and message.
   */
  warning(note: EventNote): void;
}

/** Options of {@linkcode ReconcileContext.apply}. */
export interface ApplyChildOptions {
  /**
   * The child's collection. Default: from its `apiVersion` and a plural
   * guessed from its `kind` (see {@linkcode ReconcileContext.apply}).
   */
  resource?: Resource | undefined;
  /**
   * Take the fields other managers own. Default: the controller's
   * `applyForce` (itself default `true`).
   */
  force?: boolean | undefined;
}

/**
 * The status {@linkcode ReconcileContext.status} writes: any status fields,
 * and conditions.
 */
export interface StatusPatch {
  /** Conditions to set; conditions of other types stay. */
  conditions?: readonly Condition[] | undefined;
  /** Other status fields: `null` removes one, `undefined` leaves it. */
  [field: string]: unknown;
}

/** Options of {@linkcode ReconcileContext.status}. */
export interface StatusOptions {
  /**
   * The status of each condition type that posts a Warning rather than a
   * Normal Event, such as `{ Available: "False", Degraded: "True" }`.
   * Default: none (always Normal).
   */
  bad?: BadStatuses | undefined;
  /**
   * Whether to set `status.observedGeneration`. Default: whether the
   * primary's schema names it; `false` without a schema.
   */
  observedGeneration?: boolean | undefined;
}

/**
 * The recorder a controller makes itself (the `events` option): the
 * `Recorder`'s options plus its component.
 */
export interface ControllerEventsOptions extends RecorderOptions {
  /** The reporting component. Default: the controller's name. */
  component?: string | undefined;
}

/**
 * The reconcile function: makes the world match one primary object.
 *
 * @typeParam T The kind of the primary objects.
 */
export type Reconcile<T extends KubeObject = KubeObject> = (
  context: ReconcileContext<T>,
) => Action | void | Promise<Action | void>;

export type { WatchHooks };
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
export interface ControllerOptions<T extends KubeObject = KubeObject> {
  /**
   * Receives the controller's lines (field `controller`), those of its
   * watches, election and recorder, and each reconcile's (see
   * {@linkcode ReconcileContext.logger}); every error it does not return
   * (a reconcile's as a `ReconcileError`) is an error line. Default: errors
   * to `console.error`.
   */
  logger?: Logger | undefined;
  /** The controller's name, in logs and metrics (such as `greeting`). */
  name: string;
  /** The primary collection: one reconcile per object of it. */
  for: Primary<T> | Primary;
  /**
   * Child collections: a change of a child reconciles its controlling
   * owner (the `ownerReferences` entry with `controller: true` of the
   * primary's kind and group, in the child's namespace). Each store keeps
   * an index of children by controlling owner ({@linkcode
   * CONTROLLER_UID_INDEX}), which {@linkcode ReconcileContext.children}
   * reads.
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
   * Whether {@linkcode ReconcileContext.apply} forces: take the fields
   * other managers own, as the Kubernetes docs recommend for controllers
   * ("Server-Side Apply", Using Server-Side Apply in a controller). With
   * `false`, a conflict rejects with an `ApplyConflictError`. Default `true`.
   */
  applyForce?: boolean | undefined;
  /** The work queue's backoff, rate limit and observer. */
  queue?: WorkQueueOptions | undefined;
  /**
   * How long `stop` waits for reconciles in flight, in milliseconds.
   * Default 30 s.
   */
  stopTimeout?: number | undefined;
  /**
   * What the controller is wired to: the election, the Event recorder,
   * the metrics, shared collections, the memo, the shard ring. A
   * `Manager` wires its controllers itself. Default: nothing (the
   * controller always reconciles, with watches and a memo of its own).
   */
  wiring?: ControllerWiring | undefined;
  /** Stops the controller, as {@linkcode Controller.stop} does. */
  signal?: AbortSignal | undefined;
}

/**
 * What a controller is wired to, apart from what it watches and how it
 * runs ({@linkcode ControllerOptions.wiring}). A `Manager` makes this for
 * each of its controllers; a controller alone takes what it needs.
 *
 * @example A controller alone with an election and its own Events
 * ```ts
 * import { Client, type KubeObject } from "@liken/kubernetes/apiclient";
 * import { Controller } from "@liken/kubernetes/controller";
 * import { Lead } from "@liken/kubernetes/election";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * await using lead = new Lead(client, {
 *   lease: { namespace: "default", name: "mirror" },
 *   pod: "mirror-0",
 * });
 * await using controller = new Controller<KubeObject>(client, {
 *   name: "mirror",
 *   for: { version: "v1", resource: "configmaps", kind: "ConfigMap" },
 *   reconcile: () => {},
 *   wiring: { lead, events: { instance: "mirror-0" } },
 * });
 * await controller.idle();
 * ```
 */
export interface ControllerWiring {
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
  /**
   * Makes the controller's own Event recorder, writing through the
   * controller's client (so through the write guard, and counted by
   * `metrics`), its outcomes counted by `metrics`, and stopped as
   * `recorder` is. Not with `recorder`. Default: none.
   */
  events?: ControllerEventsOptions | undefined;
  /**
   * Wires the controller to the metrics in one option: its client's
   * requests (`metrics.client`), its reconciles and work queue
   * (`metrics.controller(name)`, after `observer` and `queue.observer`,
   * which still hear), its watches (`metrics.collection`, around
   * `instrument`), the recorder it makes (`events`; a `recorder` you made
   * keeps the observer you gave it) and `lead` (`metrics.lead`). Give it
   * the client before `metrics.client`, or requests count twice. Default:
   * none.
   */
  metrics?: Metrics | undefined;
  /**
   * Shared collections to register the controller's watches with (one
   * watch and one store per collection for every controller of the
   * process; a `Manager` passes its own). Default: watches of its own.
   */
  collections?: Collections | undefined;
  /** The memo of versions. Default: a new one. */
  versions?: Versions | undefined;
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
  /**
   * Makes this replica one member of a ring of replicas that share the
   * primaries: it holds its own member Lease (its election: `lead` must be
   * left out), its primary watch selects only the objects the ring's
   * sharder (`Sharder` of `@liken/kubernetes/shard`) assigned to it, and it
   * gives an object back when the sharder asks. Default: not sharded.
   */
  shards?: ControllerShards | undefined;
  /**
   * Set by a `Manager` for the controllers it makes: the manager releases
   * the Lease after all of them, and has wired its client, its election and
   * its shared collections to the metrics once for all of them, so the
   * controller does neither. Default `false`.
   */
  managed?: boolean | undefined;
}

/**
 * The `shards` option of a controller: which ring it is a member of, and as
 * whom.
 */
export interface ControllerShards {
  /** The ring's name, such as the controller's (at most 63 characters). */
  ring: string;
  /** The namespace of the member Leases: the operator's own. */
  namespace: string;
  /**
   * The member's identity, unique in the ring and without `_`: the pod's
   * name. Default `Deno.hostname()` (a pod's hostname is its name; needs
   * `--allow-sys=hostname`).
   */
  identity?: string | undefined;
  /**
   * Called with code 1 when the member Lease is lost (as the election's
   * `exit`). Default `Deno.exit`.
   */
  exit?: ((code: number) => void) | undefined;
}
