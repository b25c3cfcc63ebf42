import assert from "node:assert/strict";
import type { KubeObject } from "../apiclient/types.ts";
import { Versions } from "../memo/mod.ts";
import { written } from "../_internal/_memo_test_util.ts";
import { cachedGet, cachedList, cachedPeek, Collection, view } from "./mod.ts";
import { change, CM, harness, make } from "./_harness_test_util.ts";
import { testLogger } from "../_internal/_log_test_util.ts";

const CONFIGMAPS = { version: "v1", resource: "configmaps" };
const ref = (name: string) => ({ ...CONFIGMAPS, namespace: "default", name });

function gets(h: ReturnType<typeof harness>): number {
  return h.server.count({ method: "GET", path: /configmaps\/[^/]+$/ });
}

Deno.test("cachedGet answers the store's copy while it is current, else the API server's once", async () => {
  await using h = harness();
  await make(h.client, "a");
  const versions = new Versions();
  await using c = new Collection(h.client, CONFIGMAPS);
  await h.time.settle();
  const options = { view: c.view(), versions };
  assert.equal(
    (await cachedGet(h.client, ref("a"), options)).metadata.name,
    "a",
  );
  assert.equal(gets(h), 0);
  // Our own write, not yet in the store: the store's copy is older.
  h.server.refuse({ watch: true, status: 503 });
  h.server.cutWatches();
  const made = await written(
    ref("a"),
    () => change(h.client, "a", { k: "1" }),
    { versions },
  );
  assert.equal(c.store.get("default/a")?.metadata.resourceVersion, "1");
  const read = await cachedGet(h.client, ref("a"), options);
  assert.equal(read.metadata.resourceVersion, made.metadata.resourceVersion);
  assert.equal(gets(h), 1);
});

Deno.test("once the watch delivers the write, the store answers again", async () => {
  await using h = harness();
  await make(h.client, "a");
  const versions = new Versions();
  await using c = new Collection(h.client, CONFIGMAPS);
  await h.time.settle();
  await written(ref("a"), () => change(h.client, "a", { k: "1" }), {
    versions,
  });
  await h.time.settle();
  const read = await cachedGet(h.client, ref("a"), {
    view: c.view(),
    versions,
  });
  assert.equal(read.metadata.resourceVersion, "2");
  assert.equal(gets(h), 0);
});

Deno.test("a store that is not ready answers nothing, and every read goes to the API server", async () => {
  await using h = harness();
  await make(h.client, "a");
  const versions = new Versions();
  await using c = new Collection(h.client, CONFIGMAPS);
  await h.time.settle();
  h.server.refuse({ watch: true, status: 403 });
  h.server.cutWatches();
  // A watch that lasted under a second is opened again a second after it.
  await h.time.tick(1_000);
  await h.time.settle();
  assert.equal(c.view().ready(), false);
  assert.equal(cachedPeek(c.view(), ref("a")), undefined);
  await cachedGet(h.client, ref("a"), { view: c.view(), versions });
  assert.equal(gets(h), 1);
  assert.equal(versions.noted(ref("a")), true);
  // No collection at all: the same.
  await cachedGet(h.client, ref("a"), { view: view(CONFIGMAPS) });
  assert.equal(gets(h), 2);
  await cachedGet(h.client, ref("a"));
  assert.equal(gets(h), 3);
});

Deno.test("cachedList of a whole store also answers objects the operator just created", async () => {
  await using h = harness();
  await make(h.client, "a");
  const versions = new Versions();
  await using whole = new Collection(h.client, CONFIGMAPS);
  await using scoped = new Collection(h.client, {
    ...CONFIGMAPS,
    namespace: "default",
  });
  await h.time.settle();
  assert.equal(whole.view().whole, true);
  assert.equal(scoped.view().whole, false);
  h.server.refuse({ watch: true, status: 503 });
  h.server.cutWatches();
  await written(ref("new"), () => make(h.client, "new"), { versions });
  const fromWhole = await cachedList(h.client, CONFIGMAPS, {
    view: whole.view(),
    versions,
  });
  assert.deepEqual(fromWhole.map((o) => o.metadata.name), ["a", "new"]);
  const inDefault = { ...CONFIGMAPS, namespace: "default" };
  const fromScoped = await cachedList(h.client, inDefault, {
    view: scoped.view(),
    versions,
  });
  assert.deepEqual(fromScoped.map((o) => o.metadata.name), ["a"]);
  // Asked to, a scoped view answers them too.
  const told = await cachedList(h.client, inDefault, {
    view: scoped.view({ whole: true }),
    versions,
  });
  assert.deepEqual(told.map((o) => o.metadata.name), ["a", "new"]);
});

