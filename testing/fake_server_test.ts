import assert from "node:assert/strict";
import { FakeApiServer } from "./fake_server.ts";
import type { KubeObject } from "../apiclient/types.ts";
import { installFakeTime } from "./fake_time.ts";
import { call } from "./_test_util.ts";

const CM = "/api/v1/namespaces/default/configmaps";
const WIDGETS = "/apis/example.com/v1/namespaces/default/widgets";

function widgets(server: FakeApiServer): void {
  server.register({
    group: "example.com",
    version: "v1",
    resource: "widgets",
    kind: "Widget",
    statusSubresource: true,
  });
}

Deno.test("create sets uid, resourceVersion and creationTimestamp; generation only where the API server keeps one", async () => {
  using _time = installFakeTime({ now: Date.UTC(2030, 0, 1) });
  await using server = new FakeApiServer({ freshCluster: false });
  const a = await call(server, "POST", CM, { metadata: { name: "a" } });
  assert.equal(a.status, 201);
  assert.equal(a.body.kind, "ConfigMap");
  assert.equal(a.body.apiVersion, "v1");
  assert.equal(a.body.metadata.namespace, "default");
  assert.equal(a.body.metadata.resourceVersion, "1");
  // A ConfigMap has no generation on a real API server; a Pod has one.
  assert.equal(a.body.metadata.generation, undefined);
  assert.equal(a.body.metadata.creationTimestamp, "2030-01-01T00:00:00Z");
  assert.match(a.body.metadata.uid, /^[0-9a-f-]{36}$/);
  const b = await call(server, "POST", CM, { metadata: { name: "b" } });
  assert.equal(b.body.metadata.resourceVersion, "2");
  assert.notEqual(b.body.metadata.uid, a.body.metadata.uid);
  const got = await call(server, "GET", `${CM}/a`);
  assert.deepEqual(got.body, a.body);
  const pod = await call(server, "POST", "/api/v1/namespaces/default/pods", {
    metadata: { name: "p" },
    spec: { containers: [{ name: "c", image: "busybox" }] },
  });
  assert.equal(pod.body.metadata.generation, 1);
});

Deno.test("generateName makes a unique name", async () => {
  await using server = new FakeApiServer();
  const names = new Set<string>();
  for (let i = 0; i < 5; i++) {
    const made = await call(server, "POST", CM, {
      metadata: { generateName: "x-" },
    });
    assert.equal(made.status, 201);
    assert.match(
      made.body.metadata.name,
      /^x-[bcdfghjklmnpqrstvwxz2456789]{5}$/,
    );
    names.add(made.body.metadata.name);
  }
  assert.equal(names.size, 5);
});

Deno.test("a create without a name is 422 Invalid", async () => {
  await using server = new FakeApiServer();
  const res = await call(server, "POST", CM, { metadata: {} });
  assert.equal(res.status, 422);
  assert.equal(res.body.reason, "Invalid");
  assert.equal(
    res.body.message,
    'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required',
  );
});

Deno.test("errors are Status objects as the API server sends them", async () => {
  await using server = new FakeApiServer();
  await call(server, "POST", CM, { metadata: { name: "x" } });
  const exists = await call(server, "POST", CM, { metadata: { name: "x" } });
  assert.equal(exists.status, 409);
  assert.equal(exists.headers.get("content-type"), "application/json");
  assert.deepEqual(exists.body, {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: 'configmaps "x" already exists',
    reason: "AlreadyExists",
    details: { name: "x", kind: "configmaps" },
    code: 409,
  });
  const missing = await call(server, "GET", `${CM}/y`);
  assert.deepEqual(missing.body, {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: 'configmaps "y" not found',
    reason: "NotFound",
    details: { name: "y", kind: "configmaps" },
    code: 404,
  });
  const lease = await call(
    server,
    "GET",
    "/apis/coordination.k8s.io/v1/namespaces/default/leases/l",
  );
  assert.equal(lease.body.message, 'leases.coordination.k8s.io "l" not found');
  assert.deepEqual(lease.body.details, {
    name: "l",
    group: "coordination.k8s.io",
    kind: "leases",
  });
  const unknown = await call(server, "GET", "/api/v1/namespaces/default/nope");
  assert.equal(unknown.status, 404);
  assert.equal(
    unknown.body.message,
    "the server could not find the requested resource",
  );
});

