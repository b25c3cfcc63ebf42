import assert from "node:assert/strict";
import type { KubeObject } from "../apiclient/types.ts";
import { MemoryStore } from "./_store.ts";

function object(
  name: string,
  labels: Record<string, string> = {},
  version = "1",
): KubeObject {
  return {
    metadata: { namespace: "ns", name, labels, resourceVersion: version },
  };
}

const byApp = {
  app: (o: KubeObject) => o.metadata.labels?.app ? [o.metadata.labels.app] : [],
};

Deno.test("the store holds objects by key and answers keys in order", () => {
  const store = new MemoryStore<KubeObject>(undefined, () => {});
  store.set("ns/b", object("b"));
  store.set("ns/a", object("a"));
  store.set("ns/B", object("B"));
  assert.equal(store.size, 3);
  assert.deepEqual(store.keys(), ["ns/B", "ns/a", "ns/b"]);
  assert.equal(store.get("ns/a")?.metadata.name, "a");
  assert.equal(store.version("ns/a"), "1");
  assert.equal(store.has("ns/c"), false);
  assert.equal(store.delete("ns/a")?.metadata.name, "a");
  assert.equal(store.delete("ns/a"), undefined);
  assert.equal(store.values().length, 2);
});

Deno.test("indexes follow adds, updates, deletes and replaces", () => {
  const store = new MemoryStore<KubeObject>(byApp, () => {});
  store.set("ns/a", object("a", { app: "web" }));
  store.set("ns/b", object("b", { app: "web" }));
  store.set("ns/c", object("c", { app: "db" }));
  assert.deepEqual(store.indexKeys("app", "web"), ["ns/a", "ns/b"]);
  assert.deepEqual(store.indexValues("app"), ["db", "web"]);
  store.set("ns/a", object("a", { app: "db" }, "2"));
  assert.deepEqual(store.indexKeys("app", "web"), ["ns/b"]);
  assert.deepEqual(
    store.byIndex("app", "db").map((o) => o.metadata.name),
    ["a", "c"],
  );
  store.delete("ns/b");
  assert.deepEqual(store.indexValues("app"), ["db"]);
  store.replace(new Map([["ns/z", object("z", { app: "cache" })]]), new Map());
  assert.deepEqual(store.indexValues("app"), ["cache"]);
  assert.deepEqual(store.byIndex("app", "db"), []);
  assert.throws(() => store.indexKeys("nope", "x"), /No indexer named nope/);
});

Deno.test("an index answers what it indexed even if the indexer changes its mind", () => {
  let flip = false;
  const store = new MemoryStore<KubeObject>({
    odd: () => [flip ? "yes" : "no"],
  }, () => {});
  store.set("ns/a", object("a"));
  flip = true;
  store.delete("ns/a");
  assert.deepEqual(store.indexValues("odd"), []);
});

Deno.test("an indexer that throws is reported and indexes nothing", () => {
  const reported: unknown[] = [];
  const store = new MemoryStore<KubeObject>({
    bad: () => {
      throw new Error("boom");
    },
  }, (e) => reported.push(e));
  store.set("ns/a", object("a"));
  assert.equal(store.has("ns/a"), true);
  assert.deepEqual(store.indexValues("bad"), []);
  assert.equal(reported.length, 1);
});

Deno.test("an undecodable object is held without a value", () => {
  const store = new MemoryStore<KubeObject>(byApp, () => {});
  store.set("ns/a", object("a", { app: "web" }));
  assert.equal(store.setUndecodable("ns/a", "7")?.metadata.name, "a");
  assert.equal(store.has("ns/a"), true);
  assert.equal(store.get("ns/a"), undefined);
  assert.equal(store.version("ns/a"), "7");
  // Tracked, but neither listed nor counted: no key without a copy.
  assert.equal(store.size, 0);
  assert.deepEqual(store.keys(), []);
  assert.deepEqual([...store.undecodable().keys()], ["ns/a"]);
  assert.deepEqual(store.values(), []);
  assert.deepEqual(store.indexValues("app"), []);
  store.set("ns/a", object("a", {}, "8"));
  assert.equal(store.undecodable().size, 0);
  store.setUndecodable("ns/a", "9");
  assert.equal(store.delete("ns/a"), undefined);
  assert.equal(store.size, 0);
});

Deno.test("an index added later is built from the objects held; a name taken by another function is refused whole", () => {
  const store = new MemoryStore<KubeObject>(byApp, () => {});
  store.set("ns/a", object("a", { app: "web", tier: "front" }));
  store.set("ns/b", object("b", { app: "db", tier: "back" }));
  const tier = (o: KubeObject): string[] =>
    o.metadata.labels?.tier ? [o.metadata.labels.tier] : [];
  store.addIndexers({ app: byApp.app, tier });
  assert.deepEqual(store.indexKeys("tier", "back"), ["ns/b"]);
  assert.deepEqual(store.indexKeys("app", "web"), ["ns/a"]);
  assert.equal(store.indexer("tier"), tier);
  assert.throws(
    () => store.addIndexers({ zone: tier, app: () => [] }),
    { name: "TypeError", message: /The index app is already another function/ },
  );
  assert.equal(store.indexer("zone"), undefined);
  store.delete("ns/b");
  assert.deepEqual(store.indexValues("tier"), ["front"]);
});
