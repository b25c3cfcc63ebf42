import assert from "node:assert/strict";
import { ApiError, NotFoundError } from "../apiclient/mod.ts";
import type { KubeObject } from "../apiclient/types.ts";
import { Collection, ListError } from "./mod.ts";
import type { FakeApiServer } from "../testing/mod.ts";
import {
  change,
  CM,
  harness,
  isList,
  isStreamingList,
  isWatch,
  make,
  reads,
  recorder,
} from "./_harness_test_util.ts";
import { testLogger } from "../_internal/_log_test_util.ts";

const CONFIGMAPS = { version: "v1", resource: "configmaps" };

Deno.test("the first read is a streaming list whose stream goes on as the watch", async () => {
  await using h = harness();
  await make(h.client, "a");
  await make(h.client, "b");
  const { log, handler } = recorder();
  await using c = new Collection(h.client, CONFIGMAPS, {
    handler,
    synced: () => void log.push("synced"),
  });
  await h.time.settle();
  assert.equal(c.synced(), true);
  await make(h.client, "c");
  await h.time.settle();
  assert.deepEqual(log, ["add a 1", "add b 2", "synced", "add c 3"]);
  assert.deepEqual(reads(h.server), ["stream rv="]);
  const first = h.server.requests.find(isStreamingList)!;
  assert.equal(first.query.get("resourceVersionMatch"), "NotOlderThan");
  assert.equal(first.query.get("allowWatchBookmarks"), "true");
  const timeout = Number(first.query.get("timeoutSeconds"));
  assert.ok(timeout >= 300 && timeout < 600, `timeout ${timeout}`);
});

Deno.test("a server that refuses streaming lists is read with paginated lists from then on", async () => {
  await using h = harness();
  for (let i = 0; i < 1201; i++) {
    h.server.put(`${CM}/cm-${String(i).padStart(4, "0")}`, {
      metadata: {},
    });
  }
  h.server.refuse({ watch: true, status: 422, count: 1 });
  await using c = new Collection(h.client, CONFIGMAPS);
  await h.time.settle();
  assert.equal(c.synced(), true);
  assert.equal(c.store.size, 1201);
  assert.deepEqual(reads(h.server), [
    "stream rv=",
    "list limit=500",
    "list continue limit=500",
    "list continue limit=500",
    "watch rv=1201",
  ]);
  // After a 410 the relist is a list again, never a streaming list.
  h.server.cutWatches();
  h.server.put(`${CM}/late`, { metadata: {} });
  h.server.compact();
  await h.time.tick(10_000);
  await h.time.settle();
  assert.deepEqual(reads(h.server).slice(5), [
    "watch rv=1201",
    "list rv=1201 limit=500",
    "list continue limit=500",
    "list continue limit=500",
    "watch rv=1202",
  ]);
  assert.equal(c.store.size, 1202);
  const relist = h.server.requests.filter(isList).at(-3)!;
  assert.equal(relist.query.get("resourceVersionMatch"), "NotOlderThan");
});

Deno.test("an expired continue token falls back to one full list", async () => {
  let compactOnContinue = true;
  await using h = harness({
    fetch: (server) => (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      if (compactOnContinue && url.includes("continue=")) {
        compactOnContinue = false;
        server.put(`${CM}/late`, { metadata: {} });
        server.compact();
      }
      return server.fetch(input, init);
    },
  });
  for (let i = 0; i < 600; i++) h.server.put(`${CM}/cm-${i}`, { metadata: {} });
  h.server.refuse({ watch: true, status: 400, count: 1 });
  await using c = new Collection(h.client, CONFIGMAPS);
  await h.time.settle();
  assert.deepEqual(reads(h.server), [
    "stream rv=",
    "list limit=500",
    "list continue limit=500",
    "list",
    "watch rv=601",
  ]);
  assert.equal(c.store.size, 601);
  assert.ok(c.store.has("default/late"));
});

Deno.test("a closed watch resumes from the last delivered version without a relist", async () => {
  await using h = harness();
  await make(h.client, "a");
  const { log, handler } = recorder();
  let reopened = 0;
  await using c = new Collection(h.client, CONFIGMAPS, {
    handler,
    reopened: () => void reopened++,
  });
  await h.time.settle();
  await change(h.client, "a", { k: "1" });
  await h.time.settle();
  h.server.cutWatches();
  await change(h.client, "a", { k: "2" }); // while no watch is open
  // A watch that lasted under a second is opened again a second after it.
  await h.time.tick(1_000);
  await h.time.settle();
  assert.deepEqual(reads(h.server), ["stream rv=", "watch rv=2"]);
  assert.deepEqual(log, ["add a 1", "update a 1->2", "update a 2->3"]);
  assert.equal(reopened, 1);
  assert.equal(c.store.get("default/a")?.metadata.resourceVersion, "3");
});

