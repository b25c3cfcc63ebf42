// The client's cost per request beside bare fetch, in one run:
//   deno bench --allow-net=127.0.0.1 bench/client_bench.ts
// Loopback: a Deno.serve that answers one ConfigMap. In memory: the fake API
// server's fetch, no sockets.
import { Client } from "../apiclient/mod.ts";
import { FakeApiServer } from "../testing/mod.ts";

const configMap = JSON.stringify({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: {
    name: "settings",
    namespace: "default",
    resourceVersion: "42",
    uid: "0f9a",
  },
  data: { color: "blue", size: "x".repeat(800) },
});
const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen(): void {} },
  () =>
    new Response(configMap, {
      headers: { "content-type": "application/json" },
    }),
);
server.unref();
const base = `http://127.0.0.1:${server.addr.port}`;
const path = "/api/v1/namespaces/default/configmaps/settings";
const client = new Client(base);

Deno.bench({
  name: "bare fetch + JSON.parse (loopback)",
  group: "loopback",
  baseline: true,
  async fn(): Promise<void> {
    const response = await fetch(base + path, {
      headers: { Accept: "application/json" },
    });
    JSON.parse(await response.text());
  },
});

Deno.bench({
  name: "client.get (loopback)",
  group: "loopback",
  async fn(): Promise<void> {
    await client.get(path);
  },
});

const fake = new FakeApiServer();
const memoryClient = new Client(fake.url, { fetch: fake.fetch });
await memoryClient.create("/api/v1/namespaces/default/configmaps", {
  metadata: { name: "settings" },
  data: { color: "blue", size: "x".repeat(800) },
});

Deno.bench({
  name: "bare fake.fetch + JSON.parse (in memory)",
  group: "in-memory",
  baseline: true,
  async fn(): Promise<void> {
    const response = await fake.fetch(fake.url + path, {
      headers: { Accept: "application/json" },
    });
    JSON.parse(await response.text());
  },
});

Deno.bench({
  name: "client.get (in memory)",
  group: "in-memory",
  async fn(): Promise<void> {
    await memoryClient.get(path);
  },
});
