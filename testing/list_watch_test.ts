import assert from "node:assert/strict";
import { FakeApiServer } from "./fake_server.ts";
import type { KubeObject } from "../apiclient/types.ts";
import { installFakeTime } from "./fake_time.ts";
import { call, watch } from "./_test_util.ts";

const CM = "/api/v1/namespaces/default/configmaps";

async function seed(
  server: FakeApiServer,
  items: [string, string, Record<string, string>?][],
): Promise<void> {
  for (const [namespace, name, labels] of items) {
    const res = await call(
      server,
      "POST",
      `/api/v1/namespaces/${namespace}/configmaps`,
      { metadata: { name, ...(labels ? { labels } : {}) } },
    );
    assert.equal(res.status, 201);
  }
}

function names(list: { items: KubeObject[] }): string[] {
  return list.items.map((i) => i.metadata.name!);
}

Deno.test("list: kind, resourceVersion, order, and all namespaces", async () => {
  await using server = new FakeApiServer({
    namespaceLifecycle: false,
    freshCluster: false,
  });
  await seed(server, [["default", "b"], ["default", "a"], ["other", "c"]]);
  const list = (await call(server, "GET", CM)).body;
  assert.equal(list.kind, "ConfigMapList");
  assert.equal(list.apiVersion, "v1");
  assert.equal(list.metadata.resourceVersion, "3");
  assert.deepEqual(names(list), ["a", "b"]);
  const all = (await call(server, "GET", "/api/v1/configmaps")).body;
  assert.deepEqual(names(all), ["a", "b", "c"]);
  const zero = (await call(server, "GET", `${CM}?resourceVersion=0`)).body;
  assert.deepEqual(names(zero), ["a", "b"]);
});

Deno.test("list: label selectors", async () => {
  await using server = new FakeApiServer();
  await seed(server, [
    ["default", "a", { app: "web", tier: "front" }],
    ["default", "b", { app: "db" }],
    ["default", "c", {}],
  ]);
  const cases: [string, string[]][] = [
    ["app=web", ["a"]],
    ["app==web", ["a"]],
    ["app!=web", ["b", "c"]],
    ["app in (web,db)", ["a", "b"]],
    ["app notin (web)", ["b", "c"]],
    ["app", ["a", "b"]],
    ["!app", ["c"]],
    ["app,tier=front", ["a"]],
    ["app in (web, db),!tier", ["b"]],
  ];
  for (const [selector, expected] of cases) {
    const list = (await call(
      server,
      "GET",
      `${CM}?labelSelector=${encodeURIComponent(selector)}`,
    )).body;
    assert.deepEqual(names(list), expected, selector);
  }
  const bad = await call(server, "GET", `${CM}?labelSelector=a%3D%3D%3Db%20c`);
  assert.equal(bad.status, 400);
  assert.equal(bad.body.reason, "BadRequest");
});

Deno.test("list: field selectors on metadata.name and metadata.namespace", async () => {
  await using server = new FakeApiServer({
    namespaceLifecycle: false,
    freshCluster: false,
  });
  await seed(server, [["default", "a"], ["default", "b"], ["other", "a"]]);
  const byName = (await call(
    server,
    "GET",
    `/api/v1/configmaps?fieldSelector=metadata.name%3Da`,
  )).body;
  assert.deepEqual(
    byName.items.map((i: KubeObject) => i.metadata.namespace),
    ["default", "other"],
  );
  const notDefault = (await call(
    server,
    "GET",
    `/api/v1/configmaps?fieldSelector=metadata.namespace!%3Ddefault`,
  )).body;
  assert.deepEqual(names(notDefault), ["a"]);
  assert.equal(notDefault.items[0].metadata.namespace, "other");
  const both = (await call(
    server,
    "GET",
    `${CM}?fieldSelector=metadata.name%3D%3Db,metadata.namespace%3Ddefault`,
  )).body;
  assert.deepEqual(names(both), ["b"]);
});

