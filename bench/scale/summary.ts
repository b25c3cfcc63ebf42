// Runs of the scale bench side by side (issue #48): for each size and peer,
// the median and the spread (min–max) of each figure over the runs given,
// and the ratio of each of our rows to `ours` (today's store) taken within
// each run, since a shared machine's load moves between runs more than
// within one.
//
//   deno run --allow-read bench/scale/summary.ts results-a-1.json …
import { basename } from "node:path";

interface Row {
  peer: string;
  n: number;
  itemBytes: number;
  syncMs: number;
  heap: number;
  heapBase: number;
  rss: number;
  peakRss: number;
  eventsPerSecond: number;
  cpuPerEventUs: number;
  relistMs: number;
  relistWaitMs: number;
  error?: string;
}

interface Figure {
  name: string;
  value: (row: Row) => number;
  digits: number;
  /** Whether less is better (for the ratio's reading). */
  less: boolean;
}

const FIGURES: Figure[] = [
  { name: "sync ms", value: (r) => r.syncMs, digits: 0, less: true },
  {
    name: "heap B/object",
    value: (r) => (r.heap - r.heapBase) / r.n,
    digits: 0,
    less: true,
  },
  {
    name: "heap / JSON",
    value: (r) => (r.heap - r.heapBase) / r.n / r.itemBytes,
    digits: 2,
    less: true,
  },
  { name: "RSS MiB", value: (r) => r.rss / 2 ** 20, digits: 0, less: true },
  {
    name: "events/s",
    value: (r) => r.eventsPerSecond,
    digits: 0,
    less: false,
  },
  {
    name: "CPU µs/event",
    value: (r) => r.cpuPerEventUs,
    digits: 1,
    less: true,
  },
  { name: "relist ms", value: (r) => r.relistMs, digits: 0, less: true },
  // A watch phase shorter than a second waits the backoff before its
  // relist (informer/_reflector.ts, SHORT_WATCH): no cost an object.
  {
    name: "relist less wait ms",
    value: (r) => r.relistMs - r.relistWaitMs,
    digits: 0,
    less: true,
  },
];

function fmt(value: number, digits: number): string {
  if (!Number.isFinite(value)) return "–";
  return value.toLocaleString("en-US", {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2
    ? sorted[mid]!
    : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function spread(values: number[], digits: number): string {
  const ok = values.filter(Number.isFinite);
  if (ok.length === 0) return "–";
  if (ok.length === 1) return fmt(ok[0]!, digits);
  return `${fmt(median(ok), digits)} (${fmt(Math.min(...ok), digits)}–${
    fmt(Math.max(...ok), digits)
  })`;
}

const files = Deno.args;
const runs: Row[][] = [];
for (const file of files) {
  const data = JSON.parse(await Deno.readTextFile(file)) as { rows: Row[] };
  runs.push(data.rows.filter((r) => r.error === undefined));
}
const sizes = [...new Set(runs.flat().map((r) => r.n))].sort((a, b) => a - b);
const peers = [...new Set(runs.flat().map((r) => r.peer))];
const out: string[] = [
  `Runs: ${files.map((f) => basename(f)).join(", ")}; median (min–max).`,
  "",
];
for (const n of sizes) {
  out.push(`N = ${fmt(n, 0)}`, "");
  out.push(`| peer | ${FIGURES.map((f) => f.name).join(" | ")} |`);
  out.push(`| --- | ${FIGURES.map(() => "---").join(" | ")} |`);
  for (const peer of peers) {
    const rows = runs.flatMap((run) =>
      run.filter((r) => r.n === n && r.peer === peer)
    );
    if (rows.length === 0) continue;
    const cells = FIGURES.map((f) => spread(rows.map(f.value), f.digits));
    out.push(`| ${peer} | ${cells.join(" | ")} |`);
  }
  out.push("");
  // Ratios to today's store, within each run.
  const ours = peers.filter((p) => p.startsWith("ours (bytes"));
  if (ours.length > 0) {
    out.push(
      `| ratio to ours, same run | ${FIGURES.map((f) => f.name).join(" | ")} |`,
    );
    out.push(`| --- | ${FIGURES.map(() => "---").join(" | ")} |`);
    for (const peer of [...ours, "kube-rs"]) {
      const cells = FIGURES.map((f) => {
        const ratios = runs.flatMap((run) => {
          const base = run.find((r) => r.n === n && r.peer === "ours");
          const row = run.find((r) => r.n === n && r.peer === peer);
          return base && row ? [f.value(row) / f.value(base)] : [];
        });
        return spread(ratios, 2);
      });
      out.push(`| ${peer} / ours | ${cells.join(" | ")} |`);
    }
    out.push("");
  }
}
// deno-lint-ignore no-console
console.log(out.join("\n"));
