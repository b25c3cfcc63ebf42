// Chaos family (c) on the real server: informers (a `Collection` of
// ConfigMaps each, one per seed, each through a fault proxy of its own)
// under a black hole (every connection of the informer silent at the TCP
// level, new ones too: bytes held, nothing closed), then the seeded
// script's faults (latency and jitter, bandwidth limits, stalls, resets,
// hangs, refusals) and a restart of kube-apiserver, while a user creates,
// updates and deletes ConfigMaps. Asserted, per seed: the informer notices
// the silent watch (a `WatchIdleError` from the heartbeat, which arms once
// the server's periodic bookmark was seen, about a minute after the watch
// starts) within the heartbeat timeout plus a margin, and after the faults
// stop its store equals the server's list. Measured: the time to notice.
//
// Seeds run in batches at once (a namespace, proxy and informer each), so
// that the minute of waiting for the first bookmark and the heartbeat's
// silence are paid once per batch: 100 seeds take about 15 min
// (`deno task test:chaos`). A seed replays its own fault script; the
// restart's time comes from the batch's first seed, and the real server's
// timing does not replay. The gate runs one batch of two seeds without
// the black hole (about a minute): `--slow` adds it.
import assert from "node:assert/strict";
import { Collection } from "../../informer/mod.ts";
import { testLogger } from "../../_internal/_log_test_util.ts";
import type { KubeObject } from "../../apiclient/mod.ts";
import { chaosSetting, seeded } from "../../_internal/_chaos_test_util.ts";
import { type Fault, FaultProxy, script } from "./_fault_proxy.ts";
import { eventually, exists, retried } from "./_eventually.ts";
import { restartReported, suite } from "./_plane.ts";
import type { RealControlPlane } from "../real_control_plane.ts";

const SLOW = Deno.args.includes("--slow");
const SEEDS = Number(
  Deno.args.findLast((a) => a.startsWith("--seeds="))?.slice(8) ??
    chaosSetting("seeds", "CHAOS_SEEDS", 2),
);
const FIRST = chaosSetting("seed", "CHAOS_SEED", 1);
/** Seeds run at once. */
const BATCH = chaosSetting("batch", "CHAOS_BATCH", 25);
/** Silence that ends a watch once bookmarks were seen (default 150 s). */
const HEARTBEAT = 70_000;
/** Long enough for the first periodic bookmark (about a minute). */
const ARM = 75_000;
/** How long the script's faults run after the black hole, in ms. */
const DURATION = chaosSetting("fault-ms", "CHAOS_FAULT_MS", 30_000);
/** A request of the informer's client gives up after this. */
const TIMEOUT = 10_000;
const NAMES = 8;

type ConfigMap = KubeObject & { data?: Record<string, string> };

/** One seed's figures. */
interface Seed {
  seed: number;
  faults: Record<string, number>;
  /** From the black hole's start to the informer's first error, ms. */
  noticedMs?: number | undefined;
  noticedAs?: string | undefined;
  /** From the end of the faults until the store equalled the server's. */
  convergedMs: number;
  errors: number;
}

/** The user's changes: a seeded create, update or delete. */
async function change(
  plane: RealControlPlane,
  namespace: string,
  random: () => number,
  n: number,
): Promise<void> {
  const path = `/api/v1/namespaces/${namespace}/configmaps`;
  const name = `cm-${Math.floor(random() * NAMES)}`;
  const admin = plane.client({ timeout: TIMEOUT });
  const roll = random();
  try {
    if (roll < 0.2) await admin.delete(`${path}/${name}`);
    else {
      await admin.request(
        "PATCH",
        `${path}/${name}?fieldManager=chaos&force=true`,
        {
          body: {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name },
            data: { n: String(n) },
          },
          contentType: "application/apply-patch+yaml",
        },
      );
    }
  } catch {
    // Absent (a delete), or the server restarting: the next change counts.
  }
}

