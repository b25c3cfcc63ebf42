// The cost of deep-freezing a shared store's copies: the first sync of
// 10,000 ConfigMaps of about 1 KB each (managedFields included) on the fake
// API server's in-memory fetch, with and without `freeze`.
//
//   deno bench --allow-env --allow-read bench/freeze_bench.ts
//
// Each run has a fresh fake (filled outside the timed part): a stopped
// watch's objects stay reachable from the fake that served them, so one
// fake for every run would run out of memory.
//
// Measured on the 2 vCPU test machine (Deno 2.9.6): freeze: true took
// 1.00 to 1.15x the time of freeze: false from run to run (one run: 117.3 vs
// 102.0 ms); the freezing alone was about 5 ms of a 90 to 115 ms sync.
// `Collections` (and so a Manager) freezes by default: a shared cache that
// one controller can change under another is the worse failure.
import { Client } from "../apiclient/mod.ts";
import { configMap } from "./_shared.ts";
import { FakeApiServer } from "../testing/mod.ts";
import { Collection, Collections } from "../informer/mod.ts";

const OBJECTS = 10_000;
const CONFIGMAPS = { version: "v1", resource: "configmaps" };

function filled(): { server: FakeApiServer; client: Client } {
  const server = new FakeApiServer({
    freshCluster: false,
    namespaceLifecycle: false,
  });
  for (let i = 0; i < OBJECTS; i++) {
    const object = configMap(i);
    const { namespace, name } = object.metadata;
    server.put(`/api/v1/namespaces/${namespace}/configmaps/${name}`, object);
  }
  return { server, client: new Client(server.url, { fetch: server.fetch }) };
}

async function shared(b: Deno.BenchContext, freeze: boolean): Promise<void> {
  await using fake = filled().server;
  const client = new Client(fake.url, { fetch: fake.fetch });
  b.start();
  await using collections = new Collections(client, { freeze });
  const { promise, resolve } = Promise.withResolvers<void>();
  const registration = collections.register(CONFIGMAPS, { synced: resolve });
  await promise;
  b.end();
  if (registration.store.size !== OBJECTS) throw new Error("short sync");
}

const group = "first sync of 10k ConfigMaps";

Deno.bench({
  name: "Collection",
  group,
  n: 15,
  warmup: 2,
  async fn(b): Promise<void> {
    const { server, client } = filled();
    await using _ = server;
    b.start();
    const { promise, resolve } = Promise.withResolvers<void>();
    await using c = new Collection(client, CONFIGMAPS, { synced: resolve });
    await promise;
    b.end();
    if (c.store.size !== OBJECTS) throw new Error("short sync");
  },
});

Deno.bench({
  name: "Collections, freeze: false",
  group,
  baseline: true,
  n: 15,
  warmup: 2,
  async fn(b): Promise<void> {
    await shared(b, false);
  },
});

Deno.bench({
  name: "Collections, freeze: true",
  group,
  n: 15,
  warmup: 2,
  async fn(b): Promise<void> {
    await shared(b, true);
  },
});
