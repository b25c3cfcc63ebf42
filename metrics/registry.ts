/**
 * The {@linkcode Registry} and its metrics ({@linkcode Counter},
 * {@linkcode Gauge}, {@linkcode Histogram}), rendered in the Prometheus text
 * exposition format, version 0.0.4.
 *
 * @module
 */

import { formatValue } from "./_text.ts";
import type {
  CounterSeries,
  HistogramOptions,
  HistogramSeries,
  HistogramValue,
  LabelValues,
  MetricOptions,
} from "./types.ts";
import { type Series, SeriesMap } from "./_series.ts";
import { DEFAULT_BUCKETS } from "./_defaults.ts";

/**
 * A value that only goes up, such as requests sent. A scrape compares two
 * readings; a restart starts it at 0 again, which Prometheus's `rate`
 * understands.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Registry } from "@liken/kubernetes/metrics";
 *
 * const registry = new Registry();
 * const requests = registry.counter("demo_requests_total", {
 *   help: "Requests handled.",
 *   labels: ["code"],
 * });
 * requests.inc({ code: 200 });
 * requests.inc({ code: 200 }, 2);
 * assert.equal(requests.get({ code: 200 }), 3);
 * assert.match(registry.render(), /^demo_requests_total\{code="200"\} 3$/m);
 * ```
 *
 * @typeParam L The label names.
 */
export class Counter<L extends string = never> {
  /** The `# TYPE` word. */
  readonly type = "counter" as const;
  #map: SeriesMap<L, number>;

  /**
   * Makes a counter that no registry renders; use
   * {@linkcode Registry.counter} for one that is.
   *
   * @param name Its name, such as `demo_requests_total`.
   * @param options Its help text and label names.
   * @throws {TypeError} When a name is not valid.
   */
  constructor(name: string, options: MetricOptions<L>) {
    this.#map = new SeriesMap(name, options, false, () => 0);
  }

  /** The metric's name. */
  get name(): string {
    return this.#map.name;
  }

  /** The label names, in the order sample lines write them. */
  get labels(): readonly L[] {
    return this.#map.labels;
  }

  /**
   * Adds to one series.
   *
   * @param labels The series' label values.
   * @param by What to add, at least 0. Default 1.
   * @throws {RangeError} When `by` is negative or not a number.
   */
  inc(labels: LabelValues<L> = {}, by = 1): void {
    if (!(by >= 0)) {
      throw new RangeError(`A counter only goes up: ${by}`);
    }
    this.#map.get(labels).value += by;
  }

  /**
   * One series, bound: for a hot path that counts the same labels again
   * and again, it skips finding the series each time. After
   * {@linkcode Counter.remove} of its labels it counts in vain.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Registry } from "@liken/kubernetes/metrics";
   *
   * const requests = new Registry().counter("demo_total", { help: "x", labels: ["code"] });
   * const ok = requests.series({ code: 200 });
   * ok.inc();
   * ok.inc(2);
   * assert.equal(requests.get({ code: 200 }), 3);
   * ```
   *
   * @param labels The series' label values.
   * @returns The bound series.
   */
  series(labels: LabelValues<L> = {}): CounterSeries {
    const series = this.#map.get(labels);
    return {
      inc(by = 1): void {
        if (!(by >= 0)) {
          throw new RangeError(`A counter only goes up: ${by}`);
        }
        series.value += by;
      },
    };
  }

  /**
   * The value of one series.
   *
   * @param labels The series' label values.
   * @returns Its value, 0 when it was never counted.
   */
  get(labels: LabelValues<L> = {}): number {
    return this.#map.find(labels) ?? 0;
  }

  /**
   * Forgets one series (for example of a part that stopped).
   *
   * @param labels The series' label values.
   * @returns Whether there was such a series.
   */
  remove(labels: LabelValues<L> = {}): boolean {
    return this.#map.remove(labels);
  }

  /**
   * Appends the metric's lines in the text format.
   *
   * @param out The lines so far.
   */
  render(out: string[]): void {
    this.#map.renderNumbers(this.type, out);
  }
}

/**
 * A value that goes up and down, such as objects held or a queue's depth.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Registry } from "@liken/kubernetes/metrics";
 *
 * const registry = new Registry();
 * const depth = registry.gauge("demo_depth", { help: "Keys waiting." });
 * depth.inc();
 * depth.inc();
 * depth.dec();
 * assert.equal(depth.get(), 1);
 * depth.set({}, 7);
 * assert.match(registry.render(), /^demo_depth 7$/m);
 * ```
 *
 * @typeParam L The label names.
 */
export class Gauge<L extends string = never> {
  /** The `# TYPE` word. */
  readonly type = "gauge" as const;
  #map: SeriesMap<L, number>;

  /**
   * Makes a gauge that no registry renders; use {@linkcode Registry.gauge}
   * for one that is.
   *
   * @param name Its name, such as `demo_queue_depth`.
   * @param options Its help text and label names.
   * @throws {TypeError} When a name is not valid.
   */
  constructor(name: string, options: MetricOptions<L>) {
    this.#map = new SeriesMap(name, options, false, () => 0);
  }

