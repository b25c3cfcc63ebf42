// The work queue's memory at many distinct keys: a controller that falls
// behind a burst holds one queued key per changed object, so the queue's
// cost per key bounds what a backlog of 1M changes costs. The keys' own
// strings are built (and held) before the first reading: the figure is
// what the queue adds, as the Go peer's --queue-memory mode reports for
// client-go's workqueue.
//
//   deno run --v8-flags=--expose-gc bench/latency/queue_memory.ts \
//     [--keys=1000000]
//
// Prints one JSON line.
import { WorkQueue } from "../../controller/mod.ts";

/** The result line. */
export interface QueueMemory {
  peer: string;
  version: string;
  keys: number;
  bytesPerKey: number;
}

function heapAfterGc(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) {
    throw new Error("run with --v8-flags=--expose-gc: the heap needs a gc()");
  }
  gc();
  gc();
  return Deno.memoryUsage().heapUsed;
}

async function main(): Promise<void> {
  const prefix = "--keys=";
  const n = Number(
    Deno.args.find((a) => a.startsWith(prefix))?.slice(prefix.length) ??
      1_000_000,
  );
  // The same key shape as the Go mode: "<namespace>/<name>", flat strings
  // (a template literal would leave V8 cons strings, larger than the key).
  const keys: string[] = new Array(n);
  for (let i = 0; i < n; i++) {
    keys[i] = "default/cm-" + String(i).padStart(7, "0");
  }
  const before = heapAfterGc();
  await using queue = new WorkQueue();
  for (const key of keys) queue.add(key);
  const after = heapAfterGc();
  const line: QueueMemory = {
    peer: "ours WorkQueue",
    version: `@liken/kubernetes, deno ${Deno.version.deno}`,
    keys: queue.length,
    bytesPerKey: (after - before) / n,
  };
  await Deno.stdout.write(
    new TextEncoder().encode(JSON.stringify(line) + "\n"),
  );
  // The keys stay live to here, so the second reading does not count
  // their strings freed.
  if (keys.length !== n) throw new Error("unreachable");
}

if (import.meta.main) await main();