Deno.test("after the server restarts the watch resumes without a relist and recovered runs", async () => {
  await using h = harness();
  await make(h.client, "a");
  const { log, handler } = recorder();
  let recovered = 0;
  await using c = new Collection(h.client, CONFIGMAPS, {
    handler,
    recovered: () => void recovered++,
  });
  await h.time.settle();
  h.server.down();
  h.server.put(`${CM}/b`, { metadata: {} });
  await h.time.settle();
  // Down: the store still answers.
  assert.equal(c.synced(), true);
  await h.time.tick(10_000);
  h.server.up();
  await h.time.tick(60_000);
  await h.time.settle();
  assert.deepEqual(reads(h.server), ["stream rv=", "watch rv=1"]);
  assert.deepEqual(log, ["add a 1", "add b 2"]);
  assert.equal(recovered, 1);
  assert.equal(c.synced(), true);
});

Deno.test("410 Gone relists at a view no older than the last seen, with tombstones for the gap", async () => {
  await using h = harness();
  await make(h.client, "a");
  await make(h.client, "b");
  const { log, handler } = recorder();
  await using c = new Collection(h.client, CONFIGMAPS, { handler });
  await h.time.settle();
  h.server.cutWatches();
  h.server.remove(`${CM}/a`);
  h.server.put(`${CM}/b`, { metadata: {}, data: { x: "y" } } as KubeObject);
  h.server.put(`${CM}/c`, { metadata: {} });
  h.server.compact();
  // The watch opens again after a second (it lasted less), then the 410's
  // backoff (at most 1.6 s) comes before the relist.
  await h.time.tick(3_000);
  await h.time.settle();
  assert.deepEqual(reads(h.server), [
    "stream rv=",
    "watch rv=2",
    "stream rv=2",
  ]);
  assert.deepEqual(log, [
    "add a 1",
    "add b 2",
    "update b 2->4",
    "add c 5",
    "tombstone default/a 1",
  ]);
  assert.deepEqual(c.store.keys(), ["default/b", "default/c"]);
});

Deno.test("bookmarks move the version a watch resumes from", async () => {
  await using h = harness({ bookmarkInterval: 1_000 });
  await make(h.client, "a");
  await using _ = new Collection(h.client, CONFIGMAPS);
  await h.time.settle();
  // Writes to another kind move the server's version only.
  await h.client.create("/api/v1/namespaces/default/secrets", {
    metadata: { name: "s" },
  });
  await h.time.tick(1_000);
  await h.time.settle();
  h.server.cutWatches();
  await h.time.settle();
  assert.deepEqual(reads(h.server), ["stream rv=", "watch rv=2"]);
});

Deno.test("failures back off 800 ms doubling to 30 s with jitter, and honour Retry-After", async () => {
  await using h = harness();
  await using c = new Collection(h.client, CONFIGMAPS);
  await h.time.settle();
  const refusal = h.server.refuse({ watch: true, status: 500 });
  h.server.cutWatches();
  await h.time.tick(300_000);
  const times = h.server.requests.filter(isWatch).slice(1).map((r) => r.time);
  const waits = times.slice(1).map((t, i) => t - times[i]!);
  let base = 800;
  for (const wait of waits) {
    assert.ok(
      wait >= base && wait <= 2 * base,
      `${wait} for ${base}: ${waits}`,
    );
    base = Math.min(base * 2, 30_000);
  }
  assert.ok(waits.length >= 8, `${waits}`);
  assert.equal(c.synced(), true); // a 500 does not make the store unready
  refusal.allow();
  await h.time.tick(61_000);
  await h.time.settle();
  h.server.refuse({
    watch: true,
    status: 429,
    count: 1,
    retryAfterSeconds: 100,
  });
  const before = h.server.requests.length;
  h.server.cutWatches();
  await h.time.tick(200_000);
  const [throttled, next] = h.server.requests.slice(before).filter(isWatch);
  const wait = next!.time - throttled!.time;
  // The server asked for 100 s: the wait is bounded at 60 s.
  assert.ok(wait >= 60_000 && wait < 62_000, `${wait}`);
});

