// Hostile and broken answers, as a proxy, a buggy API server or a bad mount
// gives them: watches that close after one event, malformed objects, and a
// watch line that never decodes.
import assert from "node:assert/strict";
import type { KubeObject } from "../apiclient/types.ts";
import { Collection } from "./mod.ts";
import {
  change,
  faultyFetch,
  harness,
  isList,
  isStreamingList,
  isWatch,
  make,
  watchFaults,
} from "./_harness_test_util.ts";
import type { RecordedRequest } from "../testing/mod.ts";
import { testLogger } from "../_internal/_log_test_util.ts";

const CONFIGMAPS = { version: "v1", resource: "configmaps" };

function plainWatches(requests: readonly RecordedRequest[]): number {
  return requests.filter((r) => isWatch(r) && !isStreamingList(r)).length;
}

Deno.test("watches that close after one event are opened about once a second, and a healthy one resumes at once", async () => {
  const faults = watchFaults();
  await using h = harness({ fetch: faultyFetch(faults) });
  await make(h.client, "a");
  await using c = new Collection(h.client, CONFIGMAPS);
  await h.time.settle();
  // 30 changes wait in the history; every watch delivers one and closes.
  faults.oneEvent = true;
  h.server.cutWatches();
  const before = plainWatches(h.server.requests);
  for (let i = 0; i < 30; i++) await change(h.client, "a", { i: String(i) });
  // Without spacing they would be 30 watches in no time at all.
  await h.time.tick(3_000);
  const opened = plainWatches(h.server.requests) - before;
  assert.ok(opened >= 2 && opened <= 4, `${opened} watches in 3 s`);
  // Each one still made progress.
  assert.equal(
    c.store.get("default/a")?.metadata.resourceVersion,
    String(1 + opened),
  );
  faults.oneEvent = false;
  await h.time.tick(40_000);
  assert.deepEqual(
    (c.store.get("default/a") as KubeObject & { data?: unknown })?.data,
    { i: "29" },
  );
  // A healthy watch, open for over a second, is resumed at once.
  await h.time.tick(5_000);
  const healthy = plainWatches(h.server.requests);
  h.server.cutWatches();
  await h.time.settle();
  assert.equal(plainWatches(h.server.requests), healthy + 1);
});

Deno.test("objects without metadata or with a name that is no string are refused, with a report", async () => {
  const faults = watchFaults();
  await using h = harness({
    fetch: (server) => async (input, init) => {
      const response = await faultyFetch(faults)(server)(input, init);
      const url = String(input instanceof Request ? input.url : input);
      const method = init?.method ?? "GET";
      if (method !== "GET" || url.includes("watch=true") || !response.ok) {
        return response;
      }
      // A list whose items include malformed ones.
      const list = await response.json();
      list.items.push(
        { kind: "ConfigMap" },
        { kind: "ConfigMap", metadata: { name: 5, namespace: "default" } },
        { kind: "ConfigMap", metadata: { name: "x", namespace: ["default"] } },
      );
      return Response.json(list);
    },
  });
  await make(h.client, "good");
  h.server.refuse({ watch: true, status: 422, count: 1 }); // lists, please
  const reported: string[] = [];
  await using c = new Collection(h.client, CONFIGMAPS, {
    logger: testLogger({
      onError: (error) => void reported.push((error as Error).message),
    }),
  });
  await h.time.settle();
  assert.equal(c.synced(), true);
  assert.deepEqual(c.store.keys(), ["default/good"]);
  assert.equal(c.store.has(""), false);
  assert.equal(c.store.has("default/5"), false);
  assert.deepEqual(reported, [
    "Refused a ConfigMap of configmaps: it has no metadata",
    "Refused a ConfigMap of configmaps: its metadata.name is 5, not a non-empty string",
    'Refused a ConfigMap of configmaps: its metadata.namespace is ["default"], not a string',
  ]);
  // The same from a watch event.
  reported.length = 0;
  faults.inject.push(
    JSON.stringify({
      type: "ADDED",
      object: { kind: "ConfigMap", metadata: { resourceVersion: "1" } },
    }) + "\n",
  );
  h.server.cutWatches();
  await make(h.client, "later");
  await h.time.tick(2_000);
  assert.deepEqual(c.store.keys(), ["default/good", "default/later"]);
  assert.deepEqual(reported, [
    "Refused a ConfigMap of configmaps: its metadata.name is missing, not a non-empty string",
  ]);
});

Deno.test("a poison watch line is reported each time, relists after three, and shows the store is not current", async () => {
  const faults = watchFaults();
  await using h = harness({ fetch: faultyFetch(faults) });
  await make(h.client, "a");
  const reported: unknown[] = [];
  await using c = new Collection(h.client, CONFIGMAPS, {
    logger: testLogger({ onError: (error) => void reported.push(error) }),
  });
  await h.time.settle();
  assert.equal(c.current(), true);
  faults.poison = true;
  h.server.cutWatches();
  const lists =
    h.server.requests.filter((r) => isList(r) || isStreamingList(r)).length;
  await h.time.tick(1_000);
  assert.equal(c.current(), false, "not current while every watch fails");
  assert.equal(c.synced(), true, "reads may still use the store");
  await h.time.tick(20_000);
  const failed = faults.touched;
  assert.ok(failed >= 3, `${failed} poisoned watches`);
  // Each poisoned watch is reported.
  assert.equal(reported.length, failed);
  assert.match(String(reported[0]), /POISON/);
  // Three bad answers in a row read the whole collection again.
  const relists =
    h.server.requests.filter((r) => isList(r) || isStreamingList(r)).length -
    lists;
  assert.ok(relists >= 1, "a relist after repeated failures");
  // The poison clears: the store is current again, and changes arrive.
  faults.poison = false;
  await h.time.tick(70_000);
  await change(h.client, "a", { k: "v" });
  await h.time.settle();
  assert.equal(c.current(), true);
  assert.deepEqual(
    (c.store.get("default/a") as KubeObject & { data?: unknown })?.data,
    { k: "v" },
  );
});
