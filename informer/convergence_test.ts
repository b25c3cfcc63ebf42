// Random creates, updates, deletes and faults over many seeds: once the
// faults stop and time settles, the store (and what the handler was told)
// equals the server's objects, every time.
//
// The faults: the server down and up; watches cut; compaction (410s);
// refusals (429, 500, 503) of watches, of lists only, or of both; corrupt and
// truncated watch lines; latency on every request; compaction between the
// pages of a paginated list (an expired continue token); silent half-open
// watches (headers, then nothing) and watches that stall mid-stream (nothing
// more, not even the end): only the heartbeat timeout ends them; watches
// that close after one event; and a poison line that starts every watch for
// a while, then clears. Once no fault is pending, the store must equal the
// server within 4 minutes of fake time: the heartbeat timeout (2.5 min, as
// the server was seen sending periodic bookmarks) plus a backoff.
//
// Seeds: `--seeds=N --from=F` after `--`, or CHAOS_SEEDS and CHAOS_FROM in
// the environment (`deno task chaos` runs 1,000).
import assert from "node:assert/strict";
import {
  chaosSetting,
  seeded,
  seedRandomness,
} from "../_internal/_chaos_test_util.ts";
import type { KubeObject } from "../apiclient/types.ts";
import type { FakeApiServer, Refusal } from "../testing/mod.ts";
import { Collection, finalState } from "./mod.ts";
import {
  CM,
  faultyFetch,
  harness,
  stallable,
  watchFaults,
} from "./_harness_test_util.ts";
import { testLogger } from "../_internal/_log_test_util.ts";

const NAMES = Array.from({ length: 12 }, (_, i) => `cm-${i}`);
const SEEDS = chaosSetting("seeds", "CHAOS_SEEDS", 60);
const FROM = chaosSetting("from", "CHAOS_FROM", 1);
const STEPS = 80;

/** Which faults a run met, summed over the seeds for the report. */
const met = new Map<string, number>();
function meet(fault: string): void {
  met.set(fault, (met.get(fault) ?? 0) + 1);
}

/**
 * One seed: asserts convergence, and returns its trace (every request the
 * server received, at its fake instant, and every handler call).
 */