Deno.test("cachedList reads stale and undecodable copies fresh, and leaves out the gone", async () => {
  await using h = harness();
  for (const name of ["a", "b", "c", "d"]) await make(h.client, name);
  const versions = new Versions();
  await using c = new Collection(h.client, CONFIGMAPS, {
    decode: (o) => {
      if (o.metadata.name === "d") throw new Error("bad");
      return o;
    },
    logger: testLogger({ onError: () => {} }),
  });
  await h.time.settle();
  h.server.refuse({ watch: true, status: 503 });
  h.server.cutWatches();
  await written(ref("b"), () => change(h.client, "b", { k: "1" }), {
    versions,
  });
  versions.note(ref("c"), "stale");
  await h.client.delete(`${CM}/c`);
  const items = await cachedList(h.client, CONFIGMAPS, {
    view: c.view(),
    versions,
  });
  assert.deepEqual(
    items.map((o) => `${o.metadata.name} ${o.metadata.resourceVersion}`),
    ["a 1", "b 5", "d 4"],
  );
  assert.equal(gets(h), 3); // b, c (404) and d
});

Deno.test("cachedList reads the API server and notes versions until the store is ready, then the store", async () => {
  await using h = harness();
  await make(h.client, "a");
  const versions = new Versions();
  h.server.refuse({ watch: true, status: 403 });
  await using c = new Collection<KubeObject>(h.client, CONFIGMAPS);
  await h.time.settle();
  const before = h.server.count({ path: "/api/v1/configmaps" });
  const listed = await cachedList(h.client, CONFIGMAPS, {
    view: c.view(),
    versions,
  });
  assert.deepEqual(listed.map((o) => o.metadata.name), ["a"]);
  assert.equal(h.server.count({ path: "/api/v1/configmaps" }), before + 1);
  assert.equal(versions.current(ref("a"), "1"), true);
  assert.equal(versions.current(ref("a"), "0"), false);
});

Deno.test("cachedList answers from a ready store with no request", async () => {
  await using h = harness();
  await make(h.client, "a");
  await using c = new Collection(h.client, CONFIGMAPS);
  await h.time.settle();
  const before = h.server.requests.length;
  const listed = await cachedList(h.client, CONFIGMAPS, {
    view: c.view(),
    versions: new Versions(),
  });
  assert.deepEqual(listed.map((o) => o.metadata.name), ["a"]);
  assert.equal(h.server.requests.length, before);
});

Deno.test("cachedList without a view list the API server with the source's selectors", async () => {
  await using h = harness();
  await make(h.client, "a");
  await h.client.create(CM, {
    metadata: { name: "b", labels: { app: "web" } },
  });
  const web = { ...CONFIGMAPS, labelSelector: "app=web" };
  for (const read of [cachedList]) {
    const versions = new Versions();
    const before = h.server.requests.length;
    const listed = await read(h.client, web, { versions });
    assert.deepEqual(listed.map((o) => o.metadata.name), ["b"]);
    assert.deepEqual(
      h.server.requests.slice(before).map((r) => r.query.get("labelSelector")),
      ["app=web"],
    );
    assert.equal(versions.noted(ref("b")), true);
    assert.equal(versions.noted(ref("a")), false);
  }
  // A view with no watch (no invented store) reads the API server too.
  const versions = new Versions();
  const listed = await cachedList(h.client, web, { view: view(web), versions });
  assert.deepEqual(listed.map((o) => o.metadata.name), ["b"]);
});

Deno.test("cachedGet refuses a view of another resource", async () => {
  await using h = harness();
  const secrets = view({ version: "v1", resource: "secrets" });
  await assert.rejects(
    cachedGet(h.client, ref("a"), { view: secrets }),
    (error: unknown) =>
      error instanceof TypeError &&
      /through a view of secrets/.test(error.message),
  );
});

