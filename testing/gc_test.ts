import assert from "node:assert/strict";
import { FakeApiServer } from "./fake_server.ts";
import { installFakeTime } from "./fake_time.ts";
import { call, watch } from "./_test_util.ts";
import type { KubeObject } from "../apiclient/types.ts";

const CM = "/api/v1/namespaces/default/configmaps";
const SECRETS = "/api/v1/namespaces/default/secrets";

async function make(
  server: FakeApiServer,
  path: string,
  name: string,
  owners: KubeObject[] = [],
  extra: Record<string, unknown> = {},
): Promise<KubeObject> {
  const ownerReferences = owners.map((o) => ({
    apiVersion: "v1",
    kind: o.kind!,
    name: o.metadata.name!,
    uid: o.metadata.uid!,
    ...extra,
  }));
  const res = await call(server, "POST", path, {
    metadata: ownerReferences.length > 0 ? { name, ownerReferences } : { name },
  });
  assert.equal(res.status, 201);
  return res.body;
}

Deno.test("garbage collection deletes dependents once their owner is gone, on the fake clock", async () => {
  using time = installFakeTime({ now: 0 });
  await using server = new FakeApiServer();
  const owner = await make(server, CM, "owner");
  await make(server, SECRETS, "child", [owner]);
  await make(server, CM, "grandchild", [
    server.object(`${SECRETS}/child`)!,
  ]);
  const { lines } = await watch(
    server,
    `${SECRETS}?watch=1&resourceVersion=${server.resourceVersion}`,
  );
  assert.equal((await call(server, "DELETE", `${CM}/owner`)).status, 200);
  // Not at once: the collector runs after its delay.
  assert.ok(server.object(`${SECRETS}/child`));
  await time.tick(10);
  assert.equal(server.object(`${SECRETS}/child`), undefined);
  const event = await lines.event();
  assert.equal(event.type, "DELETED");
  assert.equal(event.object.metadata.name, "child");
  // The grandchild goes one round later.
  assert.ok(server.object(`${CM}/grandchild`));
  await time.tick(10);
  assert.equal(server.object(`${CM}/grandchild`), undefined);
  assert.equal(time.countTimers(), 0);
  await lines.cancel();
});

Deno.test("garbage collection keeps a dependent with another owner, dropping the gone one", async () => {
  using time = installFakeTime({ now: 0 });
  await using server = new FakeApiServer();
  const a = await make(server, CM, "a");
  const b = await make(server, CM, "b");
  await make(server, SECRETS, "child", [a, b]);
  await call(server, "DELETE", `${CM}/a`);
  await time.tick(10);
  const child = server.object(`${SECRETS}/child`)!;
  assert.deepEqual(
    child.metadata.ownerReferences!.map((r) => r.name),
    ["b"],
  );
  await call(server, "DELETE", `${CM}/b`);
  await time.tick(10);
  assert.equal(server.object(`${SECRETS}/child`), undefined);
});

Deno.test("garbage collection deletes an object created with an absent owner", async () => {
  using time = installFakeTime({ now: 0 });
  await using server = new FakeApiServer({ garbageCollectionDelay: 50 });
  await make(server, CM, "stray", [{
    kind: "ConfigMap",
    metadata: { name: "gone", uid: "no-such-uid" },
  }]);
  await time.tick(49);
  assert.ok(server.object(`${CM}/stray`));
  await time.tick(1);
  assert.equal(server.object(`${CM}/stray`), undefined);
});

Deno.test("a dependent with a finalizer is only marked when its owner goes", async () => {
  using time = installFakeTime({ now: 0 });
  await using server = new FakeApiServer();
  const owner = await make(server, CM, "owner");
  const res = await call(server, "POST", SECRETS, {
    metadata: {
      name: "held",
      finalizers: ["example.com/hold"],
      ownerReferences: [{
        apiVersion: "v1",
        kind: "ConfigMap",
        name: "owner",
        uid: owner.metadata.uid,
      }],
    },
  });
  assert.equal(res.status, 201);
  await call(server, "DELETE", `${CM}/owner`);
  await time.tick(10);
  const held = server.object(`${SECRETS}/held`)!;
  assert.ok(held.metadata.deletionTimestamp);
  assert.deepEqual(held.metadata.finalizers, ["example.com/hold"]);
});

