// The reconcile loop: watches that feed a work queue, workers that
// reconcile one key at a time each, and the shutdown order of an operator.
import type { Client } from "../apiclient/client.ts";
import {
  type Memo,
  objectKey,
  objectRef,
  type Resource,
} from "../apiclient/resource.ts";
import type { KubeObject } from "../apiclient/types.ts";
import { type Logger, loggerOf } from "../_internal/log.ts";
import { sleep } from "../_internal/sleep.ts";
import { stopOnAbort } from "../_internal/signals.ts";
import type { Lead } from "../election/lead.ts";
import type { Recorder } from "../events/recorder.ts";
import { Collection } from "../informer/collection.ts";
import type { Registration } from "../informer/shared.ts";
import { DeletedFinalStateUnknown, finalState } from "../informer/tombstone.ts";
import type { Indexers } from "../informer/store.ts";
import type { CollectionOptions, Handler, Source } from "../informer/types.ts";
import { Versions } from "../memo/versions.ts";
import {
  CONTROLLER_UID_INDEX,
  controllerUid,
  meaningfulChange,
  primaryKey,
} from "./changes.ts";
import {
  childHandler,
  readChildren,
  type Reader,
  readObject,
} from "./_children.ts";
import {
  applyChild,
  deleteChild,
  postEvent,
  type Writer,
  writeStatus,
} from "./_context.ts";
import { recorderOf, wire } from "./_wiring.ts";
import { clamp } from "./_limiter.ts";
import { Terms } from "./_terms.ts";
import { ShardGate, shardSource, SKIP } from "./_shard.ts";
import { ReconcileError, WatchMapError } from "./errors.ts";
import { type StopOptions, WorkQueue } from "./queue.ts";
import type {
  Action,
  ControllerObserver,
  ControllerOptions,
  ControllerWiring,
  ReconcileContext,
  WatchHooks,
} from "./types.ts";
import { RECORDER_STOP_TIMEOUT } from "../_internal/stop_timeout.ts";
import { DEFAULT_STOP_TIMEOUT, MIN_RESYNC } from "./_defaults.ts";

/**
 * A collection a controller watches: a `Collection` of its own, or a
 * registration on the shared `Collections` (the `collections` option).
 *
 * @typeParam T The kind of the watched objects.
 */
export type WatchedCollection<T extends KubeObject = KubeObject> = Pick<
  Registration<T>,
  "source" | "store" | "metadataOnly" | "synced" | "current" | "view" | "stop"
>;

/**
 * The reconcile loop of an operator, with the rules of controller-runtime
 * and kube-rs's `Controller`:
 *
 * - One primary collection (`for`); changes of child collections (`owns`)
 *   wake their controlling owner; other collections (`watches`) map to
 *   primary keys through a function.
 * - Nothing is reconciled until every collection has synced (and, with an
 *   election, this copy leads); then every primary object once.
 * - A key is never reconciled by two workers at once; a key changed while
 *   it is reconciled runs once more after. A reconcile that throws runs
 *   again after the key's backoff (5 ms doubling to 1,000 s, at most 10
 *   retries a second overall), and `{ requeueAfter }` runs it again later.
 * - Reads are never older than the operator's own writes (the memo), and
 *   with an election every write passes the write guard. No reconcile
 *   starts once the guard refuses (the renew deadline passed without a
 *   renewal, the Lease names another holder, the lead ended), and the
 *   reconciles in flight see their signal abort at that moment; one still
 *   running when another copy may lead is reported (`LeaseOutlivedError`).
 * - After a watch recovers from a failure, every primary object is
 *   reconciled once: a change made while it was down may have left no trace
 *   in its store (a child made and deleted in the gap) and so no event.
 * - {@linkcode Controller.stop} stops in the order an operator needs: the
 *   watches, then the reconciles in flight (bounded), then the recorder
 *   (its queued Events are written), then the election (the Lease is
 *   released last, after the last write).
 *
 * @example Reconcile ConfigMaps
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client } from "@liken/kubernetes/apiclient";
 * import { Controller } from "@liken/kubernetes/controller";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * await client.create("/api/v1/namespaces/default/configmaps", { metadata: { name: "a" } });
 * const seen: string[] = [];
 * await using controller = new Controller(client, {
 *   name: "demo",
 *   // One namespace: a cluster also holds kube-system's ConfigMaps.
 *   for: { version: "v1", resource: "configmaps", kind: "ConfigMap", namespace: "default" },
 *   reconcile: ({ key, object }) => {
 *     seen.push(`${key} ${object === undefined ? "gone" : "present"}`);
 *   },
 * });
 * await controller.idle();
 * assert.deepEqual(seen, ["default/a present"]);
 * ```
 *
 * @typeParam T The kind of the primary objects.
 */
