import assert from "node:assert/strict";
import { flush } from "./_test_util.ts";
import { written } from "../_internal/_memo_test_util.ts";
import {
  ApiError,
  Client,
  ConflictError,
  type KubeObject,
  NotFoundError,
} from "../apiclient/mod.ts";
import { FakeApiServer } from "../testing/mod.ts";
import { freshGet, freshList, settleStatus } from "./requests.ts";
import { Versions } from "./versions.ts";

interface Widget extends KubeObject {
  spec?: { size?: number };
  status?: { phase?: string; observed?: number };
}

const WIDGETS = {
  group: "example.com",
  version: "v1",
  resource: "widgets",
  namespace: "demo",
};
const COLLECTION = "/apis/example.com/v1/namespaces/demo/widgets";
const path = (name: string): string => `${COLLECTION}/${name}`;
const ref = (name: string) => ({ ...WIDGETS, name });

function newServer(): FakeApiServer {
  const server = new FakeApiServer();
  server.put("/api/v1/namespaces/demo", { metadata: {} });
  server.register({
    group: "example.com",
    version: "v1",
    resource: "widgets",
    kind: "Widget",
    namespaced: true,
    statusSubresource: true,
  });
  return server;
}

function widget(name: string, size = 1): Widget {
  return {
    apiVersion: "example.com/v1",
    kind: "Widget",
    metadata: { name, namespace: "demo" },
    spec: { size },
  };
}

/** The requests the server saw since `from`, as `METHOD path`. */
function seen(server: FakeApiServer, from = 0): string[] {
  return server.requests.slice(from).map((request) =>
    `${request.method} ${request.path}`
  );
}

/**
 * A fetch in front of the fake whose answers to matching requests are held
 * back after the server made them, until `release` is called: the server
 * answered, but the answer reaches the client later.
 */
function heldFetch(
  server: FakeApiServer,
  holds: (method: string, url: URL) => boolean,
): { fetch: typeof fetch; answered: Promise<void>; release(): void } {
  const gate = Promise.withResolvers<void>();
  const answered = Promise.withResolvers<void>();
  const held: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const response = await server.fetch(request);
    if (holds(request.method, new URL(request.url))) {
      answered.resolve();
      await gate.promise;
    }
    return response;
  };
  return { fetch: held, answered: answered.promise, release: gate.resolve };
}

Deno.test("freshGet: reads from the server and notes the version", async () => {
  await using server = newServer();
  const client = new Client(server.url, { fetch: server.fetch });
  const made = await client.create(COLLECTION, widget("a"));
  const versions = new Versions();
  const before = server.requests.length;
  const fresh = await freshGet<Widget>(client, ref("a"), { versions });
  assert.deepEqual(seen(server, before), [`GET ${path("a")}`]);
  assert.equal(fresh.metadata.resourceVersion, made.metadata.resourceVersion);
  assert.equal(
    versions.current(ref("a"), fresh.metadata.resourceVersion!),
    true,
  );
  assert.equal(versions.current(ref("a"), "0"), false);
});

Deno.test("freshGet: a 404 notes the empty version and rejects", async () => {
  await using server = newServer();
  const client = new Client(server.url, { fetch: server.fetch });
  const versions = new Versions();
  versions.note(ref("gone"), "5");
  await assert.rejects(
    freshGet(client, ref("gone"), { versions }),
    NotFoundError,
  );
  assert.equal(versions.noted(ref("gone")), true);
  assert.equal(versions.current(ref("gone"), "5"), false);
});

Deno.test("freshGet: an absent memo reads and records nothing", async () => {
  await using server = newServer();
  const client = new Client(server.url, { fetch: server.fetch });
  await client.create(COLLECTION, widget("a", 3));
  const fresh = await freshGet<Widget>(client, ref("a"), {
    versions: undefined,
  });
  assert.equal(fresh.spec?.size, 3);
});