Deno.test("propagationPolicy Orphan keeps dependents and removes the references to the owner", async () => {
  using time = installFakeTime({ now: 0 });
  await using server = new FakeApiServer();
  const owner = await make(server, CM, "owner");
  const other = await make(server, CM, "other");
  await make(server, SECRETS, "only", [owner]);
  await make(server, SECRETS, "both", [owner, other]);
  const res = await call(server, "DELETE", `${CM}/owner`, {
    kind: "DeleteOptions",
    apiVersion: "v1",
    propagationPolicy: "Orphan",
  });
  assert.equal(res.status, 200);
  // The owner is marked with the orphan finalizer first.
  assert.deepEqual(res.body.metadata.finalizers, ["orphan"]);
  assert.ok(res.body.metadata.deletionTimestamp);
  await time.tick(10);
  assert.equal(server.object(`${CM}/owner`), undefined);
  assert.equal(
    server.object(`${SECRETS}/only`)!.metadata.ownerReferences,
    undefined,
  );
  assert.deepEqual(
    server.object(`${SECRETS}/both`)!.metadata.ownerReferences!.map((r) =>
      r.name
    ),
    ["other"],
  );
  await time.tick(100);
  assert.ok(server.object(`${SECRETS}/only`));
});

Deno.test("orphanDependents=true in the query orphans as well", async () => {
  using time = installFakeTime({ now: 0 });
  await using server = new FakeApiServer();
  const owner = await make(server, CM, "owner");
  await make(server, SECRETS, "child", [owner]);
  await call(server, "DELETE", `${CM}/owner?orphanDependents=true`);
  await time.tick(10);
  assert.equal(server.object(`${CM}/owner`), undefined);
  assert.ok(server.object(`${SECRETS}/child`));
});

Deno.test("propagationPolicy Foreground removes the owner after its blocking dependents", async () => {
  using time = installFakeTime({ now: 0 });
  await using server = new FakeApiServer();
  const owner = await make(server, CM, "owner");
  // A blocking dependent held by a finalizer, and a non-blocking one.
  const held = await call(server, "POST", SECRETS, {
    metadata: {
      name: "blocking",
      finalizers: ["example.com/hold"],
      ownerReferences: [{
        apiVersion: "v1",
        kind: "ConfigMap",
        name: "owner",
        uid: owner.metadata.uid,
        blockOwnerDeletion: true,
      }],
    },
  });
  assert.equal(held.status, 201);
  await make(server, SECRETS, "loose", [owner]);
  const { lines } = await watch(
    server,
    `${CM}?watch=1&resourceVersion=${server.resourceVersion}`,
  );
  const res = await call(
    server,
    "DELETE",
    `${CM}/owner?propagationPolicy=Foreground`,
  );
  assert.deepEqual(res.body.metadata.finalizers, ["foregroundDeletion"]);
  await time.tick(10);
  // Both dependents are deleted; the blocking one waits on its finalizer.
  assert.equal(server.object(`${SECRETS}/loose`), undefined);
  assert.ok(server.object(`${SECRETS}/blocking`)!.metadata.deletionTimestamp);
  await time.tick(100);
  assert.ok(server.object(`${CM}/owner`), "the owner waits on its dependent");
  // The finalizer goes; so does the dependent, then the owner.
  const blocking = server.object(`${SECRETS}/blocking`)!;
  const patched = await call(
    server,
    "PATCH",
    `${SECRETS}/blocking`,
    { metadata: { finalizers: null } },
    "application/merge-patch+json",
  );
  assert.equal(patched.status, 200);
  assert.equal(server.object(`${SECRETS}/blocking`), undefined);
  assert.ok(blocking);
  await time.tick(10);
  assert.equal(server.object(`${CM}/owner`), undefined);
  const events = [await lines.event(), await lines.event()];
  assert.deepEqual(events.map((e) => e.type), ["MODIFIED", "MODIFIED"]);
  const last = await lines.event();
  assert.equal(last.type, "DELETED");
  assert.equal(last.object.metadata.name, "owner");
  await lines.cancel();
});

