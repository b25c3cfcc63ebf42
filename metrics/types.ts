/**
 * The shapes the metrics module's parts share: label values, metric
 * descriptions, and the structural types of the parts it observes.
 *
 * @module
 */

import type { Resource } from "../apiclient/resource.ts";

/**
 * The label values of one series, by label name. A label left out has the
 * empty value; numbers are written as text.
 *
 * @typeParam L The label names.
 */
export type LabelValues<L extends string> = {
  readonly [K in L]?: string | number | undefined;
};

/**
 * The description of a metric.
 *
 * @typeParam L The label names.
 */
export interface MetricOptions<L extends string> {
  /** The `# HELP` text. */
  help: string;
  /**
   * The label names, in the order every sample line writes them. Default:
   * none.
   */
  labels?: readonly L[] | undefined;
}

/**
 * The description of a histogram.
 *
 * @typeParam L The label names.
 */
export interface HistogramOptions<L extends string> extends MetricOptions<L> {
  /**
   * The upper bounds of the buckets, ascending; `+Inf` is always added.
   * Default Prometheus's default buckets (5 ms to 10 s).
   */
  buckets?: readonly number[] | undefined;
}

/** What one histogram series holds: a count per bucket, the sum, the count. */
export interface HistogramValue {
  /** Observations per bucket (not cumulative); the last is `+Inf`'s own. */
  readonly buckets: number[];
  /** The sum of all observations. */
  sum: number;
  /** How many observations. */
  count: number;
}

/** One series of a counter, bound to its labels (`Counter.series`). */
export interface CounterSeries {
  /**
   * Adds to the series.
   *
   * @param by What to add, at least 0. Default 1.
   */
  inc(by?: number): void;
}

/** One series of a histogram, bound to its labels (`Histogram.series`). */
export interface HistogramSeries {
  /**
   * Counts one observation.
   *
   * @param value The observed value, such as seconds.
   */
  observe(value: number): void;
}

/**
 * The collection a watch follows, as the informer's `Source` names it: a
 * `Resource` with optional selectors. The series of its metrics carry it as
 * the `collection` label, such as `default/configmaps` or
 * `greetings.example.com [app=web]`.
 */
export interface WatchedSource extends Resource {
  /** A label selector, such as `app=web`. */
  labelSelector?: string | undefined;
  /** A field selector, such as `metadata.name=web`. */
  fieldSelector?: string | undefined;
}

/**
 * The hooks of the informer's `CollectionOptions` that `Metrics.collection`
 * answers, structurally.
 *
 * @typeParam T The kind of the watched objects.
 */
export interface CollectionHooks<T = unknown> {
  /** Receives each change (the informer's `Handler`). */
  handler?: CollectionHandler<T> | undefined;
  /** Called once, when the first read is complete. */
  synced?: (() => void | Promise<void>) | undefined;
  /** Called for every watch opened after the first. */
  reopened?: (() => void) | undefined;
  /** Called when a watch opens again after a failed attempt. */
  recovered?: (() => void) | undefined;
  /** Called after each complete read but the first (a relist). */
  relisted?: (() => void) | undefined;
  /** Called whenever reading the whole collection fails. */
  listFailed?: ((error: unknown) => void) | undefined;
}

/**
 * The informer's `Handler`, structurally.
 *
 * @typeParam T The kind of the watched objects.
 */
export interface CollectionHandler<T> {
  /**
   * An object arrived.
   *
   * @param object The new copy.
   */
  add?(object: T): void | Promise<void>;
  /**
   * A held object changed.
   *
   * @param old The copy held.
   * @param object The new copy.
   */
  update?(old: T, object: T): void | Promise<void>;
  /**
   * An object went.
   *
   * @param object The last copy, or the informer's tombstone.
   */
  delete?(object: unknown): void | Promise<void>;
}

/**
 * What `Metrics.lead` reads of the election's `Lead` at each scrape.
 */
export interface LeadState {
  /** The Lease the election runs on. */
  readonly lease: { readonly name: string; readonly namespace: string };
  /**
   * Whether this process leads now.
   *
   * @returns `true` while it leads.
   */
  leads(): boolean;
  /** When the last accepted renewal was sent (ms since the epoch). */
  readonly renewedAt: number | undefined;
  /** The Lease's `leaseTransitions` as last seen. */
  readonly transitions: number;
}

