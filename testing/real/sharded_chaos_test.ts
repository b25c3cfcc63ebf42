// Chaos family (b) on the real server: the sharded example operator
// (`examples/sharded_replica.ts`: a sharded Greeting controller and the
// ring's sharder) as three replicas, each through a fault proxy of its own
// that a seeded script drives (latency and jitter, bandwidth limits,
// stalls, resets, hangs, refusals), plus a restart of kube-apiserver and a
// partition of one replica long enough for its member Lease to be taken
// over; a replica whose Lease is lost exits and comes back as a new pod
// under a new name (and token), as a Deployment's does. A user edits the
// Greetings meanwhile, one edit after the other (`_edits.ts`): an edit
// retried through a long restart (kube-apiserver's graceful stop can take the
// tool's whole 30 s grace) would otherwise land over the last one.
//
// Judged from the real audit log at the RequestResponse level, ordered by
// resourceVersion, with the fake chaos family's judge (`safety` in
// shard/_chaos_test_util.ts): every accepted write of a replica to a
// Greeting or its ConfigMap lies in an ownership epoch of that replica's
// (from the sharder's accepted assignment to the member's accepted
// acknowledgement, or to the forced move after the takeover of its Lease),
// so no two replicas write one object in one epoch; a forced move comes
// only after the takeover of the old member's Lease. Then, after the
// faults stop, every Greeting is assigned by the ring of the three and its
// ConfigMap carries its latest message.
// Each replica's client records the writes the server answered 2xx; any
// the audit log lacks is judged too, and reported per seed and in the
// summary (`withAnswered` in _audit.ts says why none is expected).
//
// Seeds run in batches at once (a namespace, ring and three proxies each),
// so that the Lease durations are waited once per batch: 100 seeds take
// about 20 min (`deno task test:chaos`). A seed replays its own fault
// script; the restart's time comes from the batch's first seed. The gate
// runs one batch of two seeds. `--outage=<ms>` replays a restart that long:
// every proxy (and the user's own) refuses and drops its connections.
// A seed that does not converge, breaks a safety rule or has a write
// answered but not audited leaves `.tmp/sharded-chaos-<seed>.log`.
import assert from "node:assert/strict";
import { Client, type KubeObject } from "../../apiclient/mod.ts";
import { RENEW_DEADLINE, REQUEST_TIMEOUT } from "../../election/mod.ts";
import {
  memberHash,
  memberLeaseName,
  Ring,
  shardKey,
  shardLabel,
} from "../../shard/mod.ts";
import {
  type ConfigMap,
  configMapName,
  GREETING,
  type Greeting,
} from "../../examples/greeting.ts";
import {
  configMapPath,
  greetingPath,
  newGreeting,
} from "../../examples/samples.ts";
import { RING, shardedReplica } from "../../examples/sharded_replica.ts";
import { safety, type Write } from "../../shard/_chaos_test_util.ts";
import { chaosSetting, seeded } from "../../_internal/_chaos_test_util.ts";
import { type Fault, FaultProxy, script } from "./_fault_proxy.ts";
import { eventually, exists, kubectl, retried } from "./_eventually.ts";
import { GreetingEdits } from "./_edits.ts";
import { BIND_USERS, restartReported, suite } from "./_plane.ts";
import {
  type Answered,
  auditWrites,
  readAudit,
  recordingFetch,
  takeovers,
  withAnswered,
} from "./_audit.ts";
import { tool } from "../../tools/needs.ts";
import type { RealControlPlane } from "../real_control_plane.ts";
import { textLogger } from "../../log/mod.ts";

const REPLICAS = ["replica-0", "replica-1", "replica-2"];
/**
 * A replica whose Lease is lost comes back as a new pod with a new name (as
 * a Deployment's does), up to this many names, then under its last one.
 */
const GENERATIONS = 4;
const nameOf = (replica: string, generation: number): string =>
  generation === 0
    ? replica
    : `${replica}-g${Math.min(generation, GENERATIONS - 1)}`;
