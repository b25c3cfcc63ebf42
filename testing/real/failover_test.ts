// Chaos family (a) on the real server: the example operator as two
// replicas with the election, each through a fault proxy of its own that
// a seeded script drives (latency and jitter, bandwidth limits, stalls,
// resets, hangs, refusals), plus a restart of kube-apiserver. Judged from
// the real audit log at the RequestResponse level, ordered by
// resourceVersion (etcd's revision, one order for every object), not by
// timestamps: no write of one replica is accepted after another replica's
// acquiring Lease write, until it acquires again; and after the faults stop,
// every Greeting converges.
//
// Seeds: the gate runs one (about 75 s); `deno task test:chaos` runs 100
// in batches of 20 at once (each seed partitions its leader long enough for
// a failover, which waits a Lease duration: a batch pays it once),
// `deno task test:failover` forty one after another; `--seeds=N`,
// `--seed=S` and `--batch=B` (or CHAOS_SEEDS, CHAOS_SEED, CHAOS_BATCH)
// choose; a failing seed replays its fault script (the batch's first seed
// restarts kube-apiserver; the real server's timing does not replay).
import assert from "node:assert/strict";
import { operatorManager } from "../../examples/operator.ts";
import type { Manager } from "../../controller/mod.ts";
import { RENEW_DEADLINE, REQUEST_TIMEOUT } from "../../election/mod.ts";
import {
  type ConfigMap,
  configMapName,
  type Greeting,
  OPERATOR,
} from "../../examples/greeting.ts";
import {
  configMapPath,
  greetingPath,
  newGreeting,
} from "../../examples/samples.ts";
import { chaosSetting, seeded } from "../../_internal/_chaos_test_util.ts";
import { type Fault, FaultProxy, script } from "./_fault_proxy.ts";
import { eventually, exists, kubectl, retried } from "./_eventually.ts";
import { BIND_USERS, restartReported, suite } from "./_plane.ts";
import { judge, type Judged, readAudit } from "./_audit.ts";
import { tool } from "../../tools/needs.ts";
import type { RealControlPlane } from "../real_control_plane.ts";

const REPLICAS = ["replica-0", "replica-1"];
// The last --seeds=N wins: `deno task test:failover --seeds=5` overrides
// the task's own.
const SEEDS = Number(
  Deno.args.findLast((a) => a.startsWith("--seeds="))?.slice(8) ??
    chaosSetting("seeds", "CHAOS_SEEDS", 1),
);
const FIRST = chaosSetting("seed", "CHAOS_SEED", 1);
/**
 * Seeds run at once, each in a namespace of its own with its own Lease and
 * proxies, so that the Lease durations are waited once per batch; the
 * batch's first seed restarts kube-apiserver (every seed of it sees that).
 */
const BATCH = chaosSetting("batch", "CHAOS_BATCH", 1);
/** How long faults run per seed, in ms. */
const DURATION = chaosSetting("fault-ms", "CHAOS_FAULT_MS", 40_000);
const GREETINGS = 4;
/** Delivers a partition's held bytes rather than dropping them. */
const BEYOND = chaosSetting("beyond", "CHAOS_BEYOND", 0) === 1;
const MANIFESTS = new URL("../../examples/manifests/", import.meta.url)
  .pathname;

/** A replica that restarts (as its pod would) after it loses the Lease. */
function replica(
  plane: RealControlPlane,
  name: string,
  proxy: FaultProxy,
  namespace: string,
  exits: number[],
): { stop: () => Promise<void> } {
  let manager: Manager | undefined;
  let stopped = false;
  let lost: (() => void) | undefined;
  const loop = (async () => {
    // A replaced pod gets a new name, hence a new election identity: it
    // waits a Lease duration like any other candidate.
    for (let generation = 0; !stopped; generation++) {
      // Each pod its own connections, replaced when one dies (as from a
      // kubeconfig or in a cluster).
      using client = plane.clientWith(plane.ready.users![name]!, {
        server: proxy.url,
        timeout: REQUEST_TIMEOUT,
        httpClient: () => Deno.createHttpClient({ caCerts: [plane.caPem] }),
      });
      const exited = new Promise<void>((resolve) => lost = resolve);
      manager = operatorManager(client, {
        pod: `${name}-${generation}`,
        leaseNamespace: namespace,
        namespace,
        exit: (code) => {
          exits.push(code);
          lost?.();
        },
      });
      await exited;
      await manager.stop();
    }
  })();
  return {
    async stop(): Promise<void> {
      stopped = true;
      lost?.();
      await loop;
    },
  };
}

