import assert from "node:assert/strict";
import { FakeApiServer } from "./fake_server.ts";
import { Lines } from "./_test_util.ts";

const CM = "/api/v1/namespaces/default/configmaps";
const TIMEOUT = 10_000;

Deno.test({
  name: "served over HTTP: create, get, and a streaming watch",
  timeout: TIMEOUT,
  async fn(): Promise<void> {
    await using server = new FakeApiServer();
    await using served = await server.serve();
    assert.match(served.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(served.caCert, undefined);
    const made = await fetch(`${served.url}${CM}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ metadata: { name: "a" } }),
    });
    assert.equal(made.status, 201);
    assert.equal((await made.json()).metadata.name, "a");
    const abort = new AbortController();
    const res = await fetch(`${served.url}${CM}?watch=1`, {
      signal: abort.signal,
    });
    const lines = new Lines(res);
    assert.equal((await lines.event()).type, "ADDED");
    server.put(`${CM}/b`, { metadata: {} });
    const added = await lines.event();
    assert.equal(added.object.metadata.name, "b");
    abort.abort();
    await lines.cancel();
    assert.equal(server.count({ method: "POST" }), 1);
    // The client going away cancels the server's stream.
    for (let i = 0; i < 200 && server.openWatches > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(server.openWatches, 0);
  },
});

Deno.test({
  name: "served over HTTPS: trusted with the test CA",
  timeout: TIMEOUT,
  async fn(): Promise<void> {
    await using server = new FakeApiServer();
    await using served = await server.serve({ tls: true });
    assert.match(served.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    assert.ok(served.caCert?.includes("BEGIN CERTIFICATE"));
    using client = Deno.createHttpClient({ caCerts: [served.caCert!] });
    const res = await fetch(`${served.url}${CM}`, { client });
    assert.equal(res.status, 200);
    assert.equal((await res.json()).kind, "ConfigMapList");
    await assert.rejects(
      fetch(`${served.url}${CM}`).then((r) => r.body?.cancel()),
      TypeError,
    );
  },
});

Deno.test({
  name:
    "served: down makes the port refuse and ends watches; up serves on the same port",
  timeout: TIMEOUT,
  async fn(): Promise<void> {
    await using server = new FakeApiServer();
    await using served = await server.serve();
    const res = await fetch(`${served.url}${CM}?watch=1`);
    const lines = new Lines(res);
    const next = lines.event();
    server.down();
    await assert.rejects(next, TypeError);
    await lines.cancel();
    const refused = await fetch(`${served.url}${CM}`).then(
      (r) => r.body?.cancel(),
      (e) => e,
    );
    assert.ok(refused instanceof TypeError);
    assert.match(String(refused.cause), /Connection refused/);
    server.up();
    const back = await fetch(`${served.url}${CM}`);
    assert.equal(back.status, 200);
    await back.body?.cancel();
  },
});

Deno.test({
  name:
    "served: disposing the listener ends its open watches instead of hanging",
  timeout: TIMEOUT,
  async fn(): Promise<void> {
    await using server = new FakeApiServer();
    const served = await server.serve();
    const res = await fetch(`${served.url}${CM}?watch=1`);
    const lines = new Lines(res);
    const rest = lines.all();
    assert.equal(server.openWatches, 1);
    await served[Symbol.asyncDispose]();
    assert.deepEqual(await rest, []);
    assert.equal(server.openWatches, 0);
    const refused = await fetch(`${served.url}${CM}`).then(
      (r) => r.body?.cancel(),
      (e) => e,
    );
    assert.ok(refused instanceof TypeError, "the port no longer listens");
  },
});

Deno.test({
  name: "served: stop() stops listening, as disposing does",
  timeout: TIMEOUT,
  async fn(): Promise<void> {
    await using server = new FakeApiServer();
    const served = await server.serve();
    const ok = await fetch(`${served.url}${CM}`);
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
    await served.stop();
    const refused = await fetch(`${served.url}${CM}`).then(
      (r) => r.body?.cancel(),
      (e) => e,
    );
    assert.ok(refused instanceof TypeError, "the port no longer listens");
    await served[Symbol.asyncDispose]();
  },
});
