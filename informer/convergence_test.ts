// Random creates, updates, deletes and faults over many seeds: once the
// faults stop and time settles, the store (and what the handler was told)
// equals the server's objects, every time.
import assert from "node:assert/strict";
import type { KubeObject } from "../apiclient/types.ts";
import type { Refusal } from "../testing/mod.ts";
import { Collection, finalState } from "./mod.ts";
import { CM, harness } from "./_harness_test_util.ts";

/** A small seeded PRNG (mulberry32), so a failing seed can be replayed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NAMES = Array.from({ length: 12 }, (_, i) => `cm-${i}`);
const SEEDS = 60;
const STEPS = 80;

async function run(seed: number): Promise<void> {
  const random = prng(seed);
  const pick = <T>(items: readonly T[]): T =>
    items[Math.floor(random() * items.length)]!;
  await using h = harness({ bookmarkInterval: 5_000 });
  const { server } = h;
  for (const name of NAMES) {
    if (random() < 0.5) server.put(`${CM}/${name}`, { metadata: {} });
  }
  const mirror = new Map<string, string>();
  const refusals: Refusal[] = [];
  let pageSized = false;
  await using c = new Collection(h.client, {
    version: "v1",
    resource: "configmaps",
  }, {
    handler: {
      add: (o) => {
        assert.equal(mirror.has(`default/${o.metadata.name}`), false);
        mirror.set(`default/${o.metadata.name}`, o.metadata.resourceVersion!);
      },
      update: (old, o) => {
        assert.equal(
          mirror.get(`default/${o.metadata.name}`),
          old.metadata.resourceVersion,
        );
        mirror.set(`default/${o.metadata.name}`, o.metadata.resourceVersion!);
      },
      delete: (o) => {
        const last = finalState(o);
        const key = last
          ? `default/${last.metadata.name}`
          : (o as { key: string }).key;
        assert.equal(mirror.delete(key), true, `delete of unknown ${key}`);
      },
    },
    onError: (error) => {
      throw new Error(`seed ${seed}: unexpected report`, { cause: error });
    },
  });
  for (let step = 0; step < STEPS; step++) {
    const roll = random();
    const name = pick(NAMES);
    if (roll < 0.25) {
      server.put(`${CM}/${name}`, {
        metadata: {},
        data: { v: String(step) },
      } as KubeObject);
    } else if (roll < 0.4) {
      server.remove(`${CM}/${name}`);
    } else if (roll < 0.5) {
      if (server.isDown) server.up();
      else server.down();
    } else if (roll < 0.6) {
      server.cutWatches();
    } else if (roll < 0.67) {
      server.compact();
      if (random() < 0.5) server.cutWatches();
    } else if (roll < 0.74) {
      refusals.push(server.refuse(
        {
          status: pick([429, 500, 503]),
          watch: random() < 0.7 ? true : undefined,
          count: 1 + Math.floor(random() * 3),
          retryAfterSeconds: random() < 0.3 ? 1 : undefined,
        } as Parameters<typeof server.refuse>[0],
      ));
    } else if (roll < 0.78) {
      server.corruptNextWatchLine({ truncate: random() < 0.5 });
    } else if (roll < 0.8 && !pageSized) {
      // Enough objects for a paginated relist.
      pageSized = true;
      for (let i = 0; i < 520; i++) {
        server.put(`${CM}/bulk-${i}`, { metadata: {} });
      }
      if (random() < 0.5) server.refuse({ watch: true, status: 422, count: 1 });
    }
    await h.time.tick(Math.floor(random() * 4_000));
    if (random() < 0.3) await h.time.settle();
  }
  // The faults stop.
  server.up();
  for (const refusal of refusals) refusal.allow();
  server.corruptNextWatchLine({ truncate: false });
  server.cutWatches(); // spends the pending corruption on no line
  for (let i = 0; i < 3; i++) {
    await h.time.tick(65_000);
    await h.time.settle();
  }
  const expected = new Map<string, string>();
  const all = await h.client.get<{ items: KubeObject[] }>("/api/v1/configmaps");
  for (const item of all.items) {
    expected.set(
      `${item.metadata.namespace}/${item.metadata.name}`,
      item.metadata.resourceVersion!,
    );
  }
  const held = new Map<string, string>();
  for (const key of c.store.keys()) held.set(key, c.store.version(key)!);
  assert.deepEqual(held, expected, `seed ${seed}: store`);
  assert.deepEqual(mirror, expected, `seed ${seed}: handler`);
  assert.equal(c.synced(), true, `seed ${seed}: synced`);
}

Deno.test(`the store converges on the server's objects over ${SEEDS} seeds of random faults`, async () => {
  for (let seed = 1; seed <= SEEDS; seed++) await run(seed);
});
