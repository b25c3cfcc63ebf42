/**
 * The {@linkcode Metrics} of an operator: a registry, the wiring of each
 * part of the library into it, and the health and readiness checks the
 * probe server answers.
 *
 * @module
 */

import type { Client } from "../apiclient/client.ts";
import type { Outcome } from "../apiclient/options.ts";
import { Registry } from "./registry.ts";
import type { Counter, Gauge } from "./registry.ts";
import { ClientMetrics } from "./_client.ts";
import { CollectionMetrics } from "./_collection.ts";
import { collectionName } from "../_internal/names.ts";
import { ControllerFamilies, ControllerSeries } from "./_controller.ts";
import { type Registered, registered, runChecks } from "./_checks.ts";
import { SharderFamilies } from "./_sharder.ts";
import type {
  Check,
  CheckReport,
  CollectionHooks,
  ControllerMetrics,
  LeadState,
  RecordedOutcome,
  RecorderHooks,
  SharderState,
  WatchedSource,
} from "./types.ts";
import { CHECK_TIMEOUT, STUCK_AFTER } from "./_defaults.ts";

/** Options of {@linkcode Metrics}. */
export interface MetricsOptions {
  /** The registry to add the metrics to. Default: a new one. */
  registry?: Registry | undefined;
  /**
   * Milliseconds one check may take before it fails. Default
   * 5 s; kept within 1 ms and 1 hour.
   */
  checkTimeout?: number | undefined;
}

/** Options of {@linkcode Metrics.controller}. */
export interface ControllerMetricsOptions {
  /**
   * Milliseconds one reconcile may run before the health check fails.
   * Default 10 min; `Infinity`: never.
   */
  stuckAfter?: number | undefined;
}

/**
 * An operator's metrics and probes. Each part of the library is wired with
 * one call, and only the parts wired show up in the output:
 *
 * - `client(client)` answers a client whose requests count in client-go's
 *   `rest_client_requests_total{code,method,host}` and
 *   `rest_client_request_duration_seconds{verb,host}`;
 * - `collection(source, hooks)` answers hooks for a `Collection`: objects
 *   held, synced, relists, watch reopens and recoveries, list failures,
 *   seconds since the last change (`informer_*{collection}`), and a
 *   readiness check that passes once the first read is in;
 * - `lead(lead)` reads the election at each scrape:
 *   `leader_election_master_status{name}` (client-go's name), the age of
 *   the last accepted renewal, and the Lease's transitions;
 * - `recorder(component)` answers the observer of a `Recorder`:
 *   `event_recorder_events_total{component,result}`;
 * - `controller(name)` answers the observers a controller calls, with
 *   controller-runtime's `controller_runtime_reconcile_*` and client-go's
 *   `workqueue_*` metrics, and a health check that fails on a stuck
 *   reconcile.
 *
 * A controller takes all of these in one option: `new Controller(client,
 * { metrics, … })` wires its client, reconciles, work queue, watches, the
 * recorder it makes (`events`) and its `lead`.
 *
 * A standby copy of an elected operator is ready: it just does not lead.
 *
 * @example Wire a client and a collection, then read the text
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client } from "@liken/kubernetes/apiclient";
 * import { Collection } from "@liken/kubernetes/informer";
 * import { Metrics } from "@liken/kubernetes/metrics";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const metrics = new Metrics();
 * const client = metrics.client(new Client(server.url, { fetch: server.fetch }));
 * const source = { version: "v1", resource: "configmaps", namespace: "default" };
 * const { promise: synced, resolve } = Promise.withResolvers<void>();
 * await using configMaps = new Collection(client, source, {
 *   ...metrics.collection(source, { synced: resolve }),
 * });
 * await synced;
 * assert.equal((await metrics.readiness()).ok, true);
 * const text = metrics.render();
 * assert.match(text, /^informer_synced\{collection="default\/configmaps"\} 1$/m);
 * assert.match(text, /^rest_client_requests_total\{code="200",method="GET",host="[^"]+"\} \d+$/m);
 * ```
 */