Deno.test("list: limit and continue, with remainingItemCount, as one consistent snapshot", async () => {
  await using server = new FakeApiServer({ freshCluster: false });
  await seed(server, [
    ["default", "a"],
    ["default", "b"],
    ["default", "c"],
    ["default", "d"],
    ["default", "e"],
  ]);
  const first = (await call(server, "GET", `${CM}?limit=2`)).body;
  assert.deepEqual(names(first), ["a", "b"]);
  assert.equal(first.metadata.remainingItemCount, 3);
  assert.equal(first.metadata.resourceVersion, "5");
  assert.ok(first.metadata.continue);
  // Changes after the first page do not show in the later pages.
  await call(server, "DELETE", `${CM}/c`);
  await seed(server, [["default", "cc"]]);
  const second = (await call(
    server,
    "GET",
    `${CM}?limit=2&continue=${encodeURIComponent(first.metadata.continue)}`,
  )).body;
  assert.deepEqual(names(second), ["c", "d"]);
  assert.equal(second.metadata.resourceVersion, "5");
  assert.equal(second.metadata.remainingItemCount, 1);
  const third = (await call(
    server,
    "GET",
    `${CM}?limit=2&continue=${encodeURIComponent(second.metadata.continue)}`,
  )).body;
  assert.deepEqual(names(third), ["e"]);
  assert.equal(third.metadata.continue, undefined);
  assert.equal(third.metadata.remainingItemCount, undefined);
  const selected = (await call(
    server,
    "GET",
    `${CM}?limit=1&labelSelector=!x`,
  )).body;
  assert.ok(selected.metadata.continue);
  assert.equal(selected.metadata.remainingItemCount, undefined);
});

Deno.test("list: a continue token from before compaction is 410 Expired", async () => {
  await using server = new FakeApiServer({ freshCluster: false });
  await seed(server, [["default", "a"], ["default", "b"]]);
  const first = (await call(server, "GET", `${CM}?limit=1`)).body;
  await seed(server, [["default", "c"]]);
  server.compact();
  const res = await call(
    server,
    "GET",
    `${CM}?limit=1&continue=${encodeURIComponent(first.metadata.continue)}`,
  );
  assert.equal(res.status, 410);
  assert.equal(res.body.reason, "Expired");
  assert.match(res.body.message, /^The provided continue parameter is too old/);
  // The answer carries a token that goes on at the newest version.
  const token = res.body.metadata.continue;
  assert.ok(token, "an expired continue answers a new token");
  const rest = (await call(
    server,
    "GET",
    `${CM}?limit=1&continue=${encodeURIComponent(token)}`,
  )).body;
  assert.deepEqual(names(rest), ["b"]);
  assert.equal(rest.metadata.resourceVersion, "3");
  const last = (await call(
    server,
    "GET",
    `${CM}?limit=5&continue=${encodeURIComponent(rest.metadata.continue)}`,
  )).body;
  assert.deepEqual(names(last), ["c"]);
  const bad = await call(server, "GET", `${CM}?continue=garbage`);
  assert.equal(bad.status, 400);
});

Deno.test("list: resourceVersionMatch=Exact reads an older snapshot", async () => {
  await using server = new FakeApiServer({ freshCluster: false });
  await seed(server, [["default", "a"], ["default", "b"]]);
  await call(server, "DELETE", `${CM}/a`);
  const exact = (await call(
    server,
    "GET",
    `${CM}?resourceVersion=1&resourceVersionMatch=Exact`,
  )).body;
  assert.deepEqual(names(exact), ["a"]);
  assert.equal(exact.metadata.resourceVersion, "1");
  server.compact();
  const gone = await call(
    server,
    "GET",
    `${CM}?resourceVersion=1&resourceVersionMatch=Exact`,
  );
  assert.equal(gone.status, 410);
  assert.equal(
    gone.body.message,
    "The resourceVersion for the provided list is too old.",
  );
});