  /** The metric's name. */
  get name(): string {
    return this.#map.name;
  }

  /** The label names, in the order sample lines write them. */
  get labels(): readonly L[] {
    return this.#map.labels;
  }

  /**
   * Sets one series.
   *
   * @param labels The series' label values.
   * @param value The new value.
   */
  set(labels: LabelValues<L>, value: number): void {
    this.#map.get(labels).value = value;
  }

  /**
   * Adds to one series.
   *
   * @param labels The series' label values.
   * @param by What to add. Default 1.
   */
  inc(labels: LabelValues<L> = {}, by = 1): void {
    this.#map.get(labels).value += by;
  }

  /**
   * Subtracts from one series.
   *
   * @param labels The series' label values.
   * @param by What to subtract. Default 1.
   */
  dec(labels: LabelValues<L> = {}, by = 1): void {
    this.#map.get(labels).value -= by;
  }

  /**
   * The value of one series.
   *
   * @param labels The series' label values.
   * @returns Its value, 0 when it was never set.
   */
  get(labels: LabelValues<L> = {}): number {
    return this.#map.find(labels) ?? 0;
  }

  /**
   * Forgets one series (for example of a part that stopped).
   *
   * @param labels The series' label values.
   * @returns Whether there was such a series.
   */
  remove(labels: LabelValues<L> = {}): boolean {
    return this.#map.remove(labels);
  }

  /**
   * Appends the metric's lines in the text format.
   *
   * @param out The lines so far.
   */
  render(out: string[]): void {
    this.#map.renderNumbers(this.type, out);
  }
}

/**
 * Observations counted into buckets, such as request latencies: the text
 * format writes a cumulative `_bucket` line per upper bound (`le`, ending
 * with `+Inf`), then `_sum` and `_count`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Registry } from "@liken/kubernetes/metrics";
 *
 * const registry = new Registry();
 * const latency = registry.histogram("demo_seconds", {
 *   help: "Latency.",
 *   buckets: [0.1, 1],
 * });
 * latency.observe({}, 0.05);
 * latency.observe({}, 0.5);
 * const text = registry.render();
 * assert.match(text, /^demo_seconds_bucket\{le="0.1"\} 1$/m);
 * assert.match(text, /^demo_seconds_bucket\{le="1"\} 2$/m);
 * assert.match(text, /^demo_seconds_bucket\{le="\+Inf"\} 2$/m);
 * assert.match(text, /^demo_seconds_count 2$/m);
 * ```
 *
 * @typeParam L The label names.
 */
export class Histogram<L extends string = never> {
  /** The `# TYPE` word. */
  readonly type = "histogram" as const;
  /** The upper bounds of the buckets, ascending, without `+Inf`. */
  readonly buckets: readonly number[];
  #le: string[];
  #map: SeriesMap<L, HistogramValue>;

  /**
   * Makes a histogram that no registry renders; use
   * {@linkcode Registry.histogram} for one that is.
   *
   * @param name Its name, such as `demo_request_duration_seconds`.
   * @param options Its help text, labels and buckets.
   * @throws {TypeError} When a name is not valid or the buckets do not
   * ascend.
   */
  constructor(name: string, options: HistogramOptions<L>) {
    const buckets = [...(options.buckets ?? DEFAULT_BUCKETS)].filter((b) =>
      b !== Infinity
    );
    for (let i = 0; i < buckets.length; i++) {
      if (
        Number.isNaN(buckets[i]) || (i > 0 && buckets[i]! <= buckets[i - 1]!)
      ) {
        throw new TypeError(`The buckets of ${name} must ascend`);
      }
    }
    this.buckets = Object.freeze(buckets);
    this.#le = [...buckets.map(formatValue), "+Inf"];
    const size = buckets.length + 1;
    this.#map = new SeriesMap(name, options, true, () => ({
      buckets: new Array<number>(size).fill(0),
      sum: 0,
      count: 0,
    }));
  }

  /** The metric's name. */
  get name(): string {
    return this.#map.name;
  }

  /** The label names, in the order sample lines write them. */
  get labels(): readonly L[] {
    return this.#map.labels;
  }

  /**
   * Counts one observation.
   *
   * @param labels The series' label values.
   * @param value The observed value, such as seconds.
   */
  observe(labels: LabelValues<L>, value: number): void {
    count(this.buckets, this.#map.get(labels).value, value);
  }

  /**
   * One series, bound (see {@linkcode Counter.series}).
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Registry } from "@liken/kubernetes/metrics";
   *
   * const latency = new Registry().histogram("demo_seconds", { help: "x", labels: ["verb"] });
   * const gets = latency.series({ verb: "GET" });
   * gets.observe(0.2);
   * assert.equal(latency.get({ verb: "GET" })?.count, 1);
   * ```
   *
   * @param labels The series' label values.
   * @returns The bound series.
   */
  series(labels: LabelValues<L> = {}): HistogramSeries {
    const buckets = this.buckets;
    const series = this.#map.get(labels).value;
    return {
      observe(value: number): void {
        count(buckets, series, value);
      },
    };
  }

  /**
   * The value of one series.
   *
   * @param labels The series' label values.
   * @returns Its buckets, sum and count, or `undefined` before its first
   * observation.
   */
  get(labels: LabelValues<L> = {}): Readonly<HistogramValue> | undefined {
    return this.#map.find(labels);
  }

  /**
   * Forgets one series (for example of a part that stopped).
   *
   * @param labels The series' label values.
   * @returns Whether there was such a series.
   */
  remove(labels: LabelValues<L> = {}): boolean {
    return this.#map.remove(labels);
  }

  /**
   * Appends the metric's lines in the text format.
   *
   * @param out The lines so far.
   */
  render(out: string[]): void {
    this.#map.render(
      this.type,
      out,
      (series, lines) => this.#lines(series, lines),
    );
  }

  #lines(series: Series<HistogramValue>, out: string[]): void {
    const { buckets, sum, count } = series.value;
    const map = this.#map;
    let cumulative = 0;
    for (let i = 0; i < buckets.length; i++) {
      cumulative += buckets[i]!;
      out.push(
        map.sample(
          series,
          String(cumulative),
          "_bucket",
          `le="${this.#le[i]}"`,
        ),
      );
    }
    out.push(map.sample(series, formatValue(sum), "_sum"));
    out.push(map.sample(series, String(count), "_count"));
  }
}

