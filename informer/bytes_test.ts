// A collection that keeps bytes (`storage: "bytes"`, issue #48): what it
// parses, when, and what readers get. The rest of the informer's tests run
// on it too (`deno task test:bytes`).
import assert from "node:assert/strict";
import type { KubeObject } from "../apiclient/types.ts";
import { Collection } from "./mod.ts";
import { meaningfulChange } from "../controller/changes.ts";
import { Encoded, fieldsParsed, lazyParses } from "./_bytes.ts";
import { change, CM, harness, make } from "./_harness_test_util.ts";

const CONFIGMAPS = { version: "v1", resource: "configmaps" };

type ConfigMap = KubeObject & { data?: Record<string, string> };

/** Each held item of a collection's store, as held. */
function held(collection: Collection<ConfigMap>): unknown[] {
  // The store's own entries: text until something read them.
  const store = collection.store as unknown as {
    entries(): Map<string, unknown>;
  };
  return [...store.entries().values()];
}

Deno.test("a store of bytes holds text, parses only what is read, and hands out frozen copies without managedFields", async () => {
  await using h = harness({ managedFields: true });
  await make(h.client, "a", { k: "1" });
  await make(h.client, "b", { k: "2" });
  const updates: [ConfigMap, ConfigMap][] = [];
  const current: boolean[] = [];
  await using collection = new Collection<ConfigMap>(h.client, CONFIGMAPS, {
    storage: "bytes",
    handler: {
      update: (old, object) => {
        updates.push([old, object]);
        current.push(
          collection.store.get(`default/${object.metadata.name}`) === object,
        );
      },
    },
  });
  await h.time.settle();
  const items = held(collection);
  assert.equal(items.length, 2);
  for (const item of items) {
    assert.ok(item instanceof Encoded);
    assert.equal(item.decoded, undefined, "nothing read it yet");
    assert.equal(item.text.includes("managedFields"), false);
  }
  const a = collection.store.get("default/a")!;
  assert.equal(a.data?.k, "1");
  assert.equal(a.metadata.managedFields, undefined);
  assert.equal(Object.isFrozen(a.data), true);
  assert.equal(collection.store.get("default/a"), a, "parsed once");
  assert.equal(collection.store.version("default/b"), "2");
  await change(h.client, "a", { k: "3" });
  await h.time.settle();
  assert.equal(updates.length, 1);
  const [old, object] = updates[0]!;
  assert.equal(old, a, "the copy readers had");
  assert.equal(object.data?.k, "3");
  assert.deepEqual(current, [true], "the handler's copy is the store's");
});

Deno.test("a store of bytes hands every handler its objects; one that reads only metadata parses nothing else", async () => {
  await using h = harness({ managedFields: true });
  await make(h.client, "a");
  const calls: number[] = [];
  const changed: boolean[] = [];
  const seen: KubeObject[] = [];
  await using collection = new Collection<ConfigMap>(h.client, CONFIGMAPS, {
    storage: "bytes",
    handler: {
      // No declared parameters: the objects come all the same.
      add(): void {
        calls.push(arguments.length);
      },
      update: (old, object) => {
        seen.push(old, object);
        changed.push(meaningfulChange(old, object));
      },
      delete(): void {
        calls.push(arguments.length);
      },
    },
  });
  await h.time.settle();
  const before = lazyParses();
  await change(h.client, "a", { k: "2" });
  await make(h.client, "b", { k: "v" });
  await h.time.settle();
  await h.client.delete(`${CM}/a`);
  await h.time.settle();
  assert.deepEqual(calls, [1, 1, 1]);
  assert.deepEqual(changed, [true]);
  assert.equal(lazyParses(), before + 2, "the metadata of old and object");
  for (const object of seen) {
    assert.deepEqual(fieldsParsed(object)?.sort(), [
      "apiVersion",
      "kind",
      "metadata",
    ]);
  }
  const b = collection.store.get("default/b")!;
  assert.deepEqual(fieldsParsed(b)?.sort(), ["apiVersion", "kind"]);
  assert.deepEqual(b.data, { k: "v" });
  assert.deepEqual(fieldsParsed(b)?.sort(), ["apiVersion", "data", "kind"]);
});

Deno.test("a store of bytes: indexers and decode see whole objects", async () => {
  await using h = harness();
  await make(h.client, "a", { k: "x" });
  await make(h.client, "b", { k: "y" });
  await using indexed = new Collection<ConfigMap>(h.client, CONFIGMAPS, {
    storage: "bytes",
    indexers: { k: (object) => [object.data?.k ?? ""] },
  });
  const decoded: unknown[] = [];
  await using typed = new Collection<ConfigMap>(h.client, CONFIGMAPS, {
    storage: "bytes",
    decode: (object) => {
      decoded.push(JSON.parse(JSON.stringify(object)).data);
      return object as ConfigMap;
    },
  });
  await h.time.settle();
  assert.deepEqual(
    indexed.store.byIndex("k", "y").map((o) => o.metadata.name),
    ["b"],
  );
  assert.deepEqual(decoded, [{ k: "x" }, { k: "y" }]);
  assert.equal(held(typed).some((item) => item instanceof Encoded), false);
});

Deno.test("a collection with transform keeps objects whatever its storage", async () => {
  await using h = harness();
  await make(h.client, "a");
  await using collection = new Collection<ConfigMap>(h.client, CONFIGMAPS, {
    storage: "bytes",
    transform: (object) => object,
  });
  await h.time.settle();
  const [item] = held(collection);
  assert.equal(item instanceof Encoded, false);
  assert.equal(collection.store.get("default/a")?.metadata.name, "a");
});