Deno.test("watch without resourceVersion sends the current objects as ADDED, then changes", async () => {
  await using server = new FakeApiServer({ namespaceLifecycle: false });
  await seed(server, [["default", "a"], ["other", "x"]]);
  const { status, lines } = await watch(server, `${CM}?watch=1`);
  assert.equal(status, 200);
  const added = await lines.event();
  assert.equal(added.type, "ADDED");
  assert.equal(added.object.metadata.name, "a");
  await call(server, "PUT", `${CM}/a`, {
    metadata: { name: "a" },
    data: { k: "v" },
  });
  const modified = await lines.event();
  assert.equal(modified.type, "MODIFIED");
  assert.deepEqual(modified.object.data, { k: "v" });
  await call(server, "DELETE", `${CM}/a`);
  const deleted = await lines.event();
  assert.equal(deleted.type, "DELETED");
  assert.equal(deleted.object.metadata.resourceVersion, server.resourceVersion);
  assert.equal(server.openWatches, 1);
  await lines.cancel();
  assert.equal(server.openWatches, 0);
  // Each event is its own chunk.
  assert.equal(lines.chunks.length, 3);
  assert.ok(
    lines.chunks.every((c) => c.endsWith("\n") && c.split("\n").length === 2),
  );
});

Deno.test("watch from a resourceVersion replays the history after it", async () => {
  await using server = new FakeApiServer({ freshCluster: false });
  await seed(server, [["default", "a"], ["default", "b"]]);
  await call(server, "DELETE", `${CM}/a`);
  const { lines } = await watch(server, `${CM}?watch=true&resourceVersion=1`);
  const replayed = [await lines.event(), await lines.event()];
  assert.deepEqual(
    replayed.map((e) => [e.type, e.object.metadata.name]),
    [["ADDED", "b"], ["DELETED", "a"]],
  );
  await lines.cancel();
});

Deno.test("watch from a compacted resourceVersion is an ERROR event with 410 Expired", async () => {
  await using server = new FakeApiServer({ freshCluster: false });
  await seed(server, [["default", "a"], ["default", "b"]]);
  server.compact();
  const { status, lines } = await watch(
    server,
    `${CM}?watch=1&resourceVersion=1`,
  );
  assert.equal(status, 200);
  const events = await lines.all();
  assert.equal(events.length, 1);
  assert.equal(events[0].type, "ERROR");
  assert.deepEqual(events[0].object, {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: "too old resource version: 1 (2)",
    reason: "Expired",
    code: 410,
  });
  assert.equal(server.openWatches, 0);
  // From the compacted version itself nothing is missing.
  const fresh = await watch(server, `${CM}?watch=1&resourceVersion=2`);
  await seed(server, [["default", "c"]]);
  assert.equal((await fresh.lines.event()).object.metadata.name, "c");
  await fresh.lines.cancel();
});

Deno.test("watch: selectors apply, and an object that stops matching is DELETED", async () => {
  await using server = new FakeApiServer();
  const { lines } = await watch(
    server,
    `${CM}?watch=1&labelSelector=app%3Dweb`,
  );
  await seed(server, [["default", "other", { app: "db" }]]);
  await seed(server, [["default", "w", { app: "web" }]]);
  const added = await lines.event();
  assert.deepEqual([added.type, added.object.metadata.name], ["ADDED", "w"]);
  await call(
    server,
    "PATCH",
    `${CM}/w`,
    { metadata: { labels: { app: "db" } } },
    "application/merge-patch+json",
  );
  const left = await lines.event();
  assert.deepEqual([left.type, left.object.metadata.name], ["DELETED", "w"]);
  assert.equal(left.object.metadata.labels.app, "db");
  await call(
    server,
    "PATCH",
    `${CM}/other`,
    { metadata: { labels: { app: "web" } } },
    "application/merge-patch+json",
  );
  const joined = await lines.event();
  assert.deepEqual([joined.type, joined.object.metadata.name], [
    "ADDED",
    "other",
  ]);
  await lines.cancel();
});