/** A token (an audit-log user) per name, so writes tell pods apart. */
const USERS = REPLICAS.flatMap((r) =>
  Array.from({ length: GENERATIONS }, (_, g) => nameOf(r, g))
);
const SEEDS = Number(
  Deno.args.findLast((a) => a.startsWith("--seeds="))?.slice(8) ??
    chaosSetting("seeds", "CHAOS_SEEDS", 2),
);
const FIRST = chaosSetting("seed", "CHAOS_SEED", 1);
/** Seeds run at once. */
const BATCH = chaosSetting("batch", "CHAOS_BATCH", 10);
/** How long faults run per batch, in ms. */
const DURATION = chaosSetting("fault-ms", "CHAOS_FAULT_MS", 40_000);
/**
 * Replay: an outage of this many ms from the restart (every proxy, the
 * user's too, refuses and drops its connections), as when kube-apiserver's
 * graceful stop hangs until the tool's 30 s grace ends it.
 */
const OUTAGE = chaosSetting("outage", "CHAOS_OUTAGE", 0);
const GREETINGS = 6;
const LABEL = shardLabel(RING);
const MANIFESTS = new URL("../../examples/manifests/", import.meta.url)
  .pathname;

/** A replica that comes back as a new pod after it exits. */
function replica(
  plane: RealControlPlane,
  replicaName: string,
  proxy: FaultProxy,
  namespace: string,
  exits: string[],
  lines: string[],
  seen: {
    answered: Answered[];
    pending: Promise<unknown>[];
    unanswered: string[];
  },
): {
  stop: () => Promise<void>;
  identity: () => string;
  state: () => string;
} {
  let stopped = false;
  let parts: ReturnType<typeof shardedReplica> | undefined;
  let current: AbortController | undefined;
  let name = replicaName;
  const loop = (async () => {
    for (let generation = 0; !stopped; generation++) {
      name = nameOf(replicaName, generation);
      // As plane.clientWith's, plus a record of every write the server
      // answered as accepted (the judge adds any the audit log lacks).
      const token = plane.ready.users![name]!;
      // Each pod its own connections, replaced when one dies (as from a
      // kubeconfig or in a cluster); the client hands its pool to the fetch.
      using client = new Client(proxy.url, {
        timeout: REQUEST_TIMEOUT,
        authorization: () => Promise.resolve(`Bearer ${token}`),
        httpClient: () => Deno.createHttpClient({ caCerts: [plane.caPem] }),
        fetch: recordingFetch(
          (input, init) => fetch(input, init),
          name,
          seen.answered,
          seen.pending,
          seen.unanswered,
        ),
      });
      const stop = new AbortController();
      current = stop;
      const me = name;
      const logger = textLogger({
        write: (line) => lines.push(`${Date.now()} [${me}] ${line}`),
      });
      const { controller, sharder } = parts = shardedReplica(client, {
        identity: name,
        logger,
        leaseNamespace: namespace,
        namespace,
        exit: (code) => {
          exits.push(`${name}:${code}`);
          stop.abort();
        },
        signal: stop.signal,
      });
      await new Promise((resolve) =>
        stop.signal.addEventListener("abort", resolve, { once: true })
      );
      await Promise.all([controller.stop(), sharder.stop()]);
      // A pod's restart takes a moment.
      if (!stopped) await new Promise((r) => setTimeout(r, 1_000));
    }
  })();
  return {
    async stop(): Promise<void> {
      stopped = true;
      current?.abort();
      await loop;
    },
    identity: () => name,
    state: () => {
      if (parts === undefined) return `${name}: none`;
      const { controller, sharder } = parts;
      return `${name}: leads ${controller.lead?.leads()} renewed ${
        Date.now() - (controller.lead?.renewedAt ?? 0)
      } ms ago, synced ${controller.synced()}, primary ${controller.primary.store.size} queue ${controller.queue.length} working ${controller.queue.working}; sharder leads ${sharder.lead.leads()}`;
    },
  };
}

