import assert from "node:assert/strict";
import type { KubeObject } from "../apiclient/types.ts";
import { Collection, DeletedFinalStateUnknown, finalState } from "./mod.ts";
import { change, CM, harness, make, recorder } from "./_harness_test_util.ts";
import { testLogger } from "../_internal/_log_test_util.ts";

const CONFIGMAPS = { version: "v1", resource: "configmaps" };

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

Deno.test("managedFields are gone before transform runs and before the store holds a copy", async () => {
  await using h = harness();
  h.server.put(`${CM}/a`, {
    metadata: { managedFields: [{ manager: "kubectl" }] },
    data: { big: "x".repeat(100), keep: "1" },
  } as KubeObject);
  const seen: unknown[] = [];
  await using c = new Collection<ConfigMap>(h.client, CONFIGMAPS, {
    transform: (object) => {
      seen.push(object.metadata.managedFields);
      delete (object as ConfigMap).data?.big;
      return object;
    },
  });
  await h.time.settle();
  h.server.put(`${CM}/b`, {
    metadata: { managedFields: [{ manager: "kubectl" }] },
  });
  await h.time.settle();
  assert.deepEqual(seen, [undefined, undefined]);
  assert.deepEqual(c.store.get("default/a")?.data, { keep: "1" });
  assert.equal(c.store.get("default/b")?.metadata.managedFields, undefined);
});

Deno.test("decode converts each copy; one that fails is reported and held without a value", async () => {
  await using h = harness();
  await make(h.client, "good", { n: "1" });
  await make(h.client, "bad", { n: "x" });
  const reported: string[] = [];
  const causes: unknown[] = [];
  const { log, handler } = recorder<ConfigMap & { n: number }>();
  await using c = new Collection(h.client, CONFIGMAPS, {
    handler,
    decode: (object) => {
      const n = Number((object as ConfigMap).data?.n);
      if (Number.isNaN(n)) throw new Error(`${object.metadata.name} is bad`);
      return { ...object, n };
    },
    logger: testLogger({
      onError: (error) => {
        reported.push((error as Error).message);
        causes.push((error as Error).cause);
      },
    }),
  });
  await h.time.settle();
  assert.deepEqual(log, ["add good 1"]);
  // The report names the object, and keeps decode's own error as the cause.
  assert.deepEqual(reported, [
    "Decoding default/bad of configmaps failed: bad is bad",
  ]);
  assert.equal((causes[0] as Error).message, "bad is bad");
  assert.equal(c.store.has("default/bad"), true);
  assert.equal(c.store.get("default/bad"), undefined);
  assert.equal(c.store.get("default/good")?.n, 1);
  // A valid version of the bad object is new to the handler.
  await change(h.client, "bad", { n: "2" });
  // A good object going bad keeps the handler's last copy.
  await change(h.client, "good", { n: "y" });
  await h.client.delete(`${CM}/good`);
  await h.time.settle();
  assert.deepEqual(log, [
    "add good 1",
    "add bad 3",
    "tombstone default/good 1",
  ]);
  assert.deepEqual(reported, [
    "Decoding default/bad of configmaps failed: bad is bad",
    "Decoding default/good of configmaps failed: good is bad",
    "Decoding default/good of configmaps failed: good is bad",
  ]);
});

Deno.test("an undecodable object is left out of keys, size and indexes, yet tracked", async () => {
  await using h = harness();
  await make(h.client, "good", { n: "1" });
  await make(h.client, "bad", { n: "x" });
  const { log, handler } = recorder();
  await using c = new Collection(h.client, CONFIGMAPS, {
    handler,
    indexers: { n: (o) => [(o as ConfigMap).data?.n ?? ""] },
    decode: (object) => {
      if (Number.isNaN(Number((object as ConfigMap).data?.n))) {
        throw new Error("not a number");
      }
      return object;
    },
    logger: testLogger({ onError: () => {} }),
  });
  await h.time.settle();
  assert.deepEqual(c.store.keys(), ["default/good"]);
  assert.equal(c.store.size, 1);
  assert.deepEqual(c.store.indexValues("n"), ["1"]);
  assert.deepEqual(c.store.indexKeys("n", "x"), []);
  // Still known to exist: a fixed copy is an add, a delete a marker.
  assert.equal(c.store.has("default/bad"), true);
  await change(h.client, "bad", { n: "2" });
  await h.time.settle();
  assert.deepEqual(c.store.keys(), ["default/bad", "default/good"]);
  assert.equal(c.store.size, 2);
  await change(h.client, "good", { n: "y" });
  await h.client.delete(`${CM}/good`);
  await h.time.settle();
  assert.deepEqual(c.store.keys(), ["default/bad"]);
  assert.equal(c.store.size, 1);
  assert.deepEqual(log, [
    "add good 1",
    "add bad 3",
    "tombstone default/good 1",
  ]);
});

