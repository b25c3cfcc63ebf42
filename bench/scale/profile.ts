// Where our informer's time goes: one peer (bench/peers/ours.ts) against a
// fresh replay server, run under V8's sampling profiler (`--prof`), then
// the profile summarised by Node's tick processor (this machine's Node 20
// reads Deno's V8 15 log once the code states it does not know are mapped
// to the ones it does).
//
//   deno run -A bench/scale/profile.ts [--objects=100000] [--events=100000]
//     [--meta] [--kind=configmaps|pods] [--mode=paged|stream] [--top=40]
//     [--gc] [--bytes]
//
// --gc runs it with --trace-gc instead and sums the main thread's GC
// pauses (scavenges, mark-compacts) against the sync and the watch.
// Run it twice, once with --events=0, to tell the sync's share from the
// watch's. The log and the summary go to .tmp/prof/.
import { build, type Kind, serve } from "./_replay.ts";

function flag(name: string, fallback: string): string {
  const prefix = `--${name}=`;
  return Deno.args.find((a) => a.startsWith(prefix))?.slice(prefix.length) ??
    fallback;
}

const objects = Number(flag("objects", "100000"));
const events = Number(flag("events", "100000"));
const kind = flag("kind", "configmaps") as Kind;
const mode = flag("mode", "paged") as "paged" | "stream";
const meta = Deno.args.includes("--meta");
// The peer keeps bytes (`storage: "bytes"`).
const bytes = Deno.args.includes("--bytes");
const top = Number(flag("top", "40"));
const dir = new URL("../../.tmp/prof/", import.meta.url).pathname;
await Deno.mkdir(dir, { recursive: true });
const name = `${kind}-${objects}-${events}${meta ? "-meta" : ""}${
  bytes ? "-bytes" : ""
}-${mode}`;
const log = `${dir}${name}.log`;
const traceGc = Deno.args.includes("--gc");

const data = build({ objects, events: Math.max(events, 1), mode, kind, meta });
await using server = serve(data, 0);
const peer = new URL("../peers/ours.ts", import.meta.url).pathname;
const out = await new Deno.Command(Deno.execPath(), {
  args: [
    "run",
    "--allow-net=127.0.0.1",
    "--allow-env=REPLAY_URL",
    traceGc
      ? "--v8-flags=--expose-gc,--trace-gc"
      : `--v8-flags=--expose-gc,--prof,--no-logfile-per-isolate,--logfile=${log}`,
    peer,
    `--url=${server.url}`,
    `--objects=${objects}`,
    `--events=${events}`,
    `--kind=${kind}`,
    ...(meta ? ["--meta"] : []),
    ...(bytes ? ["--bytes"] : []),
    "--exit",
  ],
  stdout: "piped",
  stderr: "inherit",
}).output();
const stdout = new TextDecoder().decode(out.stdout).trim().split("\n");
// V8's trace and the peer's line share stdout: the line may start mid-line.
const at = stdout.findIndex((l) => l.includes('{"peer"'));
const line = at === -1 ? "" : stdout[at]!.slice(stdout[at]!.indexOf('{"peer"'));
if (traceGc) {
  await Deno.writeTextFile(`${dir}${name}.gc.txt`, stdout.join("\n"));
}
// deno-lint-ignore no-console
console.log(line);
if (traceGc) {
  // "[…]  1234 ms: Scavenge 12.3 (14.0) -> … MB, …, 1.23 / 0.00 ms (+ 4.5 ms
  // in 20 steps …)": the time since the isolate started (about the peer's
  // performance.now()), the pause, and an incremental marking's steps. By
  // time, not by order: V8's trace is buffered apart from the peer's line.
  // The peer's own gc() calls ("testing") are left out.
  const row = JSON.parse(line) as {
    startedAt: number;
    syncedAt: number;
    watchedAt: number;
  };
  const phases = {
    sync: { from: row.startedAt, to: row.syncedAt, scavenge: 0, mark: 0 },
    watch: { from: row.syncedAt, to: row.watchedAt, scavenge: 0, mark: 0 },
  };
  for (const l of stdout) {
    const time = /(\d+) ms: /.exec(l);
    const pause = /, ([\d.]+) \/ [\d.]+ ms/.exec(l);
    if (!time || !pause || l.includes("testing")) continue;
    const steps = /\+ ([\d.]+) ms in \d+ steps/.exec(l);
    const ms = Number(pause[1]) + (steps ? Number(steps[1]) : 0);
    const at = Number(time[1]);
    for (const phase of Object.values(phases)) {
      if (at < phase.from || at > phase.to) continue;
      if (/Scavenge/.test(l)) phase.scavenge += ms;
      else phase.mark += ms;
    }
  }
  for (const [name, { from, to, scavenge, mark }] of Object.entries(phases)) {
    const wall = to - from;
    // deno-lint-ignore no-console
    console.log(
      `${name}: ${wall.toFixed(0)} ms; GC on the main thread ${
        (scavenge + mark).toFixed(0)
      } ms (${((scavenge + mark) / wall * 100).toFixed(0)} %): scavenges ${
        scavenge.toFixed(0)
      } ms, mark-compacts (pauses and incremental steps) ${mark.toFixed(0)} ms`,
    );
  }
  Deno.exit(0);
}
// V8 15 logs code states Node 20's tick processor does not know.
const text = (await Deno.readTextFile(log)).replace(
  /,o([+*^~])$/gm,
  (_, state: string) => `,${state === "+" ? "~" : state}`,
);
await Deno.writeTextFile(log, text);
const processed = await new Deno.Command("node", {
  args: ["--prof-process", log],
  stdout: "piped",
  stderr: "null",
}).output();
const summary = new TextDecoder().decode(processed.stdout);
await Deno.writeTextFile(`${dir}${name}.txt`, summary);
// deno-lint-ignore no-console
console.log(summary.split("\n").slice(0, top).join("\n"));
