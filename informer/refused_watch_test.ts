// A watch request the API server answers with an error status (rather than
// with an ERROR event inside the stream): 410 reads the collection again;
// any other refusal leaves a store that holds its first read answering,
// except that 401 and 403 make it unready until a watch opens.
import assert from "node:assert/strict";
import { Collection } from "./mod.ts";
import { CM, harness, isList, make, reads } from "./_harness_test_util.ts";
import { testLogger } from "../_internal/_log_test_util.ts";

const CONFIGMAPS = { version: "v1", resource: "configmaps" };

Deno.test("a watch request answered with 410 reads the collection again, with no failure reported", async () => {
  await using h = harness();
  await make(h.client, "a");
  const errors: unknown[] = [];
  let relisted = 0;
  await using c = new Collection(h.client, CONFIGMAPS, {
    logger: testLogger({ onError: (error) => void errors.push(error) }),
    relisted: () => void relisted++,
  });
  await h.time.settle();
  assert.deepEqual(reads(h.server), ["stream rv="]);
  h.server.cutWatches();
  // While no watch is open: a change, and the history it came after is gone.
  await make(h.client, "b");
  h.server.compact();
  const gone = h.server.refuse({ watch: true, status: 410, count: 1 });
  // A watch that lasted under a second is opened again a second after it;
  // the 410's backoff (at most 1.6 s) comes before the read.
  await h.time.tick(3_000);
  await h.time.settle();
  assert.equal(gone.remaining, 0);
  assert.deepEqual(reads(h.server), [
    "stream rv=",
    "watch rv=1",
    "stream rv=1",
  ]);
  assert.equal(relisted, 1);
  assert.deepEqual(c.store.keys(), ["default/a", "default/b"]);
  assert.deepEqual(errors, []);
  assert.equal(c.synced(), true);
  assert.equal(c.current(), true);
});

Deno.test("a first read by paginated list is synced although every watch is refused with 503; a 403 makes it unready", async () => {
  await using h = harness();
  for (let i = 0; i < 600; i++) {
    h.server.put(`${CM}/cm-${String(i).padStart(4, "0")}`, { metadata: {} });
  }
  // No streaming lists (422), then 503 on every watch.
  h.server.refuse({ watch: true, status: 422, count: 1 });
  let outage = h.server.refuse({ watch: true, status: 503 });
  const errors: unknown[] = [];
  let calls = 0;
  const options = {
    logger: testLogger({
      onError: (error: unknown) => void errors.push(error),
    }),
    synced: () => void calls++,
  };
  await using c = new Collection(h.client, CONFIGMAPS, options);
  await using strict = new Collection(h.client, CONFIGMAPS, {
    ...options,
    unreadyOnWatchError: true,
  });
  await h.time.settle();
  await h.time.tick(60_000);
  await h.time.settle();
  assert.equal(calls, 2);
  assert.equal(c.store.size, 600);
  assert.equal(h.server.requests.filter(isList).length, 4);
  assert.ok(errors.length >= 4, `${errors.length} failures reported`);
  // The store holds the first read: it answers, though it is not current.
  assert.equal(c.synced(), true);
  assert.equal(c.current(), false);
  // With unreadyOnWatchError any refusal makes it unready.
  assert.equal(strict.store.size, 600);
  assert.equal(strict.synced(), false);
  // 403 makes the store unready until a watch opens again.
  outage.allow();
  outage = h.server.refuse({ watch: true, status: 403 });
  await h.time.tick(60_000);
  await h.time.settle();
  assert.equal(c.synced(), false);
  outage.allow();
  await h.time.tick(60_000);
  await h.time.settle();
  assert.equal(c.synced(), true);
  assert.equal(strict.synced(), true);
  assert.equal(c.current(), true);
});