Deno.test("freshList: notes every listed object and sends no resourceVersion", async () => {
  await using server = newServer();
  const client = new Client(server.url, { fetch: server.fetch });
  const a = await client.create(COLLECTION, widget("a"));
  const b = await client.create(COLLECTION, widget("b"));
  const versions = new Versions();
  versions.note(ref("a"), "old");
  const before = server.requests.length;
  const items = await freshList<Widget>(client, WIDGETS, { versions });
  const sent = server.requests.slice(before);
  assert.deepEqual(sent.map((request) => request.path), [COLLECTION]);
  assert.equal(sent[0]!.query.has("resourceVersion"), false);
  assert.deepEqual(items.map((item) => item.metadata.name).sort(), ["a", "b"]);
  assert.equal(versions.current(ref("a"), a.metadata.resourceVersion!), true);
  assert.equal(versions.current(ref("a"), "old"), false);
  assert.equal(versions.current(ref("b"), b.metadata.resourceVersion!), true);
});

Deno.test("freshList: a write noted while the list is in flight keeps its version", async () => {
  await using server = newServer();
  const plain = new Client(server.url, { fetch: server.fetch });
  const made = await plain.create(COLLECTION, widget("a"));
  // The list is answered with the old copy, but reaches the client late.
  const held = heldFetch(
    server,
    (method, url) => method === "GET" && url.pathname === COLLECTION,
  );
  const client = new Client(server.url, { fetch: held.fetch });
  const versions = new Versions();
  const listing = freshList<Widget>(client, WIDGETS, { versions });
  await held.answered;
  const newer = await written(
    ref("a"),
    () => plain.replace(path("a"), { ...made, spec: { size: 2 } }),
    { versions },
  );
  held.release();
  const items = await listing;
  assert.equal(
    items[0]!.metadata.resourceVersion,
    made.metadata.resourceVersion,
  );
  assert.equal(
    versions.current(ref("a"), newer.metadata.resourceVersion!),
    true,
  );
  // A store copy at the listed (older) version must not count as current.
  assert.equal(
    versions.current(ref("a"), made.metadata.resourceVersion!),
    false,
  );
});

Deno.test("freshList: the source's selectors go with the list", async () => {
  await using server = newServer();
  const client = new Client(server.url, { fetch: server.fetch });
  await client.create(COLLECTION, {
    ...widget("a"),
    metadata: { name: "a", labels: { app: "web" } },
  });
  await client.create(COLLECTION, widget("b"));
  await client.create(COLLECTION, {
    ...widget("c"),
    metadata: { name: "c", labels: { app: "web" } },
  });
  const versions = new Versions();
  const before = server.requests.length;
  const items = await freshList<Widget>(client, {
    ...WIDGETS,
    labelSelector: "app=web",
    fieldSelector: "metadata.name=a",
  }, { versions });
  assert.deepEqual(items.map((item) => item.metadata.name), ["a"]);
  const [sent] = server.requests.slice(before);
  assert.equal(sent!.query.get("labelSelector"), "app=web");
  assert.equal(sent!.query.get("fieldSelector"), "metadata.name=a");
  assert.equal(versions.noted(ref("a")), true);
  assert.equal(versions.noted(ref("b")), false);
  assert.equal(versions.noted(ref("c")), false);
});

Deno.test("freshList: a list that fails notes nothing", async () => {
  await using server = newServer();
  const client = new Client(server.url, { fetch: server.fetch });
  await client.create(COLLECTION, widget("a"));
  const versions = new Versions();
  versions.note(ref("a"), "1");
  server.refuse({ method: "GET", path: COLLECTION, status: 500, count: 1 });
  await assert.rejects(
    freshList(client, WIDGETS, { versions }),
    ApiError,
  );
  assert.equal(versions.current(ref("a"), "1"), true);
  assert.equal(versions.noted(ref("b")), false);
});

Deno.test("freshList: an absent memo lists and records nothing", async () => {
  await using server = newServer();
  const client = new Client(server.url, { fetch: server.fetch });
  await client.create(COLLECTION, widget("a"));
  const items = await freshList<Widget>(client, WIDGETS, {
    versions: undefined,
  });
  assert.equal(items.length, 1);
});

