import assert from "node:assert/strict";
import { FakeApiServer } from "./fake_server.ts";
import { installFakeTime } from "./fake_time.ts";
import { call, watch } from "./_test_util.ts";

const CM = "/api/v1/namespaces/default/configmaps";

Deno.test("down refuses every request like a refused connection; up serves again", async () => {
  await using server = new FakeApiServer();
  await call(server, "POST", CM, { metadata: { name: "a" } });
  server.down();
  assert.equal(server.isDown, true);
  const error = await server.fetch(`${server.url}${CM}/a`).then(
    () => undefined,
    (e) => e,
  );
  assert.ok(error instanceof TypeError);
  assert.match(String(error.cause), /Connection refused/);
  assert.equal(
    server.count(),
    1,
    "a refused connection never reaches the server",
  );
  server.up();
  const back = await call(server, "GET", `${CM}/a`);
  assert.equal(back.status, 200);
  assert.equal(back.body.metadata.name, "a", "objects survive a restart");
});

Deno.test("down errors every open watch the way a reset connection does", async () => {
  await using server = new FakeApiServer();
  await call(server, "POST", CM, { metadata: { name: "a" } });
  const { lines } = await watch(server, `${CM}?watch=1`);
  assert.equal((await lines.event()).type, "ADDED");
  const next = lines.event();
  server.down();
  await assert.rejects(next, (e) => {
    assert.ok(e instanceof TypeError);
    assert.match(e.message, /error reading a body from connection/);
    return true;
  });
  assert.equal(server.openWatches, 0);
  server.up();
});

Deno.test("refuse: by method and path, for a count, with a Status body", async () => {
  await using server = new FakeApiServer();
  await call(server, "POST", CM, { metadata: { name: "a" } });
  const refusal = server.refuse({
    method: "GET",
    path: `${CM}/a`,
    status: 503,
    count: 2,
  });
  assert.equal(refusal.remaining, 2);
  const list = await call(server, "GET", CM);
  assert.equal(list.status, 200, "another path is served");
  const first = await call(server, "GET", `${CM}/a`);
  assert.equal(first.status, 503);
  assert.deepEqual(first.body, {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: "the server is currently unable to handle the request",
    reason: "ServiceUnavailable",
    code: 503,
  });
  assert.equal(refusal.remaining, 1);
  assert.equal((await call(server, "GET", `${CM}/a`)).status, 503);
  assert.equal((await call(server, "GET", `${CM}/a`)).status, 200);
  assert.equal(server.count({ method: "GET", path: `${CM}/a` }), 3);
});

Deno.test("refuse until allow(), by pattern, with reason and message", async () => {
  await using server = new FakeApiServer();
  const refusal = server.refuse({
    path: /\/configmaps/,
    status: 500,
    reason: "InternalError",
    message: "etcdserver: request timed out",
  });
  for (let i = 0; i < 3; i++) {
    const res = await call(server, "POST", CM, { metadata: { name: "a" } });
    assert.equal(res.status, 500);
    assert.equal(res.body.message, "etcdserver: request timed out");
  }
  assert.equal(refusal.remaining, Infinity);
  refusal.allow();
  assert.equal(
    (await call(server, "POST", CM, { metadata: { name: "a" } })).status,
    201,
  );
});

Deno.test("refuse 403 words the message like the API server's RBAC", async () => {
  await using server = new FakeApiServer();
  server.refuse({ method: "PUT", status: 403 });
  const res = await call(
    server,
    "PUT",
    "/apis/coordination.k8s.io/v1/namespaces/ns/leases/l",
    {
      metadata: { name: "l" },
    },
  );
  assert.equal(res.status, 403);
  assert.equal(res.body.reason, "Forbidden");
  assert.equal(
    res.body.message,
    'leases.coordination.k8s.io "l" is forbidden: User "system:serviceaccount:default:default" cannot update resource "leases" in API group "coordination.k8s.io" in the namespace "ns"',
  );
  assert.deepEqual(res.body.details, {
    name: "l",
    group: "coordination.k8s.io",
    kind: "leases",
  });
});

Deno.test("refuse 429 with Retry-After header or Status retryAfterSeconds", async () => {
  await using server = new FakeApiServer();
  server.refuse({ status: 429, count: 1, retryAfterHeader: 3 });
  server.refuse({ status: 429, count: 1, retryAfterSeconds: 7 });
  const header = await call(server, "GET", CM);
  assert.equal(header.status, 429);
  assert.equal(header.headers.get("retry-after"), "3");
  assert.equal(header.body.reason, "TooManyRequests");
  assert.equal(header.body.details, undefined);
  const details = await call(server, "GET", CM);
  assert.equal(details.status, 429);
  assert.equal(details.headers.get("retry-after"), null);
  assert.deepEqual(details.body.details, { retryAfterSeconds: 7 });
  assert.equal((await call(server, "GET", CM)).status, 200);
});