Deno.test("cachedPeek takes a ref, and refuses a view of another resource", async () => {
  await using h = harness();
  await make(h.client, "a");
  await using c = new Collection(h.client, CONFIGMAPS);
  await h.time.settle();
  assert.equal(cachedPeek(c.view(), ref("a"))?.metadata.name, "a");
  assert.equal(cachedPeek(c.view(), ref("missing")), undefined);
  assert.throws(
    () => cachedPeek(c.view(), { ...ref("a"), resource: "secrets" }),
    /Cannot read default\/a of secrets through a view of configmaps/,
  );
  // Another group's resource of the same name is another resource.
  assert.throws(
    () => cachedPeek(c.view(), { ...ref("a"), group: "example.com" }),
    TypeError,
  );
});

Deno.test("cachedList refuses a view of another collection", async () => {
  await using h = harness();
  await using c = new Collection(h.client, CONFIGMAPS);
  await h.time.settle();
  await using selected = new Collection(h.client, {
    ...CONFIGMAPS,
    namespace: "default",
    labelSelector: "app=web",
  });
  await h.time.settle();
  const others = [
    { version: "v1", resource: "secrets" },
    { ...CONFIGMAPS, group: "example.com" },
    { ...CONFIGMAPS, fieldSelector: "metadata.name=a" },
  ];
  const before = h.server.requests.length;
  for (const source of others) {
    for (const read of [cachedList]) {
      await assert.rejects(
        read(h.client, source, { view: c.view() }),
        (error: unknown) =>
          error instanceof TypeError &&
          error.message.endsWith("through a view of configmaps"),
      );
    }
  }
  // A narrower view answers no wider list, nor another selector.
  for (
    const source of [
      { ...CONFIGMAPS, labelSelector: "app=web" },
      { ...CONFIGMAPS, namespace: "other", labelSelector: "app=web" },
      { ...CONFIGMAPS, namespace: "default", labelSelector: "app=db" },
      { ...CONFIGMAPS, namespace: "default" },
    ]
  ) {
    await assert.rejects(
      cachedList(h.client, source, { view: selected.view() }),
      {
        name: "TypeError",
        message: /through a view of default\/configmaps \[app=web\]$/,
      },
    );
  }
  assert.equal(h.server.requests.length, before);
  // The same collection under another API version is the same collection.
  await cachedList(h.client, { ...CONFIGMAPS, version: "v2" }, {
    view: c.view(),
  });
});

Deno.test("cachedList of a whole store fetches only its own kind's unheld objects", async () => {
  await using h = harness();
  const versions = new Versions();
  await using c = new Collection(h.client, CONFIGMAPS);
  await h.time.settle();
  // The operator wrote a Secret named like a ConfigMap it never made.
  await written(
    { version: "v1", resource: "secrets", namespace: "default", name: "s" },
    () =>
      h.client.create("/api/v1/namespaces/default/secrets", {
        metadata: { name: "s" },
      }),
    { versions },
  );
  const before = gets(h);
  const items = await cachedList(h.client, CONFIGMAPS, {
    view: c.view(),
    versions,
  });
  assert.deepEqual(items, []);
  // No GET of a ConfigMap default/s that was never written.
  assert.equal(gets(h), before);
  assert.equal(versions.noted(ref("s")), false);
});

const labelled = (h: ReturnType<typeof harness>, path: string) =>
(
  name: string,
  labels: Record<string, string>,
): Promise<KubeObject> => h.client.create(path, { metadata: { name, labels } });

const app = (object: KubeObject): string[] =>
  object.metadata.labels?.app ? [object.metadata.labels.app] : [];