export class Controller<T extends KubeObject = KubeObject>
  implements AsyncDisposable {
  /** The controller's name. */
  readonly name: string;
  /** The work queue of primary keys. */
  readonly queue: WorkQueue;
  /** The watch of the primary collection. */
  readonly primary: WatchedCollection<T>;
  /** The memo of versions the reads and writes share. */
  readonly versions: Versions;
  /**
   * The Event recorder: the `recorder` option's, or the one `events` made;
   * `undefined` with neither.
   */
  readonly recorder: Recorder | undefined;
  /** The election (the `lead` option), or `undefined` without one. */
  readonly lead: Lead | undefined;
  /** Settles once the controller has stopped. Never rejects. */
  readonly done: Promise<void>;
  #options: ControllerOptions<T>;
  #client: Client;
  // #client bound to the memo for the watched collections: what a
  // reconcile writes with, so its writes never escape the memo.
  #noting: Client;
  #collections: WatchedCollection<KubeObject>[] = [];
  /** The `owns` watches, for the children reads. */
  #owned: WatchedCollection<KubeObject>[] = [];
  #reader: Reader;
  #stop = new AbortController();
  #terms: Terms;
  #logger: Logger;
  #observer: ControllerObserver | undefined;
  #instrument: ControllerWiring["instrument"];
  #gate = Promise.withResolvers<void>();
  #gateOpen = false;
  #synced: Promise<void>[] = [];
  #idle: (() => void)[] = [];
  #stopped: Promise<void> | undefined;
  // Aborted once the stop's wait for the reconciles ends (or its signal):
  // every request sent through a reconcile's client ends with it.
  #cut = new AbortController();
  #ended = Promise.withResolvers<void>();
  #shard: ShardGate | undefined;

  /**
   * Starts the watches at once; reconciles once they synced (and, with an
   * election, once this copy leads).
   *
   * @param client The API client (without the write guard: the controller
   * adds it from `lead`).
   * @param options The collections, the reconcile, and the tunables.
   */
  constructor(client: Client, options: ControllerOptions<T>) {
    this.name = options.name;
    this.#options = options;
    this.#logger = loggerOf(options.logger, { controller: options.name });
    const wiring = wire(client, options);
    // With `shards`, the member Lease is the election.
    this.#shard = options.wiring?.shards && new ShardGate(wiring.client, {
      controller: options,
      held: (key) => this.primary.store.has(key),
      logger: this.#logger,
    });
    this.lead = options.wiring?.lead ?? this.#shard?.lead;
    this.#observer = wiring.observer;
    this.#instrument = wiring.instrument;
    this.versions = options.wiring?.versions ?? new Versions();
    const lead = this.lead;
    this.#client = lead === undefined
      ? wiring.client
      : wiring.client.withWriteGuard(lead.mayWrite);
    this.recorder = recorderOf(this.#client, options);
    this.#noting = this.#client.withMemo(
      watchedMemo(this.versions, [
        options.for,
        ...(options.owns ?? []),
        ...(options.watches ?? []).map((watch) => watch.source),
      ]),
    ).withSignal(this.#cut.signal);
    this.queue = new WorkQueue(wiring.queue);
    this.done = this.#ended.promise;
    const signal = this.#stop.signal;
    this.#terms = new Terms(options.name, signal, lead, this.#logger);
    const logger = this.#logger;
    const changed = options.changed ?? meaningfulChange;
    const enqueue = (key: string): void => {
      if (!signal.aborted) this.queue.add(key);
    };
    const primarySynced = Promise.withResolvers<void>();
    this.#synced.push(primarySynced.promise);
    const primaryHooks = this.#hooks(options.for, {
      synced: primarySynced.resolve,
      handler: {
        add: (object) => enqueue(objectKey(object)),
        // The primary watch holds T: its handler gets T.
        update: (old, object) => {
          if (changed(old as T, object as T)) enqueue(objectKey(object));
        },
        // A marker always has the key; sharded: never (see ShardGate).
        delete: (object) => {
          if (this.#shard !== undefined) return;
          enqueue(
            object instanceof DeletedFinalStateUnknown
              ? object.key
              : objectKey(object),
          );
        },
      },
    });
    this.primary = this.#open<T>(shardSource(options, options.for), {
      signal,
      logger,
      ...(primaryHooks as CollectionOptions<T>),
    });
    this.#collections.push(
      this.primary as unknown as WatchedCollection<KubeObject>,
    );
    for (const source of options.owns ?? []) {
      const handler = childHandler(options.for, source, this.versions, enqueue);
      const indexers = { [CONTROLLER_UID_INDEX]: controllerUid };
      this.#owned.push(
        this.#watch(shardSource(options, source), handler, indexers),
      );
    }
    for (const watch of options.watches ?? []) {
      const { source } = watch;
      const map = (object: KubeObject | undefined): void => {
        if (object === undefined) return;
        try {
          for (const ref of watch.map(object)) {
            enqueue(primaryKey(options.for, ref));
          }
        } catch (error) {
          logger.error(
            new WatchMapError(options.name, {
              source,
              ref: objectRef(source, object),
              cause: error,
            }),
            "Watch map failed",
          );
        }
      };
      this.#watch(source, {
        add: map,
        update: (old, object) => {
          map(old);
          map(object);
        },
        delete: (object) => map(finalState(object)),
      });
    }
    this.#reader = {
      name: this.name,
      primary: options.for,
      watches: this.#collections,
      owned: this.#owned,
      client: this.#client,
      versions: this.versions,
    };
    const unlink = stopOnAbort(options.signal, () => void this.stop());
    void this.done.then(unlink, unlink);
    void this.#run();
  }

  /**
   * Whether every watched collection holds its first read.
   *
   * @returns `true` once all synced.
   */
  synced(): boolean {
    return this.#collections.every((collection) => collection.synced());
  }

  /**
   * Queues every primary object for a reconcile (as a resync does).
   */
  reconcileAll(): void {
    if (this.#stop.signal.aborted) return;
    for (const key of this.primary.store.keys()) this.queue.add(key);
  }

  /**
   * Resolves once reconciling has begun and no key is queued or in work
   * (keys waiting for a backoff or a requeue may remain). For tests and
   * demos.
   *
   * @returns A promise that resolves when the controller is idle.
   */
  async idle(): Promise<void> {
    await Promise.race([this.#gate.promise, this.done]);
    if (this.#isIdle()) return;
    await new Promise<void>((resolve) => this.#idle.push(resolve));
  }

  /**
   * Stops in the order an operator needs: the watches and the taking of
   * new keys; the reconciles in flight (their signal aborts; bounded by
   * `stopTimeout`, after which every request sent through
   * `context.client` is aborted too); the recorder, which writes its
   * queued Events within what is left of the bound; and last the election,
   * which releases the Lease. Safe to call more than once.
   *
   * @param options A timeout instead of `stopTimeout`, and a signal that
   *   ends the waits at once (the reconciles' and the Events' requests are
   *   aborted): what a `Manager` whose own bound passed gives.
   * @returns Settles when everything has stopped; a step that fails is
   * logged as an error and the next steps still run.
   */
  stop(options: StopOptions = {}): Promise<void> {
    const { signal } = options;
    const unlink = stopOnAbort(signal, () => this.#cut.abort(signal?.reason));
    this.#stopped ??= this.#stopOnce(options);
    void this.#stopped.then(unlink);
    return this.#stopped;
  }

  /** Stops the controller (for `await using`). */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }

  #watch(
    source: Source,
    handler: Handler<KubeObject>,
    indexers?: Indexers<KubeObject>,
  ): WatchedCollection<KubeObject> {
    const synced = Promise.withResolvers<void>();
    this.#synced.push(synced.promise);
    const watch = this.#open(source, {
      signal: this.#stop.signal,
      logger: this.#logger,
      ...(indexers === undefined ? {} : { indexers }),
      ...this.#hooks(source, { synced: synced.resolve, handler }),
    });
    this.#collections.push(watch);
    return watch;
  }

  /** A watch of its own, or a registration on the shared collections. */
  #open<C extends KubeObject>(
    source: Source,
    options: CollectionOptions<C>,
  ): WatchedCollection<C> {
    const shared = this.#options.wiring?.collections;
    return shared === undefined
      ? new Collection<C>(this.#client, source, options)
      : shared.register<C>(source, options);
  }

  /** The callbacks of a watch, through `instrument` when given. */
  #hooks(source: Source, hooks: WatchHooks): WatchHooks {
    // After a watch failed, changes made in the gap may have left no trace
    // in its store (a child made and deleted meanwhile): every primary is
    // reconciled once, as a resync would.
    const recovered = (): void => {
      if (this.#gateOpen) this.reconcileAll();
    };
    const all: WatchHooks = { ...hooks, recovered };
    const instrument = this.#instrument;
    return instrument === undefined ? all : instrument(source, all);
  }

  async #stopOnce(options: StopOptions): Promise<void> {
    const logger = this.#logger;
    const started = Date.now();
    const signal = this.#cut.signal;
    logger.info("Stopping the watches and reconciles");
    this.#stop.abort(new DOMException("The controller stops", "AbortError"));
    await Promise.all(this.#collections.map((c) => c.stop()));
    try {
      // After the guard refused, no longer than until another copy may lead.
      await this.queue.stop({
        timeout: this.#terms.stopBound(this.#bound(options)),
        signal,
      });
    } catch (error) {
      logger.error(error, "Stopping the reconciles failed");
    }
    // No request of a reconcile outlives the bound: one sent without the
    // reconcile's signal (or never awaited) ends here.
    this.#cut.abort(
      new DOMException(
        "The controller's stop ended its reconciles",
        "AbortError",
      ),
    );
    this.#terms.clear();
    this.#wakeIdle();
    const recorder = this.recorder;
    if (recorder !== undefined) {
      logger.info("Writing the queued Events");
      try {
        // The recorder's own bound, or what is left of the stop's if less.
        const left = this.#bound(options) - (Date.now() - started);
        await recorder.stop({
          ...(left < RECORDER_STOP_TIMEOUT
            ? { timeout: Math.max(0, left) }
            : {}),
          ...(options.signal === undefined ? {} : { signal: options.signal }),
        });
      } catch (error) {
        logger.error(error, "Stopping the recorder failed");
      }
    }
    const lead: Lead | undefined = this.lead;
    // A manager releases its Lease last; a member Lease is this one's.
    if (
      lead !== undefined &&
      (this.#options.wiring?.managed !== true || this.#shard !== undefined)
    ) {
      logger.info("Releasing the Lease");
      try {
        await lead.stop(
          options.signal === undefined ? {} : { signal: options.signal },
        );
      } catch (error) {
        logger.error(error, "Stopping the election failed");
      }
    }
    logger.info("Stopped");
    this.#ended.resolve();
  }

  /** The stop's bound: the given timeout, else `stopTimeout`. */
  #bound(options: StopOptions): number {
    const given = options.timeout;
    return clamp(
      given === undefined || Number.isNaN(given)
        ? this.#options.stopTimeout ?? DEFAULT_STOP_TIMEOUT
        : given,
      0,
      2 ** 31 - 1,
    );
  }

  async #run(): Promise<void> {
    const signal = this.#stop.signal;
    const logger = this.#logger;
    try {
      const lead = this.lead;
      if (lead !== undefined) {
        await lead.leading({ signal });
        if (signal.aborted) return;
        logger.info("Leading", { identity: lead.identity });
        // A lost Lease (when exit-on-loss is turned off) stops reconciling.
        void lead.done.then(() => {
          if (!signal.aborted) {
            logger.info("The Lease is lost: stopping");
            void this.stop();
          }
        });
      }
      const stopped = new Promise<void>((resolve) =>
        signal.addEventListener("abort", () => resolve(), { once: true })
      );
      await Promise.race([Promise.all(this.#synced), stopped]);
      if (signal.aborted) return;
      logger.info("Synced: reconciling");
      this.#gateOpen = true;
      this.reconcileAll();
      this.#terms.start();
      this.#gate.resolve();
      const concurrency = Math.floor(
        clamp(this.#options.concurrency ?? 1, 1, 1000),
      );
      const workers: Promise<void>[] = [];
      for (let i = 0; i < concurrency; i++) workers.push(this.#work());
      const resync = this.#options.resync;
      if (resync !== undefined) {
        void this.#resync(clamp(resync, MIN_RESYNC, 2 ** 31 - 1));
      }
      await Promise.all(workers);
    } catch (error) {
      if (!signal.aborted) {
        // The election ended before this copy led: nothing will run.
        logger.error(error, "The controller cannot run");
        void this.stop();
      }
    } finally {
      this.#wakeIdle();
    }
  }

  async #resync(period: number): Promise<void> {
    const signal = this.#stop.signal;
    while (await sleep(period, signal)) this.reconcileAll();
  }

  async #work(): Promise<void> {
    const terms = this.#terms;
    for (;;) {
      const term = await terms.next();
      if (term === undefined) return;
      const key = await this.queue.take({ signal: term });
      if (key === undefined) {
        if (this.queue.stopping || this.#stop.signal.aborted) return;
        continue;
      }
      if (!terms.mayStart(term)) {
        // The guard refused while the key was handed over: the next term.
        this.queue.add(key);
        this.queue.finish(key);
        continue;
      }
      const end = terms.begin(key, term);
      try {
        await this.#reconcile(key, term);
      } catch (error) {
        // Nothing above should throw; if something does, the worker lives.
        this.#logger.error(error, "Reconcile worker failed");
      } finally {
        end();
        this.queue.finish(key);
        if (this.#isIdle()) this.#wakeIdle();
      }
    }
  }

  /** One reconcile; `signal` is its term (the stop, or the guard's window). */
  async #reconcile(key: string, signal: AbortSignal): Promise<void> {
    const options = this.#options;
    const ref = objectRef(options.for, key);
    const started = Date.now();
    const retries = this.queue.retries(key);
    // Each pass's lines carry the object, the pass and the attempt, as
    // controller-runtime's request logger and kube-rs's span do.
    const logger = this.#logger.with({
      ...(ref.namespace === undefined ? {} : { namespace: ref.namespace }),
      name: ref.name,
      reconcileID: crypto.randomUUID(),
      attempt: retries + 1,
    });
    let context: ReconcileContext<T> | undefined;
    try {
      const read = (): Promise<T | undefined> =>
        readObject<T>(this.#reader, ref, signal);
      const object = this.#shard === undefined
        ? await read()
        : await this.#shard.read(ref, { read, client: this.#client, signal });
      if (object === SKIP) return this.queue.forget(key);
      const writer: Writer = {
        name: this.name,
        primary: options.for,
        client: this.#noting,
        versions: this.versions,
        recorder: this.recorder,
        applyForce: options.applyForce ?? true,
        childLabels: this.#shard?.childLabels,
        ref,
        object,
        signal,
      };
      context = {
        key,
        ref,
        object,
        client: this.#noting,
        versions: this.versions,
        signal,
        retries,
        logger,
        read: (other) => readObject(this.#reader, other, signal),
        children: (resource) =>
          readChildren(this.#reader, object, resource, signal),
        recorder: this.recorder,
        apply: (child, how) => applyChild(writer, child, how),
        deleteChild: (child) => deleteChild(writer, child),
        status: (patch, how) => writeStatus(writer, patch, how),
        normal: (note) => postEvent(writer, "Normal", note),
        warning: (note) => postEvent(writer, "Warning", note),
      };
      const action = (await options.reconcile(context)) as Action;
      const after = action?.requeueAfter;
      if (typeof after === "number" && !Number.isNaN(after) && after <= 0) {
        // A requeue "now" goes through the backoff and the rate limit, as
        // controller-runtime's Requeue does: at once, a reconcile that reads
        // only the cache would never let a timer run.
        this.queue.retry(key);
        this.#observe("requeue", started);
        return;
      }
      this.queue.forget(key);
      if (typeof after === "number" && !Number.isNaN(after)) {
        this.queue.addAfter(key, after);
        this.#observe("requeue_after", started);
      } else this.#observe("success", started);
    } catch (error) {
      this.#observe("error", started);
      if (signal.aborted) {
        // Cut short by the guard, not the stop: again in the next term.
        if (!this.#stop.signal.aborted) this.queue.add(key);
        return;
      }
      logger.error(
        new ReconcileError(this.name, key, error),
        "Reconciler error",
      );
      this.queue.retry(key, { delay: this.#policy(error, context) });
    }
  }

  /** The error policy's delay (a floor of 1 ms), or the backoff's. */
  #policy(
    error: unknown,
    context: ReconcileContext<T> | undefined,
  ): number | undefined {
    const policy = this.#options.errorPolicy;
    if (policy === undefined || context === undefined) return undefined;
    try {
      const delay = policy(error, context);
      return typeof delay === "number" && !Number.isNaN(delay)
        ? Math.max(delay, 1)
        : undefined;
    } catch (thrown) {
      // A broken policy must not end the worker: the backoff decides.
      this.#logger.error(thrown, "Error policy failed");
      return undefined;
    }
  }

  #observe(
    result: "success" | "requeue" | "requeue_after" | "error",
    started: number,
  ): void {
    const observer = this.#observer;
    if (observer === undefined) return;
    try {
      observer.reconciled(result, Math.max(0, Date.now() - started) / 1000);
    } catch (error) {
      this.#logger.error(error, "Observer failed");
    }
  }

  #isIdle(): boolean {
    return (this.#gateOpen || this.#stop.signal.aborted) &&
      this.queue.working === 0 && this.queue.length === 0;
  }

  #wakeIdle(): void {
    for (const resolve of this.#idle.splice(0)) resolve();
  }
}

/**
 * The memo as the reconcile's client notes in it: writes of the watched
 * collections only. A note is dropped once the watch brings its version,
 * and a collection nobody watches never would, so its writes pass unnoted
 * and the memo stays as small as the watches keep it.
 */
function watchedMemo(versions: Versions, watched: readonly Resource[]): Memo {
  const names = new Set(
    watched.map((resource) => `${resource.resource}.${resource.group ?? ""}`),
  );
  return {
    send: async (ref, request, options) => {
      if (names.has(`${ref.resource}.${ref.group ?? ""}`)) {
        return await versions.send(ref, request, options);
      }
      await request();
    },
  };
}
