// Convergence under chaos: two operator copies (an elected controller each)
// against one fake API server, random changes of parents and children, and
// the faults a cluster has; once the faults stop, every parent has exactly
// the children and the status its reconcile wants, and no write reached the
// server from a copy that did not hold the Lease.
//
// Seeds: `CONTROLLER_CHAOS_SEEDS` (a count, or `first-last`) when the test
// may read it, else a quick count.
import assert from "node:assert/strict";
import {
  Client,
  ConflictError,
  type KubeList,
  type KubeObject,
  NotFoundError,
} from "../apiclient/mod.ts";
import { Lead, REQUEST_TIMEOUT } from "../election/mod.ts";
import { settleStatus } from "../memo/mod.ts";
import { FakeApiServer, installFakeTime } from "../testing/mod.ts";
import { seeded, seedRandomness } from "../_internal/_chaos_test_util.ts";
import { Controller, type ReconcileContext } from "./mod.ts";
import { testLogger } from "../_internal/_log_test_util.ts";

interface Parent extends KubeObject {
  spec: { replicas: number };
  status?: { ready?: number; observedGeneration?: number };
}

const NS = "default";
const PARENTS = `/apis/example.com/v1/namespaces/${NS}/parents`;
const CHILDREN = `/api/v1/namespaces/${NS}/secrets`;
const PARENT_RESOURCE = {
  group: "example.com",
  version: "v1",
  resource: "parents",
};
const LEASE = { namespace: NS, name: "chaos" };
const NAMES = ["a", "b", "c", "d", "e"];
let trace: string[] = [];

function seeds(): number[] {
  let spec: string | undefined;
  try {
    spec = Deno.env.get("CONTROLLER_CHAOS_SEEDS");
  } catch {
    spec = undefined; // not granted: the quick count
  }
  if (spec === undefined || spec === "") spec = "12";
  const range = /^(\d+)-(\d+)$/.exec(spec);
  if (range) {
    const out: number[] = [];
    for (let s = Number(range[1]); s <= Number(range[2]); s++) out.push(s);
    return out;
  }
  return Array.from({ length: Number(spec) }, (_, i) => i + 1);
}

/** The reconcile every copy runs: children `<parent>-<i>` for i < replicas. */
async function reconcile(context: ReconcileContext<Parent>): Promise<void> {
  const { ref, object, client, signal, versions } = context;
  const name = ref.name;
  const listed = await client.get<KubeList<KubeObject>>(
    `${CHILDREN}?labelSelector=parent%3D${name}`,
    { signal },
  );
  const children = listed.items ?? [];
  const want = object === undefined || object.metadata.deletionTimestamp
    ? 0
    : object.spec.replicas;
  for (const child of children) {
    const index = Number(child.metadata.name!.slice(name.length + 1));
    if (index >= want) {
      try {
        await client.delete(`${CHILDREN}/${child.metadata.name}`, { signal });
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error;
      }
    }
  }
  if (object === undefined) return;
  const have = new Set(children.map((child) => child.metadata.name));
  for (let i = 0; i < want; i++) {
    if (have.has(`${name}-${i}`)) continue;
    try {
      await client.create(CHILDREN, {
        metadata: {
          name: `${name}-${i}`,
          labels: { parent: name },
          ownerReferences: [{
            apiVersion: "example.com/v1",
            kind: "Parent",
            name,
            uid: object.metadata.uid!,
            controller: true,
          }],
        },
      }, { signal });
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
    }
  }
  await settleStatus(client, ref, {
    held: structuredClone(object),
    versions,
    signal,
    apply: (copy) => {
      const generation = copy.metadata.generation;
      if (
        copy.status?.ready === want &&
        copy.status.observedGeneration === generation
      ) return false;
      copy.status = { ready: want };
      if (generation !== undefined) copy.status.observedGeneration = generation;
      return true;
    },
  });
}

interface Copy {
  identity: string;
  lead: Lead;
  controller: Controller<Parent>;
  lost: boolean;
}

/** What the seeds did, so a run that exercised nothing cannot pass. */
interface Stats {
  parents: number;
  children: number;
  failovers: number;
  reconciles: number;
}

Deno.test("controller chaos: children and status converge after the faults, and no write is made without the Lease", async (t) => {
  const stats: Stats = { parents: 0, children: 0, failovers: 0, reconciles: 0 };
  const list = seeds();
  for (const seed of list) {
    await t.step(`seed ${seed}`, async () => void await run(seed, stats));
  }
  assert.ok(stats.parents > list.length, JSON.stringify(stats));
  assert.ok(stats.children > list.length, JSON.stringify(stats));
  assert.ok(stats.failovers > 0, JSON.stringify(stats));
  assert.ok(stats.reconciles > stats.parents, JSON.stringify(stats));
});