export class Metrics {
  /** The registry the metrics are in; add the operator's own to it. */
  readonly registry: Registry;
  #checkTimeout: number;
  #health = new Map<string, Registered>();
  #ready = new Map<string, Registered>();
  #client: ClientMetrics | undefined;
  #collections: CollectionMetrics | undefined;
  #controllers: ControllerFamilies | undefined;
  #leads: LeadFamilies | undefined;
  #sharders: SharderFamilies | undefined;
  #events: Counter<"component" | "result"> | undefined;

  /**
   * Makes the metrics; nothing is wired yet.
   *
   * @param options The registry and the check timeout.
   */
  constructor(options: MetricsOptions = {}) {
    this.registry = options.registry ?? new Registry();
    const timeout = options.checkTimeout;
    this.#checkTimeout = typeof timeout === "number" && timeout > 0
      ? Math.min(Math.max(timeout, 1), 3_600_000)
      : CHECK_TIMEOUT;
  }

  /**
   * Answers a client whose every request counts in
   * `rest_client_requests_total{code,method,host}` (`code` is `<error>`
   * when no answer came) and `rest_client_request_duration_seconds{verb,
   * host}` (from the first send to the final answer, 429 waits included).
   * One count per request as the caller sees it: a 429 that was waited out
   * counts as the answer that followed. The new client shares `client`'s
   * connections and replaces an observer it had (to keep one, call
   * {@linkcode Metrics.requestObserver} from it).
   *
   * @param client The client to observe.
   * @returns The observed client.
   */
  client(client: Client): Client {
    return client.withObserver(this.requestObserver(client.server));
  }

  /**
   * The observer {@linkcode Metrics.client} installs, for a caller that
   * also observes requests itself.
   *
   * @example
   * ```ts
   * import { Client } from "@liken/kubernetes/apiclient";
   * import { Metrics } from "@liken/kubernetes/metrics";
   *
   * const metrics = new Metrics();
   * const base = new Client("https://10.0.0.1");
   * const count = metrics.requestObserver(base.server);
   * const client = base.withObserver((outcome) => {
   *   count(outcome);
   *   if (outcome.status >= 500) console.warn(outcome.path, outcome.status);
   * });
   * void client;
   * ```
   *
   * @param server The API server's URL; its host is the `host` label.
   * @returns The observer.
   */
  requestObserver(server: string): (outcome: Outcome) => void {
    const metrics = this.#client ??= new ClientMetrics(this.registry);
    let host: string;
    try {
      host = new URL(server).host;
    } catch {
      host = server;
    }
    return metrics.observer(host);
  }