Deno.test("update: stale resourceVersion conflicts, missing is 404, no rv is unconditional", async () => {
  await using server = new FakeApiServer({ freshCluster: false });
  const made = (await call(server, "POST", CM, {
    metadata: { name: "x" },
    data: { a: "1" },
  })).body;
  const first = await call(server, "PUT", `${CM}/x`, {
    ...made,
    data: { a: "2" },
  });
  assert.equal(first.status, 200);
  assert.equal(first.body.metadata.resourceVersion, "2");
  const stale = await call(server, "PUT", `${CM}/x`, {
    ...made,
    data: { a: "3" },
  });
  assert.equal(stale.status, 409);
  assert.equal(stale.body.reason, "Conflict");
  assert.equal(
    stale.body.message,
    'Operation cannot be fulfilled on configmaps "x": the object has been modified; please apply your changes to the latest version and try again',
  );
  const unconditional = await call(server, "PUT", `${CM}/x`, {
    metadata: { name: "x" },
    data: { a: "4" },
  });
  assert.equal(unconditional.status, 200);
  assert.equal(unconditional.body.metadata.uid, made.metadata.uid);
  const missing = await call(server, "PUT", `${CM}/nope`, {
    metadata: { name: "nope" },
  });
  assert.equal(missing.status, 404);
  const wrongName = await call(server, "PUT", `${CM}/x`, {
    metadata: { name: "other" },
  });
  assert.equal(wrongName.status, 400);
});

Deno.test("a no-op update keeps the resourceVersion", async () => {
  await using server = new FakeApiServer({ freshCluster: false });
  const made = (await call(server, "POST", CM, {
    metadata: { name: "x" },
    data: { a: "1" },
  })).body;
  const same = await call(server, "PUT", `${CM}/x`, made);
  assert.equal(same.status, 200);
  assert.equal(
    same.body.metadata.resourceVersion,
    made.metadata.resourceVersion,
  );
  assert.equal(server.resourceVersion, "1");
});

Deno.test("generation moves on spec changes, not on metadata or status", async () => {
  await using server = new FakeApiServer();
  widgets(server);
  const made = (await call(server, "POST", WIDGETS, {
    metadata: { name: "w" },
    spec: { size: 1 },
    status: { ready: true },
  })).body;
  assert.equal(made.metadata.generation, 1);
  assert.equal(made.status, undefined, "create drops status");
  const labelled = (await call(server, "PUT", `${WIDGETS}/w`, {
    ...made,
    metadata: { ...made.metadata, labels: { a: "b" } },
  })).body;
  assert.equal(labelled.metadata.generation, 1);
  const resized = (await call(server, "PUT", `${WIDGETS}/w`, {
    ...labelled,
    spec: { size: 2 },
  })).body;
  assert.equal(resized.metadata.generation, 2);
  const status = (await call(server, "PUT", `${WIDGETS}/w/status`, {
    ...resized,
    status: { ready: true },
  })).body;
  assert.equal(status.metadata.generation, 2);
  assert.deepEqual(status.status, { ready: true });
});

Deno.test("status subresource: /status changes only status, the object path ignores status", async () => {
  await using server = new FakeApiServer();
  widgets(server);
  const made = (await call(server, "POST", WIDGETS, {
    metadata: { name: "w" },
    spec: { size: 1 },
  })).body;
  const viaStatus = (await call(server, "PUT", `${WIDGETS}/w/status`, {
    ...made,
    spec: { size: 99 },
    metadata: { ...made.metadata, labels: { ignored: "yes" } },
    status: { phase: "Ready" },
  })).body;
  assert.deepEqual(viaStatus.spec, { size: 1 });
  assert.equal(viaStatus.metadata.labels, undefined);
  assert.deepEqual(viaStatus.status, { phase: "Ready" });
  const viaObject = (await call(server, "PUT", `${WIDGETS}/w`, {
    ...viaStatus,
    spec: { size: 2 },
    status: { phase: "Broken" },
  })).body;
  assert.deepEqual(viaObject.spec, { size: 2 });
  assert.deepEqual(viaObject.status, { phase: "Ready" });
  const patched = (await call(
    server,
    "PATCH",
    `${WIDGETS}/w/status`,
    { status: { phase: "Done" }, spec: { size: 5 } },
    "application/merge-patch+json",
  )).body;
  assert.deepEqual(patched.status, { phase: "Done" });
  assert.deepEqual(patched.spec, { size: 2 });
  const stale = await call(server, "PUT", `${WIDGETS}/w/status`, made);
  assert.equal(stale.status, 409);
  const noStatus = await call(server, "GET", `${CM}/x/status`);
  assert.equal(noStatus.status, 404);
});