/**
 * What a controller's work queue tells its metrics, after client-go's
 * workqueue metrics provider: the controller module's `WorkQueueObserver`,
 * structurally. Durations are seconds.
 */
export interface QueueMetrics {
  /**
   * A key was queued. Counts `workqueue_adds_total` and sets
   * `workqueue_depth`.
   *
   * @param depth The keys waiting after the add.
   */
  added(depth: number): void;
  /**
   * A worker took a key. Observes `workqueue_queue_duration_seconds`, sets
   * `workqueue_depth`, and starts timing the work in flight.
   *
   * @param waited Seconds the key waited in the queue.
   * @param depth The keys waiting after the take.
   */
  taken(waited: number, depth: number): void;
  /**
   * The work on a key ended. Observes `workqueue_work_duration_seconds`.
   *
   * @param worked Seconds it was worked on (timed from its take).
   */
  finished(worked: number): void;
  /** A key was queued again after its backoff: `workqueue_retries_total`. */
  retried(): void;
}

/**
 * How one reconcile ended, in controller-runtime's `result` label values:
 * `success`, `error`, `requeue` (asked to run again after the backoff) or
 * `requeue_after` (asked to run again after a given time).
 */
export type ReconcileResult = "success" | "error" | "requeue" | "requeue_after";

/**
 * What a controller tells its metrics, made by `Metrics.controller`: it
 * fits the controller module's `ControllerObserver`, and its `queue` fits
 * the work queue's `WorkQueueObserver`.
 */
export interface ControllerMetrics {
  /**
   * One reconcile ended. Counts `controller_runtime_reconcile_total` (and
   * `controller_runtime_reconcile_errors_total` for `error`) and observes
   * `controller_runtime_reconcile_time_seconds`.
   *
   * @param result How it ended.
   * @param seconds How long it ran.
   */
  reconciled(result: ReconcileResult, seconds: number): void;
  /** The observer of the controller's work queue. */
  readonly queue: QueueMetrics;
}

/**
 * A health or readiness check: it passes when it returns (or resolves) and
 * fails when it throws (or rejects), with the error's message as the
 * reason, as controller-runtime's `healthz.Checker` does. An object with a
 * `done` promise (a `Collection`, a `Lead`, a `Recorder`, a controller)
 * passes while that promise is pending: a loop that ended fails.
 */
export type Check =
  | (() => void | Promise<void>)
  | { readonly done: Promise<unknown> };

/** The result of one check. */
export interface CheckResult {
  /** The check's name. */
  name: string;
  /** Whether it passed. */
  ok: boolean;
  /** Why it failed: the error's message. Absent when it passed. */
  reason?: string | undefined;
}

/** The results of all checks of one kind (health or readiness). */
export interface CheckReport {
  /** Whether every check passed (`true` when there are none). */
  ok: boolean;
  /** Each check's result, in the order they were added. */
  checks: CheckResult[];
}

/**
 * What became of one posted Event, as the recorder's `observer` hears it
 * (the events module's `EventOutcome`).
 */
export type RecordedOutcome = "created" | "patched" | "dropped" | "failed";

/** The part of the recorder's options that `Metrics.recorder` wraps. */
export interface RecorderHooks {
  /** Hears what became of each posted Event. */
  observer?: ((outcome: RecordedOutcome) => void) | undefined;
}

/**
 * What `Metrics.sharder` reads of the shard module's `Sharder` at each
 * scrape.
 */
export interface SharderState {
  /** The ring's name (the `ring` label). */
  readonly ring: string;
  /** The sharder's election. */
  readonly lead: LeadState;
  /**
   * The live members as last judged (empty while not leading).
   *
   * @returns The members' hashes.
   */
  members(): string[];
  /**
   * The primaries per shard label value, `""` for none, as this replica's
   * sharder sees them (empty while not leading).
   *
   * @returns Objects by member hash.
   */
  shards(): ReadonlyMap<string, number>;
  /** What the sharder wrote, counted since it started. */
  readonly counts: Readonly<SharderCounts>;
}

/** What a `Sharder` wrote, as {@linkcode SharderState.counts}. */
export interface SharderCounts {
  /** Objects given their first member. */
  assigned: number;
  /** Objects asked to drain (a live member gives them back). */
  drains: number;
  /** Objects given a new member after a drain or a takeover. */
  moves: number;
  /** Member Leases taken over (their member was gone). */
  takeovers: number;
  /** Children labelled with their owner's shard. */
  children: number;
}