Deno.test("cachedList of one namespace, a label selector and an index reads a view of every namespace, with no request", async () => {
  await using h = harness({ namespaceLifecycle: false });
  for (const namespace of ["a", "b"]) {
    const make = labelled(h, `/api/v1/namespaces/${namespace}/configmaps`);
    await make("web-1", { app: "web", tier: "front" });
    await make("web-2", { app: "web", tier: "back" });
    await make("db", { app: "db", tier: "back" });
  }
  await using c = new Collection(h.client, CONFIGMAPS, {
    indexers: { app },
  });
  await h.time.settle();
  const versions = new Versions();
  const before = h.server.requests.length;
  const names = (items: KubeObject[]): string[] =>
    items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
  const inB = { ...CONFIGMAPS, namespace: "b" };
  assert.deepEqual(
    names(await cachedList(h.client, inB, { view: c.view(), versions })),
    ["b/db", "b/web-1", "b/web-2"],
  );
  assert.deepEqual(
    names(
      await cachedList(h.client, { ...inB, labelSelector: "tier=back" }, {
        view: c.view(),
        versions,
      }),
    ),
    ["b/db", "b/web-2"],
  );
  assert.deepEqual(
    names(
      await cachedList(h.client, { ...inB, labelSelector: "tier in (back)" }, {
        view: c.view(),
        versions,
        index: { name: "app", value: "web" },
      }),
    ),
    ["b/web-2"],
  );
  assert.deepEqual(
    names(
      await cachedList(h.client, CONFIGMAPS, {
        view: c.view(),
        index: { name: "app", value: "web" },
      }),
    ),
    ["a/web-1", "a/web-2", "b/web-1", "b/web-2"],
  );
  assert.equal(h.server.requests.length, before);
  await assert.rejects(
    cachedList(h.client, inB, {
      view: c.view(),
      index: { name: "tier", value: "x" },
    }),
    {
      name: "TypeError",
      message: "The store of configmaps has no index named tier",
    },
  );
});

Deno.test("an indexed cachedList is never older than the memo: new, adopted, changed and deleted objects", async () => {
  await using h = harness();
  const make = labelled(h, CM);
  await make("kept", { app: "web" });
  await make("moved", { app: "web" });
  await make("gone", { app: "web" });
  await make("adopted", { app: "db" });
  const versions = new Versions();
  await using c = new Collection(h.client, CONFIGMAPS, { indexers: { app } });
  await h.time.settle();
  // The watch is down: every write below is known to the memo only.
  h.server.refuse({ watch: true, status: 503 });
  h.server.cutWatches();
  const relabel = (name: string, value: string) =>
    written(
      ref(name),
      () =>
        h.client.patch<KubeObject>(`${CM}/${name}`, {
          metadata: { labels: { app: value } },
        }, {
          type: "merge",
        }),
      { versions },
    );
  await written(ref("new"), () => make("new", { app: "web" }), { versions });
  await relabel("adopted", "web");
  await relabel("moved", "db");
  await written(
    ref("gone"),
    () => h.client.delete(`${CM}/gone`) as Promise<KubeObject>,
    { versions },
  );
  const before = h.server.requests.length;
  const items = await cachedList(h.client, CONFIGMAPS, {
    view: c.view(),
    versions,
    index: { name: "app", value: "web" },
  });
  assert.deepEqual(items.map((o) => o.metadata.name), [
    "adopted",
    "kept",
    "new",
  ]);
  // No list: one GET for each object the memo knows newer than the store.
  const sent = h.server.requests.slice(before);
  assert.deepEqual(
    sent.map((r) => `${r.method} ${r.path}`),
    ["adopted", "gone", "moved", "new"].map((name) => `GET ${CM}/${name}`),
  );
});

Deno.test("cachedList with an index while the store is not ready lists the API server and filters through the index function", async () => {
  await using h = harness();
  const make = labelled(h, CM);
  await make("web", { app: "web" });
  await make("db", { app: "db" });
  h.server.refuse({ watch: true, status: 403 });
  await using c = new Collection(h.client, CONFIGMAPS, {
    indexers: { app },
    logger: testLogger({ onError: () => {} }),
  });
  await h.time.settle();
  assert.equal(c.view().ready(), false);
  const before = h.server.requests.length;
  const listed = await cachedList(h.client, {
    ...CONFIGMAPS,
    namespace: "default",
  }, {
    view: c.view(),
    index: { name: "app", value: "web" },
  });
  assert.deepEqual(listed.map((o) => o.metadata.name), ["web"]);
  assert.deepEqual(
    h.server.requests.slice(before).map((r) => `${r.method} ${r.path}`),
    [`GET ${CM}`],
  );
});