Deno.test("without a status subresource, status is written with the object", async () => {
  await using server = new FakeApiServer();
  server.register({
    group: "example.com",
    version: "v1",
    resource: "gadgets",
    kind: "Gadget",
    namespaced: false,
  });
  const made = await call(server, "POST", "/apis/example.com/v1/gadgets", {
    metadata: { name: "g", namespace: "ignored" },
    status: { ok: true },
  });
  assert.equal(made.status, 201);
  assert.equal(made.body.metadata.namespace, undefined);
  assert.deepEqual(made.body.status, { ok: true });
  const status = await call(
    server,
    "GET",
    "/apis/example.com/v1/gadgets/g/status",
  );
  assert.equal(status.status, 404);
  assert.equal(made.body.metadata.generation, 1);
  const changed = await call(
    server,
    "PATCH",
    "/apis/example.com/v1/gadgets/g",
    { status: { ok: false } },
    "application/merge-patch+json",
  );
  assert.deepEqual(changed.body.status, { ok: false });
  assert.equal(
    changed.body.metadata.generation,
    2,
    "status is spec here: it moves the generation",
  );
  const labelled = await call(
    server,
    "PATCH",
    "/apis/example.com/v1/gadgets/g",
    { metadata: { labels: { a: "b" } } },
    "application/merge-patch+json",
  );
  assert.equal(labelled.body.metadata.generation, 2);
  const list = await call(server, "GET", "/apis/example.com/v1/gadgets");
  assert.equal(list.body.kind, "GadgetList");
  assert.equal(list.body.items.length, 1);
});

Deno.test("merge patch (RFC 7386) and its resourceVersion precondition", async () => {
  await using server = new FakeApiServer();
  await call(server, "POST", CM, {
    metadata: { name: "x", labels: { a: "1", b: "2" } },
    data: { k: "v", gone: "soon" },
  });
  const patched = await call(
    server,
    "PATCH",
    `${CM}/x`,
    { metadata: { labels: { b: null, c: "3" } }, data: { gone: null } },
    "application/merge-patch+json",
  );
  assert.equal(patched.status, 200);
  assert.deepEqual(patched.body.metadata.labels, { a: "1", c: "3" });
  assert.deepEqual(patched.body.data, { k: "v" });
  const stale = await call(
    server,
    "PATCH",
    `${CM}/x`,
    { metadata: { resourceVersion: "1" }, data: { k: "w" } },
    "application/merge-patch+json",
  );
  assert.equal(stale.status, 409);
  const missing = await call(
    server,
    "PATCH",
    `${CM}/nope`,
    { data: {} },
    "application/merge-patch+json",
  );
  assert.equal(missing.status, 404);
  assert.equal(missing.body.message, 'configmaps "nope" not found');
  const strategic = await call(
    server,
    "PATCH",
    `${CM}/x`,
    { data: { s: "1" } },
    "application/strategic-merge-patch+json",
  );
  assert.deepEqual(strategic.body.data, { k: "v", s: "1" });
  const unknownType = await call(server, "PATCH", `${CM}/x`, { data: {} });
  assert.equal(unknownType.status, 415);
  assert.equal(unknownType.body.reason, "UnsupportedMediaType");
});

Deno.test("JSON patch (RFC 6902) with test, add, remove, replace, move, copy", async () => {
  await using server = new FakeApiServer();
  await call(server, "POST", CM, {
    metadata: { name: "x" },
    data: { a: "1", b: "2" },
  });
  const patched = await call(
    server,
    "PATCH",
    `${CM}/x`,
    [
      { op: "test", path: "/data/a", value: "1" },
      { op: "replace", path: "/data/a", value: "10" },
      { op: "add", path: "/data/c", value: "3" },
      { op: "remove", path: "/data/b" },
      { op: "copy", from: "/data/c", path: "/data/d" },
      { op: "move", from: "/data/d", path: "/data/e" },
      { op: "add", path: "/metadata/finalizers", value: ["f"] },
      { op: "add", path: "/metadata/finalizers/-", value: "g" },
    ],
    "application/json-patch+json",
  );
  assert.equal(patched.status, 200);
  assert.deepEqual(patched.body.data, { a: "10", c: "3", e: "3" });
  assert.deepEqual(patched.body.metadata.finalizers, ["f", "g"]);
  const failed = await call(
    server,
    "PATCH",
    `${CM}/x`,
    [
      { op: "test", path: "/data/a", value: "1" },
      { op: "replace", path: "/data/a", value: "never" },
    ],
    "application/json-patch+json",
  );
  assert.equal(failed.status, 422);
  assert.equal(failed.body.reason, "Invalid");
  const after = await call(server, "GET", `${CM}/x`);
  assert.equal(after.body.data.a, "10");
});

