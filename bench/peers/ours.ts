// Our informer (`Collection`) on ConfigMaps or Pods (`--kind`; all
// namespaces) against the replay server: first full sync, heap after sync
// (heapUsed after gc(), run with --v8-flags=--expose-gc), RSS, then watch
// events/s. Prints one JSON line once it posted /_replay/done, then runs on
// (the server ends the watch with a 410 and times the relist) until the
// driver kills it. `--meta` holds metadata only; `--bytes` keeps each
// object as its text (`storage: "bytes"`); `--reads` gives it a handler
// that reads every field of each event's object (so each is parsed whole),
// `--changed` one that asks a controller's `meaningfulChange(old, object)`
// (so only metadata is parsed); `--exit` exits once
// the line is out (bench/scale/profile.ts: a V8 profile is written on exit).
// Heap is V8's heapUsed plus external memory (bytes kept off the heap count).
import process from "node:process";
import { Client } from "../../apiclient/mod.ts";
import { Collection } from "../../informer/mod.ts";
import { meaningfulChange } from "../../controller/changes.ts";

function arg(name: string): string | undefined {
  const prefix = `--${name}=`;
  return Deno.args.find((a) => a.startsWith(prefix))?.slice(prefix.length);
}

// RSS from Deno.memoryUsage(), which needs no permission (Deno reads
// /proc only with --allow-all); the peak is sampled every 10 ms.
let peakRss = Deno.memoryUsage().rss;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, Deno.memoryUsage().rss);
}, 10);

const url = arg("url") ?? Deno.env.get("REPLAY_URL")!;
const expected = Number(arg("objects") ?? 0);
const events = Number(arg("events") ?? 0);
const metadataOnly = Deno.args.includes("--meta");
const bytes = Deno.args.includes("--bytes");
const reads = Deno.args.includes("--reads");
const changed = Deno.args.includes("--changed");
const resource = arg("kind") ?? "configmaps";
const gc = (globalThis as { gc?: () => void }).gc;

let updates = 0;
const allEvents = Promise.withResolvers<void>();
const synced = Promise.withResolvers<void>();
const client = new Client(url, { timeout: 600_000 });
// The heap before the collection starts: the driver counts what the cache
// adds, not the runtime's and the modules' own heap.
gc?.();
const memory = (): number => {
  const { heapUsed, external } = Deno.memoryUsage();
  return heapUsed + external;
};
const heapBase = memory();
let seen = "";
const t0 = performance.now();
const cpu0 = process.cpuUsage();
const collection = new Collection(client, {
  version: "v1",
  resource,
}, {
  metadataOnly,
  storage: bytes ? "bytes" : "objects",
  synced: synced.resolve,
  // Without `--reads` or `--changed` the handler reads nothing: a store of
  // bytes then parses no field past metadata.
  handler: reads
    ? {
      update: (_old, object): void => {
        // Every field: a store of bytes parses each.
        seen = String(Object.values(object).length);
        if (++updates === events) allEvents.resolve();
      },
    }
    : changed
    ? {
      update: (old, object): void => {
        if (meaningfulChange(old, object)) seen = "changed";
        if (++updates === events) allEvents.resolve();
      },
    }
    : {
      update: (): void => {
        if (++updates === events) allEvents.resolve();
      },
    },
  // A failure shows on stderr (the default logger's errors); the driver
  // prints it with the row.
});
await synced.promise;
const syncedAt = performance.now();
const cpuSynced = process.cpuUsage(cpu0);
const syncMs = syncedAt - t0;
gc?.();
gc?.();
const heap = memory();
const rss = Deno.memoryUsage().rss;
peakRss = Math.max(peakRss, rss);

const started = performance.now();
await (await fetch(`${url}/_replay/go`, { method: "POST" })).text();
if (events > 0) await allEvents.promise;
// The reading peer must have read its objects, or its row measures nothing.
if ((reads || changed) && events > 0 && seen === "") {
  throw new Error("The reading handler read no object");
}
const watchedAt = performance.now();
const watchS = (watchedAt - started) / 1000;
// The end of the watch phase: the driver reads the CPU time, then the
// server sends the 410.
await (await fetch(`${url}/_replay/done`, { method: "POST" })).text();
const line = JSON.stringify({
  peer: `ours${metadataOnly ? " (metadata)" : ""}${
    bytes ? ` (bytes${reads ? "+reads" : changed ? "+changed" : ""})` : ""
  }`,
  version: `@liken/kubernetes, deno ${Deno.version.deno}`,
  objects: collection.store.size,
  expected,
  syncMs,
  heap,
  heapBase,
  rss,
  peakRss,
  events,
  eventsPerSecond: events / watchS,
  // On the process's clock, for bench/scale/profile.ts --gc.
  startedAt: t0,
  // CPU time (every thread of the process) over the sync: against syncMs,
  // how much of the sync the peer worked rather than waited.
  syncCpuMs: (cpuSynced.user + cpuSynced.system) / 1000,
  syncedAt,
  watchedAt,
});
await Deno.stdout.write(new TextEncoder().encode(line + "\n"));
clearInterval(sampler);
if (Deno.args.includes("--exit")) Deno.exit(0);
// The collection relists after the 410; the driver kills the process.
