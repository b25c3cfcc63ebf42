// Several controllers in one process: one election, shared caches, tasks on
// every replica, one probe server, one ordered shutdown.
import type { Client } from "../apiclient/client.ts";
import type { KubeObject } from "../apiclient/types.ts";
import { type Logger, loggerOf } from "../_internal/log.ts";
import { Lead } from "../election/lead.ts";
import type { LeaseRef } from "../election/types.ts";
import { Collections, type CollectionsOptions } from "../informer/shared.ts";
import type { Metrics } from "../metrics/metrics.ts";
import { ProbeServer, type ProbeServerOptions } from "../metrics/probes.ts";
import { Sharder } from "../shard/sharder.ts";
import { Controller } from "./controller.ts";
import { clamp } from "./_limiter.ts";
import { shardSource } from "./_shard.ts";
import type { ControllerOptions, ControllerShards } from "./types.ts";
import { DEFAULT_STOP_TIMEOUT } from "./_defaults.ts";
import { stopOnAbort } from "../_internal/signals.ts";

/** The election of a {@linkcode Manager}: one Lease for all its controllers. */
export interface ManagerElection {
  /** The Lease, in the operator's own namespace. */
  lease: LeaseRef;
  /** The pod's name (the Lease names `<pod>_<suffix>` as its holder). */
  pod: string;
  /**
   * What a lost Lease does: `exit` (default) stops every controller at
   * once and calls `exit(1)`, as controller-runtime's manager does, so the
   * kubelet starts the container again; `campaign` stops every controller,
   * then campaigns again in this process and starts them anew when it
   * leads (the caches keep running).
   */
  onLost?: "exit" | "campaign" | undefined;
  /** Ends the process after a lost Lease (`exit`). Default `Deno.exit`. */
  exit?: ((code: number) => void) | undefined;
}

/**
 * The `shards` option of a {@linkcode Manager}: every controller becomes a
 * member of its own ring, named after it, as its own `shards` option would
 * make it.
 */
export type ManagerShards = Omit<ControllerShards, "ring">;

/** A task that runs on every replica, leading or not. */
export interface ManagerTask {
  /** Its name, in logs and errors. */
  name: string;
  /**
   * Runs until `signal` aborts (the manager's stop). A task that ends by
   * itself, or throws, is logged as an error; the others go on.
   *
   * @param signal Aborts when the manager stops.
   */
  run(signal: AbortSignal): void | Promise<void>;
}

/** Options of a {@linkcode Manager}. */
export interface ManagerOptions {
  /**
   * Receives the lines of the manager (field `logger`: `manager`) and of
   * everything it runs: the election, the shared collections, the
   * sharders, the probe server, and each controller without a logger of
   * its own. Default: errors to `console.error`.
   */
  logger?: Logger | undefined;
  /** The controllers, as the options each `Controller` would take. */
  // deno-lint-ignore no-explicit-any -- controllers of any primary kind
  controllers: readonly ControllerOptions<any>[];
  /**
   * One election for every controller: caches run on every replica, only
   * the leader's controllers reconcile. Default: none (always reconcile).
   */
  election?: ManagerElection | undefined;
  /**
   * Several active replicas instead of one leader: every controller without
   * a `shards` option of its own becomes a member of the ring named after
   * it. For every sharded controller, the manager runs the ring's sharder
   * (`Sharder` of `@liken/kubernetes/shard`, one replica assigns at a time)
   * on every replica, with the controller's `for` and `owns`. Not together
   * with `election`. Default: not sharded.
   */
  shards?: ManagerShards | undefined;
  /** Tasks that run on every replica (webhook servers, for instance). */
  tasks?: readonly ManagerTask[] | undefined;
  /**
   * One registry for every part: the client, each controller, each shared
   * collection (once), the election and the recorders. Default: none.
   */
  metrics?: Metrics | undefined;
  /**
   * Serves `/healthz`, `/readyz` and `/metrics` from `metrics` (which it
   * needs) on every replica; readiness is every cache synced, never
   * "leads", so a standby is ready. Default: no probe server.
   */
  probes?: Omit<ProbeServerOptions, "signal"> | undefined;
  /**
   * Deep-freezes the objects of the shared caches, so that one controller
   * cannot change another's view (a write throws in strict mode); it costs
   * 5 to 15 % of a first sync (`bench/freeze_bench.ts`). Default `true`, as
   * for `Collections`.
   */
  freeze?: boolean | undefined;
  /**
   * How the shared caches keep their objects, for every collection or by
   * collection, as for `Collections` (its `storage`). Default `"objects"`.
   */
  storage?: CollectionsOptions["storage"];
  /**
   * The whole shutdown's budget in milliseconds: the reconciles in flight
   * and the queued Events of every controller; the Lease's release and the
   * rest come after. Default 30 s.
   */
  stopTimeout?: number | undefined;
  /** Stops the manager, as {@linkcode Manager.stop} does. */
  signal?: AbortSignal | undefined;
}

