import assert from "node:assert/strict";
import type { Client } from "../apiclient/client.ts";
import type { KubeObject } from "../apiclient/types.ts";
import { Versions } from "../memo/mod.ts";
import {
  cachedGet,
  cachedList,
  cachedPeek,
  Collection,
  Collections,
  view,
} from "./mod.ts";
import { harness, isWatch, recorder } from "./_harness_test_util.ts";
import type { FakeApiServer } from "../testing/mod.ts";
import { testLogger } from "../_internal/_log_test_util.ts";

const CONFIGMAPS = { version: "v1", resource: "configmaps" };
const SET = { ...CONFIGMAPS, namespaces: ["b", "a", "a"] };

async function put(
  client: Client,
  namespace: string,
  name: string,
): Promise<KubeObject> {
  return await client.create(`/api/v1/namespaces/${namespace}/configmaps`, {
    metadata: { name },
  });
}

/** The paths of the GET requests, with `watch` marked. */
function gets(server: FakeApiServer): string[] {
  return server.requests.filter((r) => r.method === "GET").map((r) =>
    `${isWatch(r) ? "watch " : ""}${r.path}`
  );
}

Deno.test("a collection over two namespaces opens one watch each and never a cluster-scoped request", async () => {
  await using h = harness({ namespaceLifecycle: false });
  await put(h.client, "a", "one");
  await put(h.client, "b", "two");
  await put(h.client, "c", "three");
  const { log, handler } = recorder();
  let synced = 0;
  await using c = new Collection(h.client, SET, {
    handler,
    synced: () => void synced++,
  });
  assert.deepEqual(c.source.namespaces, ["a", "b"]);
  await h.time.settle();
  assert.equal(synced, 1);
  assert.equal(c.synced(), true);
  assert.equal(c.current(), true);
  assert.deepEqual(gets(h.server), [
    "watch /api/v1/namespaces/a/configmaps",
    "watch /api/v1/namespaces/b/configmaps",
  ]);
  assert.equal(h.server.openWatches, 2);
  await put(h.client, "c", "four");
  await put(h.client, "b", "five");
  await h.time.settle();
  assert.deepEqual(c.store.keys(), ["a/one", "b/five", "b/two"]);
  assert.deepEqual(log, ["add one 1", "add two 2", "add five 5"]);
  assert.ok(
    h.server.requests.every((r) => r.path.includes("/namespaces/")),
  );
});

Deno.test("synced comes once every namespace's first read is in", async () => {
  await using h = harness();
  const refusal = h.server.refuse({
    path: /\/namespaces\/b\/configmaps$/,
    status: 503,
  });
  let synced = 0;
  await using c = new Collection(h.client, SET, {
    synced: () => void synced++,
    logger: testLogger({ onError: () => {} }),
  });
  await h.time.settle();
  await h.time.tick(5_000);
  assert.equal(synced, 0);
  assert.equal(c.synced(), false);
  refusal.allow();
  await h.time.tick(60_000);
  await h.time.settle();
  assert.equal(synced, 1);
  assert.equal(c.synced(), true);
});

Deno.test("a relist after a 410 in one namespace keeps the other namespace's objects", async () => {
  await using h = harness({ namespaceLifecycle: false });
  await put(h.client, "a", "a1");
  await put(h.client, "a", "a2");
  await put(h.client, "b", "b1");
  const { log, handler } = recorder();
  await using c = new Collection(h.client, SET, { handler });
  await h.time.settle();
  // Namespace a's next watch is refused with 410; b's resumes.
  h.server.refuse({
    path: "/api/v1/namespaces/a/configmaps",
    watch: true,
    status: 410,
    count: 1,
  });
  h.server.cutWatches();
  h.server.remove("/api/v1/namespaces/a/configmaps/a1");
  await h.time.tick(5_000);
  await h.time.settle();
  assert.deepEqual(c.store.keys(), ["a/a2", "b/b1"]);
  assert.deepEqual(log, [
    "add a1 1",
    "add a2 2",
    "add b1 3",
    "tombstone a/a1 1",
  ]);
  // Namespace a was read again (a list or streaming list), b was not.
  const reads = gets(h.server);
  assert.ok(
    reads.filter((r) => r.endsWith("/namespaces/a/configmaps")).length >= 3,
  );
  assert.equal(
    reads.filter((r) => r.endsWith("/namespaces/b/configmaps")).length,
    2,
  );
});

