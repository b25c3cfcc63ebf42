// Where our informer's time goes: one peer (bench/peers/ours.ts) against a
// fresh replay server, run under V8's sampling profiler (`--prof`), then
// the profile summarised by Node's tick processor (this machine's Node 20
// reads Deno's V8 15 log once the code states it does not know are mapped
// to the ones it does).
//
//   deno run -A bench/scale/profile.ts [--objects=100000] [--events=100000]
//     [--meta] [--kind=configmaps|pods] [--mode=paged|stream] [--top=40]
//
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
const top = Number(flag("top", "40"));
const dir = new URL("../../.tmp/prof/", import.meta.url).pathname;
await Deno.mkdir(dir, { recursive: true });
const name = `${kind}-${objects}-${events}${meta ? "-meta" : ""}-${mode}`;
const log = `${dir}${name}.log`;

const data = build({ objects, events: Math.max(events, 1), mode, kind, meta });
await using server = serve(data, 0);
const peer = new URL("../peers/ours.ts", import.meta.url).pathname;
const out = await new Deno.Command(Deno.execPath(), {
  args: [
    "run",
    "--allow-net=127.0.0.1",
    "--allow-env=REPLAY_URL",
    `--v8-flags=--expose-gc,--prof,--no-logfile-per-isolate,--logfile=${log}`,
    peer,
    `--url=${server.url}`,
    `--objects=${objects}`,
    `--events=${events}`,
    `--kind=${kind}`,
    ...(meta ? ["--meta"] : []),
    "--exit",
  ],
  stdout: "piped",
  stderr: "inherit",
}).output();
const line = new TextDecoder().decode(out.stdout).trim();
// deno-lint-ignore no-console
console.log(line);
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