/** Whether every Greeting is on its ring member and its ConfigMap says `message`. */
async function converged(
  admin: Client,
  namespace: string,
  message: string,
  members: readonly string[],
): Promise<string[]> {
  const ring = new Ring(members.map(memberHash));
  const wrong: string[] = [];
  for (let i = 0; i < GREETINGS; i++) {
    const name = `g${i}`;
    const greeting = await admin.get<Greeting>(greetingPath(namespace, name));
    const want = ring.owner(
      shardKey({ group: GREETING.group, kind: GREETING.kind, namespace, name }),
    );
    if (greeting.metadata.labels?.[LABEL] !== want) {
      wrong.push(`${name}: label ${greeting.metadata.labels?.[LABEL]}`);
    }
    const made = await admin.get<ConfigMap>(
      configMapPath(namespace, configMapName(name)),
    ).catch(() => undefined);
    if (made?.data?.message !== message) {
      wrong.push(`${name}: message ${made?.data?.message}`);
    }
  }
  return wrong;
}

interface Seed {
  seed: number;
  faults: Record<string, number>;
  writes: number;
  /** The sharder's accepted assignments (label writes) of Greetings. */
  assignments: number;
  /** Member Leases taken over, and the longest gap since a renewal. */
  takeovers: number;
  failoverMs: number;
  violations: string[];
  /**
   * Writes a replica saw answered as accepted that the audit log lacks
   * (judged all the same, and reported).
   */
  unaudited: string[];
  exits: string[];
  /** From the end of the faults until everything converged, ms. */
  convergedMs: number;
  /** Why it did not converge. */
  failure?: string;
  partition: string;
}

/**
 * Keeps a seed that did not converge or broke a safety rule:
 * `.tmp/sharded-chaos-<seed>.log` has the violations, the replicas' state
 * and the Greetings when the wait ended (if it did), every replica's
 * log lines, and the seed's requests in the audit log (times, user, verb,
 * URI, code, the resourceVersion and message of the answer).
 */
async function keepEvidence(
  run: {
    seed: number;
    namespace: string;
    evidence: string[];
    lines: string[];
    unanswered: string[];
  },
  audit: readonly string[],
): Promise<void> {
  const requests = audit.filter((line) => line.includes(run.namespace)).map(
    (line) => JSON.parse(line),
  ).filter((e) =>
    e.stage === "ResponseComplete" && e.requestURI?.includes(run.namespace)
  ).map((e) =>
    [
      e.requestReceivedTimestamp,
      e.stageTimestamp,
      e.user?.username,
      e.verb,
      e.requestURI,
      e.responseStatus?.code,
      e.responseObject?.metadata?.resourceVersion,
      JSON.stringify(
        e.responseObject?.spec?.message ?? e.responseObject?.data?.message,
      ),
      // A Greeting's labels and who last changed its fields when: an
      // acknowledgement committed whose answer (and audit line) never came
      // still shows here, as its manager's Update time.
      ...(e.objectRef?.resource === "greetings"
        ? [
          JSON.stringify(e.responseObject?.metadata?.labels ?? {}),
          (e.responseObject?.metadata?.managedFields ?? []).map((
            f: { manager?: string; operation?: string; time?: string },
          ) => `${f.manager}/${f.operation}@${f.time}`).join(","),
        ]
        : []),
    ].join(" ")
  );
  await Deno.writeTextFile(
    `.tmp/sharded-chaos-${run.seed}.log`,
    [...run.evidence, ...run.lines, ...run.unanswered, ...requests].join("\n") +
      "\n",
  );
}

/**
 * For a move without an acknowledgement, the Greeting as etcd held it just
 * before the move (a list at that exact revision: compaction is off) and
 * whether the write that made that version is in the audit log or was
 * answered to a replica: an acknowledgement committed whose answer and
 * audit line a SIGKILL of kube-apiserver cut off shows here as a version
 * without the member's label that neither has (the replicas' sends with no
 * answer are in the kept log).
 */
