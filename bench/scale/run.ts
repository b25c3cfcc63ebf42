// The scale bench: each peer (ours, ours metadata-only, client-go, kube-rs,
// client-node) in a fresh process against a fresh replay server, for 1k,
// 10k and 100k ConfigMaps (`--full` adds 1M), then a table, SVG charts and
// a results file in bench/scale/results/.
//
//   bash bench/peers/build.sh
//   deno run -A bench/scale/run.ts [--full] [--mode=paged|stream]
//     [--events=100000] [--sizes=1000,10000] [--peers=ours,client-go]
//
// Permissions (deno task bench:scale): it spawns the peers, serves them on
// 127.0.0.1, reads the built peers and writes bench/scale/results/.
// Every peer reads the same bytes: JSON, identity (no gzip), managedFields
// on the wire and stripped before caching by every peer, and the same list
// mode. `paged` (the default) is the one all four support: client-node's
// informer has no streaming list. `stream` runs the three that have one.
import { build, type LoggedRequest, serve } from "./_replay.ts";
import { chart, type Series } from "./_svg.ts";

interface Peer {
  name: string;
  modes: ("paged" | "stream")[];
  command(url: string, n: number, events: number, mode: string): string[];
  env?: Record<string, string>;
}

const home = Deno.env.get("HOME") ?? "";
const cache = `${
  Deno.env.get("XDG_CACHE_HOME") ?? `${home}/.cache`
}/liken/bench`;
const here = new URL(".", import.meta.url).pathname;
const peersDir = new URL("../peers/", import.meta.url).pathname;

/** Our peer in a Deno process of its own, with the permissions it needs. */
function ours(url: string, objects: number, events: number): string[] {
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
  ];
}

