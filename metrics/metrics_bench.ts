// What the metrics add, beside the same work without them, in one run:
//
//   deno bench --allow-net=127.0.0.1 metrics/metrics_bench.ts
//   deno bench --allow-net=127.0.0.1 metrics/metrics_bench.ts -- reverse
//
// (`reverse` registers each pair with the metrics first, to show how much
// of a difference is only the order.)
//
// A request: client.get of one ConfigMap, with and without
// Metrics.client's observer, from a stub fetch (the client's own cost
// alone) and over loopback from a Deno.serve.
// Watch throughput: 2,000 MODIFIED events through a Collection on the
// in-memory fake, with and without Metrics.collection's hooks and the
// observed client; the events are written before the clock starts, so
// both pay only for reading and handling them.
import { Client } from "../apiclient/mod.ts";
import { Collection } from "../informer/mod.ts";
import { FakeApiServer } from "../testing/mod.ts";
import { Metrics } from "./mod.ts";

const reverse = Deno.args.includes("reverse");
const order = reverse ? [true, false] : [false, true];
const EVENTS = 2_000;
const PATH = "/api/v1/namespaces/default/configmaps/settings";
const body = JSON.stringify({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "settings", namespace: "default", resourceVersion: "42" },
  data: { color: "blue", size: "x".repeat(800) },
});
const metrics = new Metrics();

function pair(
  group: string,
  client: Client,
  options: { n?: number; warmup?: number } = {},
): void {
  const observed = metrics.client(client);
  for (const withMetrics of order) {
    const target = withMetrics ? observed : client;
    Deno.bench({
      name: `client.get${withMetrics ? " with metrics" : ""} (${group})`,
      group,
      baseline: !withMetrics,
      ...options,
      async fn(): Promise<void> {
        await target.get(PATH);
      },
    });
  }
}

const stub = new Client("http://api.test", {
  fetch: () =>
    Promise.resolve(
      new Response(body, { headers: { "content-type": "application/json" } }),
    ),
});
pair("stub fetch", stub, { n: 20_000, warmup: 2_000 });

const served = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen(): void {} },
  () => new Response(body, { headers: { "content-type": "application/json" } }),
);
served.unref();
pair("loopback", new Client(`http://127.0.0.1:${served.addr.port}`), {
  n: 5_000,
  warmup: 500,
});

const server = new FakeApiServer({
  freshCluster: false,
  namespaceLifecycle: false,
});
const plain = new Client(server.url, { fetch: server.fetch });

/** A watched namespace of its own, with a handler that counts updates. */
async function watched(namespace: string, withMetrics: boolean): Promise<{
  seen: () => number;
  reach: (target: number) => Promise<void>;
}> {
  for (let i = 0; i < 100; i++) {
    server.put(`/api/v1/namespaces/${namespace}/configmaps/cm-${i}`, {
      metadata: {},
      data: { n: "0" },
    });
  }
  let seen = 0;
  let waiting: { target: number; resolve: () => void } | undefined;
  const update = (): void => {
    seen++;
    if (waiting !== undefined && seen >= waiting.target) {
      waiting.resolve();
      waiting = undefined;
    }
  };
  const synced = Promise.withResolvers<void>();
  const source = { version: "v1", resource: "configmaps", namespace };
  const hooks = { handler: { update }, synced: synced.resolve };
  new Collection(
    withMetrics ? metrics.client(plain) : plain,
    source,
    withMetrics ? { ...metrics.collection(source, hooks) } : hooks,
  );
  await synced.promise;
  return {
    seen: () => seen,
    reach: (target) => {
      if (seen >= target) return Promise.resolve();
      const { promise, resolve } = Promise.withResolvers<void>();
      waiting = { target, resolve };
      return promise;
    },
  };
}

let round = 0;
for (const withMetrics of order) {
  const namespace = withMetrics ? "with" : "without";
  const watch = await watched(namespace, withMetrics);
  Deno.bench({
    name: `${EVENTS} watch events${withMetrics ? " with metrics" : ""}`,
    group: "watch throughput (in-memory fake)",
    baseline: !withMetrics,
    n: 200,
    warmup: 20,
    async fn(b): Promise<void> {
      const target = watch.seen() + EVENTS;
      round++;
      for (let i = 0; i < EVENTS; i++) {
        server.put(`/api/v1/namespaces/${namespace}/configmaps/cm-${i % 100}`, {
          metadata: {},
          data: { n: `${round}-${i}` },
        });
      }
      // The fake keeps no history the open watches need.
      server.compact();
      b.start();
      await watch.reach(target);
      b.end();
    },
  });
}

// The metrics' own work per request and per watch event, alone.
const costs = new Metrics();
const observe = costs.requestObserver("https://10.0.0.1:443");
const outcome = { method: "GET", path: PATH, status: 200, duration: 3 };
Deno.bench({
  name: "the request observer, per request",
  group: "the metrics' own cost",
  n: 200_000,
  warmup: 20_000,
  fn(): void {
    observe(outcome);
  },
});
const costHooks = costs.collection(
  { version: "v1", resource: "configmaps" },
  { handler: { update: () => {} } },
);
const update = costHooks.handler!.update!;
const object = { metadata: { name: "a" } };
Deno.bench({
  name: "the collection's handler wrapper, per watch event",
  group: "the metrics' own cost",
  n: 200_000,
  warmup: 20_000,
  fn(): void {
    update(object, object);
  },
});