/** The store and the server's list, as name@resourceVersion. */
async function compare(
  plane: RealControlPlane,
  namespace: string,
  collection: Collection<ConfigMap>,
): Promise<{ want: string[]; have: string[] }> {
  const list = await plane.client({ timeout: TIMEOUT }).get<
    { items: ConfigMap[] }
  >(`/api/v1/namespaces/${namespace}/configmaps`);
  const key = (o: ConfigMap): string =>
    `${o.metadata.name}@${o.metadata.resourceVersion}`;
  return {
    want: list.items.map(key).sort(),
    have: collection.store.values().map(key).sort(),
  };
}

async function runBatch(
  plane: RealControlPlane,
  seeds: number[],
): Promise<Seed[]> {
  const admin = plane.client();
  const random = seeded(seeds[0]!);
  const runs = await Promise.all(seeds.map(async (seed) => {
    const namespace = `watch-${seed}-${crypto.randomUUID().slice(0, 4)}`;
    await retried(
      "create the namespace",
      () =>
        admin.create("/api/v1/namespaces", {
          apiVersion: "v1",
          kind: "Namespace",
          metadata: { name: namespace },
        }),
      { done: exists },
    );
    const proxy = FaultProxy.start(plane.server, { seed });
    // Its own connections, replaced when one dies (as from a kubeconfig).
    const client = plane.clientWith(plane.ready.token, {
      server: proxy.url,
      timeout: TIMEOUT,
      httpClient: () => Deno.createHttpClient({ caCerts: [plane.caPem] }),
    });
    const errors: { at: number; name: string; message: string }[] = [];
    const { promise: synced, resolve } = Promise.withResolvers<void>();
    const collection = new Collection<ConfigMap>(client, {
      version: "v1",
      resource: "configmaps",
      namespace,
    }, {
      synced: resolve,
      heartbeatTimeout: HEARTBEAT,
      logger: testLogger({
        onError: (error) => {
          const e = error as Error;
          errors.push({
            at: Date.now(),
            name: e.cause instanceof Error ? e.cause.name : e.name,
            message: e.message.slice(0, 200),
          });
        },
      }),
    });
    return {
      seed,
      namespace,
      proxy,
      client,
      collection,
      synced,
      errors,
      random: seeded(seed ^ 0x9e3779b9),
      faults: {} as Record<string, number>,
      noticed: undefined as { at: number; as: string } | undefined,
    };
  }));
  try {
    await Promise.all(runs.map((r) => r.synced));
    // The user changes things all along, each seed's own way.
    let changing = true;
    const changes = Promise.all(runs.map(async (r) => {
      for (let n = 0; changing; n++) {
        await change(plane, r.namespace, r.random, n);
        await new Promise((done) => setTimeout(done, 500 + r.random() * 2_000));
      }
    }));
    if (SLOW) {
      // Let the first periodic bookmark arrive, which arms the heartbeat.
      await new Promise((done) => setTimeout(done, ARM));
      // The black hole: every connection of the informer silent, new ones
      // too; it lasts past the heartbeat (plus a seeded margin), then its
      // connections are reset, as a path that comes back mostly does.
      const start = Date.now();
      await Promise.all(runs.map(async (r) => {
        r.faults["black hole"] = 1;
        r.proxy.set({ stalled: true });
        for (const id of r.proxy.connections()) {
          r.proxy.set({ stalled: true }, { connection: id });
        }
        const until = HEARTBEAT + 5_000 + Math.floor(r.random() * 5_000);
        await new Promise((done) => setTimeout(done, until));
        const first = r.errors.find((e) => e.at >= start);
        if (first) {
          r.noticed = { at: first.at - start, as: first.name };
        }
        await r.proxy.clear();
        r.proxy.reset();
      }));
    }
    // The seeded scripts, and one restart of kube-apiserver per batch.
    const restartAt = Math.floor(random() * DURATION);
    const kill = random() < 0.5;
    const events = [
      ...runs.flatMap((r) =>
        script(r.seed, {
          duration: DURATION,
          count: 3,
          hold: TIMEOUT,
          maxLatency: 2_000,
        }).map(({ at, fault }) => ({
          at,
          run: () => {
            if (fault.kind !== "clear") {
              r.faults[fault.kind] = (r.faults[fault.kind] ?? 0) + 1;
            }
            return r.proxy.apply(fault as Fault);
          },
        }))
      ),
      {
        at: restartAt,
        run: async () => {
          for (const r of runs) r.faults.restart = 1;
          await restartReported(plane, { kill, at: restartAt, start });
        },
      },
    ].sort((a, b) => a.at - b.at);
    const start = Date.now();
    for (const event of events) {
      const wait = start + event.at - Date.now();
      if (wait > 0) await new Promise((done) => setTimeout(done, wait));
      await event.run().catch(() => {});
    }
    const rest = start + DURATION - Date.now();
    if (rest > 0) await new Promise((done) => setTimeout(done, rest));
    await Promise.all(runs.map((r) => r.proxy.clear()));
    changing = false;
    await changes;
    // After the faults: each store equals the server's list.
    const end = Date.now();
    return await Promise.all(runs.map(async (r): Promise<Seed> => {
      const converged = await eventually(
        `seed ${r.seed}: the store to equal the server's`,
        async () => {
          const { want, have } = await compare(
            plane,
            r.namespace,
            r.collection,
          );
          return JSON.stringify(want) === JSON.stringify(have) && Date.now();
        },
        120_000,
      ).catch(async (error) => {
        const { want, have } = await compare(plane, r.namespace, r.collection)
          .catch(() => ({ want: [], have: [] }));
        throw new Error(
          `${(error as Error).message}: server ${want.join(",")}; store ${
            have.join(",")
          }; errors ${r.errors.map((e) => e.name).join(",")}`,
        );
      });
      return {
        seed: r.seed,
        faults: r.faults,
        noticedMs: r.noticed?.at,
        noticedAs: r.noticed?.as,
        convergedMs: converged - end,
        errors: r.errors.length,
      };
    }));
  } finally {
    await Promise.all(runs.map(async (r) => {
      await r.collection[Symbol.asyncDispose]();
      r.client[Symbol.dispose]();
      await r.proxy.close();
    }));
  }
}