/**
 * Runs several controllers in one process, as controller-runtime's
 * `Manager` and kube-rs's shared streams do: one watch and one store per
 * collection shared by every controller ({@linkcode Collections}), one
 * election for all of them, tasks and one probe server on every replica,
 * one metrics registry, and one shutdown in the controllers' order for all
 * of them together: stop watching and taking keys, finish the reconciles in
 * flight, write the queued Events, then release the Lease, last.
 *
 * @example Two controllers on one collection
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client } from "@liken/kubernetes/apiclient";
 * import { Manager } from "@liken/kubernetes/controller";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * const seen: string[] = [];
 * const configMaps = { version: "v1", resource: "configmaps", kind: "ConfigMap", namespace: "default" };
 * await using manager = new Manager(client, {
 *   controllers: [
 *     { name: "a", for: configMaps, reconcile: (c) => void seen.push(`a ${c.key}`) },
 *     { name: "b", for: configMaps, reconcile: (c) => void seen.push(`b ${c.key}`) },
 *   ],
 * });
 * await client.resource(configMaps).create({ metadata: { name: "x" } });
 * while (seen.length < 2) await new Promise((r) => setTimeout(r, 5));
 * assert.deepEqual(seen.sort(), ["a default/x", "b default/x"]);
 * // One watch of ConfigMaps serves both.
 * const watches = server.requests.filter((r) => r.method === "GET" && r.path === "/api/v1/namespaces/default/configmaps");
 * assert.equal(watches.length, 1);
 * ```
 */
export class Manager implements AsyncDisposable {
  /** The shared caches of every controller. */
  readonly collections: Collections;
  /** Settles once the manager has stopped. Never rejects. */
  readonly done: Promise<void>;
  #client: Client;
  #options: ManagerOptions;
  // What the manager hands to what it runs; #logger is its own lines'.
  #base: Logger;
  #logger: Logger;
  #stop = new AbortController();
  #lead: Lead | undefined;
  #controllers: Controller<KubeObject>[] = [];
  // The controllers' options, each with its ring when the manager shards.
  // deno-lint-ignore no-explicit-any -- controllers of any primary kind
  #controllerOptions: readonly ControllerOptions<any>[];
  #sharders: Sharder[] = [];
  #tasks: Promise<void>[] = [];
  #probes: ProbeServer | undefined;
  #stopped: Promise<void> | undefined;
  #ended = Promise.withResolvers<void>();
  #terms = 0;
  #stopping = false;

