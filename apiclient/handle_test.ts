import assert from "node:assert/strict";
import {
  Client,
  ConflictError,
  type KubeObject,
  NotFoundError,
  type Resource,
  ResourceClient,
  type WatchEvent,
} from "./mod.ts";
import { FakeApiServer } from "../testing/mod.ts";
import { json, scripted, type Seen } from "./_scripted_test_util.ts";

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

const CONFIGMAPS: Resource = {
  version: "v1",
  resource: "configmaps",
  namespaced: true,
};
const GREETINGS: Resource = {
  group: "demo.liken.dev",
  version: "v1",
  resource: "greetings",
  namespaced: true,
};
const NODES: Resource = { version: "v1", resource: "nodes", namespaced: false };
const METADATA_LIST =
  "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";

/** A client whose fetch records each request and answers an empty object. */
function recording(): { client: Client; seen: Seen[] } {
  const { fetch, seen } = scripted((request) =>
    new URL(request.url).searchParams.has("watch")
      ? new Response("", { status: 200 })
      : json(200, { metadata: { name: "a" }, items: [] })
  );
  return { client: new Client("http://api", { fetch }), seen };
}

/** What a request was: method, path with query, and the parsed body. */
function wire(seen: Seen): [string, string, unknown] {
  return [
    seen.method,
    seen.path,
    seen.body === "" ? "" : JSON.parse(seen.body),
  ];
}

Deno.test("handle: each call's method, path and query on the wire", async () => {
  const { client, seen } = recording();
  const cms = client.resource<ConfigMap>(CONFIGMAPS).namespace("demo");
  const base = "/api/v1/namespaces/demo/configmaps";
  const object: ConfigMap = { metadata: { name: "a" }, data: { k: "v" } };
  const write = {
    dryRun: "All",
    fieldValidation: "Strict",
    fieldManager: "op",
  } as const;
  const query = "fieldManager=op&dryRun=All&fieldValidation=Strict";

  await cms.get("a");
  await cms.list();
  await cms.list({
    labelSelector: "app=web",
    fieldSelector: "metadata.name=a",
    limit: 500,
    continue: "tok",
    resourceVersion: "5",
    resourceVersionMatch: "NotOlderThan",
  });
  await (await cms.watch()).cancel();
  await (await cms.watch({
    resourceVersion: "7",
    resourceVersionMatch: "NotOlderThan",
    sendInitialEvents: true,
    allowWatchBookmarks: true,
    timeoutSeconds: 300,
    labelSelector: "app=web",
    fieldSelector: "metadata.name=a",
  })).cancel();
  await cms.create(object, write);
  await cms.replace(object, write);
  await cms.patch("a", { data: { k: "w" } }, {
    type: "merge",
    ...write,
    fieldValidation: "Warn",
  });
  await cms.apply(object, {
    fieldManager: "op",
    force: true,
    dryRun: "All",
    fieldValidation: "Ignore",
  });
  await cms.delete("a");
  await cms.delete("a", {
    preconditions: { uid: "u-1", resourceVersion: "9" },
    propagationPolicy: "Foreground",
    gracePeriodSeconds: 0,
    dryRun: "All",
  });
  await cms.status.get("a");
  await cms.status.replace(object, write);
  await cms.status.patch("a", [{ op: "add", path: "/status", value: {} }], {
    type: "json",
  });
  await cms.status.apply(object, { fieldManager: "op" });

  assert.deepEqual(seen.map(wire), [
    ["GET", `${base}/a`, ""],
    ["GET", base, ""],
    [
      "GET",
      `${base}?resourceVersion=5&resourceVersionMatch=NotOlderThan&limit=500&continue=tok&labelSelector=app%3Dweb&fieldSelector=metadata.name%3Da`,
      "",
    ],
    ["GET", `${base}?watch=true`, ""],
    [
      "GET",
      `${base}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=7&allowWatchBookmarks=true&timeoutSeconds=300&labelSelector=app%3Dweb&fieldSelector=metadata.name%3Da`,
      "",
    ],
    ["POST", `${base}?${query}`, object],
    ["PUT", `${base}/a?${query}`, object],
    [
      "PATCH",
      `${base}/a?fieldManager=op&dryRun=All&fieldValidation=Warn`,
      { data: { k: "w" } },
    ],
    [
      "PATCH",
      `${base}/a?fieldManager=op&force=true&dryRun=All&fieldValidation=Ignore`,
      object,
    ],
    ["DELETE", `${base}/a`, ""],
    ["DELETE", `${base}/a`, {
      kind: "DeleteOptions",
      apiVersion: "v1",
      preconditions: { uid: "u-1", resourceVersion: "9" },
      propagationPolicy: "Foreground",
      gracePeriodSeconds: 0,
      dryRun: ["All"],
    }],
    ["GET", `${base}/a/status`, ""],
    ["PUT", `${base}/a/status?${query}`, object],
    ["PATCH", `${base}/a/status`, [{
      op: "add",
      path: "/status",
      value: {},
    }]],
    ["PATCH", `${base}/a/status?fieldManager=op`, object],
  ]);
  const types = seen.map((s) => s.headers.get("content-type"));
  assert.deepEqual(types.slice(5, 11), [
    "application/json",
    "application/json",
    "application/merge-patch+json",
    "application/apply-patch+yaml",
    null,
    "application/json",
  ]);
  assert.equal(types[13], "application/json-patch+json");
  assert.equal(types[14], "application/apply-patch+yaml");
});