Deno.test("apply patch creates when absent, merges when present, needs fieldManager", async () => {
  await using server = new FakeApiServer();
  const type = "application/apply-patch+yaml";
  const noManager = await call(server, "PATCH", `${CM}/x`, {
    data: { a: "1" },
  }, type);
  assert.equal(noManager.status, 422);
  const made = await call(
    server,
    "PATCH",
    `${CM}/x?fieldManager=me`,
    { apiVersion: "v1", kind: "ConfigMap", data: { a: "1" } },
    type,
  );
  assert.equal(made.status, 201);
  assert.equal(made.body.metadata.name, "x");
  // Another manager's apply merges with the fields "me" owns.
  const merged = await call(
    server,
    "PATCH",
    `${CM}/x?fieldManager=other&force=true`,
    { data: { b: "2" } },
    type,
  );
  assert.equal(merged.status, 200);
  assert.deepEqual(merged.body.data, { a: "1", b: "2" });
  // The same manager no longer applying a field removes it.
  const dropped = await call(
    server,
    "PATCH",
    `${CM}/x?fieldManager=me`,
    { data: { c: "3" } },
    type,
  );
  assert.equal(dropped.status, 200);
  assert.deepEqual(dropped.body.data, { b: "2", c: "3" });
});

Deno.test("delete answers a Success Status, or the Pod, and 404 when missing", async () => {
  await using server = new FakeApiServer();
  const made = (await call(server, "POST", CM, { metadata: { name: "x" } }))
    .body;
  const deleted = await call(server, "DELETE", `${CM}/x`);
  assert.equal(deleted.status, 200);
  assert.deepEqual(deleted.body, {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Success",
    details: { name: "x", kind: "configmaps", uid: made.metadata.uid },
  });
  assert.equal((await call(server, "GET", `${CM}/x`)).status, 404);
  assert.equal((await call(server, "DELETE", `${CM}/x`)).status, 404);
  await call(server, "POST", "/api/v1/namespaces/default/pods", {
    metadata: { name: "p" },
    spec: { containers: [{ name: "c", image: "busybox" }] },
  });
  const pod = await call(server, "DELETE", "/api/v1/namespaces/default/pods/p");
  assert.equal(pod.body.kind, "Pod");
  assert.equal(pod.body.metadata.name, "p");
});

Deno.test("delete with finalizers marks the object; removing the last finalizer deletes it", async () => {
  await using server = new FakeApiServer();
  await call(server, "POST", CM, {
    metadata: { name: "x", finalizers: ["example.com/hold"] },
  });
  const marked = await call(server, "DELETE", `${CM}/x`);
  assert.equal(marked.body.kind, "ConfigMap");
  assert.ok(marked.body.metadata.deletionTimestamp);
  assert.ok(server.object(`${CM}/x`));
  const released = await call(
    server,
    "PATCH",
    `${CM}/x`,
    { metadata: { finalizers: null } },
    "application/merge-patch+json",
  );
  assert.equal(released.status, 200);
  assert.equal(server.object(`${CM}/x`), undefined);
});

Deno.test("delete preconditions conflict", async () => {
  await using server = new FakeApiServer({ freshCluster: false });
  await call(server, "POST", CM, { metadata: { name: "x" } });
  const res = await call(server, "DELETE", `${CM}/x`, {
    preconditions: { resourceVersion: "0" },
  });
  assert.equal(res.status, 409);
  // kube-apiserver's words (the differential suite's golden answers).
  assert.match(
    res.body.message,
    /^Operation cannot be fulfilled on ConfigMap "x": the ResourceVersion in the precondition \(0\) does not match the ResourceVersion in record \(1\)\. The object might have been modified$/,
  );
  assert.equal(res.body.details.kind, "ConfigMap");
  assert.ok(server.object(`${CM}/x`));
  // A dry run deletes nothing.
  const dry = await call(server, "DELETE", `${CM}/x?dryRun=All`);
  assert.equal(dry.status, 200);
  assert.ok(server.object(`${CM}/x`));
  // So does one named in the DeleteOptions body, as controller-runtime
  // sends it for Delete and DeleteAllOf.
  const bodyDry = await call(server, "DELETE", `${CM}/x`, {
    kind: "DeleteOptions",
    apiVersion: "v1",
    dryRun: ["All"],
  });
  assert.equal(bodyDry.status, 200);
  assert.ok(server.object(`${CM}/x`));
  const bad = await call(server, "DELETE", `${CM}/x?dryRun=Some`);
  assert.equal(bad.status, 422);
  assert.ok(server.object(`${CM}/x`));
});

Deno.test("a body namespace that differs from the path is 400", async () => {
  await using server = new FakeApiServer();
  const res = await call(server, "POST", CM, {
    metadata: { name: "x", namespace: "other" },
  });
  assert.equal(res.status, 400);
  assert.equal(
    res.body.message,
    "the namespace of the provided object does not match the namespace sent on the request",
  );
});

