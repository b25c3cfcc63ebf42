import assert from "node:assert/strict";
import type { KubeObject } from "../apiclient/types.ts";
import { Collections, type RegisterOptions, type Registration } from "./mod.ts";
import {
  change,
  CM,
  harness,
  isWatch,
  make,
  recorder,
} from "./_harness_test_util.ts";
import type { FakeApiServer } from "../testing/mod.ts";
import { testLogger } from "../_internal/_log_test_util.ts";
import { Encoded } from "./_bytes.ts";

const CONFIGMAPS = { version: "v1", resource: "configmaps" };

function watches(server: FakeApiServer): number {
  return server.requests.filter(isWatch).length;
}

/** A recorder that also logs the registration's `synced` call. */
function withSynced(): { log: string[]; options: RegisterOptions } {
  const { log, handler } = recorder();
  return { log, options: { handler, synced: () => void log.push("synced") } };
}

Deno.test("two registrations on one source share one watch, and both see every change", async () => {
  await using h = harness();
  await make(h.client, "a");
  await using collections = new Collections(h.client);
  const first = withSynced();
  const second = withSynced();
  const one = collections.register(CONFIGMAPS, first.options);
  const two = collections.register(CONFIGMAPS, second.options);
  await h.time.settle();
  await change(h.client, "a", { x: "1" });
  await make(h.client, "b");
  await h.client.delete(`${CM}/a`);
  await h.time.settle();
  const expected = [
    "add a 1",
    "synced",
    "update a 1->2",
    "add b 3",
    "delete a 4",
  ];
  assert.deepEqual(first.log, expected);
  assert.deepEqual(second.log, expected);
  assert.equal(watches(h.server), 1);
  assert.equal(h.server.openWatches, 1);
  assert.equal(collections.size(), 1);
  // One store behind both.
  assert.equal(one.store, two.store);
  assert.equal(one.synced() && two.synced() && collections.synced(), true);
});

Deno.test("different selectors, or metadataOnly, are different watches", async () => {
  await using h = harness();
  await using collections = new Collections(h.client);
  collections.register(CONFIGMAPS);
  collections.register({ ...CONFIGMAPS, labelSelector: "app=web" });
  collections.register({ ...CONFIGMAPS, fieldSelector: "metadata.name=a" });
  collections.register(CONFIGMAPS, { metadataOnly: true });
  collections.register({ ...CONFIGMAPS, namespace: "default" });
  await h.time.settle();
  assert.equal(watches(h.server), 5);
  assert.equal(collections.size(), 5);
});

Deno.test("the same source with another transform, decode or index function is refused", async () => {
  await using h = harness();
  await using collections = new Collections(h.client);
  const transform = (object: KubeObject): KubeObject => object;
  const indexers = { app: () => ["x"] };
  collections.register(CONFIGMAPS, { transform, indexers });
  // The same function and object share the watch.
  collections.register(CONFIGMAPS, { transform, indexers });
  assert.throws(
    () => collections.register(CONFIGMAPS, { transform: (o) => o, indexers }),
    {
      name: "TypeError",
      message:
        "Cannot share the watch of configmaps: its transform is not the same as the first registration's; pass the very same transform (or leave it out alike), or watch with a Collection of its own",
    },
  );
  // Indexers left out add none; the same name with another function is
  // refused, naming the index.
  collections.register(CONFIGMAPS, { transform });
  assert.throws(
    () =>
      collections.register(CONFIGMAPS, {
        transform,
        indexers: { app: () => ["y"] },
      }),
    {
      name: "TypeError",
      message:
        "Cannot share the watch of configmaps: its index app is another function than the one registered before; give one index name one function (define it once and pass the same function), or another name",
    },
  );
  assert.throws(
    () =>
      collections.register(CONFIGMAPS, {
        transform,
        indexers,
        decode: (o) => o,
      }),
    /its decode is not the same/,
  );
  await h.time.settle();
  assert.equal(watches(h.server), 1);
});

Deno.test("the collections' storage decides how a store keeps objects when its registrations name none; one that names another is refused", async () => {
  await using h = harness();
  await make(h.client, "a");
  const SECRETS = { version: "v1", resource: "secrets" };
  await h.client.create("/api/v1/namespaces/default/secrets", {
    metadata: { name: "s" },
  });
  await using collections = new Collections(h.client, {
    storage: (source) => source.resource === "configmaps" ? "bytes" : "objects",
  });
  const configMaps = collections.register(CONFIGMAPS);
  const secrets = collections.register(SECRETS);
  // Named alike, it shares the watch; named otherwise, it is refused.
  collections.register(CONFIGMAPS, { storage: "bytes" });
  assert.throws(
    () => collections.register(CONFIGMAPS, { storage: "objects" }),
    /its storage is not the same as the first registration's/,
  );
  await h.time.settle();
  const held = (store: unknown): unknown[] => [
    ...(store as { entries(): Map<string, unknown> }).entries().values(),
  ];
  assert.equal(held(configMaps.store).length, 1);
  assert.ok(held(configMaps.store).every((item) => item instanceof Encoded));
  assert.equal(held(secrets.store).length, 1);
  assert.ok(held(secrets.store).every((item) => !(item instanceof Encoded)));
  assert.equal(configMaps.store.get("default/a")?.metadata.name, "a");
  assert.equal(watches(h.server), 2);
});