Deno.test("handle: paths of a group, of all namespaces and of a cluster-scoped kind", async () => {
  const { client, seen } = recording();
  await client.resource(GREETINGS).namespace("a b").get("x/y");
  await client.resource(GREETINGS).list();
  await client.resource(NODES).get("node-1");
  // A resource that names its namespace is scoped to it already.
  await client.resource({ ...CONFIGMAPS, namespace: "demo" }).get("a");
  // Unknown scope and no namespace: cluster-scoped paths.
  await client.resource({ version: "v1", resource: "namespaces" }).get("demo");
  assert.deepEqual(seen.map((s) => s.path), [
    "/apis/demo.liken.dev/v1/namespaces/a%20b/greetings/x%2Fy",
    "/apis/demo.liken.dev/v1/greetings",
    "/api/v1/nodes/node-1",
    "/api/v1/namespaces/demo/configmaps/a",
    "/api/v1/namespaces/demo",
  ]);
});

Deno.test("handle: the Accept header passes through get, list and watch", async () => {
  const { client, seen } = recording();
  const cms = client.resource(CONFIGMAPS).namespace("demo");
  const single =
    "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json";
  await cms.get("a", { accept: single });
  await cms.list({ accept: METADATA_LIST });
  await (await cms.watch({ accept: single })).cancel();
  await cms.get("a");
  assert.deepEqual(seen.map((s) => s.headers.get("accept")), [
    single,
    METADATA_LIST,
    single,
    "application/json",
  ]);
});

Deno.test("handle: signals end every call", async () => {
  // A server that never answers: only the signal ends a request.
  const silent = (_: unknown, init?: RequestInit): Promise<Response> =>
    new Promise((_, reject) => {
      const signal = init?.signal;
      if (signal?.aborted) reject(signal.reason);
      signal?.addEventListener("abort", () => reject(signal.reason));
    });
  const client = new Client("http://api", { fetch: silent });
  const cms = client.resource<ConfigMap>(CONFIGMAPS).namespace("demo");
  const object: ConfigMap = { metadata: { name: "a" } };
  const calls: ((signal: AbortSignal) => Promise<unknown>)[] = [
    (signal) => cms.get("a", { signal }),
    (signal) => cms.list({ signal }),
    (signal) => cms.watch({ signal }),
    (signal) => cms.create(object, { signal }),
    (signal) => cms.replace(object, { signal }),
    (signal) => cms.patch("a", {}, { type: "merge", signal }),
    (signal) => cms.apply(object, { fieldManager: "op", signal }),
    (signal) => cms.delete("a", { signal }),
    (signal) => cms.status.get("a", { signal }),
    (signal) => cms.status.replace(object, { signal }),
    (signal) => cms.status.patch("a", {}, { type: "merge", signal }),
    (signal) => cms.status.apply(object, { fieldManager: "op", signal }),
  ];
  for (const call of calls) {
    const stop = new AbortController();
    const pending = call(stop.signal);
    stop.abort(new Error("Stopped"));
    await assert.rejects(pending, { message: "Stopped" });
  }
});

Deno.test("handle: .namespace() on a cluster-scoped resource is refused", () => {
  const { client } = recording();
  assert.throws(() => client.resource(NODES).namespace("demo"), {
    name: "TypeError",
    message:
      'The resource nodes is cluster-scoped (namespaced: false): it has no namespace "demo"',
  });
  assert.throws(
    () => client.resource({ ...NODES, namespace: "demo" }),
    TypeError,
  );
  assert.throws(
    () => client.resource(CONFIGMAPS).namespace(""),
    /must be a non-empty string/,
  );
});

