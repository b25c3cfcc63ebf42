// The client's cost per request beside bare fetch on loopback, measured in
// interleaved rounds (median of 60 rounds of 100 requests each), which is
// steadier than separate runs on a shared machine:
//   deno run --allow-net=127.0.0.1 bench/client_interleaved.ts
import { Client } from "../apiclient/mod.ts";

const body = JSON.stringify({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "settings", namespace: "default", resourceVersion: "42" },
  data: { color: "blue", size: "x".repeat(800) },
});
const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen(): void {} },
  () => new Response(body, { headers: { "content-type": "application/json" } }),
);
const base = `http://127.0.0.1:${server.addr.port}`;
const path = "/api/v1/namespaces/default/configmaps/settings";
const client = new Client(base);

const variants: Record<string, () => Promise<unknown>> = {
  "bare fetch + JSON.parse": async () => {
    const response = await fetch(base + path, {
      headers: { Accept: "application/json" },
    });
    return JSON.parse(await response.text());
  },
  "client.get": () => client.get(path),
};
const rounds: Record<string, number[]> = {};
for (const name in variants) rounds[name] = [];
for (let i = 0; i < 300; i++) await variants["bare fetch + JSON.parse"]!();
for (let round = 0; round < 60; round++) {
  for (const [name, send] of Object.entries(variants)) {
    const started = performance.now();
    for (let i = 0; i < 100; i++) await send();
    rounds[name]!.push((performance.now() - started) * 10);
  }
}
const median = (values: number[]): number =>
  values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const bare = median(rounds["bare fetch + JSON.parse"]!);
for (const [name, values] of Object.entries(rounds)) {
  const m = median(values);
  // deno-lint-ignore no-console
  console.log(
    `${name.padEnd(24)} ${m.toFixed(1).padStart(7)} µs  ${
      (m / bare).toFixed(2)
    }×`,
  );
}
await server.shutdown();