suite("watch chaos (family c)", [
  ["informers under a black hole, faults and a restart", async ({ plane }) => {
    const failures: string[] = [];
    const figures: Seed[] = [];
    for (let from = FIRST; from < FIRST + SEEDS; from += BATCH) {
      const seeds = Array.from(
        { length: Math.min(BATCH, FIRST + SEEDS - from) },
        (_, i) => from + i,
      );
      const batch = await runBatch(plane, seeds).catch((e) => e as Error);
      if (batch instanceof Error) {
        failures.push(`seeds ${seeds[0]}..${seeds.at(-1)}: ${batch.message}`);
        continue;
      }
      for (const seed of batch) {
        // deno-lint-ignore no-console -- the family's figures, per seed
        console.log(`seed ${seed.seed}: ${JSON.stringify(seed)}`);
        if (SLOW && seed.noticedMs === undefined) {
          failures.push(`seed ${seed.seed}: the silent watch went unnoticed`);
        }
        figures.push(seed);
      }
    }
    const faults: Record<string, number> = {};
    for (const seed of figures) {
      for (const [kind, n] of Object.entries(seed.faults)) {
        faults[kind] = (faults[kind] ?? 0) + n;
      }
    }
    const noticed = figures.flatMap((s) => s.noticedMs ?? []);
    // deno-lint-ignore no-console -- the family's summary
    console.log(
      `family c: ${figures.length} seeds, faults ${
        JSON.stringify(faults)
      }, ${failures.length} failures, worst time to notice ${
        noticed.length ? Math.max(...noticed) : "-"
      } ms, worst convergence ${
        Math.max(0, ...figures.map((s) => s.convergedMs))
      } ms`,
    );
    assert.deepEqual(failures, []);
    // Noticed by the heartbeat, not later than its timeout and a margin.
    for (const ms of noticed) assert.ok(ms <= HEARTBEAT + 10_000, `${ms}`);
  }],
], {
  timeout: 600_000 + Math.ceil(SEEDS / BATCH) * 400_000,
});