Deno.test("withMemo: a create notes the server's copy; unheld until the watch has it", async () => {
  await using server = newServer();
  const versions = new Versions();
  const client = new Client(server.url, { fetch: server.fetch });
  assert.equal(client.memo, undefined);
  const widgets = client.withMemo(versions).resource<Widget>(WIDGETS)
    .namespace("demo");
  const made = await widgets.create(widget("a"));
  assert.equal(
    versions.current(ref("a"), made.metadata.resourceVersion!),
    true,
  );
  assert.deepEqual(versions.unheld(WIDGETS, new Map()), [ref("a")]);
  assert.deepEqual(versions.unheld(WIDGETS, new Map([["demo/a", made]])), []);
});

Deno.test("withMemo: every write of the handles is noted, status ones too; a dry run and the path-based calls are not", async () => {
  await using server = newServer();
  const versions = new Versions();
  const client = new Client(server.url, { fetch: server.fetch }).withMemo(
    versions,
  );
  const widgets = client.resource<Widget>(WIDGETS).namespace("demo");
  let last = await widgets.create(widget("a"));
  const current = (): boolean =>
    versions.current(ref("a"), last.metadata.resourceVersion!);
  last = await widgets.replace({ ...last, spec: { size: 2 } });
  assert.ok(current(), "replace");
  last = await widgets.patch("a", { spec: { size: 3 } }, { type: "merge" });
  assert.ok(current(), "patch");
  last = await widgets.apply(
    { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "a" } },
    { fieldManager: "test" },
  );
  assert.ok(current(), "apply");
  last = await widgets.status.replace({ ...last, status: { phase: "Up" } });
  assert.ok(current(), "status replace");
  last = await widgets.status.patch("a", { status: { observed: 1 } }, {
    type: "merge",
  });
  assert.ok(current(), "status patch");
  // A dry run stores nothing: the note stays.
  await widgets.replace({ ...last, spec: { size: 9 } }, { dryRun: "All" });
  await widgets.delete("a", { dryRun: "All" });
  await widgets.delete("a", { body: { dryRun: ["All"] } });
  assert.ok(current(), "dry runs are not noted");
  // The path-based calls are not noted.
  await client.replace(path("a"), { ...last, spec: { size: 4 } });
  assert.ok(current(), "a path-based write is not noted");
  // A delete that completes answers no version: unknown, read it afresh.
  await widgets.delete("a");
  assert.equal(versions.noted(ref("a")), true);
  assert.equal(current(), false);
});

Deno.test("withMemo: a create with generateName is noted under the name it got", async () => {
  await using server = newServer();
  const versions = new Versions();
  const widgets = new Client(server.url, { fetch: server.fetch })
    .withMemo(versions).resource<Widget>(WIDGETS).namespace("demo");
  const made = await widgets.create({
    apiVersion: "example.com/v1",
    kind: "Widget",
    metadata: { generateName: "w-" },
  });
  const name = made.metadata.name!;
  assert.match(name, /^w-/);
  assert.equal(
    versions.current(ref(name), made.metadata.resourceVersion!),
    true,
  );
  assert.equal(versions.current(ref(name), "0"), false);
});

Deno.test("withMemo: the note is the whole ref's: a ConfigMap of the same name keeps its own", async () => {
  await using server = newServer();
  const versions = new Versions();
  const client = new Client(server.url, { fetch: server.fetch }).withMemo(
    versions,
  );
  const configMap = {
    version: "v1",
    resource: "configmaps",
    namespace: "demo",
    name: "a",
  };
  const cm = await client.resource(configMap).create({
    metadata: { name: "a" },
  });
  const widgets = client.resource<Widget>(WIDGETS).namespace("demo");
  const made = await widgets.create(widget("a"));
  // Each store's copy is judged by its own kind's note.
  assert.equal(versions.current(configMap, cm.metadata.resourceVersion!), true);
  assert.equal(
    versions.current(ref("a"), made.metadata.resourceVersion!),
    true,
  );
  // A failed write of the Widget (a stale copy: 409) leaves the ConfigMap
  // trusted, and the Widget unknown.
  await client.replace(path("a"), { ...made, spec: { size: 5 } });
  await assert.rejects(
    widgets.replace({ ...made, spec: { size: 6 } }),
    ConflictError,
  );
  assert.equal(versions.current(configMap, cm.metadata.resourceVersion!), true);
  assert.equal(versions.noted(ref("a")), true);
  assert.equal(
    versions.current(ref("a"), made.metadata.resourceVersion!),
    false,
  );
  assert.deepEqual(
    versions.unheld({ version: "v1", resource: "configmaps" }, new Map()),
    [configMap],
  );
});