Deno.test("Foreground on an owner with no dependents removes it after one round", async () => {
  using time = installFakeTime({ now: 0 });
  await using server = new FakeApiServer();
  await make(server, CM, "lonely");
  await call(server, "DELETE", `${CM}/lonely`, {
    propagationPolicy: "Foreground",
  });
  assert.ok(server.object(`${CM}/lonely`));
  await time.tick(10);
  assert.equal(server.object(`${CM}/lonely`), undefined);
});

Deno.test("an unknown propagationPolicy is refused as the API server refuses it", async () => {
  await using server = new FakeApiServer();
  await make(server, CM, "a");
  const res = await call(server, "DELETE", `${CM}/a`, {
    propagationPolicy: "Sideways",
  });
  assert.equal(res.status, 422);
  assert.match(res.body.message, /Unsupported value: "Sideways"/);
  assert.ok(server.object(`${CM}/a`));
});

Deno.test("deletecollection with Background propagation collects the dependents", async () => {
  using time = installFakeTime({ now: 0 });
  await using server = new FakeApiServer();
  const owner = await make(server, CM, "owner");
  await make(server, SECRETS, "child", [owner]);
  await call(server, "DELETE", CM);
  await time.tick(10);
  assert.equal(server.object(`${SECRETS}/child`), undefined);
});

Deno.test("garbage collection works over the served fake on real time", {
  sanitizeOps: true,
}, async () => {
  await using server = new FakeApiServer({ garbageCollectionDelay: 0 });
  await using served = await server.serve();
  const post = async (path: string, body: unknown) => {
    const res = await fetch(served.url + path, {
      method: "POST",
      body: JSON.stringify(body),
    });
    return await res.json();
  };
  const owner = await post(CM, { metadata: { name: "owner" } });
  await post(SECRETS, {
    metadata: {
      name: "child",
      ownerReferences: [{
        apiVersion: "v1",
        kind: "ConfigMap",
        name: "owner",
        uid: owner.metadata.uid,
      }],
    },
  });
  const res = await fetch(`${served.url}${CM}/owner`, { method: "DELETE" });
  await res.body?.cancel();
  const deadline = Date.now() + 5_000;
  while (server.object(`${SECRETS}/child`) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.equal(server.object(`${SECRETS}/child`), undefined);
});

Deno.test("Foreground deletion walks down a chain of blocking dependents and back up", async () => {
  using time = installFakeTime({ now: 0 });
  await using server = new FakeApiServer();
  const owner = await make(server, CM, "owner");
  const child = await make(server, SECRETS, "child", [owner], {
    blockOwnerDeletion: true,
  });
  const held = await call(server, "POST", CM, {
    metadata: {
      name: "grandchild",
      finalizers: ["example.com/hold"],
      ownerReferences: [{
        apiVersion: "v1",
        kind: "Secret",
        name: "child",
        uid: child.metadata.uid,
        blockOwnerDeletion: true,
      }],
    },
  });
  assert.equal(held.status, 201);
  await call(server, "DELETE", `${CM}/owner`, {
    propagationPolicy: "Foreground",
  });
  await time.tick(100);
  // The child waits in the foreground on the grandchild, which waits on
  // its finalizer; the owner waits on the child.
  assert.deepEqual(
    server.object(`${SECRETS}/child`)?.metadata.finalizers,
    ["foregroundDeletion"],
  );
  assert.ok(server.object(`${CM}/grandchild`)?.metadata.deletionTimestamp);
  assert.ok(server.object(`${CM}/owner`));
  await call(
    server,
    "PATCH",
    `${CM}/grandchild`,
    { metadata: { finalizers: [] } },
    "application/merge-patch+json",
  );
  assert.equal(server.object(`${CM}/grandchild`), undefined);
  await time.tick(10);
  assert.equal(server.object(`${SECRETS}/child`), undefined);
  await time.tick(10);
  assert.equal(server.object(`${CM}/owner`), undefined);
  assert.equal(time.countTimers(), 0);
});
