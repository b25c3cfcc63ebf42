import assert from "node:assert/strict";
import { WatchIdleError } from "../apiclient/mod.ts";
import type { KubeObject } from "../apiclient/types.ts";
import { Collection, WatchError, watchOne } from "./mod.ts";
import {
  ABANDONED_BEFORE_DISTRUST,
  DEFAULT_HEARTBEAT_TIMEOUT,
  heartbeatTimeout,
} from "./_heartbeat.ts";
import { CM, harness, isWatch, stallable } from "./_harness_test_util.ts";
import type { Harness } from "./_harness_test_util.ts";
import { testLogger } from "../_internal/_log_test_util.ts";

const CONFIGMAPS = { version: "v1", resource: "configmaps" };

/** The watch requests so far (streaming lists included). */
function watches(h: Harness): number {
  return h.server.requests.filter(isWatch).length;
}

/** Whether a report is a watch abandoned for silence. */
function idle(error: unknown): boolean {
  return error instanceof WatchError && error.cause instanceof WatchIdleError;
}

/** Errors other than the idle ones. */
function others(errors: unknown[]): unknown[] {
  return errors.filter((e) => !idle(e));
}

Deno.test("a watch stalled after periodic bookmarks is abandoned within the heartbeat timeout and the store catches up", async () => {
  const s = stallable();
  await using h = harness({ fetch: s.fetch });
  const errors: unknown[] = [];
  await using c = new Collection(h.client, CONFIGMAPS, {
    logger: testLogger({ onError: (e) => void errors.push(e) }),
  });
  await h.time.settle();
  const start = Date.now();
  // The first periodic bookmark arrives a minute in: the heartbeat is known.
  await h.time.tick(60_000);
  await h.time.settle();
  s.stall = true;
  h.server.put(`${CM}/late`, { metadata: {} });
  await h.time.settle();
  assert.equal(c.store.has("default/late"), false);
  assert.equal(s.stalled, 1);
  // Silent since the bookmark at 60 s: still trusted 1 ms before 150 s more.
  await h.time.tick(
    start + 60_000 + DEFAULT_HEARTBEAT_TIMEOUT - 1 - Date.now(),
  );
  assert.equal(watches(h), 1);
  assert.equal(errors.length, 0);
  s.stall = false;
  await h.time.tick(1);
  await h.time.settle();
  assert.equal(errors.length, 1);
  assert.ok(idle(errors[0]));
  assert.match(String(errors[0]), /silent for 150000 ms/);
  // Resumed after the first backoff (at most 1.6 s), from the last version.
  await h.time.tick(1_600);
  await h.time.settle();
  assert.equal(watches(h), 2);
  assert.equal(c.store.has("default/late"), true);
  assert.equal(c.current(), true);
});

Deno.test("a server without periodic bookmarks keeps the long limit, the bookmark before a timeout notwithstanding", async () => {
  const s = stallable();
  await using h = harness({ fetch: s.fetch });
  h.server.stopBookmarks();
  const errors: unknown[] = [];
  await using c = new Collection(h.client, CONFIGMAPS, {
    logger: testLogger({ onError: (e) => void errors.push(e) }),
  });
  await h.time.settle();
  // The first watch lives to its timeout: its one bookmark comes 2 s before.
  const first = h.server.requests.filter(isWatch)[0]!;
  await h.time.tick(Number(first.query.get("timeoutSeconds")) * 1000);
  await h.time.settle();
  assert.equal(watches(h), 2);
  const second = h.server.requests.filter(isWatch)[1]!;
  const opened = second.time;
  const timeout = Number(second.query.get("timeoutSeconds")) * 1000;
  s.stall = true;
  h.server.put(`${CM}/late`, { metadata: {} });
  await h.time.tick(opened + timeout + 29_000 - Date.now());
  assert.equal(watches(h), 2);
  assert.equal(errors.length, 0);
  assert.equal(c.store.has("default/late"), false);
  s.stall = false;
  await h.time.tick(2_000);
  await h.time.settle();
  assert.equal(errors.length, 1);
  assert.match(String(errors[0]), new RegExp(`silent for ${timeout + 30_000}`));
  await h.time.tick(1_600);
  await h.time.settle();
  assert.equal(c.store.has("default/late"), true);
});

