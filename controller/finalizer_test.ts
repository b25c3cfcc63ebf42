import assert from "node:assert/strict";
import {
  Client,
  ConflictError,
  type KubeObject,
  objectRef,
} from "../apiclient/mod.ts";
import { Versions } from "../memo/mod.ts";
import { FakeApiServer, installFakeTime } from "../testing/mod.ts";
import { Controller, finalizer, stopOnSignals } from "./mod.ts";

const CM = "/api/v1/namespaces/default/configmaps";
const CONFIGMAPS = { version: "v1", resource: "configmaps" };
const NAME = "example.com/cleanup";

function recorder(): {
  steps: string[];
  apply: (object: KubeObject) => void;
  cleanup: (object: KubeObject) => void;
} {
  const steps: string[] = [];
  return {
    steps,
    apply: (object) => void steps.push(`apply ${object.metadata.name}`),
    cleanup: (object) => void steps.push(`cleanup ${object.metadata.name}`),
  };
}

Deno.test("finalizer: adds itself before the first apply, and keeps other finalizers", async () => {
  await using server = new FakeApiServer();
  const client = new Client(server.url, { fetch: server.fetch });
  const made = await client.create(CM, {
    metadata: { name: "a", finalizers: ["other.io/keep"] },
  });
  const { steps, apply, cleanup } = recorder();
  const versions = new Versions();
  await finalizer({
    client,
    ref: objectRef(CONFIGMAPS, made),
    object: made,
    versions,
  }, {
    name: NAME,
    apply,
    cleanup,
  });
  const held = server.object(`${CM}/a`)!;
  assert.deepEqual(held.metadata.finalizers, ["other.io/keep", NAME]);
  assert.deepEqual(steps, ["apply a"]);
  // The memo noted the patch's answer.
  assert.equal(
    versions.current(
      objectRef(CONFIGMAPS, "default/a"),
      held.metadata.resourceVersion!,
    ),
    true,
  );
  // With the finalizer on: apply only, no write.
  const before = server.count({ method: "PATCH" });
  await finalizer({ client, ref: objectRef(CONFIGMAPS, held), object: held }, {
    name: NAME,
    apply,
    cleanup,
  });
  assert.equal(server.count({ method: "PATCH" }), before);
  assert.deepEqual(steps, ["apply a", "apply a"]);
});

Deno.test("finalizer: a deleted object is cleaned up, then the finalizer comes off and the object goes", async () => {
  await using server = new FakeApiServer();
  const client = new Client(server.url, { fetch: server.fetch });
  await client.create(CM, { metadata: { name: "a", finalizers: [NAME] } });
  await client.delete(`${CM}/a`);
  const deleting = server.object(`${CM}/a`)!;
  assert.ok(deleting.metadata.deletionTimestamp);
  const { steps, apply, cleanup } = recorder();
  await finalizer({
    client,
    ref: objectRef(CONFIGMAPS, deleting),
    object: deleting,
  }, {
    name: NAME,
    apply,
    cleanup,
  });
  assert.deepEqual(steps, ["cleanup a"]);
  assert.equal(server.object(`${CM}/a`), undefined);
});

Deno.test("finalizer: a deleted object without it runs nothing", async () => {
  await using server = new FakeApiServer();
  const client = new Client(server.url, { fetch: server.fetch });
  await client.create(CM, {
    metadata: { name: "a", finalizers: ["other.io/keep"] },
  });
  await client.delete(`${CM}/a`);
  const { steps, apply, cleanup } = recorder();
  const deleting = server.object(`${CM}/a`)!;
  const action = await finalizer({
    client,
    ref: objectRef(CONFIGMAPS, deleting),
    object: deleting,
  }, {
    name: NAME,
    apply,
    cleanup,
  });
  assert.equal(action, undefined);
  assert.equal(steps.length, 0);
  assert.equal(server.count({ method: "PATCH" }), 0);
});

Deno.test("finalizer: a failed cleanup keeps the finalizer and the object", async () => {
  await using server = new FakeApiServer();
  const client = new Client(server.url, { fetch: server.fetch });
  await client.create(CM, { metadata: { name: "a", finalizers: [NAME] } });
  await client.delete(`${CM}/a`);
  const deleting = server.object(`${CM}/a`)!;
  await assert.rejects(
    finalizer({
      client,
      ref: objectRef(CONFIGMAPS, deleting),
      object: deleting,
    }, {
      name: NAME,
      apply: () => {},
      cleanup: () => {
        throw new Error("cloud API down");
      },
    }),
    /cloud API down/,
  );
  assert.deepEqual(server.object(`${CM}/a`)?.metadata.finalizers, [NAME]);
});