async function before(
  admin: Client,
  namespace: string,
  violation: string,
  writes: readonly Write[],
): Promise<string[]> {
  const moved = /^[^/]+\/(\S+): moved from (\S+) .* at (\d+)/.exec(
    violation,
  );
  if (moved === null) return [];
  const [, name, from, at] = moved;
  const rv = Number(at) - 1;
  const writer = (made: number, path: string): string => {
    const by = writes.filter((w) => w.rv === made && w.path.endsWith(path));
    return by.length === 0
      ? "nobody in the audit log or the answers"
      : by.map((w) =>
        `${w.who} ${w.method}${w.unaudited ? " (answered, not audited)" : ""}`
      ).join(", ");
  };
  // The old member's Lease then: a takeover committed without an answer or
  // an audit line shows as a holder `shard.liken.dev/taken-by=…` that
  // nobody wrote.
  const lease = memberLeaseName(RING, from!);
  const leases = await admin.get<
    { items: { metadata: KubeObject["metadata"]; spec?: unknown }[] }
  >(
    `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases?resourceVersion=${rv}&resourceVersionMatch=Exact`,
  ).then((l) => {
    const held = l.items.find((x) => x.metadata.name === lease);
    return held === undefined
      ? `${lease} at rv ${rv}: absent`
      : `${lease} before the move (etcd at rv ${rv}): rv ${held.metadata.resourceVersion} ${
        JSON.stringify(held.spec)
      }; written by ${
        writer(Number(held.metadata.resourceVersion), `/leases/${lease}`)
      }`;
  }, (e) => `${lease} at rv ${rv}: ${(e as Error).message}`);
  const list = await admin.get<{ items: Greeting[] }>(
    `${
      greetingPath(namespace)
    }?resourceVersion=${rv}&resourceVersionMatch=Exact`,
  ).catch((e) => e as Error);
  if (list instanceof Error) {
    return [`${name} at rv ${rv}: ${list.message}`, leases];
  }
  const g = list.items.find((x) => x.metadata.name === name);
  if (g === undefined) return [`${name} at rv ${rv}: absent`, leases];
  const made = Number(g.metadata.resourceVersion);
  return [
    `${name} before the move (etcd at rv ${rv}): rv ${made} labels ${
      JSON.stringify(g.metadata.labels ?? {})
    } managers ${
      ((g.metadata.managedFields ?? []) as {
        manager?: string;
        operation?: string;
        time?: string;
      }[]).map((f) => `${f.manager}/${f.operation}@${f.time}`).join(",")
    }; written by ${writer(made, `/greetings/${name}`)}`,
    leases,
  ];
}

