// The request timeout: its default, its limits, and the one deadline timer
// that concurrent requests share.
import assert from "node:assert/strict";
import { Client, RequestTimeoutError } from "./mod.ts";
import { installFakeTime } from "../testing/fake_time.ts";
import { json, scripted } from "./_scripted_test_util.ts";

Deno.test("a request that outlasts the timeout fails with RequestTimeoutError", async () => {
  using time = installFakeTime();
  const { fetch } = scripted(() => new Promise<Response>(() => {}));
  const pending = new Client("http://api", { fetch, timeout: 15_000 }).get(
    "/slow",
  ).catch((e) => e);
  await time.tick(14_999);
  let settled = false;
  pending.then(() => settled = true);
  await time.settle();
  assert.equal(settled, false);
  await time.tick(1);
  const error = await pending;
  assert.ok(error instanceof RequestTimeoutError);
  assert.match(error.message, /GET \/slow did not finish within 15000 ms/);
});

Deno.test("the default timeout is 30 s and covers reading the body", async () => {
  using time = installFakeTime();
  const { fetch } = scripted(() =>
    new Response(
      new ReadableStream({
        start(c): void {
          c.enqueue(new TextEncoder().encode("{"));
        },
      }),
    )
  );
  let settled = false;
  const pending = new Client("http://api", { fetch }).get("/slow-body").catch((
    e,
  ) => e).finally(() => settled = true);
  await time.tick(29_999);
  assert.equal(settled, false);
  await time.tick(1);
  assert.ok(await pending instanceof RequestTimeoutError);
});

Deno.test("a timeout of 0 means the default 30 s; Infinity means none; a negative one is refused", async () => {
  using time = installFakeTime();
  const { fetch } = scripted(() => new Promise<Response>(() => {}));
  let settled = false;
  const pending = new Client("http://api", { fetch, timeout: 0 }).get("/x")
    .catch((e) => e).finally(() => settled = true);
  await time.tick(29_999);
  assert.equal(settled, false);
  await time.tick(1);
  assert.ok(await pending instanceof RequestTimeoutError);

  const stop = new AbortController();
  let endless = false;
  const unlimited = new Client("http://api", { fetch, timeout: Infinity })
    .get("/x", { signal: stop.signal }).catch((e) => e).finally(() =>
      endless = true
    );
  await time.tick(24 * 3600_000);
  assert.equal(endless, false);
  stop.abort(new Error("done"));
  assert.equal((await unlimited as Error).message, "done");
  assert.throws(() => new Client("http://api", { timeout: -1 }), RangeError);
});

Deno.test("concurrent requests share one deadline timer; each times out at its own deadline", async () => {
  using time = installFakeTime();
  const { fetch } = scripted((request) =>
    request.url.endsWith("/fast")
      ? json(200, { ok: true })
      : new Promise<Response>(() => {})
  );
  const client = new Client("http://api", { fetch, timeout: 10_000 });
  const first = client.get("/slow-1").catch((e) => e);
  await time.tick(3_000);
  const second = client.get("/slow-2").catch((e) => e);
  await time.tick(1_000);
  assert.deepEqual(await client.get("/fast"), { ok: true });
  assert.equal(time.countTimers(), 1);
  let firstAt = 0;
  let secondAt = 0;
  void first.then(() => firstAt = Date.now());
  void second.then(() => secondAt = Date.now());
  await time.tick(6_000);
  assert.ok(await first instanceof RequestTimeoutError);
  assert.equal(firstAt, 10_000);
  assert.equal(secondAt, 0);
  await time.tick(3_000);
  assert.ok(await second instanceof RequestTimeoutError);
  assert.equal(secondAt, 13_000);
  assert.equal(time.countTimers(), 0);
});