/**
 * One seed: asserts convergence and safety, and returns its trace (every
 * request the server received, at its fake instant, and what the copies
 * logged).
 */
Deno.test("controller chaos: a seed replays, request for request", async () => {
  const stats: Stats = { parents: 0, children: 0, failovers: 0, reconciles: 0 };
  // Seed 2 fails over: election retries and identities are drawn too.
  const first = await run(2, stats);
  const second = await run(2, stats);
  assert.ok(stats.failovers > 0, JSON.stringify(stats));
  assert.ok(first.length > 100, `${first.length} lines`);
  assert.deepEqual(second, first);
});

async function run(seed: number, stats: Stats): Promise<string[]> {
  trace = [];
  // The library's jitter, the election identities and the fake's uids.
  using _random = seedRandomness(seed);
  const rand = seeded(seed);
  const pick = <T>(items: readonly T[]): T =>
    items[Math.floor(rand() * items.length)]!;
  using time = installFakeTime({ now: Date.parse("2030-01-01T00:00:00Z") });
  await using server = new FakeApiServer();
  server.register({
    group: "example.com",
    version: "v1",
    resource: "parents",
    kind: "Parent",
    statusSubresource: true,
  });
  const user = new Client(server.url, { fetch: server.fetch });
  // Waits for work that may itself wait on the clock (a 429, a backoff, a
  // bounded stop), moving the clock meanwhile.
  const until = async (work: Promise<unknown>): Promise<void> => {
    let done = false;
    const settled = work.then(() => done = true, () => done = true);
    for (let i = 0; i < 600 && !done; i++) await time.tick(1_000);
    await settled;
  };
  const violations: string[] = [];
  const copies: Copy[] = [];
  let started = 0;
  const start = (): void => {
    started += 1;
    const pod = `op-${started}`;
    let identity = "";
    // Checks every write as the server receives it: the sender must hold
    // the Lease at that moment (Lease and Event writes aside).
    const client = new Client(server.url, {
      timeout: REQUEST_TIMEOUT,
      fetch: (input, init) => {
        const request = new Request(input, init);
        const path = new URL(request.url).pathname;
        if (
          request.method !== "GET" && !path.includes("/leases/") &&
          !path.endsWith("/leases") && !server.isDown &&
          server.leaseHolder(LEASE.namespace, LEASE.name) !== identity
        ) {
          violations.push(`${pod} ${request.method} ${path}`);
        }
        return server.fetch(request);
      },
    });
    const copy: Copy = {
      identity: "",
      lost: false,
      lead: undefined as unknown as Lead,
      controller: undefined as unknown as Controller<Parent>,
    };
    copy.lead = new Lead(client, {
      lease: LEASE,
      pod,
      // The process would exit and the kubelet start it again.
      exit: () => {
        copy.lost = true;
      },
      logger: testLogger({ onError: () => {} }),
    });
    identity = copy.identity = copy.lead.identity;
    copy.controller = new Controller<Parent>(client, {
      name: "chaos",
      for: { ...PARENT_RESOURCE, kind: "Parent" },
      owns: [{ version: "v1", resource: "secrets" }],
      wiring: {
        lead: copy.lead,
        observer: { reconciled: () => void stats.reconciles++ },
      },
      reconcile,
      logger: testLogger({
        onError: (e) => void trace.push(`${pod} ${Date.now()} ${String(e)}`),
        log: (l) => void trace.push(`${pod} ${Date.now()} ${l}`),
      }),
    });
    copies.push(copy);
  };
  start();
  start();

  const refusals: { allow(): void }[] = [];
  const pending: Promise<void>[] = [];
  for (let step = 0; step < 40; step++) {
    const roll = rand();
    const name = pick(NAMES);
    // The user's requests may meet the faults too (a 429 waits on the
    // clock), so they run while time goes on; their outcome is not under
    // test.
    const userOp = async (): Promise<void> => {
      if (roll < 0.3) {
        await user.create(PARENTS, {
          apiVersion: "example.com/v1",
          kind: "Parent",
          metadata: { name },
          spec: { replicas: Math.floor(rand() * 4) },
        });
      } else if (roll < 0.45) {
        const held = server.object<Parent>(`${PARENTS}/${name}`);
        if (held) {
          await user.replace(`${PARENTS}/${name}`, {
            ...held,
            spec: { replicas: Math.floor(rand() * 4) },
          });
        }
      } else if (roll < 0.55) {
        await user.delete(`${PARENTS}/${name}`);
      } else if (roll < 0.62) {
        await user.delete(`${CHILDREN}/${name}-${Math.floor(rand() * 3)}`);
      }
    };
    if (roll < 0.62) pending.push(userOp().catch(() => {}));
    else if (roll < 0.67) {
      server.down();
      await time.tick(Math.floor(rand() * 40_000));
      server.up();
    } else if (roll < 0.72) {
      server.cutWatches();
    } else if (roll < 0.76) {
      server.compact();
    } else if (roll < 0.81) {
      refusals.push(server.refuse({
        method: pick(["GET", "POST", "PUT", "DELETE", "PATCH"]),
        status: pick([429, 500, 503]),
        retryAfterSeconds: 1,
        count: 1 + Math.floor(rand() * 4),
      }));
    } else if (roll < 0.85) {
      server.latency(Math.floor(rand() * 300));
    } else if (roll < 0.9) {
      // The leader's renewals fail: it loses the Lease; another takes it.
      refusals.push(server.refuse({
        method: "PUT",
        path: /\/leases\//,
        status: 500,
        count: 3 + Math.floor(rand() * 6),
      }));
    }
    await time.tick(Math.floor(rand() * 5_000));
    // Copies that lost the Lease end as a process would; a new one starts.
    for (const copy of copies.filter((c) => c.lost)) {
      copies.splice(copies.indexOf(copy), 1);
      await until(copy.controller.stop());
      stats.failovers += 1;
      start();
    }
  }

  // No fault is pending any more.
  server.up();
  server.latency(0);
  for (const refusal of refusals) refusal.allow();
  await until(Promise.all(pending));
  const wanted = (): string[] => {
    const lines: string[] = [];
    for (const name of NAMES) {
      const parent = server.object<Parent>(`${PARENTS}/${name}`);
      if (!parent) {
        const left = [0, 1, 2, 3].filter((i) =>
          server.object(`${CHILDREN}/${name}-${i}`)
        );
        if (left.length > 0) lines.push(`${name} (gone): children ${left}`);
        continue;
      }
      const n = parent.spec.replicas;
      const kids = [0, 1, 2, 3].filter((i) =>
        server.object(`${CHILDREN}/${name}-${i}`)
      )
        .length;
      const extra = [n, n + 1, n + 2, n + 3].some((i) =>
        server.object(`${CHILDREN}/${name}-${i}`)
      );
      lines.push(
        `${name}: children ${kids}/${n}${
          extra ? " extra" : ""
        }, status ${parent.status?.ready}/${parent.status?.observedGeneration}=${parent.metadata.generation}`,
      );
    }
    return lines;
  };
  const converged = (): boolean => {
    for (const name of NAMES) {
      const parent = server.object<Parent>(`${PARENTS}/${name}`);
      const n = parent ? parent.spec.replicas : 0;
      for (let i = 0; i < 4; i++) {
        const exists = server.object(`${CHILDREN}/${name}-${i}`) !== undefined;
        if (exists !== i < n) return false;
      }
      if (
        parent &&
        (parent.status?.ready !== n ||
          parent.status.observedGeneration !== parent.metadata.generation)
      ) return false;
    }
    return true;
  };
  let waited = 0;
  while (!converged() && waited < 240_000) {
    await time.tick(1_000);
    waited += 1_000;
    for (const copy of copies.filter((c) => c.lost)) {
      copies.splice(copies.indexOf(copy), 1);
      await until(copy.controller.stop());
      start();
    }
  }
  assert.ok(
    converged(),
    `seed ${seed}: ${wanted().join("; ")}\n${trace.slice(-60).join("\n")}`,
  );
  for (const name of NAMES) {
    const parent = server.object<Parent>(`${PARENTS}/${name}`);
    if (parent === undefined) continue;
    stats.parents += 1;
    stats.children += parent.spec.replicas;
  }
  assert.deepEqual(violations, [], `seed ${seed}`);
  for (const copy of copies) await until(copy.controller.stop());
  return [
    ...server.requests.map((r) =>
      `${r.time} ${r.method} ${r.path}?${r.query} ${JSON.stringify(r.body)}`
    ),
    ...trace,
  ];
}
