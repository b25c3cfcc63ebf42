// The latency bench: how long a change waits before its reconcile starts,
// at steady change rates, for our Controller (also as `ours (bytes)`, its
// collections keeping bytes), a controller-runtime controller and a
// kube-rs Controller, each at 1, 4 and 16 concurrent reconciles. Each run
// is a fresh server process (bench/latency/_server.ts) and a fresh operator
// process; the server stamps every change with its send time, the operator
// times its reconcile's start against it (one machine, one clock). Then the work queue's memory at 1M distinct keys,
// ours and client-go's. Writes bench/latency/results/.
//
//   bash bench/peers/build.sh
//   deno run --allow-run --allow-net=127.0.0.1 --allow-read \
//     --allow-write=bench/latency/results --allow-env \
//     --allow-sys=systemMemoryInfo bench/latency/run.ts [--full]
//     [--objects=N] [--rates=1000,2000] [--seconds=S]
//     [--peers=ours,"ours (bytes)",kube-rs] [--concurrency=1,4]
//     [--keys=1000000] [--smoke]
//
// The default is a quick run (10k objects, 3 s phases); --full is the
// issue's range: 100k objects, 1k to 50k changes a second (1k, 2k, 5k,
// 10k, 20k, 50k; at most one change per object a phase: 10 s each, 5 s
// at 20k, 2 s at 50k). Every peer reads the same bytes: JSON, identity,
// pages of 500.
//
// --smoke is the gate's run (`tools/gate.ts`): 1,000 objects, one phase of
// a second at 500 changes/s, concurrency 1, 10k keys, nothing written. A
// peer that is not built is listed as not run (tools/needs.ts); one that
// fails, fails the run.
import { notRunLine } from "../../tools/needs.ts";
import { latencyChart, type Line, type Panel } from "./_chart.ts";
import type { Phase } from "./_phase.ts";
import type { QueueMemory } from "./queue_memory.ts";

const home = Deno.env.get("HOME") ?? "";
const cache = `${
  Deno.env.get("XDG_CACHE_HOME") ?? `${home}/.cache`
}/liken/bench`;
const here = new URL(".", import.meta.url).pathname;
/** The gate's tiny run (see the header). */
const SMOKE = Deno.args.includes("--smoke");
/** Past this a peer is stuck and is killed (a smoke run is seconds long). */
const PEER_LIMIT_MS = SMOKE ? 60_000 : 15 * 60_000;
/** The figure the issue asks for: p99 under this at 1k changes/s. */
const GOAL_MS = 50;
const GOAL_RATE = 1000;

interface Peer {
  name: string;
  /** What builds it: bench/peers/build.sh with this toolchain. */
  toolchain?: string;
  /** The program and its arguments; a missing program is reported. */
  command(url: string, objects: number, concurrency: number): string[];
  env?: Record<string, string>;
}

const PEERS: Peer[] = [
  {
    name: "ours",
    command: (url, n, c) => [
      Deno.execPath(),
      "run",
      "--allow-net=127.0.0.1",
      `${here}_ours.ts`,
      `--url=${url}`,
      `--objects=${n}`,
      `--concurrency=${c}`,
    ],
  },
  {
    // The same controller, its collections keeping bytes (issue #48).
    name: "ours (bytes)",
    command: (url, n, c) => [
      Deno.execPath(),
      "run",
      "--allow-net=127.0.0.1",
      `${here}_ours.ts`,
      `--url=${url}`,
      `--objects=${n}`,
      `--concurrency=${c}`,
      "--bytes",
    ],
  },
  {
    name: "controller-runtime",
    toolchain: "Go 1.26+",
    command: (url, n, c) => [
      `${cache}/bin/controller-runtime-latency`,
      `--url=${url}`,
      `--objects=${n}`,
      `--concurrency=${c}`,
    ],
    // client-go 1.35+ asks for a streaming list first; off, so that it
    // lists by pages like the others (the server refuses it anyway).
    env: { KUBE_FEATURE_WatchListClient: "false" },
  },
  {
    name: "kube-rs",
    toolchain: "cargo (Rust 1.89+)",
    command: (url, n, c) => [
      `${cache}/bin/kube-rs-latency`,
      `--url=${url}`,
      `--objects=${n}`,
      `--concurrency=${c}`,
    ],
  },
];