Deno.test("dryRun=All answers without storing", async () => {
  await using server = new FakeApiServer();
  const res = await call(server, "POST", `${CM}?dryRun=All`, {
    metadata: { name: "x" },
  });
  assert.equal(res.status, 201);
  assert.equal(server.object(`${CM}/x`), undefined);
});

Deno.test("object, put and remove reach the store directly", async () => {
  await using server = new FakeApiServer({ freshCluster: false });
  const stored = server.put(`${CM}/x`, {
    metadata: { labels: { a: "b" } },
    data: { k: "v" },
  } as KubeObject);
  assert.equal(stored.metadata.name, "x");
  assert.equal(stored.metadata.namespace, "default");
  assert.equal(stored.metadata.resourceVersion, "1");
  assert.equal(stored.kind, "ConfigMap");
  const read = server.object(`${CM}/x`)!;
  read.metadata.name = "changed";
  assert.equal(server.object(`${CM}/x`)!.metadata.name, "x", "answers copies");
  const again = server.put(`${CM}/x`, {
    metadata: {},
    data: { k: "w" },
  } as KubeObject);
  assert.equal(again.metadata.uid, stored.metadata.uid);
  assert.equal(again.metadata.resourceVersion, "2");
  assert.equal(server.remove(`${CM}/x`), true);
  assert.equal(server.remove(`${CM}/x`), false);
  assert.throws(() => server.object(CM), TypeError);
});

Deno.test("object, put and remove take an ObjectRef as well as a path", async () => {
  await using server = new FakeApiServer();
  const ref = {
    version: "v1",
    resource: "configmaps",
    namespace: "default",
    name: "x",
  };
  const stored = server.put(
    ref,
    { metadata: {}, data: { k: "v" } } as KubeObject,
  );
  assert.equal(stored.metadata.name, "x");
  assert.equal(stored.metadata.namespace, "default");
  assert.deepEqual(server.object(`${CM}/x`), stored);
  assert.deepEqual(server.object(ref), stored);
  const lease = {
    group: "coordination.k8s.io",
    version: "v1",
    resource: "leases",
    namespace: "ns",
    name: "l",
  };
  server.holdLease({ namespace: "ns", name: "l", identity: "me" });
  assert.equal(server.object(lease)?.kind, "Lease");
  assert.equal(server.remove(ref), true);
  assert.equal(server.remove(`${CM}/x`), false);
  assert.throws(
    () => server.object({ version: "v1", resource: "nothings", name: "x" }),
    TypeError,
  );
});

Deno.test("Events: cluster-scoped objects only in default or kube-system, namespaces must match", async () => {
  await using server = new FakeApiServer();
  await call(server, "POST", "/api/v1/namespaces", {
    metadata: { name: "team" },
  });
  const event = (_namespace: string, involved?: string) => ({
    metadata: { generateName: "e." },
    involvedObject: {
      kind: involved ? "Pod" : "Node",
      name: "n",
      ...(involved ? { namespace: involved } : {}),
    },
    reason: "R",
  });
  const ok = await call(
    server,
    "POST",
    "/api/v1/namespaces/default/events",
    event("default"),
  );
  assert.equal(ok.status, 201);
  // Without eventTime, kube-system is no place for it either.
  const system = await call(
    server,
    "POST",
    "/api/v1/namespaces/kube-system/events",
    event("kube-system"),
  );
  assert.equal(system.status, 422);
  const elsewhere = await call(
    server,
    "POST",
    "/api/v1/namespaces/team/events",
    event("team"),
  );
  assert.equal(elsewhere.status, 422);
  assert.equal(elsewhere.body.reason, "Invalid");
  assert.match(
    elsewhere.body.message,
    /^Event "e\.[a-z0-9]{5}" is invalid: involvedObject.namespace: Invalid value: "": does not match event.namespace$/,
  );
  assert.equal(
    elsewhere.body.details.causes[0].field,
    "involvedObject.namespace",
  );
  const mismatch = await call(
    server,
    "POST",
    "/api/v1/namespaces/team/events",
    event("team", "other"),
  );
  assert.equal(mismatch.status, 422);
  const matching = await call(
    server,
    "POST",
    "/api/v1/namespaces/team/events",
    event("team", "team"),
  );
  assert.equal(matching.status, 201);
  const path = await call(server, "POST", "/api/v1/namespaces/team/events", {
    ...event("team", "team"),
    metadata: { name: "e", namespace: "default" },
  });
  assert.equal(path.status, 400);
});