Deno.test("handle: a name without a namespace, on a namespaced resource, is refused before sending", async () => {
  const { client, seen } = recording();
  const all = client.resource<ConfigMap>(CONFIGMAPS);
  const message = /needs a namespace: the handle spans all namespaces/;
  await assert.rejects(all.get("a"), { name: "TypeError", message });
  await assert.rejects(all.patch("a", {}, { type: "merge" }), message);
  await assert.rejects(all.delete("a"), message);
  await assert.rejects(all.status.get("a"), message);
  await assert.rejects(all.status.patch("a", {}, { type: "merge" }), message);
  await assert.rejects(
    all.create({ metadata: { name: "a" } }),
    /neither the handle nor the object's metadata.namespace names one/,
  );
  await assert.rejects(
    all.namespace("demo").replace({ metadata: {} }),
    /needs the object's metadata.name/,
  );
  await assert.rejects(
    all.namespace("demo").get(""),
    /needs the object's name/,
  );
  // A list and a watch across all namespaces are what the handle is for.
  await all.list();
  assert.deepEqual(seen.map((s) => s.path), ["/api/v1/configmaps"]);
});

Deno.test("handle: the object's namespace places a write; a different one is refused", async () => {
  const { client, seen } = recording();
  const all = client.resource<ConfigMap>(CONFIGMAPS);
  const inB: ConfigMap = { metadata: { name: "a", namespace: "b" } };
  await all.create(inB);
  await all.replace(inB);
  await all.apply(inB, { fieldManager: "op" });
  await all.status.replace(inB);
  assert.deepEqual(seen.map((s) => `${s.method} ${s.path}`), [
    "POST /api/v1/namespaces/b/configmaps",
    "PUT /api/v1/namespaces/b/configmaps/a",
    "PATCH /api/v1/namespaces/b/configmaps/a?fieldManager=op",
    "PUT /api/v1/namespaces/b/configmaps/a/status",
  ]);
  const inA = all.namespace("a");
  const message =
    'A create of configmaps "a" is refused: the object\'s namespace "b" is not the handle\'s "a"';
  await assert.rejects(inA.create(inB), { name: "TypeError", message });
  await assert.rejects(
    inA.replace(inB),
    /namespace "b" is not the handle's "a"/,
  );
  await assert.rejects(
    inA.apply(inB, { fieldManager: "op" }),
    /namespace "b" is not the handle's "a"/,
  );
  await assert.rejects(
    inA.status.apply(inB, { fieldManager: "op" }),
    /namespace "b" is not the handle's "a"/,
  );
  // The same namespace on both is fine.
  await all.namespace("b").create(inB);
  assert.equal(seen.length, 5);
});

Deno.test("handle: apply without a fieldManager is refused before sending", async () => {
  const { client, seen } = recording();
  const cms = client.resource(CONFIGMAPS).namespace("demo");
  const object = { metadata: { name: "a" } };
  const message = "Server-side apply needs a fieldManager";
  // A caller without types may leave it out.
  const none = {} as { fieldManager: string };
  await assert.rejects(cms.apply(object, none), { name: "TypeError", message });
  await assert.rejects(cms.apply(object, { fieldManager: "" }), TypeError);
  await assert.rejects(cms.status.apply(object, none), TypeError);
  assert.equal(seen.length, 0);
});

Deno.test("handle: bad numbers and a delete body with delete options are refused", async () => {
  const { client, seen } = recording();
  const cms = client.resource(CONFIGMAPS).namespace("demo");
  await assert.rejects(cms.list({ limit: 0 }), RangeError);
  await assert.rejects(cms.list({ limit: 1.5 }), RangeError);
  await assert.rejects(cms.watch({ timeoutSeconds: -1 }), RangeError);
  await assert.rejects(cms.delete("a", { gracePeriodSeconds: -1 }), RangeError);
  await assert.rejects(
    cms.delete("a", { body: {}, propagationPolicy: "Orphan" }),
    /either a body or its options/,
  );
  assert.equal(seen.length, 0);
  // A body alone is sent as it is.
  await cms.delete("a", { body: { orphanDependents: true } });
  assert.deepEqual(JSON.parse(seen[0]!.body), { orphanDependents: true });
});