Deno.test("indexers of several registrations merge by name; one added to a running collection indexes what it holds", async () => {
  await using h = harness();
  const labelled = (name: string, labels: Record<string, string>) =>
    h.client.create(CM, { metadata: { name, labels } });
  await labelled("a", { app: "web", tier: "front" });
  await labelled("b", { app: "db", tier: "back" });
  await using collections = new Collections(h.client);
  const app = (o: KubeObject): string[] =>
    o.metadata.labels?.app ? [o.metadata.labels.app] : [];
  const tier = (o: KubeObject): string[] =>
    o.metadata.labels?.tier ? [o.metadata.labels.tier] : [];
  const first = collections.register(CONFIGMAPS, { indexers: { app } });
  await h.time.settle();
  assert.equal(first.synced(), true);
  // Registered while the collection runs: its index is built from the
  // objects the store already holds, and the first index stays.
  const second = collections.register(CONFIGMAPS, {
    indexers: { app, tier },
  });
  assert.deepEqual(second.store.indexKeys("tier", "back"), ["default/b"]);
  assert.deepEqual(first.store.indexKeys("app", "web"), ["default/a"]);
  // Both indexes follow later changes.
  await labelled("c", { app: "web", tier: "back" });
  await h.time.settle();
  assert.deepEqual(first.store.indexKeys("tier", "back"), [
    "default/b",
    "default/c",
  ]);
  assert.deepEqual(second.store.indexKeys("app", "web"), [
    "default/a",
    "default/c",
  ]);
  assert.equal(watches(h.server), 1);
});

Deno.test("a registration made late sees the current objects once as adds, then its own synced", async () => {
  await using h = harness();
  await make(h.client, "a");
  await using collections = new Collections(h.client);
  const first = withSynced();
  collections.register(CONFIGMAPS, first.options);
  await h.time.settle();
  await make(h.client, "b");
  await h.time.settle();
  const late = withSynced();
  const registration = collections.register(CONFIGMAPS, late.options);
  assert.equal(registration.synced(), false);
  await h.time.settle();
  assert.equal(registration.synced(), true);
  await change(h.client, "b", { x: "1" });
  await h.time.settle();
  assert.deepEqual(late.log, [
    "add a 1",
    "add b 2",
    "synced",
    "update b 2->3",
  ]);
  assert.deepEqual(first.log, [
    "add a 1",
    "synced",
    "add b 2",
    "update b 2->3",
  ]);
  assert.equal(watches(h.server), 1);
});

Deno.test("a handler blocked 10 s delays another registration's events by less than 100 ms", async () => {
  await using h = harness();
  await using collections = new Collections(h.client);
  const blocked: string[] = [];
  const slow = collections.register(CONFIGMAPS, {
    handler: {
      add: async (object) => {
        blocked.push(object.metadata.name!);
        await new Promise((resolve) => setTimeout(resolve, 10_000));
      },
    },
  });
  const seen: [string, number][] = [];
  const fast = collections.register(CONFIGMAPS, {
    handler: {
      add: (object) => void seen.push([object.metadata.name!, Date.now()]),
    },
  });
  await h.time.settle();
  const start = Date.now();
  await make(h.client, "x");
  await make(h.client, "y");
  await h.time.tick(50);
  await h.time.settle();
  // The slow handler is inside its first call, with the second waiting.
  assert.deepEqual(blocked, ["x"]);
  assert.equal(slow.pending(), 1);
  assert.equal(fast.pending(), 0);
  assert.deepEqual(seen.map(([name]) => name), ["x", "y"]);
  for (const [, at] of seen) assert.ok(at - start < 100, `${at - start} ms`);
  await h.time.tick(10_000);
  await h.time.settle();
  assert.deepEqual(blocked, ["x", "y"]);
  assert.equal(slow.pending(), 0);
  // Let the second call end, so the stop at the end does not wait for it.
  await h.time.tick(10_000);
});

Deno.test("stopping a registration waits for its handler call; only the last stop ends the watch", async () => {
  await using h = harness();
  await make(h.client, "a");
  await using collections = new Collections(h.client);
  let ended = false;
  const slow = collections.register(CONFIGMAPS, {
    handler: {
      add: async () => {
        await new Promise((resolve) => setTimeout(resolve, 5_000));
        ended = true;
      },
    },
  });
  const other = withSynced();
  const two = collections.register(CONFIGMAPS, other.options);
  await h.time.settle();
  assert.equal(h.server.openWatches, 1);
  let stopped = false;
  const stopping = slow.stop().then(() => stopped = true);
  await h.time.settle();
  assert.equal(stopped, false);
  await h.time.tick(5_000);
  await stopping;
  assert.equal(ended, true);
  // The watch goes on for the other registration.
  assert.equal(h.server.openWatches, 1);
  assert.equal(collections.size(), 1);
  await make(h.client, "b");
  await h.time.settle();
  assert.deepEqual(other.log, ["add a 1", "synced", "add b 2"]);
  await two.stop();
  await h.time.settle();
  assert.equal(h.server.openWatches, 0);
  assert.equal(collections.size(), 0);
  const before = h.server.requests.length;
  await make(h.client, "c");
  await h.time.tick(60_000);
  // No request but the create: nothing watches any more.
  assert.equal(h.server.requests.length, before + 1);
  assert.deepEqual(other.log, ["add a 1", "synced", "add b 2"]);
});