async function run(seed: number): Promise<string[]> {
  // The library's jitter (backoffs, watch timeouts) and the fake's uids.
  using _random = seedRandomness(seed);
  const random = seeded(seed);
  const pick = <T>(items: readonly T[]): T =>
    items[Math.floor(random() * items.length)]!;
  const faults = watchFaults();
  // Compaction between the pages of a list: armed by a step, spent by the
  // next request for a page after the first.
  let compactBetweenPages = false;
  const stall = stallable();
  await using h = harness({
    bookmarkInterval: 5_000,
    fetch: (server: FakeApiServer) => {
      const inner = stall.wrap(faultyFetch(faults)(server));
      return (input, init) => {
        const url = String(input instanceof Request ? input.url : input);
        if (compactBetweenPages && url.includes("continue=")) {
          compactBetweenPages = false;
          meet("compaction between pages");
          server.put(`${CM}/${NAMES[0]}`, { metadata: {}, data: { p: url } });
          server.compact();
        }
        return inner(input, init);
      };
    },
  });
  const { server } = h;
  for (const name of NAMES) {
    if (random() < 0.5) server.put(`${CM}/${name}`, { metadata: {} });
  }
  const mirror = new Map<string, string>();
  const calls: string[] = [];
  const unexpected: unknown[] = [];
  const refusals: Refusal[] = [];
  let pageSized = false;
  await using c = new Collection(h.client, {
    version: "v1",
    resource: "configmaps",
  }, {
    handler: {
      add: (o) => {
        calls.push(
          `${Date.now()} add ${o.metadata.name} ${o.metadata.resourceVersion}`,
        );
        assert.equal(mirror.has(`default/${o.metadata.name}`), false);
        mirror.set(`default/${o.metadata.name}`, o.metadata.resourceVersion!);
      },
      update: (old, o) => {
        calls.push(
          `${Date.now()} update ${o.metadata.name} ${o.metadata.resourceVersion}`,
        );
        assert.equal(
          mirror.get(`default/${o.metadata.name}`),
          old.metadata.resourceVersion,
        );
        mirror.set(`default/${o.metadata.name}`, o.metadata.resourceVersion!);
      },
      delete: (o) => {
        const last = finalState(o);
        calls.push(
          `${Date.now()} delete ${last?.metadata.name} ${last?.metadata.resourceVersion}`,
        );
        const key = last
          ? `default/${last.metadata.name}`
          : (o as { key: string }).key;
        assert.equal(mirror.delete(key), true, `delete of unknown ${key}`);
      },
    },
    // Failed lists and watches are reported by design; a handler's failed
    // assertion, a refused or undecodable object are not expected.
    logger: testLogger({
      onError: (error) => {
        if (
          error instanceof assert.AssertionError ||
          /refused: |does not decode/.test(String(error))
        ) {
          unexpected.push(error);
        }
      },
    }),
  });
  // The server is seen sending a periodic bookmark before the faults begin.
  await h.time.settle();
  await h.time.tick(6_000);
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
      if (random() < 0.5) {
        refusals.push(server.refuse({ watch: true, status: 422, count: 1 }));
      }
    } else if (roll < 0.83) {
      meet("latency");
      server.latency(random() < 0.3 ? 0 : Math.floor(random() * 400));
    } else if (roll < 0.86) {
      meet("list-only refusal");
      refusals.push(server.refuse({
        method: "GET",
        path: "/api/v1/configmaps",
        watch: false,
        status: pick([429, 500, 503]),
        count: 1 + Math.floor(random() * 4),
      }));
    } else if (roll < 0.89) {
      compactBetweenPages = true;
      if (!pageSized) {
        pageSized = true;
        for (let i = 0; i < 520; i++) {
          server.put(`${CM}/bulk-${i}`, { metadata: {} });
        }
      }
      // A paginated relist now.
      refusals.push(server.refuse({ watch: true, status: 422, count: 1 }));
      server.compact();
      server.cutWatches();
    } else if (roll < 0.92) {
      meet("silent watch");
      faults.silent = !faults.silent;
      if (random() < 0.5) server.cutWatches();
    } else if (roll < 0.935) {
      meet("stalled watch");
      stall.stallOpen();
    } else if (roll < 0.95) {
      meet("one-event watch");
      faults.oneEvent = !faults.oneEvent;
      server.cutWatches();
    } else if (roll < 0.97) {
      meet("poison line");
      faults.poison = !faults.poison;
      server.cutWatches();
    }
    await h.time.tick(Math.floor(random() * 4_000));
    if (random() < 0.3) await h.time.settle();
  }
  // The faults stop.
  server.up();
  for (const refusal of refusals) refusal.allow();
  server.latency(0);
  faults.oneEvent = false;
  faults.poison = false;
  faults.silent = false;
  compactBetweenPages = false;
  server.corruptNextWatchLine({ truncate: false });
  server.cutWatches(); // spends the pending corruption on no line
  // No fault is pending: the store must be the server's within 4 minutes
  // of fake time (4 × 60 s, nothing more).
  for (let i = 0; i < 4; i++) {
    await h.time.tick(60_000);
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
  assert.equal(c.current(), true, `seed ${seed}: current`);
  assert.deepEqual(unexpected, [], `seed ${seed}: reports`);
  return [
    ...server.requests.map((r) =>
      `${r.time} ${r.method} ${r.path}?${r.query} ${JSON.stringify(r.body)}`
    ),
    ...calls,
  ];
}

Deno.test("a chaos seed replays: the same requests at the same instants, the same handler calls", async () => {
  // Seed 3 meets backoffs and watch timeouts, drawn from Math.random.
  const first = await run(3);
  const second = await run(3);
  assert.ok(first.length > 100, `${first.length} lines`);
  assert.deepEqual(second, first);
});

Deno.test(`the store converges on the server's objects over ${SEEDS} seeds of random faults`, async () => {
  for (let seed = FROM; seed < FROM + SEEDS; seed++) await run(seed);
  // Each added fault must have been met, or the run shows nothing of it.
  for (
    const fault of [
      "latency",
      "list-only refusal",
      "silent watch",
      "stalled watch",
      "one-event watch",
      "poison line",
      ...(SEEDS >= 60 ? ["compaction between pages"] : []),
    ]
  ) {
    assert.ok((met.get(fault) ?? 0) > 0, `no ${fault} in ${SEEDS} seeds`);
  }
  // deno-lint-ignore no-console
  console.log(
    `seeds ${FROM}..${FROM + SEEDS - 1} converged; faults met: ${
      [...met].map(([f, n]) => `${f} ${n}`).join(", ")
    }`,
  );
});
