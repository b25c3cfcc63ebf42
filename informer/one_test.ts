import assert from "node:assert/strict";
import type { KubeObject } from "../apiclient/types.ts";
import { watchOne, type WatchOneOptions } from "./mod.ts";
import { change, CM, harness, make } from "./_harness_test_util.ts";
import { testLogger } from "../_internal/_log_test_util.ts";

const CA = { version: "v1", resource: "configmaps", namespace: "default" };

function follow(
  h: ReturnType<typeof harness>,
  options: Partial<WatchOneOptions> = {},
): { log: string[]; stop: () => Promise<void> } {
  const log: string[] = [];
  const collection = watchOne(h.client, { ...CA, name: "ca" }, {
    seen: (held) =>
      void log.push(held ? `seen ${held.metadata.resourceVersion}` : "absent"),
    synced: () => void log.push("synced"),
    ...options,
  });
  return { log, stop: () => collection.stop() };
}

Deno.test("an object there from the start is seen once, then synced", async () => {
  await using h = harness();
  await make(h.client, "ca");
  await make(h.client, "other");
  const { log, stop } = follow(h);
  await h.time.settle();
  await change(h.client, "other", { k: "1" });
  await h.time.settle();
  await stop();
  assert.deepEqual(log, ["seen 1", "synced"]);
  const first = h.server.requests.find((r) => r.method === "GET")!;
  assert.equal(first.query.get("fieldSelector"), "metadata.name=ca");
});

Deno.test("absent at first, then created, changed, deleted and created again", async () => {
  await using h = harness();
  const { log, stop } = follow(h);
  await h.time.settle();
  await make(h.client, "ca");
  await change(h.client, "ca", { k: "1" });
  await h.client.delete(`${CM}/ca`);
  await make(h.client, "ca");
  await h.time.settle();
  await stop();
  assert.deepEqual(log, [
    "absent",
    "synced",
    "seen 1",
    "seen 2",
    "absent",
    "seen 4",
  ]);
});

Deno.test("deleted while no watch was open, the object is reported absent after the relist", async () => {
  await using h = harness();
  await make(h.client, "ca");
  const { log, stop } = follow(h);
  await h.time.settle();
  h.server.cutWatches();
  h.server.remove(`${CM}/ca`);
  h.server.put(`${CM}/x`, { metadata: {} });
  h.server.compact();
  await h.time.tick(5_000);
  await h.time.settle();
  await stop();
  assert.deepEqual(log, ["seen 1", "synced", "absent"]);
});

Deno.test("a copy that does not decode is reported, not seen, and not absent", async () => {
  await using h = harness();
  await make(h.client, "ca", { bad: "1" });
  const reported: unknown[] = [];
  const { log, stop } = follow(h, {
    decode: (o: KubeObject) => {
      if ((o as { data?: { bad?: string } }).data?.bad) throw new Error("bad");
      return o;
    },
    logger: testLogger({ onError: (e) => void reported.push(e) }),
  });
  await h.time.settle();
  await change(h.client, "ca", { bad: "2" });
  await h.time.settle();
  assert.deepEqual(log, ["synced"]);
  await h.client.replace(`${CM}/ca`, {
    metadata: { name: "ca" },
    data: { good: "1" },
  });
  await h.time.settle();
  await stop();
  assert.deepEqual(log, ["synced", "seen 3"]);
  assert.equal(reported.length, 2);
});

Deno.test("an object created while the first read runs is never reported absent after it was seen", async () => {
  await using h = harness({
    fetch: (server) => async (input, init) => {
      const response = await server.fetch(input, init);
      const url = String(input instanceof Request ? input.url : input);
      // Lands between the first read's answer and its end.
      if (url.includes("sendInitialEvents")) {
        server.put(`${CM}/ca`, { metadata: {} });
      }
      return response;
    },
  });
  const { log, stop } = follow(h);
  await h.time.settle();
  await stop();
  assert.deepEqual(log.filter((l) => l !== "synced").at(-1), "seen 1");
  assert.ok(log.includes("synced"));
});

Deno.test("done settles after the last call to seen returned", async () => {
  await using h = harness();
  await make(h.client, "ca");
  let returned = false;
  const collection = watchOne(h.client, { ...CA, name: "ca" }, {
    seen: async () => {
      await new Promise((r) => setTimeout(r, 1_000));
      returned = true;
    },
  });
  await h.time.settle();
  const stopped = collection.stop();
  await h.time.tick(1_000);
  await stopped;
  assert.equal(returned, true);
});
