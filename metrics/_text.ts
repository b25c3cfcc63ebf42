// The pieces of the Prometheus text exposition format, version 0.0.4: names,
// escapes and numbers as the format's specification spells them.

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** Throws a `TypeError` unless `name` is a valid metric name. */
export function checkMetricName(name: string): void {
  if (!METRIC_NAME.test(name)) {
    throw new TypeError(`Not a valid metric name: ${JSON.stringify(name)}`);
  }
}

/**
 * Throws a `TypeError` unless `name` is a valid label name that is not
 * reserved (`__` prefix, and `le` on a histogram).
 */
export function checkLabelName(name: string, histogram: boolean): void {
  if (!LABEL_NAME.test(name) || name.startsWith("__")) {
    throw new TypeError(`Not a valid label name: ${JSON.stringify(name)}`);
  }
  if (histogram && name === "le") {
    throw new TypeError("A histogram cannot have a label named le");
  }
}

/** Escapes a `# HELP` text: backslash and line feed. */
export function escapeHelp(text: string): string {
  return text.replace(/[\\\n]/g, (c) => c === "\\" ? "\\\\" : "\\n");
}

/** Escapes a label value: backslash, double quote and line feed. */
export function escapeLabelValue(value: string): string {
  return value.replace(
    /[\\"\n]/g,
    (c) => c === "\\" ? "\\\\" : c === '"' ? '\\"' : "\\n",
  );
}

/** A sample value as the format writes it (`+Inf`, `-Inf`, `NaN`). */
export function formatValue(value: number): string {
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  if (Number.isNaN(value)) return "NaN";
  return String(value);
}

/**
 * The `{a="1",b="2"}` part of a sample line, in the given name order, or
 * `""` without labels.
 */
export function formatLabels(
  names: readonly string[],
  values: readonly string[],
  extra?: string,
): string {
  const parts: string[] = [];
  for (let i = 0; i < names.length; i++) {
    parts.push(`${names[i]}="${escapeLabelValue(values[i] ?? "")}"`);
  }
  if (extra !== undefined) parts.push(extra);
  return parts.length === 0 ? "" : `{${parts.join(",")}}`;
}
