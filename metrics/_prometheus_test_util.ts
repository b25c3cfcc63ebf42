// The text format parsed by an independent parser (npm's
// parse-prometheus-text-format), typed for the tests.
import parseText from "parse-prometheus-text-format";

/** One sample of a counter, gauge or untyped family. */
export interface Sample {
  labels?: Record<string, string>;
  value?: string;
  buckets?: Record<string, string>;
  sum?: string;
  count?: string;
}

/** One metric family as the parser answers it. */
export interface Family {
  name: string;
  help: string;
  type: string;
  metrics: Sample[];
}

/** Parses text in the Prometheus text exposition format. */
export const parse = parseText as (text: string) => Family[];

/** The sample of `name` whose labels include `labels`, or `undefined`. */
export function sample(
  families: Family[],
  name: string,
  labels: Record<string, string> = {},
): Sample | undefined {
  const family = families.find((f) => f.name === name);
  return family?.metrics.find((m) =>
    Object.entries(labels).every(([k, v]) => m.labels?.[k] === v)
  );
}

/** The value of a counter or gauge sample as a number (NaN when absent). */
export function value(
  families: Family[],
  name: string,
  labels: Record<string, string> = {},
): number {
  return Number(sample(families, name, labels)?.value ?? NaN);
}
