import assert from "node:assert/strict";
import { Client, type Outcome } from "./mod.ts";
import { FakeApiServer } from "../testing/mod.ts";
import { Metrics } from "../metrics/mod.ts";
import { json, scripted } from "./_scripted_test_util.ts";

const CM = "/api/v1/namespaces/default/configmaps";

Deno.test("observers add up: a derived client keeps its parent's and adds its own", async () => {
  const { fetch } = scripted(() => json(200, {}));
  const heard: string[] = [];
  const base = new Client("http://api", { fetch });
  const first = base.withObserver((o) => heard.push(`first ${o.path}`));
  const second = first.withObserver((o) => heard.push(`second ${o.path}`));
  // Other builders keep the observers too.
  const bounded = second.withSignal(new AbortController().signal);

  await base.get("/base");
  await first.get("/first");
  await second.get("/second");
  await bounded.get("/bounded");
  assert.deepEqual(heard, [
    "first /first",
    "first /second",
    "second /second",
    "first /bounded",
    "second /bounded",
  ]);
});

Deno.test("observers: each hears each outcome once, even when added twice", async () => {
  const { fetch } = scripted(() => json(200, {}));
  const outcomes: Outcome[] = [];
  const observe = (o: Outcome): number => outcomes.push(o);
  const client = new Client("http://api", { fetch })
    .withObserver(observe)
    .withObserver(observe);
  await client.get("/a");
  assert.equal(outcomes.length, 1);
});

Deno.test("observers: one that throws stops neither the others nor the request", async () => {
  const { fetch } = scripted(() => json(200, { metadata: { name: "a" } }));
  const heard: string[] = [];
  const client = new Client("http://api", { fetch })
    .withObserver(() => {
      throw new Error("Broken observer");
    })
    .withObserver((o) => heard.push(o.method));
  const made = await client.create(CM, { metadata: { name: "a" } });
  assert.equal(made.metadata.name, "a");
  await (await client.watch(`${CM}?watch=true`)).cancel();
  assert.deepEqual(heard, ["POST", "GET"]);
});

Deno.test("observers: the metrics' observer no longer displaces the caller's (the demo's writes)", async () => {
  await using server = new FakeApiServer();
  const writes: string[] = [];
  const metrics = new Metrics();
  const own = new Client(server.url, { fetch: server.fetch })
    .withObserver((o) => {
      if (o.method !== "GET") writes.push(`${o.method} ${o.status}`);
    });
  const client = metrics.client(own);
  const made = await client.create(CM, { metadata: { name: "a" } });
  await client.replace(`${CM}/a`, made);
  await client.patch(`${CM}/a`, { metadata: { labels: { a: "b" } } }, {
    type: "merge",
  });
  assert.deepEqual(writes, ["POST 201", "PUT 200", "PATCH 200"]);
  const text = metrics.registry.render();
  assert.match(text, /rest_client_requests_total\{[^}]*method="POST"[^}]*\} 1/);
});