Deno.test("withMemo: two writers of one object; the second is sent only after the first answer arrives", async () => {
  await using server = newServer();
  const plain = new Client(server.url, { fetch: server.fetch });
  const made = await plain.create(COLLECTION, widget("a"));
  // The first write's answer reaches the client late.
  let puts = 0;
  const held = heldFetch(server, (method) => method === "PUT" && ++puts === 1);
  const versions = new Versions();
  const widgets = new Client(server.url, { fetch: held.fetch })
    .withMemo(versions).resource<Widget>(WIDGETS).namespace("demo");
  const before = server.requests.length;
  const first = widgets.replace({ ...made, spec: { size: 2 } });
  const second = widgets.patch("a", { spec: { size: 3 } }, { type: "merge" });
  await held.answered;
  await flush();
  // The second writer has sent nothing while the first answer is out.
  assert.deepEqual(seen(server, before), [`PUT ${path("a")}`]);
  held.release();
  const [one, two] = await Promise.all([first, second]);
  assert.deepEqual(seen(server, before), [
    `PUT ${path("a")}`,
    `PATCH ${path("a")}`,
  ]);
  assert.equal(versions.current(ref("a"), two.metadata.resourceVersion!), true);
  assert.equal(
    versions.current(ref("a"), one.metadata.resourceVersion!),
    false,
  );
});

/** An apply that marks the copy Ready and records what it was given. */
function markReady(given: Widget[]): (copy: Widget) => boolean {
  return (copy) => {
    given.push(structuredClone(copy));
    if (copy.status?.phase === "Ready") return false;
    copy.status = { phase: "Ready", observed: copy.spec?.size ?? 0 };
    return true;
  };
}

Deno.test("settleStatus: 200 writes once and answers the server's copy", async () => {
  await using server = newServer();
  const client = new Client(server.url, { fetch: server.fetch });
  const held = await client.create(COLLECTION, widget("a"));
  const created = held.metadata.resourceVersion;
  const versions = new Versions();
  const given: Widget[] = [];
  const before = server.requests.length;
  const { landed, object } = await settleStatus(client, ref("a"), {
    held,
    versions,
    apply: markReady(given),
  });
  assert.deepEqual(seen(server, before), [`PUT ${path("a")}/status`]);
  assert.equal(landed, true);
  assert.equal(given.length, 1);
  assert.equal(object.status?.phase, "Ready");
  assert.notEqual(object.metadata.resourceVersion, created);
  assert.equal(
    versions.current(ref("a"), object.metadata.resourceVersion!),
    true,
  );
  // The held copy now is the server's answer (a copy of it), as in the
  // seed: a second settle from it is not refused as stale.
  assert.equal(held.status?.phase, "Ready");
  assert.equal(held.metadata.resourceVersion, object.metadata.resourceVersion);
  assert.notEqual(held, object);
  const again = server.requests.length;
  const second = await settleStatus(client, ref("a"), {
    held,
    versions,
    apply: (copy) => {
      copy.status = { phase: "Done" };
      return true;
    },
  });
  assert.equal(second.landed, true);
  assert.deepEqual(seen(server, again), [`PUT ${path("a")}/status`]);
});

Deno.test("settleStatus: a copy that needs no write sends nothing", async () => {
  await using server = newServer();
  const client = new Client(server.url, { fetch: server.fetch });
  const held = await client.create(COLLECTION, widget("a"));
  const before = server.requests.length;
  const result = await settleStatus(client, ref("a"), {
    held,
    versions: new Versions(),
    apply: () => false,
  });
  assert.deepEqual(seen(server, before), []);
  assert.equal(result.landed, false);
  assert.equal(result.object, held);
});