const PEERS: Peer[] = [
  {
    name: "ours",
    modes: ["paged", "stream"],
    command: (url, n, e) => ours(url, n, e),
  },
  {
    name: "ours (metadata)",
    modes: ["paged", "stream"],
    command: (url, n, e) => [...ours(url, n, e), "--meta"],
  },
  {
    name: "client-go",
    modes: ["paged", "stream"],
    command: (url, n, e) => [
      `${cache}/bin/client-go`,
      `--url=${url}`,
      `--objects=${n}`,
      `--events=${e}`,
    ],
  },
  {
    name: "kube-rs",
    modes: ["paged", "stream"],
    command: (url, n, e, mode) => [
      `${cache}/bin/kube-rs`,
      `--url=${url}`,
      `--objects=${n}`,
      `--events=${e}`,
      `--mode=${mode}`,
    ],
  },
  {
    name: "client-node",
    modes: ["paged"],
    command: (url, n, e) => [
      "node",
      "--expose-gc",
      "--max-old-space-size=16384",
      `${cache}/client-node/main.mjs`,
      `--url=${url}`,
      `--objects=${n}`,
      `--events=${e}`,
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
  requests: string[];
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

async function runPeer(
  peer: Peer,
  data: ReturnType<typeof build>,
  events: number,
): Promise<Row> {
  await using server = serve(data);
  const [program, ...args] = peer.command(
    server.url,
    data.objects,
    events,
    data.mode,
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
  const timer = setTimeout(() => child.kill("SIGKILL"), 15 * 60_000);
  const output = await child.output();
  clearTimeout(timer);
  const stdout = new TextDecoder().decode(output.stdout).trim();
  const stderr = new TextDecoder().decode(output.stderr).trim();
  const base = {
    n: data.objects,
    itemBytes: data.itemBytes,
    requests: summarise(server.log),
  };
  const line = stdout.split("\n").findLast((l) => l.startsWith("{"));
  if (!output.success || line === undefined) {
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
      error: `exit ${output.code}: ${stderr.slice(-2000)}`,
    };
  }
  const row = { ...JSON.parse(line), ...base } as Row;
  if (row.objects !== data.objects) {
    row.error = `cached ${row.objects} of ${data.objects}`;
  }
  if (stderr !== "") row.error = (row.error ?? "") + stderr.slice(-500);
  return row;
}

function fmt(value: number, digits = 0): string {
  if (!Number.isFinite(value)) return "—";
  return value.toLocaleString("en-US", {
    maximumFractionDigits: digits,
    minimumFractionDigits: digits,
  });
}

/** The table, a row per peer × N, with ratios against each group's best. */
function table(rows: Row[]): string {
  const out = [
    "| N | peer | sync ms | µs/object | heap B/object | heap / JSON | RSS MiB | peak RSS MiB | events/s |",
    "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const n of [...new Set(rows.map((r) => r.n))]) {
    const group = rows.filter((r) => r.n === n);
    // The metadata-only row holds less, so it is not a peer's best.
    const whole = group.filter((r) => !r.peer.includes("metadata"));
    const best = (f: (r: Row) => number, high = false): number => {
      const values = whole.map(f).filter(Number.isFinite);
      return high ? Math.max(...values) : Math.min(...values);
    };
    const bSync = best((r) => r.syncMs);
    const bHeap = best((r) => r.heap - r.heapBase);
    const bEvents = best((r) => r.eventsPerSecond, true);
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
        }×) |`,
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

function charts(rows: Row[], mode: string): Record<string, string> {
  const byPeer = (f: (r: Row) => number): Series[] =>
    [...new Set(rows.map((r) => r.peer))].map((name) => ({
      name,
      points: rows.filter((r) => r.peer === name && !r.error)
        .map((r) => ({ x: r.n, y: f(r) })),
    }));
  return {
    [`sync-${mode}.svg`]: chart(
      `First full sync (${mode} list), ConfigMaps of ~1 KB`,
      "objects",
      "sync time (ms)",
      byPeer((r) => r.syncMs),
    ),
    [`heap-${mode}.svg`]: chart(
      `Heap after sync per cached object (${mode} list)`,
      "objects",
      "heap bytes per object",
      byPeer((r) => (r.heap - r.heapBase) / r.n),
    ),
  };
}

async function main(): Promise<void> {
  const mode = (flag("mode") ?? "paged") as "paged" | "stream";
  const events = Number(flag("events") ?? 100_000);
  const sizes = flag("sizes")?.split(",").map(Number) ??
    (Deno.args.includes("--full")
      ? [1_000, 10_000, 100_000, 1_000_000]
      : [1_000, 10_000, 100_000]);
  const only = flag("peers")?.split(",");
  const peers = PEERS.filter((p) =>
    p.modes.includes(mode) && (only === undefined || only.includes(p.name))
  );
  const rows: Row[] = [];
  for (const n of sizes) {
    const t0 = performance.now();
    const data = build({ objects: n, events, mode, meta: true });
    say(
      `N=${n}: built in ${fmt(performance.now() - t0)} ms ` +
        `(${fmt(data.itemBytes)} bytes of JSON an object)`,
    );
    for (const peer of peers) {
      const row = await runPeer(peer, data, events);
      rows.push(row);
      say(
        `  ${peer.name}: ${
          row.error ? `⚠ ${row.error}` : `${fmt(row.syncMs)} ms`
        }`,
      );
      for (const r of row.requests) say(`    ${r}`);
    }
  }
  const stamp = new Date().toISOString();
  const info = await machine();
  const report = [
    `# Scale bench (${mode} list), ${stamp.slice(0, 10)}`,
    "",
    `Machine: ${info.cpu}, ${info.cores} cores, ${info.memory}; ${info.deno}; ` +
    `${info.go}; ${info.rust}; node ${info.node}.`,
    "",
    `ConfigMaps of ${
      fmt(rows[0]?.itemBytes ?? 0)
    } bytes of JSON each (managedFields on the wire, stripped before caching ` +
    `by every peer); ${
      mode === "paged" ? "pages of 500" : "streaming list"
    }; JSON, identity; ${fmt(events)} MODIFIED events as fast as possible. ` +
    "Each peer in a fresh process against a fresh replay server; one run. " +
    "Heap: Go HeapInuse after runtime.GC(), Rust live bytes of a counting " +
    "allocator, Deno/Node heapUsed after gc(); each less the same measure " +
    "taken just before the informer started. heap / JSON = heap per " +
    "object over the object's JSON bytes. Ratios against the best of the " +
    "four whole-object peers for that N.",
    "",
    table(rows),
    "",
    "## Requests (per peer, largest N)",
    "",
    ...rows.filter((r) => r.n === sizes.at(-1)).flatMap((r) => [
      `- ${r.peer}:`,
      ...r.requests.map((q) => `  - \`${q}\``),
    ]),
    ...rows.filter((r) => r.error).map((r) =>
      `\n⚠ ${r.peer} at ${r.n}: ${r.error}`
    ),
    "",
  ].join("\n");
  const out = `${here}results/`;
  await Deno.mkdir(out, { recursive: true });
  await Deno.writeTextFile(`${out}results-${mode}.md`, report);
  await Deno.writeTextFile(
    `${out}results-${mode}.json`,
    JSON.stringify(
      { date: stamp, machine: info, mode, events, rows },
      null,
      2,
    ) +
      "\n",
  );
  for (const [name, svg] of Object.entries(charts(rows, mode))) {
    await Deno.writeTextFile(`${out}${name}`, svg);
  }
  // deno-lint-ignore no-console
  console.log(report);
}

if (import.meta.main) await main();