Deno.test("finalizer: a stale copy conflicts, and the patch is retried from a fresh read without losing another writer's finalizer", async () => {
  await using server = new FakeApiServer();
  const client = new Client(server.url, { fetch: server.fetch });
  const stale = await client.create(CM, { metadata: { name: "a" } });
  // Another writer adds its finalizer after our read.
  await client.patch(`${CM}/a`, { metadata: { finalizers: ["other.io/x"] } }, {
    type: "merge",
  });
  const { steps, apply, cleanup } = recorder();
  await finalizer(
    { client, ref: objectRef(CONFIGMAPS, stale), object: stale },
    {
      name: NAME,
      apply,
      cleanup,
    },
  );
  assert.deepEqual(server.object(`${CM}/a`)?.metadata.finalizers, [
    "other.io/x",
    NAME,
  ]);
  assert.deepEqual(steps, ["apply a"]);
  assert.equal(server.count({ method: "GET", path: `${CM}/a` }), 1);
});

Deno.test("finalizer: a deletion that arrives mid-reconcile turns the add into nothing, and a removal into a retry", async () => {
  await using server = new FakeApiServer();
  const client = new Client(server.url, { fetch: server.fetch });
  // Read live, then deleted before our add lands: nothing was applied, so
  // nothing to clean up and no finalizer to add.
  const live = await client.create(CM, {
    metadata: { name: "a", finalizers: ["other.io/x"] },
  });
  await client.delete(`${CM}/a`);
  const { steps, apply, cleanup } = recorder();
  await finalizer({ client, ref: objectRef(CONFIGMAPS, live), object: live }, {
    name: NAME,
    apply,
    cleanup,
  });
  assert.equal(steps.length, 0);
  assert.deepEqual(server.object(`${CM}/a`)?.metadata.finalizers, [
    "other.io/x",
  ]);

  // Being deleted with ours; another finalizer goes while we clean up: the
  // removal conflicts once, and is retried without a second cleanup.
  await client.create(CM, {
    metadata: { name: "b", finalizers: [NAME, "other.io/x"] },
  });
  await client.delete(`${CM}/b`);
  const read = server.object(`${CM}/b`)!;
  await finalizer({ client, ref: objectRef(CONFIGMAPS, read), object: read }, {
    name: NAME,
    apply,
    cleanup: async (object) => {
      steps.push(`cleanup ${object.metadata.name}`);
      const now = server.object(`${CM}/b`)!;
      await client.patch(`${CM}/b`, {
        metadata: {
          finalizers: [NAME],
          resourceVersion: now.metadata.resourceVersion,
        },
      }, { type: "merge" });
    },
  });
  assert.deepEqual(steps, ["cleanup b"]);
  assert.equal(server.object(`${CM}/b`), undefined);
});

Deno.test("finalizer: gives up after repeated conflicts with the ConflictError", async () => {
  await using server = new FakeApiServer();
  const client = new Client(server.url, { fetch: server.fetch });
  const made = await client.create(CM, { metadata: { name: "a" } });
  server.refuse({ method: "PATCH", status: 409, count: 100 });
  await assert.rejects(
    finalizer({ client, ref: objectRef(CONFIGMAPS, made), object: made }, {
      name: NAME,
      apply: () => {},
      cleanup: () => {},
    }),
    ConflictError,
  );
  assert.equal(server.count({ method: "PATCH" }), 5);
});

Deno.test("stopOnSignals stops once on the first signal and removes its listeners", async () => {
  const listeners = new Map<string, Set<() => void>>();
  const fake = {
    addSignalListener(signal: Deno.Signal, handler: () => void): void {
      if (!listeners.has(signal)) listeners.set(signal, new Set());
      listeners.get(signal)!.add(handler);
    },
    removeSignalListener(signal: Deno.Signal, handler: () => void): void {
      listeners.get(signal)?.delete(handler);
    },
  };
  let stops = 0;
  const stopping: Promise<void>[] = [];
  const handle = stopOnSignals({ stop: () => Promise.resolve(void stops++) }, {
    listeners: fake,
    stopping: (stopped) => stopping.push(stopped),
  });
  assert.deepEqual([...listeners.keys()], ["SIGTERM", "SIGINT"]);
  for (const handler of listeners.get("SIGTERM")!) handler();
  for (const handler of listeners.get("SIGINT")!) handler();
  await Promise.all(stopping);
  assert.equal(stops, 1);
  assert.equal(stopping.length, 1);
  handle[Symbol.dispose]();
  assert.equal(listeners.get("SIGTERM")!.size, 0);
  assert.equal(listeners.get("SIGINT")!.size, 0);
});

