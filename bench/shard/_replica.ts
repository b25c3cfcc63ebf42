// One replica of the sharding bench, a process of its own: a sharded
// controller (`shards`) whose reconcile burns a fixed CPU cost, or, with
// `--sharder`, a Sharder alone. It prints one JSON line when its part is
// done (every object it holds reconciled once; for the sharder, every
// object labelled), then waits to be killed so that its CPU time can be
// read.
//
//   deno run --allow-net=127.0.0.1 --v8-flags=--expose-gc \
//     bench/shard/_replica.ts --server=URL --identity=op-0 --objects=N \
//     --cost=5 [--sharder]
import { Client } from "../../apiclient/mod.ts";
import { Controller } from "../../controller/mod.ts";
import { Sharder, shardLabel } from "../../shard/mod.ts";

/** The ring, its namespace, and the primaries of the bench. */
export const RING = "bench";
export const NS = "default";
export const CONFIGMAPS = {
  version: "v1",
  resource: "configmaps",
  kind: "ConfigMap",
  namespace: NS,
};

/** What a replica reports. */
export interface ReplicaReport {
  identity: string;
  /** Objects in its primary cache once done. */
  cached: number;
  reconciled: number;
  /** Wall-clock ms of its first reconcile start and last reconcile end. */
  first: number;
  last: number;
  /** Heap after a full GC, bytes. */
  heap: number;
  rss: number;
}

function arg(name: string): string | undefined {
  const found = Deno.args.find((a) => a.startsWith(`--${name}=`));
  return found?.slice(name.length + 3);
}

function wall(): number {
  return performance.timeOrigin + performance.now();
}

function heap(): { heap: number; rss: number } {
  (globalThis as { gc?: () => void }).gc?.();
  const usage = Deno.memoryUsage();
  return { heap: usage.heapUsed, rss: usage.rss };
}

function report(line: unknown): void {
  // deno-lint-ignore no-console
  console.log(JSON.stringify(line));
}

if (import.meta.main) {
  const server = arg("server")!;
  const identity = arg("identity")!;
  const objects = Number(arg("objects"));
  const cost = Number(arg("cost") ?? "5");
  const client = new Client(server);
  if (Deno.args.includes("--sharder")) {
    const started = wall();
    const sharder = new Sharder(client, {
      ring: RING,
      namespace: NS,
      for: CONFIGMAPS,
      pod: identity,
      exit: () => {},
    });
    const label = shardLabel(RING);
    const configMaps = client.resource(CONFIGMAPS);
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const list = await configMaps.list({ labelSelector: label });
      if (list.items.length >= objects) break;
    }
    report({ identity, seconds: (wall() - started) / 1000, ...heap() });
    await new Promise(() => {}); // killed by the bench
    await sharder.stop();
  } else {
    let first = Infinity;
    let last = 0;
    let reconciled = 0;
    const held = new Set<string>();
    const controller = new Controller(client, {
      name: "bench",
      for: CONFIGMAPS,
      wiring: {
        shards: { ring: RING, namespace: NS, identity, exit: () => {} },
      },
      concurrency: 1,
      reconcile: async ({ key }) => {
        const start = wall();
        first = Math.min(first, start);
        // The simulated work: CPU-bound, as a reconcile that renders and
        // compares its children.
        const end = performance.now() + cost;
        while (performance.now() < end) { /* burn */ }
        // And its requests: a real reconcile awaits the API server, which
        // lets the member's Lease renewals run between reconciles (a
        // reconcile that never yields to the event loop starves them).
        await new Promise((resolve) => setTimeout(resolve, 0));
        if (!held.has(key)) {
          held.add(key);
          reconciled++;
        }
        last = wall();
      },
    });
    const expected = Number(arg("expect") ?? "0");
    while (reconciled < expected) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const out: ReplicaReport = {
      identity,
      cached: expected,
      reconciled,
      first,
      last,
      ...heap(),
    };
    report(out);
    await new Promise(() => {}); // killed by the bench
    await controller.stop();
  }
}