Deno.test("an object that never decoded and is deleted arrives as a marker with no copy", async () => {
  await using h = harness();
  await make(h.client, "bad");
  const deleted: unknown[] = [];
  await using _ = new Collection(h.client, CONFIGMAPS, {
    handler: { delete: (o) => void deleted.push(o) },
    decode: () => {
      throw new Error("never");
    },
    logger: testLogger({ onError: () => {} }),
  });
  await h.time.settle();
  await h.client.delete(`${CM}/bad`);
  await h.time.settle();
  assert.equal(deleted.length, 1);
  assert.ok(deleted[0] instanceof DeletedFinalStateUnknown);
  assert.equal((deleted[0] as DeletedFinalStateUnknown).key, "default/bad");
  assert.equal(finalState(deleted[0] as DeletedFinalStateUnknown), undefined);
});

Deno.test("a handler that throws or rejects is reported, and the next events still arrive", async () => {
  await using h = harness();
  const reported: unknown[] = [];
  const added: string[] = [];
  await using _ = new Collection(h.client, CONFIGMAPS, {
    handler: {
      add: (o) => {
        added.push(o.metadata.name!);
        if (o.metadata.name === "a") throw new Error("sync");
        if (o.metadata.name === "b") return Promise.reject(new Error("async"));
      },
    },
    synced: () => {
      throw new Error("synced");
    },
    logger: testLogger({
      onError: (error) => void reported.push((error as Error).message),
    }),
  });
  await h.time.settle();
  for (const name of ["a", "b", "c"]) await make(h.client, name);
  await h.time.settle();
  assert.deepEqual(added, ["a", "b", "c"]);
  assert.deepEqual(reported, [
    "Calling synced of configmaps failed: synced",
    "Calling handler.add of configmaps for default/a failed: sync",
    "Calling handler.add of configmaps for default/b failed: async",
  ]);
});

Deno.test("handler calls run one at a time, in order, each awaited", async () => {
  await using h = harness();
  await make(h.client, "a");
  const log: string[] = [];
  let running = 0;
  const slow = async (what: string): Promise<void> => {
    running++;
    assert.equal(running, 1);
    log.push(`start ${what}`);
    await new Promise((r) => setTimeout(r, 1_000));
    log.push(`end ${what}`);
    running--;
  };
  await using c = new Collection(h.client, CONFIGMAPS, {
    handler: {
      add: (o) => slow(`add ${o.metadata.name}`),
      update: (_, o) => slow(`update ${o.metadata.name}`),
    },
    synced: () => void log.push("synced"),
  });
  await h.time.settle();
  await change(h.client, "a", { k: "1" });
  await make(h.client, "b");
  await h.time.settle();
  // The store already holds the first read; the watch waits for the handler.
  assert.equal(c.store.size, 1);
  await h.time.tick(10_000);
  assert.deepEqual(log, [
    "start add a",
    "end add a",
    "synced",
    "start update a",
    "end update a",
    "start add b",
    "end add b",
  ]);
});

Deno.test("a relist hands over only the differences: adds and updates in key order, then deletes", async () => {
  await using h = harness();
  for (const name of ["a", "b", "c", "d"]) await make(h.client, name);
  const { log, handler } = recorder();
  let synced = 0;
  await using c = new Collection(h.client, CONFIGMAPS, {
    handler,
    synced: () => void synced++,
  });
  await h.time.settle();
  log.length = 0;
  h.server.cutWatches();
  h.server.remove(`${CM}/d`);
  h.server.remove(`${CM}/b`);
  h.server.put(`${CM}/c`, { metadata: {}, data: { x: "1" } } as KubeObject);
  h.server.put(`${CM}/0`, { metadata: {} });
  h.server.compact();
  await h.time.tick(5_000);
  await h.time.settle();
  assert.deepEqual(log, [
    "add 0 8",
    "update c 3->7",
    "tombstone default/b 2",
    "tombstone default/d 4",
  ]);
  assert.deepEqual(c.store.keys(), ["default/0", "default/a", "default/c"]);
  assert.equal(synced, 1);
});