Deno.test("frozen copies throw on mutation; freeze: false leaves them as they are", async () => {
  await using h = harness();
  await make(h.client, "a", { k: "v" });
  const errors: string[] = [];
  await using frozen = new Collections(h.client);
  const thrown: unknown[] = [];
  const registration = frozen.register<KubeObject & { data: { k: string } }>(
    CONFIGMAPS,
    {
      handler: {
        add: (object) => {
          try {
            object.data.k = "changed";
          } catch (error) {
            thrown.push(error);
          }
        },
      },
      logger: testLogger({ onError: (error) => errors.push(String(error)) }),
    },
  );
  await h.time.settle();
  assert.equal(thrown.length, 1);
  assert.ok(thrown[0] instanceof TypeError);
  const held = registration.store.get("default/a")!;
  assert.equal(Object.isFrozen(held), true);
  assert.equal(Object.isFrozen(held.metadata), true);
  assert.throws(() => {
    (held.metadata as { name: string }).name = "b";
  }, TypeError);
  assert.equal(held.data.k, "v");
  await using thawed = new Collections(h.client, { freeze: false });
  const plain = thawed.register(CONFIGMAPS, { storage: "objects" });
  // A store of bytes parses frozen copies whatever `freeze` says: a copy it
  // parses again after dropping it must not lose a reader's change.
  await using thawedBytes = new Collections(h.client, { freeze: false });
  const bytes = thawedBytes.register(CONFIGMAPS, { storage: "bytes" });
  await h.time.settle();
  assert.equal(Object.isFrozen(plain.store.get("default/a")), false);
  assert.equal(Object.isFrozen(bytes.store.get("default/a")), true);
  assert.deepEqual(errors, []);
});

Deno.test("Collections.stop ends every registration and watch; register then throws", async () => {
  await using h = harness();
  const collections = new Collections(h.client);
  const registrations: Registration[] = [
    collections.register(CONFIGMAPS),
    collections.register(CONFIGMAPS),
    collections.register({ ...CONFIGMAPS, labelSelector: "app=web" }),
    collections.register({ version: "v1", resource: "secrets" }),
  ];
  await h.time.settle();
  assert.equal(h.server.openWatches, 3);
  assert.equal(collections.synced(), true);
  await collections.stop();
  assert.equal(h.server.openWatches, 0);
  assert.equal(collections.size(), 0);
  // Stopping a registration again is harmless.
  await registrations[0]!.stop();
  assert.throws(
    () => collections.register(CONFIGMAPS),
    /The shared collections were stopped/,
  );
});

Deno.test("the signal of Collections stops everything, a registration's its own registration", async () => {
  await using h = harness();
  const all = new AbortController();
  await using collections = new Collections(h.client, { signal: all.signal });
  const mine = new AbortController();
  const log: string[] = [];
  collections.register(CONFIGMAPS, {
    handler: { add: (o) => void log.push(`one ${o.metadata.name}`) },
    signal: mine.signal,
  });
  collections.register(CONFIGMAPS, {
    handler: { add: (o) => void log.push(`two ${o.metadata.name}`) },
  });
  await h.time.settle();
  mine.abort();
  await make(h.client, "a");
  await h.time.settle();
  assert.deepEqual(log, ["two a"]);
  assert.equal(h.server.openWatches, 1);
  all.abort();
  await h.time.settle();
  assert.equal(h.server.openWatches, 0);
});

Deno.test("a handler error is reported to its registration only, and the queue goes on", async () => {
  await using h = harness();
  await using collections = new Collections(h.client);
  const reported: string[] = [];
  const log: string[] = [];
  collections.register(CONFIGMAPS, {
    handler: {
      add: (o) => {
        if (o.metadata.name === "bad") throw new Error("boom");
        log.push(o.metadata.name!);
      },
    },
    logger: testLogger({
      onError: (error) => reported.push((error as Error).message),
    }),
  });
  const other = withSynced();
  collections.register(CONFIGMAPS, other.options);
  await h.time.settle();
  await make(h.client, "bad");
  await make(h.client, "good");
  await h.time.settle();
  assert.deepEqual(log, ["good"]);
  assert.equal(reported.length, 1);
  assert.match(reported[0]!, /handler\.add/);
  assert.match(reported[0]!, /boom/);
  assert.deepEqual(other.log, ["synced", "add bad 1", "add good 2"]);
});