  /**
   * Starts at once: the shared caches, the tasks, the probe server, the
   * election, and the controllers (which reconcile once synced and, with
   * an election, while this copy leads).
   *
   * @param client The API client (without a write guard).
   * @param options The controllers, the election, the tasks and the rest.
   * @throws {TypeError} When two controllers share a name, `probes` is
   *   given without `metrics`, or `shards` with `election`.
   */
  constructor(client: Client, options: ManagerOptions) {
    this.#options = options;
    this.#base = loggerOf(options.logger);
    this.#logger = this.#base.with({ logger: "manager" });
    const names = new Set<string>();
    for (const controller of options.controllers) {
      if (names.has(controller.name)) {
        throw new TypeError(`Two controllers are named ${controller.name}`);
      }
      names.add(controller.name);
    }
    if (options.probes !== undefined && options.metrics === undefined) {
      throw new TypeError("The probe server needs the metrics option");
    }
    const shards = options.shards;
    const sharded = options.controllers.some((c) =>
      c.wiring?.shards !== undefined
    );
    if ((shards !== undefined || sharded) && options.election !== undefined) {
      throw new TypeError("The manager takes shards or an election, not both");
    }
    this.#controllerOptions = options.controllers.map((controller) =>
      shards === undefined || controller.wiring?.shards !== undefined
        ? controller
        : {
          ...controller,
          wiring: {
            ...controller.wiring,
            shards: { ...shards, ring: controller.name },
          },
        }
    );
    const metrics = options.metrics;
    this.#client = metrics === undefined ? client : metrics.client(client);
    const signal = this.#stop.signal;
    this.collections = new Collections(this.#client, {
      signal,
      freeze: options.freeze ?? true,
      storage: options.storage,
      logger: this.#base,
      ...(metrics === undefined
        ? {}
        : { instrument: (source, hooks) => metrics.collection(source, hooks) }),
    });
    this.done = this.#ended.promise;
    if (options.probes !== undefined) {
      this.#probes = new ProbeServer(metrics!, {
        ...options.probes,
        logger: options.probes.logger ?? this.#base,
      });
    }
    // The manager's own registration on every collection keeps the caches
    // running between terms (a lost Lease with `campaign`), and on a
    // standby whatever its controllers do.
    // A member's collections select its shard: register those, not all.
    for (const controller of this.#controllerOptions) {
      const sources = [
        shardSource(controller, controller.for),
        ...(controller.owns ?? []).map((own) => shardSource(controller, own)),
        ...(controller.watches ?? []).map((watch) => watch.source),
      ];
      for (const source of sources) this.collections.register(source);
      if (controller.wiring?.shards !== undefined) this.#shard(controller);
    }
    for (const task of options.tasks ?? []) this.#tasks.push(this.#run(task));
    const unlink = stopOnAbort(options.signal, () => void this.stop());
    void this.done.then(unlink, unlink);
    if (!this.#stopping) this.#term();
  }

  /** The election of the current term, or `undefined` without one. */
  get lead(): Lead | undefined {
    return this.#lead;
  }

  /**
   * Resolves once this replica leads: when the election of the current
   * term holds the Lease, at once without an election.
   *
   * @example
   * ```ts
   * import { Client } from "@liken/kubernetes/apiclient";
   * import { Manager } from "@liken/kubernetes/controller";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const client = new Client(server.url, { fetch: server.fetch });
   * await using manager = new Manager(client, {
   *   controllers: [],
   *   election: { lease: { namespace: "default", name: "op" }, pod: "op-0" },
   * });
   * await manager.leading();
   * ```
   *
   * @param options A signal that ends the wait.
   * @returns Settles once leading.
   * @throws {StoppedError} When the manager stopped, or the signal aborted,
   *   first.
   */
  async leading(options: { signal?: AbortSignal | undefined } = {}): Promise<
    void
  > {
    await this.#lead?.leading(options);
  }

  /** The controllers of the current term, in the order of the options. */
  get controllers(): readonly Controller<KubeObject>[] {
    return this.#controllers;
  }

  /** The probe server, when `probes` was given. */
  get probes(): ProbeServer | undefined {
    return this.#probes;
  }

  /**
   * Whether every shared cache holds its first read.
   *
   * @returns `true` once all synced.
   */
  synced(): boolean {
    return this.collections.synced();
  }

  /**
   * Resolves once every controller is idle (see `Controller.idle`). For
   * tests and demos.
   *
   * @returns A promise that resolves when every controller is idle.
   */
  async idle(): Promise<void> {
    await Promise.all(this.#controllers.map((c) => c.idle()));
  }

  /**
   * Stops in the controllers' order, once for all of them: every
   * controller stops watching and taking keys, finishes its reconciles in
   * flight and writes its queued Events (all at once, within
   * `stopTimeout`); then the Lease is released; then the tasks end, the
   * shared caches stop and the probe server closes. Safe to call more
   * than once.
   *
   * @returns Settles when everything has stopped; a step that fails is
   * logged as an error and the next steps still run.
   */
  stop(): Promise<void> {
    this.#stopped ??= this.#stopOnce();
    return this.#stopped;
  }

  /** Stops the manager (for `await using`). */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }

  /** Runs the sharder of a sharded controller's ring. */
  // deno-lint-ignore no-explicit-any -- controllers of any primary kind
  #shard(controller: ControllerOptions<any>): void {
    const { ring, namespace, identity, exit } = controller.wiring!.shards!;
    this.#sharders.push(
      new Sharder(this.#client, {
        ring,
        namespace,
        for: controller.for,
        owns: controller.owns,
        pod: identity ?? Deno.hostname(),
        exit,
        metrics: this.#options.metrics,
        logger: this.#base,
      }),
    );
  }

  /** One term: a Lead (with an election) and controllers that follow it. */
  #term(): void {
    if (this.#stopping) return;
    const { election, metrics } = this.#options;
    this.#terms += 1;
    let lead: Lead | undefined;
    if (election !== undefined) {
      const campaign = election.onLost === "campaign";
      lead = new Lead(this.#client, {
        lease: election.lease,
        pod: election.pod,
        // With `campaign`, a loss ends this term and the next one begins.
        exit: campaign ? () => {} : election.exit,
        logger: this.#base,
      });
      if (this.#terms === 1) metrics?.lead(lead);
      if (campaign) {
        void lead.done.then(() => this.#next(lead!));
      } else {
        // A lost Lease: exit(1) has been called; stop what is left.
        void lead.done.then(() => void this.stop());
      }
    }
    this.#lead = lead;
    const budget = this.#options.stopTimeout ?? DEFAULT_STOP_TIMEOUT;
    this.#controllers = this.#controllerOptions.map((options) => {
      const own: ControllerOptions<KubeObject> = {
        stopTimeout: budget,
        logger: this.#base,
        ...options,
        wiring: {
          ...options.wiring,
          lead,
          collections: this.collections,
          metrics,
          managed: true,
        },
      };
      return new Controller(this.#client, own);
    });
  }

  /** After a lost Lease with `campaign`: stop this term, begin the next. */
  async #next(lead: Lead): Promise<void> {
    if (this.#stopping || this.#lead !== lead) return;
    this.#logger.info("The Lease is lost: stopping the controllers");
    await Promise.all(this.#controllers.map((c) => c.stop()));
    if (this.#stopping) return;
    this.#logger.info("Campaigning again");
    this.#term();
  }

  async #run(task: ManagerTask): Promise<void> {
    const signal = this.#stop.signal;
    try {
      await task.run(signal);
      if (!signal.aborted) {
        this.#logger.error(
          new Error(`The task ${task.name} ended before the manager stopped`),
          "Task ended",
          { task: task.name },
        );
      }
    } catch (error) {
      if (signal.aborted) return;
      this.#logger.error(
        new Error(`The task ${task.name} failed`, { cause: error }),
        "Task failed",
        { task: task.name },
      );
    }
  }

  async #stopOnce(): Promise<void> {
    // From here on no term begins: a campaign's restart stops short.
    this.#stopping = true;
    const logger = this.#logger;
    logger.info(
      "Stopping the controllers (watches, reconciles, queued Events)",
    );
    const budget = clamp(
      this.#options.stopTimeout ?? DEFAULT_STOP_TIMEOUT,
      0,
      2 ** 31 - 1,
    );
    const controllers = this.#controllers;
    // Each controller stops as one does alone, all at once: their Events
    // are written before the Lease goes below.
    // Past the budget (and a second's grace), the controllers' waits end
    // at once and their requests are aborted: none outlives the Lease.
    const late = new AbortController();
    const timer = setTimeout(
      () =>
        late.abort(
          new DOMException(
            "The controllers did not stop within stopTimeout",
            "TimeoutError",
          ),
        ),
      budget + 1_000,
    );
    await Promise.all(
      controllers.map((c) => c.stop({ signal: late.signal })),
    );
    clearTimeout(timer);
    if (late.signal.aborted) {
      logger.error(late.signal.reason, "The controllers outlived stopTimeout");
    }
    this.#stop.abort(new DOMException("The manager stops", "AbortError"));
    // The members released their Leases: another replica's sharder moves
    // their objects at once; then this replica's sharders go.
    await Promise.all(this.#sharders.map((sharder) => sharder.stop()));
    const lead = this.#lead;
    if (lead !== undefined) {
      logger.info("Releasing the Lease");
      try {
        await lead.stop();
      } catch (error) {
        logger.error(error, "Stopping the election failed");
      }
    }
    await Promise.all(this.#tasks);
    await this.collections.stop();
    if (this.#probes !== undefined) await this.#probes.stop();
    logger.info("Stopped");
    this.#ended.resolve();
  }
}