Deno.test("the backoff starts from 800 ms again after two minutes of health", async () => {
  await using h = harness();
  await using _ = new Collection(h.client, CONFIGMAPS);
  await h.time.settle();
  const refusal = h.server.refuse({ watch: true, status: 503 });
  h.server.cutWatches();
  await h.time.tick(20_000); // 800, 1600, 3200, 6400 ...
  refusal.allow();
  await h.time.tick(60_000);
  await h.time.settle();
  await h.time.tick(125_000); // healthy
  h.server.refuse({ watch: true, status: 503, count: 1 });
  const before = h.server.requests.length;
  h.server.cutWatches();
  await h.time.tick(5_000);
  const attempts = h.server.requests.slice(before).filter(isWatch);
  assert.equal(attempts.length, 2);
  const wait = attempts[1]!.time - attempts[0]!.time;
  assert.ok(wait >= 800 && wait <= 1_600, `${wait}`);
});

Deno.test("a silent watch is ended after its timeout plus a margin", async () => {
  let stall = false;
  const bodies: ReadableStream[] = [];
  await using h = harness({
    fetch: (server) => async (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      if (stall && url.includes("watch=true")) {
        const response = await server.fetch(input, init);
        await response.body?.cancel();
        // Headers came, then nothing: a dead connection.
        const body = new ReadableStream<Uint8Array>({});
        bodies.push(body);
        return new Response(body, { status: 200 });
      }
      return server.fetch(input, init);
    },
  });
  await using _ = new Collection(h.client, CONFIGMAPS);
  await h.time.settle();
  stall = true;
  h.server.cutWatches();
  // A watch that lasted under a second is opened again a second after it.
  await h.time.tick(1_000);
  await h.time.settle();
  const silent = h.server.requests.filter(isWatch).at(-1)!;
  const timeout = Number(silent.query.get("timeoutSeconds")) * 1000;
  await h.time.tick(timeout + 29_000);
  assert.equal(h.server.requests.filter(isWatch).length, 2);
  stall = false;
  await h.time.tick(3_000);
  await h.time.settle();
  assert.equal(h.server.requests.filter(isWatch).length, 3);
  assert.equal(
    h.server.requests.filter(isWatch).at(-1)!.query.get("resourceVersion"),
    silent.query.get("resourceVersion"),
  );
});

Deno.test("a 403 on the watch makes the store unready until a watch is accepted again", async () => {
  await using h = harness();
  await make(h.client, "a");
  let recovered = 0;
  await using c = new Collection(h.client, CONFIGMAPS, {
    recovered: () => void recovered++,
  });
  await h.time.settle();
  assert.equal(c.synced(), true);
  const refusal = h.server.refuse({ watch: true, status: 403 });
  h.server.cutWatches();
  // A watch that lasted under a second is opened again a second after it.
  await h.time.tick(1_000);
  await h.time.settle();
  assert.equal(c.synced(), false);
  await h.time.tick(5_000);
  // It keeps listing after each backoff: a list is allowed.
  assert.ok(h.server.requests.filter(isList).length >= 1);
  assert.equal(c.synced(), false);
  refusal.allow();
  await h.time.tick(60_000);
  await h.time.settle();
  assert.equal(c.synced(), true);
  assert.equal(recovered, 1);
});

Deno.test("a 401 makes the store unready too; a 500 does only with unreadyOnWatchError", async () => {
  await using h = harness();
  await using lax = new Collection(h.client, CONFIGMAPS);
  await using strict = new Collection(h.client, CONFIGMAPS, {
    unreadyOnWatchError: true,
  });
  await h.time.settle();
  const unauthorized = h.server.refuse({ watch: true, status: 401 });
  h.server.cutWatches();
  // A watch that lasted under a second is opened again a second after it.
  await h.time.tick(1_000);
  await h.time.settle();
  assert.equal(lax.synced(), false);
  assert.equal(strict.synced(), false);
  unauthorized.allow();
  await h.time.tick(60_000);
  assert.equal(lax.synced(), true);
  assert.equal(strict.synced(), true);
  const failing = h.server.refuse({ watch: true, status: 500 });
  h.server.cutWatches();
  await h.time.tick(1_000);
  await h.time.settle();
  assert.equal(lax.synced(), true);
  assert.equal(strict.synced(), false);
  failing.allow();
  await h.time.tick(60_000);
  assert.equal(strict.synced(), true);
});