Deno.test("Events with eventTime: kube-system allowed, reporting fields and lengths checked", async () => {
  await using server = new FakeApiServer();
  await call(server, "POST", "/api/v1/namespaces", {
    metadata: { name: "team" },
  });
  const path = "/api/v1/namespaces/kube-system/events";
  const event = {
    metadata: { generateName: "n." },
    involvedObject: { kind: "Node", name: "n" },
    eventTime: "2030-01-01T00:00:00.000000Z",
    reportingComponent: "example.com/operator",
    reportingInstance: "pod-1",
    action: "Reconcile",
    reason: "Done",
  };
  assert.equal((await call(server, "POST", path, event)).status, 201);
  const bare = await call(server, "POST", path, {
    metadata: { name: "bare" },
    involvedObject: { kind: "Node", name: "n" },
    eventTime: "2030-01-01T00:00:00.000000Z",
  });
  assert.equal(bare.status, 422);
  assert.deepEqual(
    bare.body.details.causes.map((c: { field: string; reason: string }) =>
      `${c.field} ${c.reason}`
    ),
    [
      "reportingComponent FieldValueRequired",
      "reportingComponent FieldValueInvalid",
      "reportingComponent FieldValueInvalid",
      "reportingInstance FieldValueRequired",
      "action FieldValueRequired",
      "reason FieldValueRequired",
    ],
  );
  assert.match(
    bare.body.message,
    /^Event "bare" is invalid: \[reportingComponent: Required value, reportingComponent: Invalid value: "": name part must be non-empty, /,
  );
  const long = await call(server, "POST", path, {
    ...event,
    reason: "R".repeat(129),
    message: "é".repeat(513), // 1026 bytes
  });
  assert.equal(long.status, 422);
  assert.equal(
    long.body.message.replace(/^Event "[^"]+" is invalid: /, ""),
    '[reason: Invalid value: "": can have at most 128 characters, message: Invalid value: "": can have at most 1024 characters]',
  );
  const elsewhere = await call(
    server,
    "POST",
    "/api/v1/namespaces/team/events",
    event,
  );
  assert.equal(elsewhere.status, 422);
  assert.equal(
    elsewhere.body.details.causes[0].field,
    "involvedObject.namespace",
  );
});

Deno.test("eventsAbout answers Events in creation order; expireEvents drops them", async () => {
  await using server = new FakeApiServer();
  for (const reason of ["First", "Second", "Third"]) {
    await call(server, "POST", "/api/v1/namespaces/default/events", {
      metadata: { generateName: "a." },
      involvedObject: { kind: "ConfigMap", name: "a", namespace: "default" },
      reason,
    });
  }
  await call(server, "POST", "/api/v1/namespaces/default/events", {
    metadata: { generateName: "b." },
    involvedObject: { kind: "ConfigMap", name: "b", namespace: "default" },
    reason: "Other",
  });
  assert.deepEqual(
    server.eventsAbout({ kind: "ConfigMap", name: "a" }).map((e) => e.reason),
    ["First", "Second", "Third"],
  );
  // Creation order, not name order: generated names sort at random.
  assert.deepEqual(server.events().map((e) => e.reason), [
    "First",
    "Second",
    "Third",
    "Other",
  ]);
  assert.equal(
    server.eventsAbout({ kind: "ConfigMap", name: "a", namespace: "x" }).length,
    0,
  );
  server.expireEvents();
  assert.equal(server.eventsAbout({ kind: "ConfigMap", name: "a" }).length, 0);
  assert.deepEqual(server.events(), []);
  const list = await call(server, "GET", "/api/v1/namespaces/default/events");
  assert.equal(list.body.items.length, 0);
});

Deno.test("holdLease and leaseHolder", async () => {
  using _time = installFakeTime({ now: Date.UTC(2030, 0, 1) });
  await using server = new FakeApiServer();
  assert.equal(server.leaseHolder("kube-system", "op"), undefined);
  const lease = server.holdLease({
    namespace: "kube-system",
    name: "op",
    identity: "other",
  }) as unknown as { spec: Record<string, unknown> };
  assert.equal(server.leaseHolder("kube-system", "op"), "other");
  assert.deepEqual(lease.spec, {
    holderIdentity: "other",
    leaseDurationSeconds: 30,
    acquireTime: "2030-01-01T00:00:00.000000Z",
    renewTime: "2030-01-01T00:00:00.000000Z",
  });
  const old = server.holdLease({
    namespace: "kube-system",
    name: "op",
    identity: "gone",
    renewTime: new Date(Date.UTC(2029, 11, 31)),
    leaseDurationSeconds: 15,
  }) as unknown as { spec: Record<string, unknown> };
  assert.equal(old.spec.renewTime, "2029-12-31T00:00:00.000000Z");
  assert.equal(old.spec.leaseDurationSeconds, 15);
  const got = await call(
    server,
    "GET",
    "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/op",
  );
  assert.equal(got.body.kind, "Lease");
  assert.equal(got.body.spec.holderIdentity, "gone");
  server.put("/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/op", {
    metadata: {},
    spec: { holderIdentity: "" },
  } as never);
  assert.equal(server.leaseHolder("kube-system", "op"), undefined);
});

Deno.test("landAfterNextRead: the reader's conditional update then conflicts", async () => {
  await using server = new FakeApiServer();
  const path = "/apis/coordination.k8s.io/v1/namespaces/ns/leases/l";
  server.holdLease({ namespace: "ns", name: "l", identity: "me" });
  server.landAfterNextRead({
    path,
    mutate: (lease) => {
      (lease as unknown as { spec: Record<string, unknown> }).spec
        .holderIdentity = "me-late";
    },
  });
  const read = await call(server, "GET", path);
  assert.equal(
    read.body.spec.holderIdentity,
    "me",
    "the read sees the old copy",
  );
  assert.equal(server.leaseHolder("ns", "l"), "me-late");
  const update = await call(server, "PUT", path, read.body);
  assert.equal(update.status, 409);
  // Only the next read lands a write.
  const again = await call(server, "GET", path);
  const ok = await call(server, "PUT", path, again.body);
  assert.equal(ok.status, 200);
  assert.equal(server.count({ method: "GET" }), 2);
  assert.equal(server.count({ method: "PUT", path }), 2);
});

Deno.test("landAfterNextRead takes an ObjectRef as well as a path", async () => {
  await using server = new FakeApiServer();
  const path = "/apis/coordination.k8s.io/v1/namespaces/ns/leases/l";
  server.holdLease({ namespace: "ns", name: "l", identity: "me" });
  server.landAfterNextRead({
    path: {
      group: "coordination.k8s.io",
      version: "v1",
      resource: "leases",
      namespace: "ns",
      name: "l",
    },
  });
  const read = await call(server, "GET", path);
  const update = await call(server, "PUT", path, read.body);
  assert.equal(update.status, 409);
});

Deno.test("stop() ends the watches, as disposing does, and may be repeated", async () => {
  const server = new FakeApiServer();
  const res = await server.fetch(`${server.url}${CM}?watch=1`);
  assert.equal(server.openWatches, 1);
  await server.stop();
  assert.equal(server.openWatches, 0);
  await res.body?.cancel();
  await server.stop();
  await server[Symbol.asyncDispose]();
});

Deno.test("requests log records method, path, query, parsed body and time", async () => {
  using time = installFakeTime({ now: 1_000 });
  await using server = new FakeApiServer();
  await call(server, "POST", `${CM}?fieldManager=me`, {
    metadata: { name: "a" },
  });
  await time.tick(500);
  await call(server, "GET", `${CM}?labelSelector=a%3Db`);
  const [post, get] = server.requests;
  assert.equal(post!.method, "POST");
  assert.equal(post!.path, CM);
  assert.equal(post!.query.get("fieldManager"), "me");
  assert.deepEqual(post!.body, { metadata: { name: "a" } });
  assert.equal(post!.time, 1_000);
  assert.equal(get!.body, undefined);
  assert.equal(get!.query.get("labelSelector"), "a=b");
  assert.equal(get!.time, 1_500);
  assert.equal(server.count(), 2);
  assert.equal(server.count({ method: "get" }), 1);
  assert.equal(server.count({ path: /configmaps$/ }), 2);
  assert.equal(server.count({ path: "/nope" }), 0);
});

Deno.test("namespaces are cluster-scoped and start Active", async () => {
  await using server = new FakeApiServer();
  const made = await call(server, "POST", "/api/v1/namespaces", {
    metadata: { name: "team" },
  });
  assert.equal(made.status, 201);
  assert.deepEqual(made.body.status, { phase: "Active" });
  assert.equal(made.body.metadata.namespace, undefined);
  const got = await call(server, "GET", "/api/v1/namespaces/team");
  assert.equal(got.body.metadata.name, "team");
});

Deno.test("deleting a Namespace marks it Terminating; the namespace controller deletes what it holds, then it", async () => {
  using time = installFakeTime({ now: Date.UTC(2030, 0, 1) });
  await using server = new FakeApiServer();
  await call(server, "POST", "/api/v1/namespaces", {
    metadata: { name: "team" },
  });
  await call(server, "POST", "/api/v1/namespaces/team/configmaps", {
    metadata: { name: "a" },
  });
  await call(server, "POST", CM, { metadata: { name: "kept" } });
  const res = await call(server, "DELETE", "/api/v1/namespaces/team");
  // Marked Terminating at once; the namespace controller empties it.
  assert.equal(res.status, 200);
  assert.equal(res.body.status.phase, "Terminating");
  assert.deepEqual(res.body.spec, { finalizers: ["kubernetes"] });
  const late = await call(
    server,
    "POST",
    "/api/v1/namespaces/team/configmaps",
    {
      metadata: { name: "late" },
    },
  );
  assert.equal(late.status, 403);
  assert.equal(
    late.body.message,
    'configmaps "late" is forbidden: unable to create new content in namespace team because it is being terminated',
  );
  await time.tick(10);
  assert.equal(
    server.object("/api/v1/namespaces/team/configmaps/a"),
    undefined,
  );
  assert.equal(server.object("/api/v1/namespaces/team"), undefined);
  assert.ok(server.object(`${CM}/kept`));
});

Deno.test("a Namespace whose content has finalizers stays Terminating until they go", async () => {
  using time = installFakeTime({ now: Date.UTC(2030, 0, 1) });
  await using server = new FakeApiServer();
  await call(server, "POST", "/api/v1/namespaces", {
    metadata: { name: "team" },
  });
  const held = "/api/v1/namespaces/team/configmaps/a";
  await call(server, "POST", "/api/v1/namespaces/team/configmaps", {
    metadata: { name: "a", finalizers: ["example.com/hold"] },
  });
  await call(server, "DELETE", "/api/v1/namespaces/team");
  await time.tick(100);
  assert.ok(server.object(held)?.metadata.deletionTimestamp);
  assert.equal(
    (server.object("/api/v1/namespaces/team") as {
      status?: { phase?: string };
    })
      ?.status?.phase,
    "Terminating",
  );
  await call(
    server,
    "PATCH",
    held,
    { metadata: { finalizers: null } },
    "application/merge-patch+json",
  );
  await time.tick(10);
  assert.equal(server.object("/api/v1/namespaces/team"), undefined);
});

Deno.test("NamespaceLifecycle: default, kube-system and kube-public are never deleted", async () => {
  await using server = new FakeApiServer();
  for (const name of ["default", "kube-system", "kube-public"]) {
    const res = await call(server, "DELETE", `/api/v1/namespaces/${name}`);
    assert.equal(res.status, 403);
    assert.equal(
      res.body.message,
      `namespaces "${name}" is forbidden: this namespace may not be deleted`,
    );
  }
  assert.ok(server.object("/api/v1/namespaces/default"));
});

Deno.test("delete of a collection deletes what the selector matches", async () => {
  await using server = new FakeApiServer();
  await call(server, "POST", CM, {
    metadata: { name: "a", labels: { x: "1" } },
  });
  await call(server, "POST", CM, { metadata: { name: "b" } });
  const res = await call(server, "DELETE", `${CM}?labelSelector=x`);
  assert.equal(res.status, 200);
  assert.equal(res.body.kind, "ConfigMapList");
  assert.deepEqual(res.body.items.map((i: KubeObject) => i.metadata.name), [
    "a",
  ]);
  assert.equal(server.object(`${CM}/a`), undefined);
  assert.ok(server.object(`${CM}/b`));
});

Deno.test("managedFields, when asked for, name the manager and operation", async () => {
  using _time = installFakeTime({ now: Date.UTC(2030, 0, 1) });
  await using server = new FakeApiServer({ managedFields: true });
  await call(server, "POST", `${CM}?fieldManager=op`, {
    metadata: { name: "a" },
  });
  const updated = await call(
    server,
    "PATCH",
    `${CM}/a?fieldManager=op`,
    { data: { k: "v" } },
    "application/merge-patch+json",
  );
  assert.deepEqual(updated.body.metadata.managedFields, [{
    manager: "op",
    operation: "Update",
    apiVersion: "v1",
    time: "2030-01-01T00:00:00Z",
    fieldsType: "FieldsV1",
    fieldsV1: { "f:data": { ".": {}, "f:k": {} } },
  }]);
  const applied = await call(
    server,
    "PATCH",
    `${CM}/a?fieldManager=kubectl`,
    { data: { j: "w" } },
    "application/apply-patch+yaml",
  );
  assert.deepEqual(
    applied.body.metadata.managedFields.map((
      f: { manager: string; operation: string },
    ) => `${f.manager}:${f.operation}`),
    // The API server sorts the entries: Apply before Update.
    ["kubectl:Apply", "op:Update"],
  );
  const plain = new FakeApiServer();
  await call(plain, "POST", CM, { metadata: { name: "a" } });
  assert.equal(plain.object(`${CM}/a`)!.metadata.managedFields, undefined);
  await plain[Symbol.asyncDispose]();
});