Deno.test("settleStatus: 409 then 200 reads again, applies to the fresh copy, writes once more", async () => {
  await using server = newServer();
  const client = new Client(server.url, { fetch: server.fetch });
  const held = await client.create(COLLECTION, widget("a", 1));
  // Another writer changes the spec: the held copy is stale now.
  const other = await client.replace(path("a"), { ...held, spec: { size: 7 } });
  const versions = new Versions();
  const given: Widget[] = [];
  const before = server.requests.length;
  const { landed, object } = await settleStatus(client, ref("a"), {
    held,
    versions,
    apply: markReady(given),
  });
  assert.deepEqual(seen(server, before), [
    `PUT ${path("a")}/status`,
    `GET ${path("a")}`,
    `PUT ${path("a")}/status`,
  ]);
  assert.equal(landed, true);
  // apply ran on the held copy, then on the fresh one.
  assert.equal(given.length, 2);
  assert.equal(given[0]!.spec?.size, 1);
  assert.equal(given[1]!.spec?.size, 7);
  assert.equal(
    given[1]!.metadata.resourceVersion,
    other.metadata.resourceVersion,
  );
  assert.deepEqual(object.status, { phase: "Ready", observed: 7 });
  assert.equal(object.spec?.size, 7);
  assert.equal(
    versions.current(ref("a"), object.metadata.resourceVersion!),
    true,
  );
  // The held copy took the fresh copy, then the answer to the write.
  assert.equal(held.spec?.size, 7);
  assert.equal(held.metadata.resourceVersion, object.metadata.resourceVersion);
});

Deno.test("settleStatus: a refused 409 (fault injection) follows the same sequence", async () => {
  await using server = newServer();
  const client = new Client(server.url, { fetch: server.fetch });
  const held = await client.create(COLLECTION, widget("a"));
  server.refuse({
    method: "PUT",
    path: `${path("a")}/status`,
    status: 409,
    reason: "Conflict",
    count: 1,
  });
  const before = server.requests.length;
  const { landed, object } = await settleStatus(client, ref("a"), {
    held,
    versions: new Versions(),
    apply: markReady([]),
  });
  assert.deepEqual(seen(server, before), [
    `PUT ${path("a")}/status`,
    `GET ${path("a")}`,
    `PUT ${path("a")}/status`,
  ]);
  assert.equal(landed, true);
  assert.equal(object.status?.phase, "Ready");
});

Deno.test("settleStatus: the fresh copy no longer needs the write", async () => {
  await using server = newServer();
  const client = new Client(server.url, { fetch: server.fetch });
  const held = await client.create(COLLECTION, widget("a"));
  // Another writer already wrote the same status.
  const theirs = await client.replaceStatus(path("a"), {
    ...held,
    status: { phase: "Ready", observed: 1 },
  });
  const versions = new Versions();
  const given: Widget[] = [];
  const before = server.requests.length;
  const { landed, object } = await settleStatus(client, ref("a"), {
    held,
    versions,
    apply: markReady(given),
  });
  assert.deepEqual(seen(server, before), [
    `PUT ${path("a")}/status`,
    `GET ${path("a")}`,
  ]);
  assert.equal(landed, false);
  assert.equal(given.length, 2);
  assert.equal(
    object.metadata.resourceVersion,
    theirs.metadata.resourceVersion,
  );
  assert.deepEqual(object.status, { phase: "Ready", observed: 1 });
  assert.equal(
    versions.current(ref("a"), theirs.metadata.resourceVersion!),
    true,
  );
});

Deno.test("settleStatus: 404 reads again and rejects with NotFoundError", async () => {
  await using server = newServer();
  const client = new Client(server.url, { fetch: server.fetch });
  const held = await client.create(COLLECTION, widget("a"));
  await client.delete(path("a"));
  const versions = new Versions();
  const given: Widget[] = [];
  const before = server.requests.length;
  await assert.rejects(
    settleStatus(client, ref("a"), {
      held,
      versions,
      apply: markReady(given),
    }),
    NotFoundError,
  );
  assert.deepEqual(seen(server, before), [
    `PUT ${path("a")}/status`,
    `GET ${path("a")}`,
  ]);
  assert.equal(given.length, 1);
  // The held copy keeps the status the server did not take.
  assert.equal(held.status?.phase, "Ready");
  assert.equal(versions.noted(ref("a")), true);
  assert.equal(
    versions.current(ref("a"), held.metadata.resourceVersion!),
    false,
  );
});