Deno.test("handle: the path-based calls take the same write options", async () => {
  const { client, seen } = recording();
  const path = "/api/v1/namespaces/demo/configmaps";
  await client.create(path, { metadata: { name: "a" } }, { dryRun: "All" });
  await client.replace(`${path}/a`, { metadata: { name: "a" } }, {
    fieldValidation: "Strict",
  });
  await client.replaceStatus(`${path}/a`, { metadata: { name: "a" } }, {
    dryRun: "All",
  });
  await client.delete(`${path}/a`, { propagationPolicy: "Orphan" });
  assert.deepEqual(seen.map(wire), [
    ["POST", `${path}?dryRun=All`, { metadata: { name: "a" } }],
    ["PUT", `${path}/a?fieldValidation=Strict`, { metadata: { name: "a" } }],
    ["PUT", `${path}/a/status?dryRun=All`, { metadata: { name: "a" } }],
    ["DELETE", `${path}/a`, {
      kind: "DeleteOptions",
      apiVersion: "v1",
      propagationPolicy: "Orphan",
    }],
  ]);
});

Deno.test("handle: against the fake API server, every call does what it says", async () => {
  await using server = new FakeApiServer();
  const client = new Client(server.url, { fetch: server.fetch });
  const all = client.resource<ConfigMap>(CONFIGMAPS);
  const cms = all.namespace("default");

  const made = await cms.create({
    metadata: { name: "a", labels: { app: "web" } },
    data: { k: "1" },
  });
  await cms.create({ metadata: { name: "b" } });
  assert.equal((await cms.get("a")).data?.k, "1");

  // A dry run checks and stores nothing.
  await cms.create({ metadata: { name: "dry" } }, { dryRun: "All" });
  await assert.rejects(cms.get("dry"), NotFoundError);

  const selected = await cms.list({ labelSelector: "app=web" });
  assert.deepEqual(selected.items.map((i) => i.metadata.name), ["a"]);
  const named = await all.list({ fieldSelector: "metadata.name=b" });
  assert.deepEqual(named.items.map((i) => i.metadata.name), ["b"]);
  const page = await cms.list({ limit: 1 });
  assert.equal(page.items.length, 1);
  assert.ok(page.metadata.continue);
  const rest = await cms.list({ limit: 1, continue: page.metadata.continue });
  assert.deepEqual(
    [...page.items, ...rest.items].map((i) => i.metadata.name).sort(),
    ["a", "b"],
  );

  const replaced = await cms.replace({ ...made, data: { k: "2" } });
  await assert.rejects(
    cms.replace({ ...made, data: { k: "3" } }),
    ConflictError,
  );
  const patched = await cms.patch("a", { data: { k: "4" } }, { type: "merge" });
  assert.equal(patched.data?.k, "4");

  const applied = await cms.apply(
    {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "c" },
      data: { x: "1" },
    },
    { fieldManager: "op" },
  );
  assert.equal(applied.data?.x, "1");
  // Another manager's value conflicts, unless it forces.
  const other = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "c" },
    data: { x: "2" },
  };
  await assert.rejects(
    cms.apply(other, { fieldManager: "other" }),
    ConflictError,
  );
  const forced = await cms.apply(other, { fieldManager: "other", force: true });
  assert.equal(forced.data?.x, "2");

  await assert.rejects(
    cms.delete("a", { preconditions: { uid: "not-its-uid" } }),
    ConflictError,
  );
  await assert.rejects(
    cms.delete("a", {
      preconditions: { resourceVersion: replaced.metadata.resourceVersion },
    }),
    ConflictError,
  );
  await cms.delete("a", {
    preconditions: { uid: made.metadata.uid },
    propagationPolicy: "Background",
  });
  await assert.rejects(cms.get("a"), NotFoundError);
});

Deno.test("handle: the status subresource against the fake API server", async () => {
  await using server = new FakeApiServer();
  const client = new Client(server.url, { fetch: server.fetch });
  interface Pod extends KubeObject {
    spec?: { containers: unknown[] };
    status?: { phase?: string };
  }
  const pods = client.resource<Pod>({ version: "v1", resource: "pods" })
    .namespace("default");
  const pod = await pods.create({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p" },
    spec: { containers: [{ name: "c", image: "busybox" }] },
  });
  const running = await pods.status.replace({
    ...pod,
    status: { phase: "Running" },
  });
  assert.equal(running.status?.phase, "Running");
  assert.equal((await pods.status.get("p")).status?.phase, "Running");
  const patched = await pods.status.patch("p", {
    status: { phase: "Succeeded" },
  }, { type: "merge" });
  assert.equal(patched.status?.phase, "Succeeded");
  // The status subresource leaves the spec alone.
  await pods.status.replace({
    ...patched,
    spec: { containers: [{ name: "x" }] },
  });
  // (The fake adds a container's defaults, as the API server does.)
  const containers = (await pods.get("p")).spec?.containers as {
    name: string;
    image: string;
  }[];
  assert.deepEqual(containers.map((c) => [c.name, c.image]), [[
    "c",
    "busybox",
  ]]);
});