Deno.test("watch of one object by name or field selector", async () => {
  await using server = new FakeApiServer();
  await seed(server, [["default", "a"], ["default", "b"]]);
  const byPath = await watch(server, `${CM}/b?watch=1`);
  const byField = await watch(
    server,
    `${CM}?watch=1&fieldSelector=metadata.name%3Db`,
  );
  for (const { lines } of [byPath, byField]) {
    const first = await lines.event();
    assert.equal(first.object.metadata.name, "b");
  }
  await call(server, "DELETE", `${CM}/a`);
  await call(server, "DELETE", `${CM}/b`);
  for (const { lines } of [byPath, byField]) {
    const next = await lines.event();
    assert.deepEqual([next.type, next.object.metadata.name], ["DELETED", "b"]);
    await lines.cancel();
  }
});

Deno.test("watch: periodic bookmarks on the fake clock", async () => {
  using time = installFakeTime({ now: 0 });
  await using server = new FakeApiServer({ freshCluster: false });
  await seed(server, [["default", "a"]]);
  const { lines } = await watch(
    server,
    `${CM}?watch=1&resourceVersion=1&allowWatchBookmarks=true`,
  );
  const read = lines.event();
  await time.tick(59_999);
  await seed(server, [["default", "b"]]);
  assert.equal((await read).type, "ADDED");
  await time.tick(1);
  const bookmark = await lines.event();
  assert.deepEqual(bookmark, {
    type: "BOOKMARK",
    object: {
      kind: "ConfigMap",
      apiVersion: "v1",
      metadata: { resourceVersion: "2" },
    },
  });
  await time.tick(60_000);
  assert.equal((await lines.event()).type, "BOOKMARK");
  await lines.cancel();
  assert.equal(time.countTimers(), 0, "no timer left behind");
});

Deno.test("watch: no bookmarks unless allowWatchBookmarks", async () => {
  using time = installFakeTime({ now: 0 });
  await using server = new FakeApiServer();
  const { lines } = await watch(server, `${CM}?watch=1&resourceVersion=0`);
  assert.equal(time.countTimers(), 0);
  await lines.cancel();
});

Deno.test("watch: timeoutSeconds ends the stream, with a last bookmark 2 s before", async () => {
  using time = installFakeTime({ now: 0 });
  await using server = new FakeApiServer();
  const { lines } = await watch(
    server,
    `${CM}?watch=1&timeoutSeconds=300&allowWatchBookmarks=true`,
  );
  const times: number[] = [];
  const all = (async () => {
    for (let e = await lines.event(); e; e = await lines.event()) {
      if (e.type === "BOOKMARK") times.push(Date.now());
    }
  })();
  await time.tick(299_000);
  assert.equal(server.openWatches, 1);
  await time.tick(1_000);
  await all;
  assert.deepEqual(times, [60_000, 120_000, 180_000, 240_000, 298_000]);
  assert.equal(server.openWatches, 0);
  assert.equal(time.countTimers(), 0);
});

/** The times of the bookmarks of a 300 s watch, until it ends. */
async function bookmarkTimes(
  server: FakeApiServer,
  time: ReturnType<typeof installFakeTime>,
  during?: () => void,
): Promise<number[]> {
  const { lines } = await watch(
    server,
    `${CM}?watch=1&timeoutSeconds=300&allowWatchBookmarks=true`,
  );
  const times: number[] = [];
  const all = (async () => {
    for (let e = await lines.event(); e; e = await lines.event()) {
      if (e.type === "BOOKMARK") times.push(Date.now());
    }
  })();
  await time.tick(100_000);
  during?.();
  await time.tick(200_000);
  await all;
  return times;
}

Deno.test("watch: bookmarkInterval 0 sends only the bookmark before the timeout", async () => {
  using time = installFakeTime({ now: 0 });
  await using server = new FakeApiServer({ bookmarkInterval: 0 });
  assert.deepEqual(await bookmarkTimes(server, time), [298_000]);
  assert.equal(time.countTimers(), 0);
});

Deno.test("watch: stopBookmarks stops the periodic bookmarks, not the last one, until started again", async () => {
  using time = installFakeTime({ now: 0 });
  await using server = new FakeApiServer();
  const stopped = await bookmarkTimes(server, time, () => {
    server.stopBookmarks();
  });
  assert.deepEqual(stopped, [60_000, 298_000]);
  const started = await bookmarkTimes(server, time, () => {
    server.stopBookmarks(false);
  });
  assert.deepEqual(
    started.map((t) => t - 300_000),
    [120_000, 180_000, 240_000, 298_000],
  );
  assert.equal(time.countTimers(), 0);
});