/** Counts one observation into a histogram series. */
function count(
  bounds: readonly number[],
  series: HistogramValue,
  value: number,
): void {
  let i = 0;
  while (i < bounds.length && value > bounds[i]!) i++;
  series.buckets[i]!++;
  series.sum += value;
  series.count++;
}

/** Any metric of a registry. */
export type AnyMetric =
  | Counter<string>
  | Gauge<string>
  | Histogram<string>;

/**
 * A set of metrics with unique names, rendered together in the Prometheus
 * text exposition format (version 0.0.4). Metrics render in the order they
 * were made, series in the order they first appeared, labels in the order
 * the metric names them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Registry } from "@liken/kubernetes/metrics";
 *
 * const registry = new Registry();
 * assert.equal(registry.render(), "");
 * const up = registry.gauge("demo_up", { help: "Whether it runs." });
 * registry.onCollect(() => up.set({}, 1));
 * assert.equal(
 *   registry.render(),
 *   "# HELP demo_up Whether it runs.\n# TYPE demo_up gauge\ndemo_up 1\n",
 * );
 * ```
 */
export class Registry {
  #metrics = new Map<string, AnyMetric>();
  #collectors: (() => void)[] = [];

  /**
   * Makes a counter.
   *
   * @param name Its name, such as `demo_requests_total`.
   * @param options Its help text and label names.
   * @returns The counter.
   * @throws {TypeError} When the name is taken or a name is not valid.
   */
  counter<L extends string = never>(
    name: string,
    options: MetricOptions<L>,
  ): Counter<L> {
    return this.#add(new Counter<L>(name, options));
  }

  /**
   * Makes a gauge.
   *
   * @param name Its name, such as `demo_queue_depth`.
   * @param options Its help text and label names.
   * @returns The gauge.
   * @throws {TypeError} When the name is taken or a name is not valid.
   */
  gauge<L extends string = never>(
    name: string,
    options: MetricOptions<L>,
  ): Gauge<L> {
    return this.#add(new Gauge<L>(name, options));
  }

  /**
   * Makes a histogram.
   *
   * @param name Its name, such as `demo_request_duration_seconds`.
   * @param options Its help text, label names and buckets.
   * @returns The histogram.
   * @throws {TypeError} When the name is taken, a name is not valid or the
   * buckets do not ascend.
   */
  histogram<L extends string = never>(
    name: string,
    options: HistogramOptions<L>,
  ): Histogram<L> {
    return this.#add(new Histogram<L>(name, options));
  }

  /**
   * The metric of this name.
   *
   * @param name The metric's name.
   * @returns It, or `undefined`.
   */
  get(name: string): AnyMetric | undefined {
    return this.#metrics.get(name);
  }

  /**
   * Runs `collect` before each render, to set gauges that are read rather
   * than counted (such as seconds since something happened).
   *
   * @param collect Sets metrics; an error it throws is dropped.
   */
  onCollect(collect: () => void): void {
    this.#collectors.push(collect);
  }

  /**
   * Renders every metric in the text exposition format: `""` for an empty
   * registry, else lines each ending with a line feed.
   *
   * @returns The text a `/metrics` endpoint answers.
   */
  render(): string {
    for (const collect of this.#collectors) {
      try {
        collect();
      } catch {
        // A collector's failure must not cost the other metrics.
      }
    }
    const out: string[] = [];
    for (const metric of this.#metrics.values()) metric.render(out);
    return out.length === 0 ? "" : out.join("\n") + "\n";
  }

  #add<M extends AnyMetric>(metric: M): M {
    if (this.#metrics.has(metric.name)) {
      throw new TypeError(`A metric named ${metric.name} exists already`);
    }
    this.#metrics.set(metric.name, metric);
    return metric;
  }
}