async function runBatch(
  plane: RealControlPlane,
  seeds: number[],
): Promise<Seed[]> {
  // In an outage replay the user's requests fail too, as on a server down.
  const userProxy = OUTAGE > 0 ? FaultProxy.start(plane.server) : undefined;
  const admin = userProxy === undefined
    ? plane.client()
    : plane.clientWith(plane.ready.token, { server: userProxy.url });
  const random = seeded(seeds[0]!);
  const runs = await Promise.all(seeds.map(async (seed) => {
    const namespace = `sharded-${seed}-${crypto.randomUUID().slice(0, 4)}`;
    // The test's own requests outlast a restart of the server.
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
    for (let i = 0; i < GREETINGS; i++) {
      await retried(
        `create g${i}`,
        () => admin.create(greetingPath(namespace), newGreeting(`g${i}`, "v0")),
        { done: exists },
      );
    }
    const proxies = REPLICAS.map((_, i) =>
      FaultProxy.start(plane.server, { seed: seed * 3 + i })
    );
    const exits: string[] = [];
    const lines: string[] = [];
    const seen = {
      answered: [] as Answered[],
      pending: [] as Promise<unknown>[],
      unanswered: [] as string[],
    };
    const replicas = REPLICAS.map((name, i) =>
      replica(plane, name, proxies[i]!, namespace, exits, lines, seen)
    );
    return {
      seed,
      namespace,
      lines,
      seen,
      unanswered: seen.unanswered,
      evidence: [] as string[],
      edits: new GreetingEdits(admin, namespace, GREETINGS),
      proxies,
      replicas,
      exits,
      random: seeded(seed ^ 0x9e3779b9),
      faults: {} as Record<string, number>,
      partition: "none",
      /** When the partition ends (ms after the faults start). */
      healed: 0,
    };
  }));
  try {
    await Promise.all(runs.map((r) =>
      eventually(
        `seed ${r.seed}: the ring settled`,
        async () =>
          (await converged(admin, r.namespace, "v0", REPLICAS)).length === 0,
        120_000,
      )
    ));
    const restartAt = Math.floor(random() * DURATION);
    const kill = random() < 0.5;
    const events = [
      ...runs.flatMap((r) => {
        // One replica partitioned (both directions stalled) past the renew
        // deadline and the request timeout, so that its member Lease is
        // taken over and its Greetings move; it ends with its connections
        // reset (the held bytes dropped), as family (a)'s does.
        const victim = Math.floor(r.random() * REPLICAS.length);
        const partitionAt = Math.floor(DURATION * 0.2 * r.random());
        const partitionMs = Math.floor(
          2 * RENEW_DEADLINE + r.random() * (REQUEST_TIMEOUT + 1_000),
        );
        let partitioned: FaultProxy | undefined;
        r.healed = partitionAt + partitionMs;
        return [
          ...r.proxies.flatMap((proxy, i) =>
            script(r.seed * 3 + i, {
              duration: DURATION,
              count: 2,
              hold: REQUEST_TIMEOUT,
              maxLatency: 2_000,
            }).map(({ at, fault }) => ({
              at,
              run: () => {
                if (proxy === partitioned) return Promise.resolve();
                if (fault.kind !== "clear") {
                  r.faults[fault.kind] = (r.faults[fault.kind] ?? 0) + 1;
                }
                return proxy.apply(fault as Fault);
              },
            }))
          ),
          {
            at: partitionAt,
            run: async () => {
              const held = r.proxies[victim]!;
              partitioned = held;
              r.partition = `${
                REPLICAS[victim]
              } at ${partitionAt} ms for ${partitionMs} ms`;
              r.faults.partition = 1;
              await held.clear();
              held.set({ stalled: true });
              for (const id of held.connections()) {
                held.set({ stalled: true }, { connection: id });
              }
              setTimeout(() => {
                partitioned = undefined;
                held.reset();
                void held.clear();
              }, partitionMs);
            },
          },
          ...[0.3, 0.6].map((part, n) => ({
            at: Math.floor(DURATION * part),
            run: () => r.edits.set(`v${n + 1}`),
          })),
        ];
      }),
      {
        at: restartAt,
        run: async () => {
          for (const r of runs) r.faults.restart = 1;
          if (OUTAGE > 0) {
            const proxies = runs.flatMap((r) => r.proxies);
            proxies.push(userProxy!);
            for (const proxy of proxies) {
              await proxy.refuse(true);
              proxy.reset();
            }
            setTimeout(() => {
              for (const proxy of proxies) void proxy.refuse(false);
            }, OUTAGE);
          }
          await restartReported(plane, { kill, at: restartAt, start });
        },
      },
    ].sort((a, b) => a.at - b.at);
    const start = Date.now();
    for (const event of events) {
      const wait = start + event.at - Date.now();
      if (wait > 0) await new Promise((done) => setTimeout(done, wait));
      void event.run().catch(() => {});
    }
    // The faults end, and the partitions (which may outlast them).
    const healed = Math.max(DURATION, ...runs.map((r) => r.healed));
    const rest = start + healed + 100 - Date.now();
    if (rest > 0) await new Promise((done) => setTimeout(done, rest));
    for (const r of runs) {
      for (const proxy of r.proxies) await proxy.clear();
    }
    // After the user's earlier edits (which may still be retrying through a
    // restart), as a user's last edit.
    await Promise.all(runs.map((r) => r.edits.set("final")));
    const end = Date.now();
    const live = (r: typeof runs[number]): string[] =>
      r.replicas.map((x) => x.identity());
    const times = await Promise.all(runs.map((r) =>
      eventually(
        `every Greeting on its member with the final message`,
        async () =>
          (await converged(admin, r.namespace, "final", live(r))).length ===
            0 && Date.now(),
        150_000,
      ).catch(async (error) => {
        // What the replicas were doing, kept with the seed's audit below.
        r.evidence.push(
          ...r.replicas.map((x) => x.state()),
          ...await Promise.all(
            Array.from({ length: GREETINGS }, (_, i) =>
              admin.get<Greeting>(greetingPath(r.namespace, `g${i}`)).then(
                (g) =>
                  `g${i}: message ${g.spec.message} rv ${g.metadata.resourceVersion} labels ${
                    JSON.stringify(g.metadata.labels)
                  }`,
                (e) =>
                  `g${i}: ${e}`,
              )),
          ),
        );
        return `${(error as Error).message}: ${
          (await converged(admin, r.namespace, "final", live(r))).join("; ")
        }; exits ${r.exits.join(",")}`;
      })
    ));
    for (const r of runs) await Promise.all(r.replicas.map((x) => x.stop()));
    const audit = await readAudit(plane.ready.auditLog);
    for (const r of runs) await Promise.allSettled(r.seen.pending);
    const judged = runs.map((r) => {
      const logged = auditWrites(audit, r.namespace);
      const { writes, unaudited } = withAnswered(logged, r.seen.answered);
      const violations = safety({
        replicas: new Map(USERS.map((name) => [name, name])),
        writes,
        intervals: [],
      }, {
        namespace: r.namespace,
        primary: "greetings",
        child: "configmaps",
        ownerOf: (child) => child.replace(/-greeting$/, ""),
      });
      return {
        writes,
        violations,
        unaudited: unaudited.map((w) =>
          `answered ${w.status} but absent from the audit log: ${w.who} ${w.method} ${w.path}?${w.query} at rv ${w.rv} (${
            new Date(w.at).toISOString()
          })`
        ),
      };
    });
    for (const [i, r] of runs.entries()) {
      r.evidence.push(...judged[i]!.violations, ...judged[i]!.unaudited);
      for (const v of judged[i]!.violations) {
        r.evidence.push(
          ...await before(admin, r.namespace, v, judged[i]!.writes),
        );
      }
      if (r.evidence.length > 0) await keepEvidence(r, audit);
    }
    return runs.map((r, i) => {
      const { writes, violations, unaudited } = judged[i]!;
      const taken = takeovers(audit, r.namespace);
      return {
        seed: r.seed,
        faults: r.faults,
        writes: writes.filter((w) => w.who !== "user" && !isNaN(w.rv))
          .length,
        assignments: writes.filter((w) =>
          !isNaN(w.rv) && w.path.includes("/greetings/") &&
          w.query.get("fieldManager") === `${RING}-sharder`
        ).length,
        takeovers: taken.length,
        failoverMs: Math.max(
          0,
          ...taken.map((t) =>
            t.gapMs
          ),
        ),
        violations,
        unaudited,
        exits: r.exits,
        convergedMs: typeof times[i] === "number" ? times[i] - end : -1,
        ...(typeof times[i] === "string" ? { failure: times[i] } : {}),
        partition: r.partition,
      };
    });
  } finally {
    await userProxy?.close();
    for (const r of runs) {
      await Promise.all(r.replicas.map((x) => x.stop()));
      await Promise.all(r.proxies.map((p) => p.close()));
      await Promise.allSettled(r.seen.pending);
    }
  }
}