Deno.test("handle: a watch through the handle receives the collection's events", async () => {
  await using server = new FakeApiServer();
  const client = new Client(server.url, { fetch: server.fetch });
  const cms = client.resource<ConfigMap>(CONFIGMAPS).namespace("default");
  const listed = await cms.list();
  const stop = new AbortController();
  await using stream = await cms.watch({
    resourceVersion: listed.metadata.resourceVersion,
    allowWatchBookmarks: true,
    labelSelector: "app=web",
    signal: stop.signal,
  });
  await cms.create({ metadata: { name: "other" } });
  await cms.create({ metadata: { name: "a", labels: { app: "web" } } });
  await cms.patch("a", { data: { k: "v" } }, { type: "merge" });
  await cms.delete("a");
  const seen: string[] = [];
  for await (const event of stream as AsyncIterable<WatchEvent<ConfigMap>>) {
    if (event.type === "BOOKMARK") continue;
    if (event.type === "ERROR") assert.fail(event.object.message);
    seen.push(`${event.type} ${event.object.metadata.name}`);
    if (event.type === "DELETED") break;
  }
  assert.deepEqual(seen, ["ADDED a", "MODIFIED a", "DELETED a"]);
});

// What the informer sends today (informer/_reflector.ts `#url`, `#open`,
// informer/_pages.ts), recorded from a Collection with these selectors and
// `metadataOnly`: the handle's list and watch send the same requests, so the
// informer can move onto the handle without a change on the wire.
const SELECTED = "labelSelector=app%3Dweb&fieldSelector=metadata.name%3Da";
const INFORMER = {
  list: `limit=500&${SELECTED}`,
  relist:
    `resourceVersion=5&resourceVersionMatch=NotOlderThan&limit=500&${SELECTED}`,
  page: `limit=500&continue=tok&${SELECTED}`,
  streamingList:
    `watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=372&${SELECTED}`,
  watch:
    `watch=true&resourceVersion=5&allowWatchBookmarks=true&timeoutSeconds=540&${SELECTED}`,
};
const METADATA_ONE =
  "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json";

Deno.test("handle: a list and a watch with selectors are the requests the informer sends", async () => {
  const { client, seen } = recording();
  const cms = client.resource(CONFIGMAPS).namespace("default");
  const selectors = {
    labelSelector: "app=web",
    fieldSelector: "metadata.name=a",
  };
  const list = { ...selectors, limit: 500, accept: METADATA_LIST };
  const watch = {
    ...selectors,
    allowWatchBookmarks: true,
    accept: METADATA_ONE,
  };
  await cms.list(list);
  await cms.list({
    ...list,
    resourceVersion: "5",
    resourceVersionMatch: "NotOlderThan",
  });
  await cms.list({ ...list, continue: "tok" });
  await (await cms.watch({
    ...watch,
    sendInitialEvents: true,
    resourceVersionMatch: "NotOlderThan",
    resourceVersion: "",
    timeoutSeconds: 372,
  })).cancel();
  await (await cms.watch({
    ...watch,
    resourceVersion: "5",
    timeoutSeconds: 540,
  })).cancel();
  const base = "/api/v1/namespaces/default/configmaps?";
  assert.deepEqual(seen.map((s) => [s.path, s.headers.get("accept")]), [
    [base + INFORMER.list, METADATA_LIST],
    [base + INFORMER.relist, METADATA_LIST],
    [base + INFORMER.page, METADATA_LIST],
    [base + INFORMER.streamingList, METADATA_ONE],
    [base + INFORMER.watch, METADATA_ONE],
  ]);
});

Deno.test("handle: ResourceClient sends through any PathClient", async () => {
  const { client, seen } = recording();
  const paths: string[] = [];
  const wrapped = new ResourceClient(
    {
      get: (path, options) => (paths.push(path), client.get(path, options)),
      create: (path, object, options) => client.create(path, object, options),
      replace: (path, object, options) => client.replace(path, object, options),
      patch: (path, patch, options) => client.patch(path, patch, options),
      apply: (path, object, options) => client.apply(path, object, options),
      delete: (path, options) => client.delete(path, options),
      watch: (path, options) => client.watch(path, options),
    },
    CONFIGMAPS,
  );
  await wrapped.namespace("demo").get("a");
  assert.deepEqual(paths, ["/api/v1/namespaces/demo/configmaps/a"]);
  assert.equal(seen.length, 1);
  assert.deepEqual(wrapped.namespace("demo").resource, {
    ...CONFIGMAPS,
    namespace: "demo",
  });
});
