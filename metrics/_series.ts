// The series of one metric: one value per distinct list of label values,
// kept in the order they first appeared.
import type { LabelValues, MetricOptions } from "./types.ts";
import {
  checkLabelName,
  checkMetricName,
  escapeHelp,
  formatLabels,
  formatValue,
} from "./_text.ts";

/** One series: its label values, in the metric's label order, and value. */
export interface Series<V> {
  values: string[];
  value: V;
}

/** A metric's name, help, label names and series. */
export class SeriesMap<L extends string, V> {
  readonly name: string;
  readonly help: string;
  readonly labels: readonly L[];
  #series = new Map<string, Series<V>>();
  #initial: () => V;

  constructor(
    name: string,
    options: MetricOptions<L>,
    histogram: boolean,
    initial: () => V,
  ) {
    checkMetricName(name);
    const labels = [...(options.labels ?? [])];
    for (const label of labels) checkLabelName(label, histogram);
    if (new Set(labels).size !== labels.length) {
      throw new TypeError(`The metric ${name} names a label twice`);
    }
    this.name = name;
    this.help = options.help;
    this.labels = labels;
    this.#initial = initial;
  }

  /** The series of these label values, made when absent. */
  get(labels: LabelValues<L>): Series<V> {
    const values = this.#values(labels);
    const key = keyOf(values);
    let series = this.#series.get(key);
    if (series === undefined) {
      series = { values, value: this.#initial() };
      this.#series.set(key, series);
    }
    return series;
  }

  /** The value of one series, or `undefined` when it has none yet. */
  find(labels: LabelValues<L>): V | undefined {
    return this.#series.get(keyOf(this.#values(labels)))?.value;
  }

  /** Forgets one series. */
  remove(labels: LabelValues<L>): boolean {
    return this.#series.delete(keyOf(this.#values(labels)));
  }

  /** One sample line: name and suffix, labels (then `extra`), value. */
  sample(
    series: Series<V>,
    value: string,
    suffix = "",
    extra?: string,
  ): string {
    return `${this.name}${suffix}${
      formatLabels(this.labels, series.values, extra)
    } ${value}`;
  }

  /** Appends `# HELP`, `# TYPE` and each series' lines. */
  render(
    type: string,
    out: string[],
    lines: (series: Series<V>, out: string[]) => void,
  ): void {
    out.push(`# HELP ${this.name} ${escapeHelp(this.help)}`);
    out.push(`# TYPE ${this.name} ${type}`);
    for (const series of this.#series.values()) lines(series, out);
  }

  /** Renders a metric of one number a series (a counter or a gauge). */
  renderNumbers(this: SeriesMap<L, number>, type: string, out: string[]): void {
    this.render(type, out, (series, lines) => {
      lines.push(this.sample(series, formatValue(series.value)));
    });
  }

  #values(labels: LabelValues<L>): string[] {
    const names = this.labels;
    const values: string[] = new Array(names.length);
    let given = 0;
    for (let i = 0; i < names.length; i++) {
      const value = labels[names[i]!];
      if (value !== undefined) given++;
      values[i] = value === undefined ? "" : String(value);
    }
    if (given !== Object.keys(labels).length) {
      const unknown = Object.keys(labels).filter((name) =>
        !(names as readonly string[]).includes(name)
      );
      if (unknown.length > 0) {
        throw new TypeError(
          `The metric ${this.name} has no label ${unknown.join(", ")}`,
        );
      }
    }
    return values;
  }
}

/** One key per distinct list of values. */
function keyOf(values: readonly string[]): string {
  if (values.length === 1) return values[0]!;
  // NUL joins the values unless one holds it; then JSON keeps them apart.
  for (const value of values) {
    if (value.includes("\u0000")) return "\u0001" + JSON.stringify(values);
  }
  return values.join("\u0000");
}