/** One operator run, as the peer prints it, plus what the driver adds. */
interface Run {
  peer: string;
  version: string;
  concurrency: number;
  objects: number;
  readyMs: number;
  late: number;
  phases: Phase[];
  requests: string[];
  error?: string;
  /** The peer's program is not built: nothing ran. */
  notBuilt?: boolean;
  /** Ours only: the keys of a phase no reconcile saw (at most 20). */
  missing?: {
    phase: number;
    key: string;
    cached?: string;
    resourceVersion?: string;
    reconciled?: string;
  }[];
  /** Ours only: the server's open watches as each phase was asked for. */
  watchesAtGo?: number[];
}

/** Progress on stderr (the report goes to stdout). */
function say(text: string): void {
  // deno-lint-ignore no-console
  console.error(text);
}

function flag(name: string): string | undefined {
  const prefix = `--${name}=`;
  return Deno.args.find((a) => a.startsWith(prefix))?.slice(prefix.length);
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

/** Reads a child's stdout up to its first line. */
async function firstLine(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  reader.releaseLock();
  return text.split("\n")[0]!;
}

/** Collapses the request log: each distinct request shape once, counted. */
function summarise(
  log: {
    method: string;
    path: string;
    query: string;
    accept: string;
    status: number;
  }[],
): string[] {
  const counts = new Map<string, number>();
  for (const r of log) {
    const query = r.query.replace(/continue=[^&]*/, "continue=…")
      .replace(/timeoutSeconds=\d+/, "timeoutSeconds=…")
      .replace(/resourceVersion=\d+/, "resourceVersion=…");
    const status = r.status === 200 ? "" : ` → ${r.status}`;
    const key = `${r.method} ${r.path}${query} [accept: ${
      r.accept || "-"
    }]${status}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([key, count]) => `${count}× ${key}`);
}

interface Setup {
  objects: number;
  rates: number[];
  seconds: number;
}

async function runPeer(
  peer: Peer,
  concurrency: number,
  setup: Setup,
): Promise<Run> {
  const failed = (error: string, requests: string[] = []): Run => ({
    peer: peer.name,
    version: "",
    concurrency,
    objects: 0,
    readyMs: NaN,
    late: 0,
    phases: [],
    requests,
    error,
  });
  const [program] = peer.command("", setup.objects, concurrency);
  if (program !== Deno.execPath() && !await exists(program!)) {
    return {
      ...failed(`not built: ${program} is missing (see bench/peers/build.sh)`),
      notBuilt: true,
    };
  }
  const server = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net=127.0.0.1",
      `${here}_server.ts`,
      `--objects=${setup.objects}`,
      `--rates=${setup.rates.join(",")}`,
      `--seconds=${setup.seconds}`,
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const { url } = JSON.parse(await firstLine(server.stdout)) as { url: string };
  const [, ...peerArgs] = peer.command(url, setup.objects, concurrency);
  const child = new Deno.Command(program!, {
    args: peerArgs,
    env: peer.env ?? {},
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // Each phase waits at most 60 s; the sync and warm-up of 100k at most a
  // few minutes: past this the run is stuck, and says so.
  const timer = setTimeout(() => child.kill("SIGKILL"), PEER_LIMIT_MS);
  const output = await child.output();
  clearTimeout(timer);
  const log = await (await fetch(`${url}/_replay/log`)).json();
  await (await fetch(`${url}/_replay/quit`, { method: "POST" })).body?.cancel();
  await server.status;
  const requests = summarise(log);
  const stdout = new TextDecoder().decode(output.stdout).trim();
  const stderr = new TextDecoder().decode(output.stderr).trim();
  const line = stdout.split("\n").findLast((l) => l.startsWith("{"));
  if (!output.success || line === undefined) {
    return failed(`exit ${output.code}: ${stderr.slice(-2000)}`, requests);
  }
  const run = { ...JSON.parse(line), requests } as Run;
  if (run.objects !== setup.objects) {
    run.error = `cached ${run.objects} of ${setup.objects}`;
  }
  if (stderr !== "") run.error = (run.error ?? "") + stderr.slice(-500);
  return run;
}

/** Runs one of the queue-memory probes; `undefined` when it cannot. */
async function queueMemory(
  program: string,
  args: string[],
): Promise<QueueMemory | string> {
  if (program !== Deno.execPath() && !await exists(program)) {
    return `not built: ${program} is missing`;
  }
  const out = await new Deno.Command(program, {
    args,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const line = new TextDecoder().decode(out.stdout).trim().split("\n")
    .findLast((l) => l.startsWith("{"));
  if (!out.success || line === undefined) {
    return `exit ${out.code}: ${new TextDecoder().decode(out.stderr)}`;
  }
  return JSON.parse(line) as QueueMemory;
}

/** A figure; missing (NaN, null, a peer's -1) prints as a dash. */
function fmt(value: number | null | undefined, digits = 0): string {
  if (value === null || value === undefined || !Number.isFinite(value)) {
    return "—";
  }
  return value.toLocaleString("en-US", {
    maximumFractionDigits: digits,
    minimumFractionDigits: digits,
  });
}

/** Milliseconds with two significant decimals below 10. */
function ms(value: number | null | undefined): string {
  if (value === null || value === undefined) return "—";
  return fmt(value, value < 10 ? 2 : value < 100 ? 1 : 0);
}

function table(runs: Run[]): string {
  const out = [
    "| peer | concurrency | rate /s | sent /s | reconciled | p50 ms | p90 ms | p99 ms | max ms | sustained |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
  ];
  for (const r of runs) {
    if (r.error !== undefined && r.phases.length === 0) {
      out.push(
        `| ${r.peer} | ${r.concurrency} | ⚠ | did not run: ${
          r.error.split("\n")[0]!.replaceAll("|", "\\|").slice(0, 160)
        } | | | | | | |`,
      );
      continue;
    }
    for (const p of r.phases) {
      out.push(
        `| ${r.peer} | ${r.concurrency} | ${fmt(p.rate)} | ${
          fmt(p.sentRate)
        } | ${fmt(p.reconciled)} / ${fmt(p.events)} | ${ms(p.p50)} | ${
          ms(p.p90)
        } | ${ms(p.p99)} | ${ms(p.max)} | ${p.sustained ? "yes" : "**no**"} |`,
      );
    }
  }
  return out.join("\n");
}

/** A command's standard output, or "" when it cannot run. */
async function output(command: string, ...args: string[]): Promise<string> {
  try {
    const out = await new Deno.Command(command, { args, stdout: "piped" })
      .output();
    return new TextDecoder().decode(out.stdout);
  } catch {
    return "";
  }
}

interface Machine {
  cpu: string;
  cores: string;
  memory: string;
  deno: string;
}

async function machine(): Promise<Machine> {
  // Deno reads /proc only with --allow-all: lscpu reads it instead.
  const cpu = (await output("lscpu")).split("\n")
    .find((l) => l.startsWith("Model name"))?.split(":")[1]?.trim() ?? "?";
  return {
    cpu,
    cores: String(navigator.hardwareConcurrency),
    memory: `${(Deno.systemMemoryInfo().total / 2 ** 30).toFixed(1)} GiB`,
    deno: `deno ${Deno.version.deno} (V8 ${Deno.version.v8})`,
  };
}

function chart(runs: Run[], concurrencies: number[]): string {
  const panels: Panel[] = concurrencies.map((c) => ({
    title: `concurrency ${c}`,
    lines: runs.filter((r) => r.concurrency === c).flatMap((r) =>
      (["p99", "p50"] as const).map((percentile): Line => ({
        peer: r.peer,
        percentile,
        points: r.phases.map((p) => ({ x: p.rate, y: p[percentile] ?? NaN })),
      }))
    ),
  }));
  return latencyChart(
    "Change → reconcile start, steady change rates (p99 solid, p50 dashed)",
    panels,
  );
}

/** What the issue asks, answered from the runs of each peer. */
function goals(runs: Run[], objects: number): string[] {
  const out: string[] = [];
  for (const peer of [...new Set(runs.map((r) => r.peer))]) {
    const at = runs.filter((r) => r.peer === peer).flatMap((r) =>
      r.phases.filter((p) => p.rate === GOAL_RATE).map((p) => ({ r, p }))
    );
    if (at.length === 0) {
      out.push(`- ${peer}: no run at ${fmt(GOAL_RATE)}/s.`);
      continue;
    }
    const parts = at.map(({ r, p }) =>
      `concurrency ${r.concurrency}: p99 ${ms(p.p99)} ms${
        p.sustained && p.p99 < GOAL_MS ? " ✓" : " ✗"
      }`
    );
    const met = at.every(({ p }) => p.sustained && p.p99 < GOAL_MS);
    out.push(
      `- ${peer}: p99 < ${GOAL_MS} ms at ${fmt(GOAL_RATE)} changes/s with ${
        fmt(objects)
      } objects ${met ? "**met**" : "**not met**"} (${parts.join("; ")}).`,
    );
  }
  return out;
}

/** The 1, 5 and 15 minute load averages, as the report prints them. */
function load(): string {
  return Deno.loadavg().map((l) => l.toFixed(2)).join(", ");
}

/**
 * The smoke run's verdict: peers and probes not built are listed as not
 * run; any other error fails the run (exit code 1).
 */
function smokeVerdict(runs: Run[], queues: (QueueMemory | string)[]): number {
  const how = "bash bench/peers/build.sh, then deno task bench:latency --smoke";
  let failed = 0;
  for (const r of runs) {
    const peer = PEERS.find((p) => p.name === r.peer);
    if (r.notBuilt) {
      say(notRunLine(`bench:latency peer ${r.peer}`, {
        why: `not built (needs ${peer?.toolchain ?? "its toolchain"})`,
        how,
      }));
    } else if (r.error !== undefined || r.phases.length === 0) {
      failed++;
      say(`FAILED: bench:latency peer ${r.peer}: ${r.error ?? "no phase ran"}`);
    }
  }
  for (const [i, q] of queues.entries()) {
    const probe = i === 0 ? "ours" : "client-go";
    if (typeof q !== "string") continue;
    if (q.startsWith("not built")) {
      say(notRunLine(`bench:latency work queue memory of ${probe}`, {
        why: "not built (needs Go 1.26+)",
        how,
      }));
    } else {
      failed++;
      say(`FAILED: bench:latency work queue memory of ${probe}: ${q}`);
    }
  }
  say(`bench:latency --smoke: ${failed === 0 ? "ok" : `${failed} failed`}`);
  return failed === 0 ? 0 : 1;
}

async function main(): Promise<void> {
  const full = Deno.args.includes("--full");
  // Other work on the machine shows here: the figures are only as steady
  // as the machine was.
  const loadBefore = load();
  const setup: Setup = {
    objects: Number(
      flag("objects") ?? (full ? 100_000 : SMOKE ? 1_000 : 10_000),
    ),
    rates: flag("rates")?.split(",").map(Number) ??
      (full
        ? [1000, 2000, 5000, 10000, 20000, 50000]
        : SMOKE
        ? [500]
        : [1000, 2000, 5000]),
    seconds: Number(flag("seconds") ?? (full ? 10 : SMOKE ? 1 : 3)),
  };
  const concurrencies = flag("concurrency")?.split(",").map(Number) ??
    (SMOKE ? [1] : [1, 4, 16]);
  const only = flag("peers")?.split(",");
  const peers = PEERS.filter((p) =>
    only === undefined || only.includes(p.name)
  );
  const runs: Run[] = [];
  for (const peer of peers) {
    for (const c of concurrencies) {
      say(`${peer.name}, concurrency ${c}, ${fmt(setup.objects)} objects:`);
      const run = await runPeer(peer, c, setup);
      runs.push(run);
      if (run.error) say(`  ⚠ ${run.error}`);
      say(`  ready (synced, all reconciled once) in ${fmt(run.readyMs)} ms`);
      for (const p of run.phases) {
        say(
          `  ${fmt(p.rate)}/s (sent ${fmt(p.sentRate)}/s): p50 ${
            ms(p.p50)
          } p99 ${ms(p.p99)} max ${ms(p.max)} ms, ${p.reconciled}/${p.events}` +
            `${p.sustained ? "" : "  NOT SUSTAINED"}`,
        );
      }
    }
  }
  const keys = Number(flag("keys") ?? (SMOKE ? 10_000 : 1_000_000));
  say(`work queue memory at ${fmt(keys)} distinct keys…`);
  const queues = [
    await queueMemory(Deno.execPath(), [
      "run",
      "--v8-flags=--expose-gc",
      `${here}queue_memory.ts`,
      `--keys=${keys}`,
    ]),
    await queueMemory(`${cache}/bin/controller-runtime-latency`, [
      `--queue-memory=${keys}`,
    ]),
  ];
  if (SMOKE) {
    Deno.exitCode = smokeVerdict(runs, queues);
    return;
  }
  const stamp = new Date().toISOString();
  const loadText = `${loadBefore} before the runs, ${load()} after`;
  const info = { ...await machine(), load: loadText };
  const missing = runs.filter((r) => r.error !== undefined);
  const report = [
    `# Latency bench, ${stamp.slice(0, 10)}`,
    "",
    `Machine: ${info.cpu}, ${info.cores} cores, ${info.memory}; ${info.deno}. ` +
    "The server and the operator share it: at high rates they compete " +
    `for the same cores. Load average ${loadText} (1, 5, 15 min; the ` +
    "bench alone keeps it near 1 to 2, more is other work): figures move " +
    "from run to run, compare rows of one run.",
    "",
    `${fmt(setup.objects)} ConfigMaps (pages of 500, JSON, identity) in a ` +
    "fresh server process per run; after the first sync and one reconcile " +
    `of every object, phases of ${setup.seconds} s (shorter where that ` +
    `would change an object twice: a phase sends at most ${
      fmt(setup.objects)
    } changes) of MODIFIED events at a steady rate on the open ` +
    "watch, each stamped with its send time. A phase starts once the " +
    "operator's watch is open, and the server replays to a watch what " +
    "was sent after its resourceVersion, as an API server's watch cache " +
    "does. Latency: stamp → the " +
    "reconcile's start, in the operator. A phase is sustained when every " +
    "change was reconciled, the server kept to 90 % of the rate and no " +
    "change waited a second; the first one that is not ends the run. " +
    "Percentiles are nearest-rank. One run each. A short phase that " +
    "builds a backlog of less than a second still counts as sustained: " +
    "past the rate where p50 leaves the sub-millisecond range the queue " +
    "grows, even when it drains in time.",
    "",
    table(runs),
    "",
    "![latency against change rate](latency.svg)",
    "",
    "## Goals",
    "",
    ...goals(runs, setup.objects),
    "",
    `## The work queue at ${fmt(keys)} distinct keys`,
    "",
    "Heap after GC the queue adds, per queued key, its key's string not " +
    "counted (Deno: heapUsed after gc(); Go: HeapAlloc after runtime.GC()).",
    "",
    "| queue | keys | bytes a key |",
    "| --- | ---: | ---: |",
    ...queues.map((q) =>
      typeof q === "string"
        ? `| ⚠ | — | did not run: ${q.slice(0, 160)} |`
        : `| ${q.peer} (${q.version}) | ${fmt(q.keys)} | ${
          fmt(q.bytesPerKey, 1)
        } |`
    ),
    "",
    "## Peers and requests",
    "",
    ...runs.filter((r) => r.concurrency === concurrencies[0]).flatMap((r) => [
      `- ${r.peer}: ${r.version || "⚠ not run"}`,
      ...r.requests.map((q) => `  - \`${q}\``),
    ]),
    ...missing.map((r) =>
      `\n⚠ ${r.peer}, concurrency ${r.concurrency}: ${r.error}`
    ),
    ...runs.filter((r) => (r.missing?.length ?? 0) > 0).map((r) =>
      `\n⚠ ${r.peer}, concurrency ${r.concurrency}: keys no reconcile saw: ${
        r.missing!.map((m) =>
          `${m.key} (phase ${m.phase}; cached ${
            m.cached ?? "unstamped"
          } at version ${m.resourceVersion ?? "—"}; reconciled ${
            m.reconciled ?? "never"
          })`
        ).join(", ")
      }`
    ),
    "",
  ].join("\n");
  const out = `${here}results/`;
  await Deno.mkdir(out, { recursive: true });
  await Deno.writeTextFile(`${out}results.md`, report);
  await Deno.writeTextFile(
    `${out}results.json`,
    JSON.stringify(
      { date: stamp, machine: info, setup, runs, queues },
      null,
      2,
    ) + "\n",
  );
  await Deno.writeTextFile(`${out}latency.svg`, chart(runs, concurrencies));
  // deno-lint-ignore no-console
  console.log(report);
  // Loud at the end as well: a peer that did not run is not a result.
  for (const r of missing) say(`⚠ ${r.peer} c=${r.concurrency}: ${r.error}`);
}

if (import.meta.main) await main();