Deno.test("settleStatus: another error is not retried and the held copy keeps the status", async () => {
  await using server = newServer();
  const client = new Client(server.url, { fetch: server.fetch });
  const held = await client.create(COLLECTION, widget("a"));
  server.refuse({ method: "PUT", status: 500, count: 1 });
  const versions = new Versions();
  const before = server.requests.length;
  await assert.rejects(
    settleStatus(client, ref("a"), {
      held,
      versions,
      apply: markReady([]),
    }),
    (error) => error instanceof ApiError && error.status === 500,
  );
  assert.deepEqual(seen(server, before), [`PUT ${path("a")}/status`]);
  assert.equal(held.status?.phase, "Ready");
  assert.equal(
    versions.current(ref("a"), held.metadata.resourceVersion!),
    false,
  );
});

Deno.test("settleStatus: a second refusal rejects after exactly one retry", async () => {
  await using server = newServer();
  const client = new Client(server.url, { fetch: server.fetch });
  const held = await client.create(COLLECTION, widget("a"));
  server.refuse({
    method: "PUT",
    path: `${path("a")}/status`,
    status: 409,
    reason: "Conflict",
    count: 2,
  });
  const before = server.requests.length;
  await assert.rejects(
    settleStatus(client, ref("a"), {
      held,
      versions: new Versions(),
      apply: markReady([]),
    }),
    ConflictError,
  );
  assert.deepEqual(seen(server, before), [
    `PUT ${path("a")}/status`,
    `GET ${path("a")}`,
    `PUT ${path("a")}/status`,
  ]);
  assert.equal(held.status?.phase, "Ready");
});

Deno.test("settleStatus: an absent memo settles all the same", async () => {
  await using server = newServer();
  const client = new Client(server.url, { fetch: server.fetch });
  const held = await client.create(COLLECTION, widget("a"));
  await client.replace(path("a"), { ...held, spec: { size: 4 } });
  const { landed, object } = await settleStatus(client, ref("a"), {
    held,
    versions: undefined,
    apply: markReady([]),
  });
  assert.equal(landed, true);
  assert.deepEqual(object.status, { phase: "Ready", observed: 4 });
});

Deno.test("settleStatus: a held copy of another object is refused before any request", async () => {
  await using server = newServer();
  const client = new Client(server.url, { fetch: server.fetch });
  const b = await client.create(COLLECTION, widget("b"));
  const before = server.requests.length;
  let applied = false;
  await assert.rejects(
    settleStatus(client, ref("a"), {
      held: b,
      apply: () => (applied = true),
    }),
    (error: unknown) =>
      error instanceof TypeError &&
      error.message === "The held copy is demo/b, not demo/a of widgets",
  );
  assert.equal(applied, false);
  assert.deepEqual(seen(server, before), []);
});

Deno.test("settleStatus: the answered fresh copy is apart from what apply changed", async () => {
  await using server = newServer();
  const client = new Client(server.url, { fetch: server.fetch });
  const held = await client.create(COLLECTION, widget("a"));
  await client.replace(path("a"), { ...held, spec: { size: 9 } });
  let calls = 0;
  const { landed, object } = await settleStatus(client, ref("a"), {
    held,
    versions: new Versions(),
    apply: (copy) => {
      calls++;
      copy.status = { phase: calls === 1 ? "Ready" : "Scratch" };
      copy.metadata.annotations = { scratch: String(calls) };
      // The fresh copy needs no write, but apply scribbled on it first.
      return calls === 1;
    },
  });
  assert.equal(landed, false);
  assert.equal(calls, 2);
  assert.equal(object.status, undefined);
  assert.equal(object.metadata.annotations, undefined);
  assert.equal(object.spec?.size, 9);
  // The held copy holds the fresh copy with what apply set.
  assert.deepEqual(held.status, { phase: "Scratch" });
  assert.equal(held.spec?.size, 9);
  assert.equal(held.metadata.resourceVersion, object.metadata.resourceVersion);
});