Deno.test("refuse only watches, or only other requests", async () => {
  await using server = new FakeApiServer();
  server.refuse({ path: CM, watch: true, status: 403 });
  assert.equal((await call(server, "GET", CM)).status, 200);
  assert.equal((await call(server, "GET", `${CM}?watch=1`)).status, 403);
});

Deno.test("latency delays answers on the fake clock and ends with the client's abort", async () => {
  using time = installFakeTime({ now: 0 });
  await using server = new FakeApiServer();
  server.latency(2_000);
  let answered = false;
  const pending = call(server, "GET", CM).then((r) => {
    answered = true;
    return r;
  });
  await time.tick(1_999);
  assert.equal(answered, false);
  await time.tick(1);
  assert.equal((await pending).status, 200);
  const abort = new AbortController();
  const aborted = server.fetch(`${server.url}${CM}`, { signal: abort.signal });
  await time.tick(500);
  abort.abort();
  await assert.rejects(aborted, { name: "AbortError" });
  assert.equal(time.countTimers(), 0, "the delay's timer is cleared");
  server.latency(0);
  assert.equal((await call(server, "GET", CM)).status, 200);
});

Deno.test("cutWatches ends open watches cleanly", async () => {
  await using server = new FakeApiServer();
  await call(server, "POST", CM, { metadata: { name: "a" } });
  const { lines } = await watch(server, `${CM}?watch=1`);
  const all = lines.all();
  server.cutWatches();
  const events = await all;
  assert.equal(events.length, 1);
  assert.equal(lines.rest, "");
  assert.equal(server.openWatches, 0);
});

Deno.test("corruptNextWatchLine: a truncated line, then the stream ends", async () => {
  await using server = new FakeApiServer();
  const { lines } = await watch(server, `${CM}?watch=1`);
  server.corruptNextWatchLine({ truncate: true });
  await call(server, "POST", CM, { metadata: { name: "a" } });
  assert.equal(await lines.line(), undefined);
  assert.ok(lines.rest.startsWith('{"type":"ADDED"'));
  assert.throws(() => JSON.parse(lines.rest), SyntaxError);
  assert.equal(server.openWatches, 0);
});

Deno.test("corruptNextWatchLine: a malformed JSON line, then the stream goes on", async () => {
  await using server = new FakeApiServer();
  const { lines } = await watch(server, `${CM}?watch=1`);
  server.corruptNextWatchLine();
  await call(server, "POST", CM, { metadata: { name: "a" } });
  await call(server, "POST", CM, { metadata: { name: "b" } });
  const bad = await lines.line();
  assert.throws(() => JSON.parse(bad!), SyntaxError);
  assert.equal((await lines.event()).object.metadata.name, "b");
  await lines.cancel();
});

Deno.test("disposing the server ends its watches", async () => {
  const server = new FakeApiServer();
  const { lines } = await watch(server, `${CM}?watch=1`);
  const all = lines.all();
  await server[Symbol.asyncDispose]();
  assert.deepEqual(await all, []);
  assert.equal(server.openWatches, 0);
});

Deno.test("a request aborted before the answer rejects with the abort reason", async () => {
  await using server = new FakeApiServer();
  const abort = new AbortController();
  abort.abort();
  await assert.rejects(
    server.fetch(`${server.url}${CM}`, { signal: abort.signal }),
    { name: "AbortError" },
  );
  assert.equal(server.count(), 0);
});

Deno.test("down fails a request waiting out its latency like a reset connection", async () => {
  using time = installFakeTime({ now: 0 });
  await using server = new FakeApiServer();
  server.latency(1_000);
  const pending = server.fetch(`${server.url}${CM}`);
  await time.tick(10);
  server.down();
  await assert.rejects(pending, TypeError);
  assert.equal(time.countTimers(), 0);
  server.up();
  server.latency(0);
  assert.equal((await call(server, "GET", CM)).status, 200);
});

Deno.test("refuse several methods: writes fail, reads go on", async () => {
  await using server = new FakeApiServer();
  const events = "/api/v1/namespaces/default/events";
  const refusal = server.refuse({
    method: ["POST", "PATCH"],
    path: /\/events/,
    status: 503,
    count: 2,
  });
  const event = {
    metadata: { name: "e" },
    involvedObject: { kind: "Pod", name: "p", namespace: "default" },
    reason: "R",
  };
  assert.equal((await call(server, "GET", events)).status, 200);
  assert.equal((await call(server, "POST", events, event)).status, 503);
  assert.equal(
    (await call(
      server,
      "PATCH",
      `${events}/e`,
      { count: 2 },
      "application/merge-patch+json",
    )).status,
    503,
  );
  assert.equal(refusal.remaining, 0);
  assert.equal((await call(server, "POST", events, event)).status, 201);
});