Deno.test("a malformed or truncated watch line resumes the watch after a wait, without a relist", async () => {
  await using h = harness();
  await make(h.client, "a");
  const { log, handler } = recorder();
  await using c = new Collection(h.client, CONFIGMAPS, { handler });
  await h.time.settle();
  h.server.corruptNextWatchLine();
  await change(h.client, "a", { k: "1" });
  await h.time.tick(2_000);
  await h.time.settle();
  h.server.corruptNextWatchLine({ truncate: true });
  await change(h.client, "a", { k: "2" });
  await h.time.tick(4_000);
  await h.time.settle();
  assert.deepEqual(reads(h.server), ["stream rv=", "watch rv=1", "watch rv=2"]);
  assert.deepEqual(log, ["add a 1", "update a 1->2", "update a 2->3"]);
  assert.equal(c.store.get("default/a")?.metadata.resourceVersion, "3");
});

Deno.test("an absent collection reads as empty, asks nothing until the recheck, then finds it", async () => {
  await using h = harness();
  const widgets = { group: "example.com", version: "v1", resource: "widgets" };
  const { log, handler } = recorder();
  const failed: unknown[] = [];
  let recovered = 0;
  await using c = new Collection(h.client, widgets, {
    handler,
    absent: (error) => error instanceof NotFoundError,
    listFailed: (error) => void failed.push(error),
    recovered: () => void recovered++,
    synced: () => void log.push("synced"),
  });
  await h.time.settle();
  assert.equal(c.synced(), true);
  assert.equal(c.store.size, 0);
  const asked = h.server.requests.length;
  assert.equal(asked, 2); // the streaming list and the list, both 404
  h.server.register({
    group: "example.com",
    version: "v1",
    resource: "widgets",
    kind: "Widget",
  });
  h.server.put("/apis/example.com/v1/namespaces/default/widgets/w", {
    metadata: {},
  });
  await h.time.tick(299_000);
  assert.equal(h.server.requests.length, asked);
  await h.time.tick(1_000);
  await h.time.settle();
  assert.deepEqual(log, ["synced", "add w 1"]);
  assert.deepEqual(failed, []);
  assert.equal(recovered, 0);
  assert.equal(c.synced(), true);
});

Deno.test("a recheck interval can be set, and a collection that goes away empties the store", async () => {
  await using h = harness();
  const { log, handler } = recorder();
  await make(h.client, "a");
  await using c = new Collection(h.client, CONFIGMAPS, {
    handler,
    absent: (error) => error instanceof NotFoundError,
    absentRecheck: 10_000,
  });
  await h.time.settle();
  assert.equal(c.store.size, 1);
  const gone = h.server.refuse({ path: /configmaps/, status: 404 });
  h.server.cutWatches();
  await h.time.tick(60_000);
  assert.equal(c.store.size, 0);
  assert.deepEqual(log, ["add a 1", "tombstone default/a 1"]);
  gone.allow();
  await h.time.tick(10_000);
  await h.time.settle();
  assert.deepEqual(log.at(-1), "add a 1");
});

Deno.test("listFailed runs for each failed list, and the reflector keeps trying", async () => {
  await using h = harness();
  await make(h.client, "a");
  h.server.refuse({ watch: true, status: 400, count: 1 });
  const refusal = h.server.refuse({ watch: false, status: 500 });
  const failed: number[] = [];
  await using c = new Collection(h.client, CONFIGMAPS, {
    // The ListError onError hears too, the server's error its cause.
    listFailed: (error) =>
      void failed.push(
        error instanceof ListError && !error.streaming &&
          error.cause instanceof ApiError
          ? error.cause.status
          : -1,
      ),
  });
  await h.time.tick(60_000);
  assert.ok(failed.length >= 5, `${failed}`);
  assert.ok(failed.every((s) => s === 500));
  assert.equal(c.synced(), false);
  refusal.allow();
  await h.time.tick(60_000);
  await h.time.settle();
  assert.equal(c.synced(), true);
  assert.equal(c.store.size, 1);
});