  /**
   * Answers the hooks of one `Collection` (informer) that feed the
   * `informer_*{collection}` metrics; spread them into the collection's
   * options, and give your own hooks (`handler`, `synced`, `reopened`,
   * `recovered`, `relisted`, `listFailed`) here, where they are still
   * called. It adds the readiness check `collection <name>`, which passes
   * once the first complete read is in the store.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client } from "@liken/kubernetes/apiclient";
   * import { Collection } from "@liken/kubernetes/informer";
   * import { Metrics } from "@liken/kubernetes/metrics";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const metrics = new Metrics();
   * const client = metrics.client(new Client(server.url, { fetch: server.fetch }));
   * const source = { version: "v1", resource: "configmaps", namespace: "default" };
   * const names: string[] = [];
   * const { promise: synced, resolve } = Promise.withResolvers<void>();
   * await using configMaps = new Collection(client, source, {
   *   ...metrics.collection(source, {
   *     handler: { add: (object) => void names.push(object.metadata.name!) },
   *     synced: resolve,
   *   }),
   * });
   * await synced;
   * assert.equal((await metrics.readiness()).ok, true);
   * ```
   *
   * @typeParam T The kind of the watched objects.
   * @param source The collection (its label).
   * @param hooks Your own hooks, called after the metrics'.
   * @returns The hooks to spread into the collection's options.
   * @throws {TypeError} When a collection of this name is wired already.
   */
  // deno-lint-ignore no-explicit-any
  collection<T extends { metadata: { name?: string } } = any>(
    source: WatchedSource,
    hooks: CollectionHooks<T> = {},
  ): CollectionHooks<T> {
    const name = collectionName(source);
    const check = `collection ${name}`;
    if (this.#ready.has(check)) {
      throw new TypeError(`The collection ${name} is wired already`);
    }
    const metrics = this.#collections ??= new CollectionMetrics(this.registry);
    let synced = false;
    this.#ready.set(check, {
      run(): void {
        if (!synced) throw new Error("the first read is not complete");
      },
    });
    return metrics.wrap(name, hooks, () => synced = true);
  }

  /**
   * Reads an election's `Lead` at each scrape:
   * `leader_election_master_status{name}` (1 while this process leads;
   * client-go's name), `leader_election_renewal_age_seconds{name}` (since
   * the last accepted renewal was sent; the write guard refuses at 10 s),
   * and `leader_election_lease_transitions{name}` (the Lease's
   * `leaseTransitions`). `name` is the Lease's name. A standby copy stays
   * ready and healthy.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client } from "@liken/kubernetes/apiclient";
   * import { Lead } from "@liken/kubernetes/election";
   * import { Metrics } from "@liken/kubernetes/metrics";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const client = new Client(server.url, { fetch: server.fetch });
   * const metrics = new Metrics();
   * await using lead = new Lead(client, { lease: { namespace: "default", name: "op" }, pod: "op-a" });
   * metrics.lead(lead);
   * await lead.leading();
   * assert.match(metrics.render(), /^leader_election_master_status\{name="op"\} 1$/m);
   * ```
   *
   * @param lead The election's `Lead`.
   */
  lead(lead: LeadState): void {
    const families = this.#leads ??= new LeadFamilies(this.registry);
    const labels = { name: lead.lease.name };
    this.registry.onCollect(() => {
      const leads = lead.leads();
      families.status.set(labels, leads ? 1 : 0);
      families.transitions.set(labels, lead.transitions);
      const renewed = lead.renewedAt;
      if (renewed === undefined) families.renewalAge.remove(labels);
      else {
        families.renewalAge.set(
          labels,
          Math.max(0, Date.now() - renewed) / 1000,
        );
      }
    });
  }

  /**
   * Reads a sharder (the shard module's `Sharder`; its `metrics` option
   * calls this) at each scrape: `shard_ring_members{ring}`,
   * `shard_objects{ring,shard}` (primaries per member hash, `""` for
   * none), the counters `shard_assigned_total`, `shard_drains_total`,
   * `shard_moves_total`, `shard_takeovers_total` and
   * `shard_children_total` (`{ring}`), and its election as
   * {@linkcode Metrics.lead} reads it. Only the leading sharder's
   * replica reports objects and members.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Metrics } from "@liken/kubernetes/metrics";
   *
   * const metrics = new Metrics();
   * metrics.sharder({
   *   ring: "demo",
   *   lead: { lease: { name: "demo-sharder", namespace: "ops" }, leads: () => true, renewedAt: undefined, transitions: 0 },
   *   members: () => ["a1", "b2"],
   *   shards: () => new Map([["a1", 3], ["b2", 4]]),
   *   counts: { assigned: 7, drains: 1, moves: 1, takeovers: 0, children: 0 },
   * });
   * const text = metrics.render();
   * assert.match(text, /^shard_ring_members\{ring="demo"\} 2$/m);
   * assert.match(text, /^shard_objects\{ring="demo",shard="b2"\} 4$/m);
   * assert.match(text, /^shard_moves_total\{ring="demo"\} 1$/m);
   * ```
   *
   * @param sharder The sharder.
   */
  sharder(sharder: SharderState): void {
    const families = this.#sharders ??= new SharderFamilies(this.registry);
    this.lead(sharder.lead);
    this.registry.onCollect(families.collector(sharder));
  }

  /**
   * Answers the `observer` of one `Recorder` (events), to spread into its
   * options: each Event counts in
   * `event_recorder_events_total{component,result}`, `result` being
   * `created`, `patched` (a series), `dropped` or `failed`.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client } from "@liken/kubernetes/apiclient";
   * import { Recorder } from "@liken/kubernetes/events";
   * import { Metrics } from "@liken/kubernetes/metrics";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const client = new Client(server.url, { fetch: server.fetch });
   * const metrics = new Metrics();
   * const recorder = new Recorder(client, "demo", {
   *   instance: "pod-1",
   *   ...metrics.recorder("demo"),
   * });
   * recorder.normal({ kind: "Machine", name: "m1" }, { reason: "Started", message: "" });
   * await recorder.stop();
   * assert.match(
   *   metrics.render(),
   *   /^event_recorder_events_total\{component="demo",result="created"\} 1$/m,
   * );
   * ```
   *
   * @param component The recorder's component (its label).
   * @param observer Your own observer, called after the metrics'.
   * @returns The hooks to spread into the recorder's options.
   */
  recorder(
    component: string,
    observer?: ((outcome: RecordedOutcome) => void) | undefined,
  ): Required<RecorderHooks> {
    const events = this.#events ??= this.registry.counter(
      "event_recorder_events_total",
      {
        help:
          "Events posted, by component and result: created, patched (a series), dropped or failed.",
        labels: ["component", "result"],
      },
    );
    for (const result of ["created", "patched", "dropped", "failed"]) {
      events.inc({ component, result }, 0);
    }
    return {
      observer: (result: RecordedOutcome) => {
        events.inc({ component, result });
        observer?.(result);
      },
    };
  }

  /**
   * Answers the metrics one controller feeds: give it as the controller's
   * `observer`, and its `queue` as the work queue's observer (or give the
   * `Metrics` as the controller's `metrics` option, which does this). It feeds
   * controller-runtime's
   * `controller_runtime_reconcile_total{controller,result}`,
   * `controller_runtime_reconcile_errors_total{controller}`,
   * `controller_runtime_reconcile_time_seconds{controller}` and client-go's
   * `workqueue_depth`, `workqueue_adds_total`,
   * `workqueue_queue_duration_seconds`, `workqueue_work_duration_seconds`,
   * `workqueue_retries_total`, `workqueue_unfinished_work_seconds` and
   * `workqueue_longest_running_processor_seconds` (label `name`). It adds
   * the health check `controller <name>`, which fails while one key has
   * been in work longer than `stuckAfter`.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client, type KubeObject } from "@liken/kubernetes/apiclient";
   * import { Controller } from "@liken/kubernetes/controller";
   * import { Metrics } from "@liken/kubernetes/metrics";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const client = new Client(server.url, { fetch: server.fetch });
   * await client.create("/api/v1/namespaces/default/configmaps", { metadata: { name: "web" } });
   * const metrics = new Metrics();
   * const observer = metrics.controller("mirror");
   * await using controller = new Controller<KubeObject>(client, {
   *   name: "mirror",
   *   for: { version: "v1", resource: "configmaps", kind: "ConfigMap", namespace: "default" },
   *   reconcile: () => {},
   *   wiring: { observer },
   *   queue: { observer: observer.queue },
   * });
   * await controller.idle();
   * assert.match(
   *   metrics.render(),
   *   /^controller_runtime_reconcile_total\{controller="mirror",result="success"\} 1$/m,
   * );
   * ```
   *
   * @param name The controller's name (the `controller` and `name` labels).
   * @param options When a reconcile counts as stuck.
   * @returns The observer.
   * @throws {TypeError} When a controller of this name is wired already.
   */
  controller(
    name: string,
    options: ControllerMetricsOptions = {},
  ): ControllerMetrics {
    const check = `controller ${name}`;
    if (this.#health.has(check)) {
      throw new TypeError(`The controller ${name} is wired already`);
    }
    const families = this.#controllers ??= new ControllerFamilies(
      this.registry,
    );
    const metrics = new ControllerSeries(families, name);
    const stuck = options.stuckAfter;
    const limit = typeof stuck === "number" && stuck > 0 ? stuck : STUCK_AFTER;
    this.#health.set(check, {
      run(): void {
        const longest = metrics.longestRunning(Date.now());
        if (longest > limit) {
          throw new Error(
            `a reconcile has run for ${Math.round(longest / 1000)} s`,
          );
        }
      },
    });
    this.registry.onCollect(() => metrics.collect(Date.now()));
    return metrics;
  }

  /**
   * Adds a liveness check, which `/healthz` runs: when it fails the
   * kubelet restarts the container. Pass a function that throws when the
   * process is stuck, or a part with a `done` promise (a `Collection`, a
   * `Recorder`) that must not have ended.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Metrics } from "@liken/kubernetes/metrics";
   *
   * const metrics = new Metrics();
   * const loop = Promise.withResolvers<void>();
   * metrics.healthCheck("loop", { done: loop.promise });
   * assert.equal((await metrics.health()).ok, true);
   * loop.resolve();
   * await loop.promise;
   * assert.equal((await metrics.health()).ok, false);
   * ```
   *
   * @param name The check's name, unique among health checks.
   * @param check The check.
   * @throws {TypeError} When the name is taken.
   */
  healthCheck(name: string, check: Check): void {
    add(this.#health, name, check);
  }

  /**
   * Adds a readiness check, which `/readyz` runs: while it fails the pod
   * gets no Service traffic. Same forms as {@linkcode Metrics.healthCheck}.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Metrics } from "@liken/kubernetes/metrics";
   *
   * const metrics = new Metrics();
   * let warm = false;
   * metrics.readyCheck("cache", () => {
   *   if (!warm) throw new Error("the cache is cold");
   * });
   * assert.equal((await metrics.readiness()).checks[0]?.reason, "the cache is cold");
   * warm = true;
   * assert.equal((await metrics.readiness()).ok, true);
   * ```
   *
   * @param name The check's name, unique among readiness checks.
   * @param check The check.
   * @throws {TypeError} When the name is taken.
   */
  readyCheck(name: string, check: Check): void {
    add(this.#ready, name, check);
  }

  /**
   * Runs the health checks (controllers not stuck, and those added).
   *
   * @returns Every check's result; `ok` when all passed.
   */
  health(): Promise<CheckReport> {
    return runChecks(this.#health, this.#checkTimeout);
  }

  /**
   * Runs the readiness checks (every wired collection synced, and those
   * added).
   *
   * @returns Every check's result; `ok` when all passed.
   */
  readiness(): Promise<CheckReport> {
    return runChecks(this.#ready, this.#checkTimeout);
  }

  /**
   * Renders the registry in the Prometheus text format (see
   * {@linkcode Registry.render}).
   *
   * @returns The text `/metrics` answers.
   */
  render(): string {
    return this.registry.render();
  }
}

/** Adds a check under a unique name. */
function add(
  checks: Map<string, Registered>,
  name: string,
  check: Check,
): void {
  if (checks.has(name)) {
    throw new TypeError(`A check named ${name} exists already`);
  }
  checks.set(name, registered(check));
}

/** The election's families, one series per Lease. */
class LeadFamilies {
  readonly status: Gauge<"name">;
  readonly renewalAge: Gauge<"name">;
  readonly transitions: Gauge<"name">;

  constructor(registry: Registry) {
    const labels = ["name"] as const;
    this.status = registry.gauge("leader_election_master_status", {
      help: "1 while this process leads on the Lease, else 0.",
      labels,
    });
    this.renewalAge = registry.gauge("leader_election_renewal_age_seconds", {
      help:
        "Seconds since the last renewal of the Lease that the API server accepted was sent.",
      labels,
    });
    this.transitions = registry.gauge("leader_election_lease_transitions", {
      help: "The Lease's leaseTransitions: how often it changed hands.",
      labels,
    });
  }
}