Deno.test("indexes answer through the collection's store", async () => {
  await using h = harness();
  h.server.put(`${CM}/a`, { metadata: { labels: { app: "web" } } });
  h.server.put(`${CM}/b`, { metadata: { labels: { app: "db" } } });
  await using c = new Collection(h.client, CONFIGMAPS, {
    indexers: { app: (o) => [o.metadata.labels?.app ?? ""] },
  });
  await h.time.settle();
  assert.deepEqual(c.store.indexKeys("app", "web"), ["default/a"]);
  h.server.put(`${CM}/b`, { metadata: { labels: { app: "web" } } });
  await h.time.settle();
  assert.deepEqual(
    c.store.byIndex("app", "web").map((o) => o.metadata.name),
    ["a", "b"],
  );
  assert.deepEqual(c.store.indexValues("app"), ["web"]);
});

Deno.test("reopened counts each accepted watch after the first", async () => {
  await using h = harness();
  let reopened = 0;
  await using _ = new Collection(h.client, CONFIGMAPS, {
    reopened: () => void reopened++,
  });
  await h.time.settle();
  assert.equal(reopened, 0);
  for (let i = 0; i < 3; i++) {
    await make(h.client, `cm-${i}`);
    await h.time.settle();
    h.server.cutWatches();
    // A watch that lasted under a second is opened again a second after it.
    await h.time.tick(1_000);
    await h.time.settle();
  }
  assert.equal(reopened, 3);
  h.server.refuse({ watch: true, status: 500, count: 1 });
  h.server.cutWatches();
  await h.time.tick(5_000);
  assert.equal(reopened, 4); // the refused watch opened nothing
});

Deno.test("stop and an aborted signal end the watch; the store stays readable", async () => {
  await using h = harness();
  await make(h.client, "a");
  const c = new Collection(h.client, CONFIGMAPS);
  await h.time.settle();
  await c.stop();
  assert.equal(h.server.openWatches, 0);
  assert.equal(c.store.size, 1);
  await c.stop(); // twice is fine
  const before = h.server.requests.length;
  const aborted = new Collection(h.client, CONFIGMAPS, {
    signal: AbortSignal.abort(),
  });
  await aborted.done;
  assert.equal(h.server.requests.length, before);
  assert.equal(aborted.synced(), false);
});

Deno.test("a stop in the middle of a read ends the handler calls, skips synced, and done settles", async () => {
  await using h = harness();
  for (const name of ["a", "b", "c"]) await make(h.client, name);
  const stop = new AbortController();
  const added: string[] = [];
  let synced = 0;
  const c = new Collection(h.client, CONFIGMAPS, {
    handler: {
      add: (o) => {
        added.push(o.metadata.name!);
        stop.abort();
      },
    },
    synced: () => void synced++,
    signal: stop.signal,
  });
  await h.time.settle();
  await c.done;
  assert.deepEqual(added, ["a"]);
  assert.equal(synced, 0);
  assert.equal(c.synced(), false);
  assert.equal(h.server.openWatches, 0);
});

Deno.test("relisted is called after each complete read but the first", async () => {
  await using h = harness();
  await make(h.client, "a");
  let synced = 0;
  let relisted = 0;
  await using c = new Collection(h.client, {
    version: "v1",
    resource: "configmaps",
  }, {
    synced: () => void synced++,
    relisted: () => void relisted++,
    logger: testLogger({ onError: () => {} }),
  });
  await h.time.settle();
  assert.deepEqual([synced, relisted], [1, 0]);
  // The watch ends, a change lands, and the history is compacted: the
  // resumed watch gets 410, and the collection is read again.
  h.server.cutWatches();
  await change(h.client, "a", { k: "1" });
  h.server.compact();
  await h.time.tick(3_000);
  await h.time.settle();
  assert.deepEqual([synced, relisted], [1, 1]);
  assert.equal(c.store.get("default/a")?.metadata.resourceVersion, "2");
});