async function runSeed(
  plane: RealControlPlane,
  seed: number,
  namespace: string,
  restart: boolean,
): Promise<
  Judged & {
    faults: Record<string, number>;
    restarts: number;
    exits: number;
    partition: string;
  }
> {
  const admin = plane.client();
  const random = seeded(seed);
  const target = plane.server;
  const proxies = REPLICAS.map((_, i) =>
    FaultProxy.start(target, { seed: seed * 2 + i })
  );
  const exits: number[] = [];
  const replicas = REPLICAS.map((name, i) =>
    replica(plane, name, proxies[i]!, namespace, exits)
  );
  const faults: Record<string, number> = {};
  let restarts = 0;
  let faultLog = "";
  try {
    // The test's own requests outlast another seed's restart of the server.
    for (let i = 0; i < GREETINGS; i++) {
      await retried(
        `create g${i}`,
        () => admin.create(greetingPath(namespace), newGreeting(`g${i}`, "v0")),
        { done: exists },
      );
    }
    // Each proxy's script; a stall holds bytes at most REQUEST_TIMEOUT, so
    // a write sent before the renew deadline reaches the server before
    // another replica may take the Lease (see the report of issue 45).
    const steps = proxies.flatMap((proxy, i) =>
      script(seed * 2 + i, {
        duration: DURATION,
        count: 3,
        hold: REQUEST_TIMEOUT,
        maxLatency: 2_000,
      }).map((step) => ({ ...step, proxy }))
    );
    const restartAt = Math.floor(random() * DURATION);
    // Every seed partitions the leader (both directions stalled) for 20 to
    // 35 s, past the renew deadline and the request timeout, so that it
    // loses the Lease: a failover each seed. The partition ends as real
    // ones mostly do, with its connections reset: the held bytes are
    // dropped. (Delivered instead, a write held past LEASE_DURATION -
    // RENEW_DEADLINE = 20 s can land after the new leader's acquisition:
    // CHAOS_BEYOND=1 does that; see the report of issue 45.)
    const partitionAt = Math.floor(DURATION * (0.1 + 0.2 * random()));
    const partitionMs = Math.floor(
      2 * RENEW_DEADLINE + random() * (REQUEST_TIMEOUT + 1_000),
    );
    let partitioned: FaultProxy | undefined;
    let partitionLog = "none";
    const events: { at: number; run: () => Promise<unknown> }[] = [
      ...steps.map(({ at, fault, proxy }) => ({
        at,
        run: () => {
          if (proxy === partitioned) return Promise.resolve();
          if (fault.kind !== "clear") {
            faults[fault.kind] = (faults[fault.kind] ?? 0) + 1;
          }
          return proxy.apply(fault as Fault);
        },
      })),
      ...(restart
        ? [{
          at: restartAt,
          run: async () => {
            restarts++;
            await restartReported(plane, {
              kill: random() < 0.5,
              at: restartAt,
              start,
            });
          },
        }]
        : []),
      {
        at: partitionAt,
        run: async () => {
          const lease = await admin.get<{ spec: { holderIdentity?: string } }>(
            `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases/${OPERATOR}`,
          );
          const at = REPLICAS.findIndex((name) =>
            lease.spec.holderIdentity?.startsWith(name)
          );
          if (at === -1) return;
          partitioned = proxies[at]!;
          partitionLog = `${
            REPLICAS[at]
          } at ${partitionAt} ms for ${partitionMs} ms`;
          faults.partition = (faults.partition ?? 0) + 1;
          await partitioned.clear();
          partitioned.set({ stalled: true });
          const held = partitioned;
          setTimeout(() => {
            if (partitioned === held) partitioned = undefined;
            if (!BEYOND) held.reset();
            void held.clear();
          }, partitionMs);
        },
      },
      // The world changes under the faults: new messages.
      ...[0.25, 0.5, 0.75].map((part, n) => ({
        at: Math.floor(DURATION * part),
        run: () => updateAll(admin, namespace, `v${n + 1}`),
      })),
    ].sort((a, b) => a.at - b.at);
    const start = Date.now();
    for (const event of events) {
      const wait = start + event.at - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      await event.run().catch(() => {});
    }
    const rest = start + DURATION - Date.now();
    if (rest > 0) await new Promise((r) => setTimeout(r, rest));
    for (const proxy of proxies) await proxy.clear();
    await updateAll(admin, namespace, "final");
    faultLog = partitionLog;
    // Convergence: a failover at the end takes a Lease duration (30 s)
    // plus a retry; then the new leader reconciles every Greeting.
    await eventually("every Greeting converged", async () => {
      for (let i = 0; i < GREETINGS; i++) {
        const made = await admin.get<ConfigMap>(
          configMapPath(namespace, configMapName(`g${i}`)),
        );
        if (made.data?.message !== "final") return false;
      }
      return true;
    }, 120_000);
  } finally {
    await Promise.all(replicas.map((r) => r.stop()));
    await Promise.all(proxies.map((p) => p.close()));
  }
  const audit = await readAudit(plane.ready.auditLog);
  const judged = judge(audit, namespace);
  if (judged.violations.length > 0) {
    // Kept for the post-mortem: this seed's lines of the audit log.
    await Deno.writeTextFile(
      `${plane.ready.dir}/../audit-seed-${seed}.jsonl`,
      audit.filter((l) => l.includes(`"namespace":"${namespace}"`)).join("\n"),
    ).catch(() => {});
  }
  return {
    ...judged,
    faults,
    restarts,
    exits: exits.length,
    partition: faultLog,
  };
}

