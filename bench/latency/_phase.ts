// What every peer of the latency bench reports for one phase, and how: the
// Go and Rust peers compute the same figures the same way (nearest-rank
// percentiles, the same "sustained" rule).

/** The annotation an event's stamp travels in: `"<phase> <ms>"`. */
export const SENT = "bench.liken.dev/sent";

/** A phase's figures, as every peer prints them. */
export interface Phase {
  /** The rate asked of the server, events a second. */
  rate: number;
  /** Events the server sent in the phase. */
  events: number;
  /** Reconciles that saw a change of the phase (all of them, when done). */
  reconciled: number;
  /** The rate the server achieved: events over first to last stamp. */
  sentRate: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  /** From the last stamp to the last reconcile start, ms. */
  drainMs: number;
  /** Most keys queued or in work at once (ours only: -1 elsewhere). */
  maxDepth: number;
  /**
   * Every event reconciled, the server kept to 90 % of the rate, and no
   * change waited a second: the queue did not grow.
   */
  sustained: boolean;
}

/** Wall-clock ms with a fraction: the clock the server stamps with. */
export function wallClock(): number {
  return performance.timeOrigin + performance.now();
}

/** The nearest-rank percentile of sorted values. */
export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil(p * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/** The figures of a phase from its reconciles' latencies and stamps. */
export function phaseResult(
  rate: number,
  events: number,
  latencies: Float64Array,
  stamps: Float64Array,
  lastStart: number,
): Phase {
  const sorted = latencies.slice().sort();
  let first = Infinity;
  let last = -Infinity;
  for (const s of stamps) {
    if (s < first) first = s;
    if (s > last) last = s;
  }
  const span = (last - first) / 1000;
  const sentRate = span > 0 ? (stamps.length - 1) / span : NaN;
  const max = percentile(sorted, 1);
  return {
    rate,
    events,
    reconciled: latencies.length,
    sentRate,
    p50: percentile(sorted, 0.5),
    p90: percentile(sorted, 0.9),
    p99: percentile(sorted, 0.99),
    max,
    drainMs: lastStart - last,
    maxDepth: -1,
    sustained: latencies.length === events &&
      !(sentRate < 0.9 * rate) && max < 1000,
  };
}