Deno.test("watch: timeoutSeconds=0 is the server's default, not an instant end", async () => {
  using time = installFakeTime({ now: 0 });
  await using server = new FakeApiServer();
  const { lines } = await watch(server, `${CM}?watch=1&timeoutSeconds=0`);
  await time.tick(3_600_000);
  assert.equal(server.openWatches, 1);
  await seed(server, [["default", "a"]]);
  assert.equal((await lines.event()).object.metadata.name, "a");
  await lines.cancel();
  assert.equal(time.countTimers(), 0);
});

Deno.test("watch: a timeoutSeconds beyond a timer's range stays open, not an instant end", async () => {
  using time = installFakeTime({ now: 0 });
  await using server = new FakeApiServer();
  const { lines } = await watch(server, `${CM}?watch=1&timeoutSeconds=9999999`);
  await time.tick(3_600_000);
  assert.equal(server.openWatches, 1);
  await seed(server, [["default", "a"]]);
  assert.equal((await lines.event()).object.metadata.name, "a");
  await lines.cancel();
  assert.equal(time.countTimers(), 0);
});

Deno.test("watch: sendInitialEvents sends the objects, then the initial-events-end bookmark", async () => {
  await using server = new FakeApiServer({ freshCluster: false });
  await seed(server, [["default", "a"], ["default", "b"]]);
  const { lines } = await watch(
    server,
    `${CM}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion=`,
  );
  const events = [
    await lines.event(),
    await lines.event(),
    await lines.event(),
  ];
  assert.deepEqual(events.map((e) => e.type), ["ADDED", "ADDED", "BOOKMARK"]);
  assert.deepEqual(events[2].object.metadata, {
    resourceVersion: "2",
    annotations: { "k8s.io/initial-events-end": "true" },
  });
  await seed(server, [["default", "c"]]);
  assert.equal((await lines.event()).object.metadata.name, "c");
  await lines.cancel();
});

Deno.test("watch: options the API server refuses are 422 Invalid ListOptions", async () => {
  await using server = new FakeApiServer();
  const cases: [string, string][] = [
    [
      "watch=1&sendInitialEvents=true",
      "resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
    ],
    [
      "watch=1&resourceVersionMatch=NotOlderThan",
      "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
    ],
    [
      "watch=1&sendInitialEvents=true&resourceVersionMatch=Exact",
      '[resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"]',
    ],
    [
      "resourceVersionMatch=NotOlderThan",
      "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided",
    ],
    [
      "resourceVersion=0&resourceVersionMatch=Exact",
      'resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
    ],
    [
      "sendInitialEvents=false",
      "sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list",
    ],
  ];
  for (const [query, message] of cases) {
    const res = await call(server, "GET", `${CM}?${query}`);
    assert.equal(res.status, 422, query);
    assert.equal(
      res.body.message,
      `ListOptions.meta.k8s.io "" is invalid: ${message}`,
      query,
    );
    assert.deepEqual(
      Object.keys(res.body.details),
      ["group", "kind", "causes"],
      "an empty name is left out",
    );
  }
  const first = await call(
    server,
    "GET",
    `${CM}?watch=1&sendInitialEvents=true`,
  );
  assert.deepEqual(first.body.details.causes, [{
    reason: "FieldValueForbidden",
    message:
      "Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
    field: "resourceVersionMatch",
  }]);
  assert.equal(server.openWatches, 0);
});

Deno.test("watch: sendInitialEvents without bookmarks sends the objects and no end marker", async () => {
  using time = installFakeTime({ now: 0 });
  await using server = new FakeApiServer();
  await seed(server, [["default", "a"]]);
  const { status, lines } = await watch(
    server,
    `${CM}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan`,
  );
  assert.equal(status, 200);
  const all = lines.all();
  await seed(server, [["default", "b"]]);
  await time.tick(600_000);
  server.cutWatches();
  assert.deepEqual(
    (await all).map((e) => `${e.type} ${e.object.metadata.name}`),
    ["ADDED a", "ADDED b"],
  );
});

