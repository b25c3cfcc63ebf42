// The controller beside the informer it stands on, in one run, on the
// in-memory fake API server:
//
//   deno run --v8-flags=--expose-gc bench/controller.ts
//
// - 10,000 primaries: the informer's own first sync, against a controller
//   that syncs the same collection and reconciles every object once with a
//   no-op reconcile (target: at most 1.5× the informer);
// - work queue add → take → finish cycles a second (target ≥ 1 M/s);
// - heap per queued key.
// deno-lint-ignore-file no-console -- a benchmark script reports on stdout.
import { Client } from "../apiclient/mod.ts";
import { Controller, WorkQueue } from "../controller/mod.ts";
import { Collection } from "../informer/mod.ts";
import { FakeApiServer } from "../testing/mod.ts";
import { configMap, median } from "./_shared.ts";

const OBJECTS = 10_000;
const RUNS = 5;
const gc = (globalThis as { gc?: () => void }).gc;

// Heap per queued key: the queue's own structures (the key strings exist
// before and after).
if (gc !== undefined) {
  const count = 1_000_000;
  const keys = Array.from(
    { length: count },
    (_, k) => `namespace-${k % 50}/object-${k}`,
  );
  // Hashing flattens the template strings (ropes): do it before measuring,
  // or the flattening would count as a saving.
  new Set(keys).clear();
  gc();
  gc();
  const before = Deno.memoryUsage().heapUsed;
  const queue = new WorkQueue();
  for (const key of keys) queue.add(key);
  gc();
  gc();
  const after = Deno.memoryUsage().heapUsed;
  console.log(
    `work queue heap: ${
      ((after - before) / count).toFixed(0)
    } bytes a queued key (${count} keys queued: ${queue.length})`,
  );
  await queue.stop();
}

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
const source = { version: "v1", resource: "configmaps" };

async function informerSync(): Promise<number> {
  const started = performance.now();
  const synced = Promise.withResolvers<void>();
  const collection = new Collection(client, source, {
    synced: synced.resolve,
  });
  await synced.promise;
  const took = performance.now() - started;
  await collection.stop();
  return took;
}

async function controllerPass(): Promise<number> {
  let reconciled = 0;
  const started = performance.now();
  const controller = new Controller(client, {
    name: "bench",
    for: { ...source, kind: "ConfigMap" },
    reconcile: () => void reconciled++,
  });
  await controller.idle();
  const took = performance.now() - started;
  if (reconciled !== OBJECTS) throw new Error(`reconciled ${reconciled}`);
  await controller.stop();
  return took;
}

const informer: number[] = [];
const controller: number[] = [];
// Interleaved, after one warm-up of each.
await informerSync();
await controllerPass();
for (let run = 0; run < RUNS; run++) {
  gc?.();
  informer.push(await informerSync());
  gc?.();
  controller.push(await controllerPass());
}
const i = median(informer);
const c = median(controller);
console.log(
  `10,000 primaries: informer sync ${i.toFixed(0)} ms, controller sync + ` +
    `10,000 no-op reconciles ${c.toFixed(0)} ms: ${(c / i).toFixed(2)}×`,
);

// Work queue cycles: add, take, finish.
{
  const queue = new WorkQueue();
  const keys = Array.from({ length: 1_000 }, (_, k) => `ns/key-${k}`);
  const rounds = 1_000;
  let best = Infinity;
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now();
    for (let r = 0; r < rounds; r++) {
      for (const key of keys) queue.add(key);
      for (let k = 0; k < keys.length; k++) {
        const key = (await queue.take())!;
        queue.finish(key);
      }
    }
    best = Math.min(best, performance.now() - started);
  }
  const cycles = rounds * keys.length;
  console.log(
    `work queue: ${
      (cycles / best * 1000 / 1e6).toFixed(2)
    } M add+take+finish cycles/s`,
  );
  await queue.stop();
}

await server.stop();