Deno.test("finalizer: a 409 from apply's own write goes to the caller at once (apply runs once)", async () => {
  await using server = new FakeApiServer();
  const client = new Client(server.url, { fetch: server.fetch });
  const made = await client.create(CM, {
    metadata: { name: "a", finalizers: [NAME] },
  });
  let applies = 0;
  await assert.rejects(
    finalizer({ client, ref: objectRef(CONFIGMAPS, made), object: made }, {
      name: NAME,
      apply: async () => {
        applies++;
        // The user's own stale write.
        await client.replace(`${CM}/a`, {
          ...made,
          metadata: { ...made.metadata, resourceVersion: "999" },
        });
      },
      cleanup: () => {},
    }),
    ConflictError,
  );
  assert.equal(applies, 1);
  assert.equal(server.count({ method: "GET" }), 0);
});

Deno.test("finalizer: an object other than the ref names is refused before any request", async () => {
  await using server = new FakeApiServer();
  const client = new Client(server.url, { fetch: server.fetch });
  const b = await client.create(CM, { metadata: { name: "b" } });
  const before = server.requests.length;
  const { steps, apply, cleanup } = recorder();
  await assert.rejects(
    finalizer({ client, ref: objectRef(CONFIGMAPS, "default/a"), object: b }, {
      name: NAME,
      apply,
      cleanup,
    }),
    (error: unknown) =>
      error instanceof TypeError &&
      error.message ===
        "The finalizer example.com/cleanup was given default/b for default/a of configmaps",
  );
  assert.deepEqual(steps, []);
  assert.equal(server.requests.length, before);
});

Deno.test("finalizer: after the last finalizer is removed the memo trusts no cached copy, though the server answers the old version", async () => {
  await using server = new FakeApiServer();
  // kube-apiserver answers the patch that removes the last finalizer of a
  // deleting object with the object as it was (its old resourceVersion).
  let before = "";
  const client = new Client(server.url, {
    fetch: async (input, init) => {
      const request = new Request(input, init);
      const answer = await server.fetch(request);
      if (request.method !== "PATCH" || before === "") return answer;
      const body = await answer.json();
      body.metadata.resourceVersion = before;
      return new Response(JSON.stringify(body), {
        status: answer.status,
        headers: answer.headers,
      });
    },
  });
  const ref = { ...CONFIGMAPS, namespace: "default", name: "a" };
  await client.create(CM, { metadata: { name: "a", finalizers: [NAME] } });
  await client.delete(`${CM}/a`);
  const deleting = await client.get<KubeObject>(`${CM}/a`);
  before = deleting.metadata.resourceVersion!;
  const versions = new Versions();
  const { steps, apply, cleanup } = recorder();
  await finalizer({ client, ref: ref, object: deleting, versions }, {
    name: NAME,
    apply,
    cleanup,
  });
  assert.deepEqual(steps, ["cleanup a"]);
  assert.equal(server.object(`${CM}/a`), undefined);
  // The watch's store may still hold the copy from before the removal: the
  // memo must not call it current, so the next reconcile reads the server.
  assert.equal(versions.current(ref, before), false);
});

Deno.test("finalizer: a reconcile's context is the target, the object named once; a gone object runs nothing", async () => {
  using time = installFakeTime({ now: 0 });
  await using server = new FakeApiServer({ freshCluster: false });
  const client = new Client(server.url, { fetch: server.fetch });
  await client.create(CM, { metadata: { name: "a" } });
  const { steps, apply, cleanup } = recorder();
  const answers: unknown[] = [];
  const controller = new Controller(client, {
    name: "holder",
    for: { ...CONFIGMAPS, kind: "ConfigMap" },
    reconcile: async (context) => {
      answers.push(await finalizer(context, { name: NAME, apply, cleanup }));
    },
  });
  await time.settle();
  await controller.idle();
  assert.deepEqual(server.object(`${CM}/a`)?.metadata.finalizers, [NAME]);
  await client.delete(`${CM}/a`);
  await time.settle();
  await controller.idle();
  assert.equal(server.object(`${CM}/a`), undefined);
  assert.equal(steps.at(-1), "cleanup a");
  assert.ok(steps.slice(0, -1).every((step) => step === "apply a"));
  // Reconciled once more after it is gone: nothing runs.
  const ran = steps.length;
  const passes = answers.length;
  controller.queue.add("default/a");
  await time.settle();
  await controller.idle();
  await controller.stop();
  assert.equal(answers.length, passes + 1);
  assert.equal(steps.length, ran);
});