async function updateAll(
  admin: ReturnType<RealControlPlane["client"]>,
  namespace: string,
  message: string,
): Promise<void> {
  for (let i = 0; i < GREETINGS; i++) {
    const path = greetingPath(namespace, `g${i}`);
    // Read again after a conflict or a restart's refusal.
    await retried(`update g${i}`, async () => {
      const greeting = await admin.get<Greeting>(path);
      await admin.replace(path, { ...greeting, spec: { message } });
    });
  }
}

suite("failover chaos (family a)", [
  ["two replicas of the example operator under faults", async ({ plane }) => {
    await kubectl(plane.ready.kubeconfig, [
      "apply",
      "-f",
      `${MANIFESTS}crd.yaml`,
    ]);
    await kubectl(plane.ready.kubeconfig, [
      "wait",
      "--for=condition=Established",
      "--timeout=60s",
      "crd/greetings.demo.liken.dev",
    ]);
    await plane.client().create(
      "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
      BIND_USERS,
    );
    const failures: string[] = [];
    const figures: Awaited<ReturnType<typeof runSeed>>[] = [];
    for (let from = FIRST; from < FIRST + SEEDS; from += BATCH) {
      const seeds = Array.from(
        { length: Math.min(BATCH, FIRST + SEEDS - from) },
        (_, i) => from + i,
      );
      await Promise.all(seeds.map(async (seed) => {
        const namespace = `failover-${seed}-${crypto.randomUUID().slice(0, 4)}`;
        await retried(
          "create the namespace",
          () =>
            plane.client().create("/api/v1/namespaces", {
              apiVersion: "v1",
              kind: "Namespace",
              metadata: { name: namespace },
            }),
          { done: exists },
        );
        const result = await runSeed(plane, seed, namespace, seed === from)
          .catch((e) => e as Error);
        if (result instanceof Error) {
          failures.push(`seed ${seed}: ${result.message}`);
          return;
        }
        // deno-lint-ignore no-console -- the family's figures, per seed
        console.log(`seed ${seed}: ${JSON.stringify(result)}`);
        if (result.violations.length > 0) {
          failures.push(`seed ${seed}: ${result.violations.join("; ")}`);
        }
        if (result.acquisitions < 1) failures.push(`seed ${seed}: nobody led`);
        figures.push(result);
      }));
    }
    const faults: Record<string, number> = {};
    for (const seed of figures) {
      for (const [kind, n] of Object.entries(seed.faults)) {
        faults[kind] = (faults[kind] ?? 0) + n;
      }
      // Every seed sees its batch's restart.
      faults.restart = (faults.restart ?? 0) + 1;
    }
    // deno-lint-ignore no-console -- the family's summary
    console.log(
      `family a: ${figures.length} seeds, faults ${JSON.stringify(faults)}, ${
        figures.reduce((n, s) => n + s.acquisitions, 0)
      } acquisitions, ${failures.length} failures, worst failover ${
        Math.max(0, ...figures.map((s) => s.worstFailoverMs))
      } ms`,
    );
    assert.deepEqual(failures, []);
  }],
], {
  plane: { users: REPLICAS, auditLevel: "RequestResponse" },
  timeout: 600_000 + Math.ceil(SEEDS / BATCH) * 240_000,
  unmet: await tool(
    "kubectl",
    "deno task test:unit --filter 'failover chaos'",
  ),
});