Deno.test("a namespace set is refused with a namespace, empty, with an empty name, or on a cluster-scoped kind", async () => {
  await using h = harness();
  assert.throws(
    () => new Collection(h.client, { ...SET, namespace: "a" }),
    {
      name: "TypeError",
      message:
        "A source of a/configmaps names both a namespace and a set of namespaces; give one",
    },
  );
  assert.throws(
    () => new Collection(h.client, { ...CONFIGMAPS, namespaces: [] }),
    /set of namespaces of configmaps is empty/,
  );
  assert.throws(
    () => new Collection(h.client, { ...CONFIGMAPS, namespaces: ["a", ""] }),
    /holds an empty name/,
  );
  assert.throws(
    () =>
      new Collection(h.client, {
        version: "v1",
        resource: "nodes",
        namespaced: false,
        namespaces: ["a"],
      }),
    {
      name: "TypeError",
      message:
        "nodes is cluster-scoped: a set of namespaces cannot select its objects",
    },
  );
  await using collections = new Collections(h.client);
  assert.throws(
    () => collections.register({ ...CONFIGMAPS, namespaces: [] }),
    TypeError,
  );
  assert.equal(h.server.requests.length, 0);
});

Deno.test("cached reads through a namespace set answer inside it and leave other namespaces to the API server", async () => {
  await using h = harness({ namespaceLifecycle: false });
  await put(h.client, "a", "one");
  await put(h.client, "b", "two");
  await put(h.client, "c", "three");
  await using c = new Collection(h.client, SET);
  await h.time.settle();
  const watched = c.view();
  assert.equal(watched.whole, false);
  const ref = (namespace: string, name: string) => ({
    ...CONFIGMAPS,
    namespace,
    name,
  });
  assert.equal(cachedPeek(watched, ref("a", "one"))?.metadata.name, "one");
  // Not covered: never answered from the store.
  assert.equal(cachedPeek(watched, ref("c", "three")), undefined);
  const before = h.server.requests.length;
  const versions = new Versions();
  const read = await cachedGet(h.client, ref("c", "three"), {
    view: watched,
    versions,
  });
  assert.equal(read.metadata.name, "three");
  assert.equal(h.server.requests.length, before + 1);
  // Lists of the set, or of one namespace in it, come from the store.
  const names = (items: KubeObject[]) =>
    items.map((item) => `${item.metadata.namespace}/${item.metadata.name}`);
  assert.deepEqual(
    names(await cachedList(h.client, SET, { view: watched, versions })),
    ["a/one", "b/two"],
  );
  assert.deepEqual(
    names(
      await cachedList(h.client, { ...CONFIGMAPS, namespace: "b" }, {
        view: watched,
        versions,
      }),
    ),
    ["b/two"],
  );
  assert.equal(h.server.requests.length, before + 1);
  await assert.rejects(
    cachedList(h.client, { ...CONFIGMAPS, namespace: "c" }, { view: watched }),
    {
      name: "TypeError",
      message:
        "Cannot list c/configmaps through a view of {a,b}/configmaps: the view does not cover c",
    },
  );
  await assert.rejects(
    cachedList(h.client, CONFIGMAPS, { view: watched }),
    /does not cover every namespace/,
  );
  // Without a view: one list per namespace, no cluster-scoped list.
  const served = await cachedList(h.client, SET, { versions });
  assert.deepEqual(names(served), ["a/one", "b/two"]);
  assert.deepEqual(gets(h.server).slice(-2), [
    "/api/v1/namespaces/a/configmaps",
    "/api/v1/namespaces/b/configmaps",
  ]);
  assert.equal(view(SET).ready(), false);
});

Deno.test("shared registrations over one namespace set share its watches", async () => {
  await using h = harness({ namespaceLifecycle: false });
  await put(h.client, "a", "one");
  await put(h.client, "c", "two");
  await using collections = new Collections(h.client);
  const first = recorder();
  const second = recorder();
  collections.register(SET, { handler: first.handler });
  // The same set in another order, with duplicates, is the same collection.
  collections.register({ ...CONFIGMAPS, namespaces: ["a", "b"] }, {
    handler: second.handler,
  });
  await h.time.settle();
  assert.equal(h.server.openWatches, 2);
  assert.deepEqual(first.log, ["add one 1"]);
  assert.deepEqual(second.log, ["add one 1"]);
});
