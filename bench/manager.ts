// The memory of several controllers on one collection, in one run, on the
// in-memory fake API server:
//
//   deno run --v8-flags=--expose-gc bench/manager.ts [objects=10000]
//
// Heap held after the first sync and a no-op reconcile of every object:
// one controller alone; two controllers, each with its own watch (what two
// `Controller`s do without shared collections); and two controllers in one
// `Manager` (one watch and one store between them). Target: the manager's
// two at most 1.1× one controller.
// deno-lint-ignore-file no-console -- a benchmark script reports on stdout.
import { Client } from "../apiclient/mod.ts";
import {
  Controller,
  type ControllerOptions,
  Manager,
} from "../controller/mod.ts";
import { FakeApiServer } from "../testing/mod.ts";
import { configMap, median } from "./_shared.ts";

const OBJECTS = Number(Deno.args[0] ?? 10_000);
const RUNS = 5;
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("Run with --v8-flags=--expose-gc");

const source = { version: "v1", resource: "configmaps", kind: "ConfigMap" };

function heap(): number {
  gc!();
  gc!();
  return Deno.memoryUsage().heapUsed;
}

function options(name: string, done: () => void): ControllerOptions {
  let left = OBJECTS;
  return {
    name,
    for: source,
    reconcile: () => {
      if (--left === 0) done();
    },
  };
}

type Stoppable = { stop(): Promise<void> };

/** Heap the running controllers hold, after each reconciled every object. */
async function held(
  start: (client: Client, done: () => void) => Stoppable,
  count: number,
): Promise<number> {
  const server = new FakeApiServer({
    freshCluster: false,
    namespaceLifecycle: false,
  });
  for (let i = 0; i < OBJECTS; i++) {
    const object = configMap(i);
    server.put(
      `/api/v1/namespaces/${object.metadata.namespace}/configmaps/${object.metadata.name}`,
      object,
    );
  }
  const client = new Client(server.url, { fetch: server.fetch });
  const before = heap();
  let finished = 0;
  const all = Promise.withResolvers<void>();
  const running = start(client, () => {
    if (++finished === count) all.resolve();
  });
  await all.promise;
  const after = heap();
  await running.stop();
  await server.stop();
  return after - before;
}

const oneAlone = (client: Client, done: () => void): Stoppable =>
  new Controller(client, options("a", done));
const twoOwn = (client: Client, done: () => void): Stoppable => {
  const a = new Controller(client, options("a", done));
  const b = new Controller(client, options("b", done));
  return { stop: () => Promise.all([a.stop(), b.stop()]).then(() => {}) };
};
const twoShared = (client: Client, done: () => void): Stoppable =>
  new Manager(client, {
    controllers: [options("a", done), options("b", done)],
  });

const rows: [string, number][] = [];
for (
  const [label, start, count] of [
    ["one controller", oneAlone, 1],
    ["two controllers, own watches", twoOwn, 2],
    ["two controllers in a Manager", twoShared, 2],
  ] as const
) {
  const samples: number[] = [];
  for (let run = 0; run < RUNS; run++) samples.push(await held(start, count));
  rows.push([label, median(samples)]);
}
const base = rows[0]![1];
console.log(
  `${OBJECTS} ConfigMaps, median of ${RUNS}, ${navigator.hardwareConcurrency} cores, Deno ${Deno.version.deno}`,
);
for (const [label, bytes] of rows) {
  console.log(
    `${label.padEnd(30)} ${(bytes / 2 ** 20).toFixed(1).padStart(6)} MiB  ${
      (bytes / base).toFixed(2)
    }×`,
  );
}
