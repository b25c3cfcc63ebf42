// controller-runtime's reconcile metrics and client-go's workqueue metrics
// of one controller, fed by the observer the controller calls.
import type { Counter, Gauge, Histogram, Registry } from "./registry.ts";
import type {
  ControllerMetrics,
  QueueMetrics,
  ReconcileResult,
} from "./types.ts";

/** controller-runtime's buckets of the reconcile time. */
const RECONCILE_BUCKETS = [
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.15,
  0.2,
  0.25,
  0.3,
  0.35,
  0.4,
  0.45,
  0.5,
  0.6,
  0.7,
  0.8,
  0.9,
  1,
  1.25,
  1.5,
  1.75,
  2,
  2.5,
  3,
  3.5,
  4,
  4.5,
  5,
  6,
  7,
  8,
  9,
  10,
  15,
  20,
  25,
  30,
  40,
  50,
  60,
];

/** client-go's workqueue buckets: 10 ns to 10 s, by powers of ten. */
const QUEUE_BUCKETS = [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10];

/** The families every controller shares, one series per controller. */
export class ControllerFamilies {
  readonly reconciles: Counter<"controller" | "result">;
  readonly errors: Counter<"controller">;
  readonly reconcileTime: Histogram<"controller">;
  readonly depth: Gauge<"name">;
  readonly adds: Counter<"name">;
  readonly queueTime: Histogram<"name">;
  readonly workTime: Histogram<"name">;
  readonly retries: Counter<"name">;
  readonly unfinished: Gauge<"name">;
  readonly longest: Gauge<"name">;

  constructor(registry: Registry) {
    this.reconciles = registry.counter("controller_runtime_reconcile_total", {
      help: "Reconciles by controller and result.",
      labels: ["controller", "result"],
    });
    this.errors = registry.counter(
      "controller_runtime_reconcile_errors_total",
      {
        help: "Reconciles that failed, by controller.",
        labels: ["controller"],
      },
    );
    this.reconcileTime = registry.histogram(
      "controller_runtime_reconcile_time_seconds",
      {
        help: "Seconds each reconcile ran, by controller.",
        labels: ["controller"],
        buckets: RECONCILE_BUCKETS,
      },
    );
    this.depth = registry.gauge("workqueue_depth", {
      help: "Keys waiting in the work queue.",
      labels: ["name"],
    });
    this.adds = registry.counter("workqueue_adds_total", {
      help: "Keys added to the work queue.",
      labels: ["name"],
    });
    this.queueTime = registry.histogram("workqueue_queue_duration_seconds", {
      help: "Seconds a key waited in the work queue before a worker took it.",
      labels: ["name"],
      buckets: QUEUE_BUCKETS,
    });
    this.workTime = registry.histogram("workqueue_work_duration_seconds", {
      help: "Seconds a worker spent on a key.",
      labels: ["name"],
      buckets: QUEUE_BUCKETS,
    });
    this.retries = registry.counter("workqueue_retries_total", {
      help: "Keys queued again after a per-key backoff.",
      labels: ["name"],
    });
    this.unfinished = registry.gauge("workqueue_unfinished_work_seconds", {
      help:
        "Seconds the running workers have spent so far on keys not yet finished.",
      labels: ["name"],
    });
    this.longest = registry.gauge(
      "workqueue_longest_running_processor_seconds",
      {
        help: "Seconds the longest-running worker has spent on its key.",
        labels: ["name"],
      },
    );
  }
}

/**
 * One controller's metrics. The work in flight is timed from each take:
 * `finished` removes the take it ends (the one `worked` seconds ago), so
 * the queue needs to name no key.
 */
export class ControllerSeries implements ControllerMetrics {
  readonly queue: QueueMetrics;
  #families: ControllerFamilies;
  #name: string;
  // When each key in work was taken (ms since the epoch).
  #running: number[] = [];

  constructor(families: ControllerFamilies, name: string) {
    this.#families = families;
    this.#name = name;
    const f = families;
    const labels = { name };
    for (const result of ["success", "error", "requeue", "requeue_after"]) {
      f.reconciles.inc({ controller: name, result }, 0);
    }
    f.errors.inc({ controller: name }, 0);
    f.depth.set(labels, 0);
    f.adds.inc(labels, 0);
    f.retries.inc(labels, 0);
    f.unfinished.set(labels, 0);
    f.longest.set(labels, 0);
    const running = this.#running;
    this.queue = {
      added(depth: number): void {
        f.adds.inc(labels);
        f.depth.set(labels, depth);
      },
      taken(waited: number, depth: number): void {
        f.queueTime.observe(labels, Math.max(0, waited));
        f.depth.set(labels, depth);
        running.push(Date.now());
      },
      finished(worked: number): void {
        f.workTime.observe(labels, Math.max(0, worked));
        if (running.length === 0) return;
        const started = Date.now() - worked * 1000;
        let nearest = 0;
        for (let i = 1; i < running.length; i++) {
          const off = Math.abs(running[i]! - started);
          if (off < Math.abs(running[nearest]! - started)) nearest = i;
        }
        running.splice(nearest, 1);
      },
      retried(): void {
        f.retries.inc(labels);
      },
    };
  }

  reconciled(result: ReconcileResult, seconds: number): void {
    const controller = this.#name;
    this.#families.reconciles.inc({ controller, result });
    if (result === "error") this.#families.errors.inc({ controller });
    this.#families.reconcileTime.observe({ controller }, Math.max(0, seconds));
  }

  /** Milliseconds the longest-running key has run, 0 when none runs. */
  longestRunning(now: number): number {
    let longest = 0;
    for (const since of this.#running) longest = Math.max(longest, now - since);
    return longest;
  }

  /** Sets the gauges read from the work in flight. */
  collect(now: number): void {
    let total = 0;
    for (const since of this.#running) total += Math.max(0, now - since);
    const labels = { name: this.#name };
    this.#families.unfinished.set(labels, total / 1000);
    this.#families.longest.set(labels, this.longestRunning(now) / 1000);
  }
}