suite("sharded chaos (family b)", [
  ["three sharded replicas of the example under faults", async ({ plane }) => {
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
        if (seed.failure !== undefined) {
          failures.push(`seed ${seed.seed}: ${seed.failure}`);
        }
        if (seed.violations.length > 0) {
          failures.push(`seed ${seed.seed}: ${seed.violations.join("; ")}`);
        }
        // The judge saw the epochs: every Greeting was assigned.
        if (seed.assignments < GREETINGS) {
          failures.push(`seed ${seed.seed}: ${seed.assignments} assignments`);
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
    // deno-lint-ignore no-console -- the family's summary
    console.log(
      `family b: ${figures.length} seeds, faults ${JSON.stringify(faults)}, ${
        figures.reduce((n, s) => n + s.exits.length, 0)
      } exits, ${figures.reduce((n, s) => n + s.takeovers, 0)} takeovers, ${
        figures.reduce((n, s) => n + s.unaudited.length, 0)
      } writes answered 2xx but absent from the audit log, ${failures.length} failures, worst failover ${
        Math.max(0, ...figures.map((s) => s.failoverMs))
      } ms, worst convergence ${
        Math.max(0, ...figures.map((s) => s.convergedMs))
      } ms`,
    );
    assert.deepEqual(failures, []);
  }],
], {
  plane: { users: USERS, auditLevel: "RequestResponse" },
  timeout: 600_000 + Math.ceil(SEEDS / BATCH) * 600_000,
  unmet: await tool(
    "kubectl",
    "deno task test:unit --filter 'sharded chaos'",
  ),
});