Deno.test("watch: sendInitialEvents=false without a version starts at the newest, replaying nothing", async () => {
  await using server = new FakeApiServer({ freshCluster: false });
  await seed(server, [["default", "a"]]);
  for (const rv of ["", "0"]) {
    const { lines } = await watch(
      server,
      `${CM}?watch=1&sendInitialEvents=false&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=1&resourceVersion=${rv}`,
    );
    const next = lines.event();
    await seed(server, [["default", `b${rv}`]]);
    const event = await next;
    assert.deepEqual(
      [event.type, event.object.metadata.name],
      ["ADDED", `b${rv}`],
      `rv=${rv}`,
    );
    await lines.cancel();
  }
  // From a version, it replays what came after, as any watch does.
  const { lines } = await watch(
    server,
    `${CM}?watch=1&sendInitialEvents=false&resourceVersionMatch=NotOlderThan&resourceVersion=1`,
  );
  assert.equal((await lines.event()).object.metadata.name, "b");
  await lines.cancel();
});

Deno.test("watch: query flags read as the API server reads them", async () => {
  await using server = new FakeApiServer();
  await seed(server, [["default", "a"]]);
  // Anything but 0 or false (any case) is true, even an empty value.
  for (const value of ["", "yes", "True"]) {
    const { lines } = await watch(server, `${CM}?watch=${value}`);
    assert.equal((await lines.event()).type, "ADDED", `watch=${value}`);
    await lines.cancel();
  }
  for (const value of ["0", "FALSE"]) {
    const list = await call(server, "GET", `${CM}?watch=${value}`);
    assert.equal(list.body.kind, "ConfigMapList", `watch=${value}`);
  }
});

Deno.test("watch: a client abort ends the stream and leaves no timers", async () => {
  using time = installFakeTime({ now: 0 });
  await using server = new FakeApiServer();
  const abort = new AbortController();
  const { lines } = await watch(
    server,
    `${CM}?watch=1&allowWatchBookmarks=true&timeoutSeconds=600`,
    abort.signal,
  );
  assert.equal(server.openWatches, 1);
  assert.equal(time.countTimers(), 2);
  const pending = lines.event();
  abort.abort();
  await assert.rejects(pending, { name: "AbortError" });
  assert.equal(server.openWatches, 0);
  assert.equal(time.countTimers(), 0);
});

Deno.test("watch of a cluster-scoped resource across namespaces", async () => {
  await using server = new FakeApiServer({ freshCluster: false });
  const { lines } = await watch(server, "/api/v1/namespaces?watch=1");
  await call(server, "POST", "/api/v1/namespaces", { metadata: { name: "n" } });
  const added = await lines.event();
  assert.equal(added.object.kind, "Namespace");
  assert.equal(added.object.metadata.name, "n");
  await lines.cancel();
});

Deno.test("watch: events of one turn go out as one chunk, later turns as their own", async () => {
  await using server = new FakeApiServer();
  const stop = new AbortController();
  const response = await server.fetch(`${server.url}${CM}?watch=1`, {
    signal: stop.signal,
  });
  const reader = response.body!.getReader();
  for (const name of ["a", "b", "c"]) {
    server.put(`${CM}/${name}`, { metadata: { name } });
  }
  const decoder = new TextDecoder();
  const first = decoder.decode((await reader.read()).value);
  assert.deepEqual(
    first.trimEnd().split("\n").map((line) =>
      JSON.parse(line).object.metadata.name
    ),
    ["a", "b", "c"],
  );
  await new Promise((resolve) => setTimeout(resolve, 0));
  server.put(`${CM}/d`, { metadata: { name: "d" } });
  const second = decoder.decode((await reader.read()).value);
  assert.equal(second.trimEnd().split("\n").length, 1);
  await reader.cancel();
  stop.abort();
});