Deno.test("an ERROR event other than 410 resumes or relists after a wait", async () => {
  const script: string[] = [];
  await using h = harness({
    fetch: (server) => async (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      const line = url.includes("watch=true") ? script.shift() : undefined;
      if (line !== undefined) {
        const response = await server.fetch(input, init);
        await response.body?.cancel();
        return new Response(line + "\n", { status: 200 });
      }
      return server.fetch(input, init);
    },
  });
  await make(h.client, "a");
  await using c = new Collection(h.client, CONFIGMAPS);
  await h.time.settle();
  script.push(
    JSON.stringify({
      type: "ERROR",
      object: { kind: "Status", code: 500, reason: "InternalError" },
    }),
    JSON.stringify({
      type: "ERROR",
      object: { kind: "Status", code: 400, reason: "BadRequest" },
    }),
  );
  h.server.cutWatches();
  await h.time.tick(10_000);
  await h.time.settle();
  assert.deepEqual(reads(h.server), [
    "stream rv=",
    "watch rv=1",
    "watch rv=1",
    "stream rv=1",
  ]);
  assert.equal(c.synced(), true);
});

Deno.test("a watch that closes at once with no event waits before the next", async () => {
  await using h = harness({
    fetch: (server) => async (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      if (url.includes("watch=true") && !url.includes("sendInitialEvents")) {
        const response = await server.fetch(input, init);
        await response.body?.cancel();
        return new Response("", { status: 200 });
      }
      return server.fetch(input, init);
    },
  });
  await using _ = new Collection(h.client, CONFIGMAPS);
  await h.time.settle();
  h.server.cutWatches();
  await h.time.tick(10_000);
  // Without the wait this would be thousands of watches.
  const watches = h.server.requests.filter(isWatch).length;
  assert.ok(watches >= 4 && watches <= 8, `${watches}`);
});

Deno.test("selectors and the namespace reach every request", async () => {
  await using h = harness();
  h.server.refuse({ watch: true, status: 422, count: 1 });
  await using _ = new Collection(h.client, {
    version: "v1",
    resource: "configmaps",
    namespace: "default",
    labelSelector: "app=web",
    fieldSelector: "metadata.name=a",
  });
  await h.time.settle();
  assert.equal(h.server.requests.length, 3);
  for (const request of h.server.requests) {
    assert.equal(request.path, CM);
    assert.equal(request.query.get("labelSelector"), "app=web");
    assert.equal(request.query.get("fieldSelector"), "metadata.name=a");
  }
});

Deno.test("the signal stops the watch; done settles after the last handler returned", async () => {
  await using h = harness();
  await make(h.client, "a");
  const controller = new AbortController();
  const finished: string[] = [];
  const c = new Collection(h.client, CONFIGMAPS, {
    handler: {
      add: async (o) => {
        await new Promise((r) => setTimeout(r, 5_000));
        finished.push(o.metadata.name!);
      },
    },
    signal: controller.signal,
  });
  await h.time.settle();
  controller.abort();
  let done = false;
  c.done.then(() => done = true);
  await h.time.settle();
  assert.equal(done, false);
  await h.time.tick(5_000);
  await h.time.settle();
  assert.equal(done, true);
  assert.deepEqual(finished, ["a"]);
  assert.equal(h.server.openWatches, 0);
});