Deno.test("a stream that sends only bookmarks is never abandoned", async () => {
  await using h = harness();
  const errors: unknown[] = [];
  await using _ = new Collection(h.client, CONFIGMAPS, {
    logger: testLogger({ onError: (e) => void errors.push(e) }),
  });
  await h.time.settle();
  for (let i = 0; i < 40; i++) await h.time.tick(30_000);
  await h.time.settle();
  assert.equal(errors.length, 0);
  // Each watch ended at its own timeout (300 to 600 s), none sooner.
  const opened = h.server.requests.filter(isWatch);
  assert.ok(opened.length >= 2 && opened.length <= 5, `${opened.length}`);
  for (let i = 1; i < opened.length; i++) {
    const lasted = opened[i]!.time - opened[i - 1]!.time;
    const timeout = Number(opened[i - 1]!.query.get("timeoutSeconds")) * 1000;
    assert.ok(lasted >= timeout, `watch ${i} lasted ${lasted} of ${timeout}`);
  }
});

Deno.test("after three watches in a row abandoned with no bookmark, the long limit applies again", async () => {
  const s = stallable();
  await using h = harness({ fetch: s.fetch });
  const errors: unknown[] = [];
  await using _ = new Collection(h.client, CONFIGMAPS, {
    logger: testLogger({ onError: (e) => void errors.push(e) }),
  });
  await h.time.settle();
  await h.time.tick(60_000);
  await h.time.settle();
  s.stall = true;
  for (let i = 1; i <= ABANDONED_BEFORE_DISTRUST; i++) {
    await h.time.tick(DEFAULT_HEARTBEAT_TIMEOUT + 60_000);
    await h.time.settle();
    assert.equal(errors.length, i);
    assert.equal(watches(h), i + 1);
  }
  // The next watch is silent too, and now waits for its own timeout.
  const last = h.server.requests.filter(isWatch).at(-1)!;
  const timeout = Number(last.query.get("timeoutSeconds")) * 1000;
  await h.time.tick(last.time + timeout + 29_000 - Date.now());
  assert.equal(errors.length, ABANDONED_BEFORE_DISTRUST);
  await h.time.tick(2_000);
  assert.equal(errors.length, ABANDONED_BEFORE_DISTRUST + 1);
  assert.match(String(errors.at(-1)), new RegExp(`${timeout + 30_000} ms`));
  assert.deepEqual(others(errors), []);
});

Deno.test("heartbeatTimeout sets the bound, and 0 keeps the long limit", async () => {
  for (const [option, bound] of [[90_000, 90_000], [0, undefined]] as const) {
    const s = stallable();
    await using h = harness({ fetch: s.fetch });
    const errors: unknown[] = [];
    await using _ = new Collection(h.client, CONFIGMAPS, {
      heartbeatTimeout: option,
      logger: testLogger({ onError: (e) => void errors.push(e) }),
    });
    await h.time.settle();
    await h.time.tick(60_000);
    await h.time.settle();
    s.stall = true;
    await h.time.tick(90_000 - 1);
    assert.equal(errors.length, 0, `${option}`);
    await h.time.tick(1);
    assert.equal(errors.length, bound === undefined ? 0 : 1, `${option}`);
  }
  assert.equal(heartbeatTimeout(undefined, 300_000), 150_000);
  assert.equal(heartbeatTimeout(NaN, 300_000), 150_000);
  assert.equal(heartbeatTimeout(-1, 300_000), 0);
  assert.equal(heartbeatTimeout(5, 300_000), 1_000);
  assert.equal(heartbeatTimeout(Infinity, 300_000), 300_000);
});

Deno.test("watchOne abandons a stalled watch by the same rule and sees the new version", async () => {
  const s = stallable();
  await using h = harness({ fetch: s.fetch });
  h.server.put(`${CM}/ca`, { metadata: {}, data: { v: "1" } } as KubeObject);
  const seen: (string | undefined)[] = [];
  const errors: unknown[] = [];
  await using _ = watchOne(h.client, {
    version: "v1",
    resource: "configmaps",
    namespace: "default",
    name: "ca",
  }, {
    seen: (held) => void seen.push(held?.metadata.resourceVersion),
    logger: testLogger({ onError: (e) => void errors.push(e) }),
  });
  await h.time.settle();
  await h.time.tick(60_000);
  await h.time.settle();
  s.stall = true;
  h.server.put(`${CM}/ca`, { metadata: {}, data: { v: "2" } } as KubeObject);
  await h.time.tick(DEFAULT_HEARTBEAT_TIMEOUT - 1);
  assert.deepEqual(seen, ["1"]);
  s.stall = false;
  await h.time.tick(1);
  assert.equal(errors.length, 1);
  assert.ok(idle(errors[0]));
  await h.time.tick(1_600);
  await h.time.settle();
  assert.deepEqual(seen, ["1", "2"]);
});
