import assert from "node:assert/strict";
import { FakeApiServer } from "./fake_server.ts";
import { call, Lines } from "./_test_util.ts";

const CM = "/api/v1/namespaces/default/configmaps";
const META = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";
const META_LIST =
  "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";
/** What controller-runtime's metadata client sends for a list. */
const CONTROLLER_RUNTIME_LIST = `${META_LIST},application/json`;

async function seed(server: FakeApiServer, names: string[]): Promise<void> {
  for (const name of names) {
    const res = await call(server, "POST", CM, {
      metadata: { name, labels: { app: "x" } },
      data: { big: "x".repeat(1000) },
    });
    assert.equal(res.status, 201);
  }
}

async function read(
  server: FakeApiServer,
  path: string,
  accept: string,
  // deno-lint-ignore no-explicit-any
): Promise<{ status: number; body: any }> {
  const res = await server.fetch(server.url + path, { headers: { accept } });
  return { status: res.status, body: await res.json() };
}

Deno.test("a get with as=PartialObjectMetadata answers the metadata alone", async () => {
  await using server = new FakeApiServer();
  await seed(server, ["a"]);
  const stored = server.object(`${CM}/a`)!;
  const res = await read(server, `${CM}/a`, META);
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, {
    kind: "PartialObjectMetadata",
    apiVersion: "meta.k8s.io/v1",
    metadata: stored.metadata,
  });
  const beta = await read(
    server,
    `${CM}/a`,
    "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1beta1",
  );
  assert.equal(beta.body.apiVersion, "meta.k8s.io/v1beta1");
});

Deno.test("a list with as=PartialObjectMetadataList answers items of metadata, with pages", async () => {
  await using server = new FakeApiServer();
  await seed(server, ["a", "b", "c"]);
  const res = await read(server, `${CM}?limit=2`, CONTROLLER_RUNTIME_LIST);
  assert.equal(res.status, 200);
  assert.equal(res.body.kind, "PartialObjectMetadataList");
  assert.equal(res.body.apiVersion, "meta.k8s.io/v1");
  assert.equal(res.body.metadata.resourceVersion, server.resourceVersion);
  assert.equal(res.body.metadata.remainingItemCount, 1);
  assert.deepEqual(res.body.items.map((i: { kind: string }) => i.kind), [
    "PartialObjectMetadata",
    "PartialObjectMetadata",
  ]);
  assert.deepEqual(
    res.body.items[0].metadata,
    server.object(`${CM}/a`)!.metadata,
  );
  assert.equal(res.body.items[0].data, undefined);
  const next = await read(
    server,
    `${CM}?limit=2&continue=${encodeURIComponent(res.body.metadata.continue)}`,
    CONTROLLER_RUNTIME_LIST,
  );
  assert.deepEqual(
    next.body.items.map((i: { metadata: { name: string } }) => i.metadata.name),
    ["c"],
  );
  // The size of the answer is the metadata's, not the objects'.
  const full = await read(server, CM, "application/json");
  const meta = await read(server, CM, META_LIST);
  assert.ok(
    JSON.stringify(meta.body).length * 2 < JSON.stringify(full.body).length,
  );
});

Deno.test("a conversion the endpoint does not offer is skipped for the next clause", async () => {
  await using server = new FakeApiServer();
  await seed(server, ["a"]);
  // A list offers PartialObjectMetadataList, not PartialObjectMetadata.
  const list = await read(server, CM, `${META},application/json`);
  assert.equal(list.body.kind, "ConfigMapList");
  const one = await read(server, `${CM}/a`, `${META_LIST},application/json`);
  assert.equal(one.body.kind, "ConfigMap");
});

Deno.test("a watch with as=PartialObjectMetadata sends every event's metadata alone", async () => {
  await using server = new FakeApiServer();
  await seed(server, ["a"]);
  const controller = new AbortController();
  const res = await server.fetch(
    `${server.url}${CM}?watch=1&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan`,
    { headers: { accept: META }, signal: controller.signal },
  );
  const lines = new Lines(res);
  const added = await lines.event();
  assert.equal(added.type, "ADDED");
  assert.deepEqual(added.object, {
    kind: "PartialObjectMetadata",
    apiVersion: "meta.k8s.io/v1",
    metadata: server.object(`${CM}/a`)!.metadata,
  });
  const end = await lines.event();
  assert.equal(end.type, "BOOKMARK");
  assert.equal(end.object.kind, "PartialObjectMetadata");
  assert.equal(
    end.object.metadata.annotations["k8s.io/initial-events-end"],
    "true",
  );
  await call(
    server,
    "PATCH",
    `${CM}/a`,
    { metadata: { labels: { app: "y" } } },
    "application/merge-patch+json",
  );
  const modified = await lines.event();
  assert.equal(modified.type, "MODIFIED");
  assert.equal(modified.object.metadata.labels.app, "y");
  assert.equal(modified.object.data, undefined);
  await call(server, "DELETE", `${CM}/a`);
  const deleted = await lines.event();
  assert.equal(deleted.type, "DELETED");
  assert.equal(deleted.object.kind, "PartialObjectMetadata");
  controller.abort();
  await lines.cancel();
});

Deno.test("a metadata watch from a compacted version gets the 410 Status unchanged", async () => {
  await using server = new FakeApiServer();
  await seed(server, ["a", "b"]);
  server.compact();
  const res = await server.fetch(
    `${server.url}${CM}?watch=1&resourceVersion=1`,
    {
      headers: { accept: META },
    },
  );
  const events = await new Lines(res).all();
  assert.equal(events.length, 1);
  assert.equal(events[0].type, "ERROR");
  assert.equal(events[0].object.kind, "Status");
  assert.equal(events[0].object.code, 410);
});

Deno.test("metadata-only lists are served over the network", async () => {
  await using server = new FakeApiServer();
  await seed(server, ["a"]);
  await using served = await server.serve();
  const res = await fetch(`${served.url}${CM}`, {
    headers: { accept: CONTROLLER_RUNTIME_LIST },
  });
  const body = await res.json();
  assert.equal(body.kind, "PartialObjectMetadataList");
  assert.equal(body.items[0].metadata.name, "a");
});