/** A fetch that cuts the first `cuts` streaming lists after their first line. */
function cutStreams(cuts: number): (server: FakeApiServer) => typeof fetch {
  return (server) => async (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    const response = await server.fetch(input, init);
    if (cuts === 0 || !url.includes("sendInitialEvents=true")) return response;
    cuts--;
    // The first line, then the end of the stream.
    const reader = response.body!.getReader();
    let text = "";
    while (!text.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    await reader.cancel();
    const first = text.slice(0, text.indexOf("\n") + 1);
    return new Response(first, { status: 200, headers: response.headers });
  };
}

Deno.test("a streaming list cut before its end marker is asked for again after a backoff", async () => {
  await using h = harness({ fetch: cutStreams(1) });
  await make(h.client, "a");
  await make(h.client, "b");
  const { log, handler } = recorder();
  const reported: unknown[] = [];
  await using c = new Collection(h.client, CONFIGMAPS, {
    handler,
    logger: testLogger({ onError: (error) => void reported.push(error) }),
  });
  await h.time.settle();
  assert.equal(c.synced(), false);
  assert.equal(reported.length, 1, "the cut is reported");
  assert.deepEqual(reads(h.server), ["stream rv="]);
  await h.time.tick(1_600); // the first backoff: 800 ms to 1.6 s
  await h.time.settle();
  assert.equal(c.synced(), true);
  assert.deepEqual(log, ["add a 1", "add b 2"]);
  // A streaming list again, never a paginated list: the cut was no refusal.
  assert.deepEqual(reads(h.server), ["stream rv=", "stream rv="]);
});

Deno.test("a streaming list refused with 500 falls back to a list for that attempt only", async () => {
  await using h = harness();
  await make(h.client, "a");
  h.server.refuse({ watch: true, status: 500, count: 1 });
  const reported: unknown[] = [];
  await using c = new Collection(h.client, CONFIGMAPS, {
    logger: testLogger({ onError: (error) => void reported.push(error) }),
  });
  await h.time.settle();
  assert.equal(c.synced(), true);
  assert.deepEqual(reads(h.server), [
    "stream rv=",
    "list limit=500",
    "watch rv=1",
  ]);
  assert.equal(reported.length, 1, "the refusal is reported");
  // The next whole read is a streaming list again.
  h.server.cutWatches();
  await make(h.client, "b");
  h.server.compact();
  // Two backoffs: the watch closed at once with no event, then the 410.
  await h.time.tick(5_000);
  await h.time.settle();
  assert.deepEqual(reads(h.server).slice(3), ["watch rv=1", "stream rv=1"]);
  assert.equal(c.current(), true);
});

Deno.test("a list at a version the server has not reached is retried at once at the newest", async () => {
  await using h = harness();
  await make(h.client, "a");
  h.server.refuse({ watch: true, status: 422, count: 1 });
  await using c = new Collection(h.client, CONFIGMAPS);
  await h.time.settle();
  h.server.cutWatches();
  h.server.put(`${CM}/b`, { metadata: {} });
  h.server.compact();
  h.server.refuse({
    watch: false,
    status: 504,
    reason: "Timeout",
    message: "Too large resource version",
    count: 1,
  });
  await h.time.tick(5_000);
  await h.time.settle();
  assert.deepEqual(reads(h.server), [
    "stream rv=",
    "list limit=500",
    "watch rv=1",
    "watch rv=1",
    "list rv=1 limit=500",
    "list limit=500",
    "watch rv=2",
  ]);
  assert.equal(c.store.size, 2);
});

Deno.test("a 410 on a watch that worked for a while relists at once; one as a watch opens waits the backoff", async () => {
  const expired = JSON.stringify({
    type: "ERROR",
    object: {
      kind: "Status",
      code: 410,
      reason: "Expired",
      message: "too old resource version",
    },
  }) + "\n";
  // Each scripted watch answers its 410 after this many ms.
  const script: number[] = [];
  await using h = harness({
    fetch: (server) => async (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      const after = url.includes("watch=true") ? script.shift() : undefined;
      if (after === undefined) return server.fetch(input, init);
      const response = await server.fetch(input, init);
      await response.body?.cancel();
      const body = new ReadableStream<Uint8Array>({
        start(controller): void {
          setTimeout(() => {
            controller.enqueue(new TextEncoder().encode(expired));
            controller.close();
          }, after);
        },
      });
      return new Response(body, { status: 200 });
    },
  });
  await make(h.client, "a");
  await using c = new Collection(h.client, CONFIGMAPS);
  await h.time.settle();
  // Compaction passes a watch open for 5 s: the relist follows the 410.
  script.push(5_000);
  h.server.cutWatches();
  await h.time.tick(1_100); // the cut watch lasted less than a second
  const since = h.server.requests.length;
  await h.time.tick(5_000);
  await h.time.settle();
  const relist = h.server.requests.slice(since).find(isStreamingList);
  const watch = h.server.requests.slice(0, since).findLast(isWatch);
  assert.ok(relist !== undefined && watch !== undefined);
  assert.ok(relist.time - watch.time < 5_100, `${relist.time - watch.time}`);
  // A watch that is expired as it opens waits its backoff (at least 800
  // ms) before the relist.
  script.push(0);
  const next = h.server.requests.length;
  h.server.cutWatches();
  await h.time.tick(5_000);
  await h.time.settle();
  const expiredWatch = h.server.requests.slice(next).find(isWatch);
  const second = h.server.requests.slice(next).find(isStreamingList);
  assert.ok(expiredWatch !== undefined && second !== undefined);
  assert.ok(
    second.time - expiredWatch.time >= 800,
    `${second.time - expiredWatch.time}`,
  );
  assert.equal(c.synced(), true);
});
