// Sharded controllers on the fake API server, on fake time: several
// replicas in one process, each with its own client (and link, whose
// requests a test can hold, fail, or time apart from the others).
import assert from "node:assert/strict";
import { installProcessTimers } from "../_internal/_link_test_util.ts";
import { type FakeTime, installFakeTime } from "../testing/fake_time.ts";
import { TAKEN_PREFIX } from "./labels.ts";
import { memberHash, Ring, shardKey } from "./ring.ts";
import {
  CONFIGMAPS,
  DRAIN,
  LABEL,
  NS,
  ownLabelsOnly,
  RING,
  Run,
  safety,
} from "./_chaos_test_util.ts";

async function withRun(
  fn: (run: Run, time: FakeTime) => Promise<void>,
): Promise<void> {
  using time = installFakeTime({ now: Date.UTC(2030, 0, 1) });
  using _timers = installProcessTimers();
  const run = new Run();
  try {
    await fn(run, time);
  } finally {
    await run.stop(time);
  }
  assert.deepEqual(safety(run), []);
}

Deno.test("objects are spread over 3 replicas, and each reconciles only its own", async () => {
  await withRun(async (run, time) => {
    await run.create(30);
    for (const name of ["op-0", "op-1", "op-2"]) run.start(name);
    await run.until(time, () => run.settled(["op-0", "op-1", "op-2"]));
    await time.tick(2_000);
    const by = run.byReplica();
    const all = new Set([...by.values()].flatMap((keys) => [...keys]));
    assert.equal(all.size, 30);
    for (const name of ["op-0", "op-1", "op-2"]) {
      assert.ok((by.get(name)?.size ?? 0) > 0, name);
    }
    // No key was reconciled by two replicas, ever.
    const owners = new Map<string, string>();
    for (const { replica, key } of run.intervals) {
      assert.equal(owners.get(key) ?? replica, replica, key);
      owners.set(key, replica);
    }
    ownLabelsOnly(run);
    // A replica never read another's object from the API server.
    assert.equal(
      run.server.requests.filter((r) =>
        r.method === "GET" && /\/configmaps\/cm-/.test(r.path)
      ).length,
      0,
    );
    assert.deepEqual(run.errors, []);
  });
});

Deno.test("a join rebalances through the drain handshake, never two replicas on one key", async () => {
  await withRun(async (run, time) => {
    await run.create(40);
    run.start("op-0");
    run.start("op-1");
    await run.until(time, () => run.settled(["op-0", "op-1"]));
    const before = new Map(
      run.objects().map((o) => [o.metadata.name!, o.metadata.labels![LABEL]!]),
    );
    // Keep reconciles running across the move: resync every key often.
    for (const r of run.replicas.values()) r.controller.reconcileAll();
    run.start("op-2");
    await run.until(time, () => run.settled(["op-0", "op-1", "op-2"]));
    await time.tick(2_000);
    const moved = run.objects().filter((o) =>
      before.get(o.metadata.name!) !== o.metadata.labels![LABEL]
    );
    assert.ok(moved.length > 0);
    for (const o of moved) {
      assert.equal(o.metadata.labels![LABEL], memberHash("op-2"));
    }
    // Every move went through an acknowledgement: a merge patch by a member
    // that removed both labels, under the controller's name.
    const acks = run.server.requests.filter((r) =>
      r.method === "PATCH" &&
      new URLSearchParams(r.query ?? "").get("fieldManager") === RING &&
      JSON.stringify(r.body).includes(DRAIN)
    );
    assert.ok(
      acks.length >= moved.length,
      `${acks.length} acks, ${moved.length} moves`,
    );
    assert.ok((run.byReplica().get("op-2")?.size ?? 0) === moved.length);
    ownLabelsOnly(run);
    assert.deepEqual(run.errors, []);
  });
});

Deno.test("a graceful leave moves its objects at once", async () => {
  await withRun(async (run, time) => {
    await run.create(30);
    for (const name of ["op-0", "op-1", "op-2"]) run.start(name);
    await run.until(time, () => run.settled(["op-0", "op-1", "op-2"]));
    // Not the sharder (its own failover takes a retry period or two).
    const leaving = [...run.replicas.values()].find((r) =>
      !r.sharder.lead.leads()
    )!;
    const stopped = Date.now();
    let done = false;
    void Promise.all([leaving.controller.stop(), leaving.sharder.stop()])
      .then(() => done = true);
    await run.until(time, () => done, 10_000);
    const rest = [...run.replicas.keys()].filter((n) => n !== leaving.name);
    await run.until(time, () => run.settled(rest), 10_000);
    // Well within one Lease duration (30 s): the released Lease was taken at once.
    assert.ok(Date.now() - stopped < 5_000, `${Date.now() - stopped} ms`);
    ownLabelsOnly(run);
  });
});

Deno.test("a paused replica loses its objects only after its Lease is taken over, and writes nothing once it wakes", async () => {
  await withRun(async (run, time) => {
    await run.create(30);
    for (const name of ["op-0", "op-1", "op-2"]) run.start(name);
    await run.until(time, () => run.settled(["op-0", "op-1", "op-2"]));
    // Not the sharder: pause a replica that only reconciles.
    const leader = [...run.replicas.values()].find((r) =>
      r.sharder.lead.leads()
    )!;
    const paused = [...run.replicas.values()].find((r) => r !== leader)!;
    const mine = memberHash(paused.name);
    paused.process.pause();
    paused.link.pause();
    const pausedAt = Date.now();
    const survivors = [...run.replicas.keys()].filter((n) => n !== paused.name);
    await run.until(time, () => run.settled(survivors));
    // The takeover of its Lease came before the first move of its objects.
    const requests = run.server.requests.filter((r) => r.time >= pausedAt);
    const takeover = requests.findIndex((r) =>
      r.method === "PUT" && r.path.includes(`/leases/${RING}-${mine}`) &&
      JSON.stringify(r.body).includes(TAKEN_PREFIX)
    );
    const firstMove = requests.findIndex((r) =>
      r.method === "PATCH" && r.path.includes("/configmaps/") &&
      JSON.stringify(r.body).includes(LABEL) &&
      !JSON.stringify(r.body).includes(mine)
    );
    assert.ok(takeover !== -1, "no takeover");
    assert.ok(
      firstMove === -1 || takeover < firstMove,
      `${takeover} ${firstMove}`,
    );
    // A whole Lease duration after its last renewal, by the sharder's clock.
    const renewed = Math.max(
      ...run.server.requests.filter((r) =>
        r.time < pausedAt && r.method === "PUT" &&
        r.path.endsWith(`/leases/${RING}-${mine}`)
      ).map((r) => r.time),
    );
    assert.ok(requests[takeover]!.time - renewed >= 30_000);
    assert.equal(
      run.server.leaseHolder(NS, `${RING}-${mine}`)?.startsWith(TAKEN_PREFIX),
      true,
    );
    assert.ok(run.settled(survivors));
    // It wakes: its guard refuses by age (its last renewal is more than a
    // renew deadline old), its renewal meets the takeover, and it stops,
    // having written nothing the server accepted.
    const woke = run.writes.length;
    paused.link.resume();
    paused.process.resume();
    let stopped = false;
    void paused.controller.done.then(() => stopped = true);
    await run.until(time, () => stopped, 60_000);
    await time.tick(5_000);
    const accepted = run.writes.slice(woke).filter((w) =>
      w.who === paused.name && w.status < 300
    );
    assert.deepEqual(accepted.map((w) => `${w.method} ${w.path}`), []);
    assert.equal(
      run.server.leaseHolder(NS, `${RING}-${mine}`)?.startsWith(TAKEN_PREFIX),
      true,
    );
    assert.ok(run.settled(survivors));
  });
});

Deno.test("an object made again under a deleted one's name goes first to that one's member, and moves by drain", async () => {
  await withRun(async (run, time) => {
    await run.create(20);
    run.start("op-0");
    run.start("op-1");
    await run.until(time, () => run.settled(["op-0", "op-1"]));
    // A name op-0 holds now and op-2 will win once it joins.
    const [a, c] = [memberHash("op-0"), memberHash("op-2")];
    const after = new Ring([a, memberHash("op-1"), c]);
    const name = run.objects().map((o) => o.metadata.name!).find((n) =>
      run.objects().find((o) => o.metadata.name === n)!.metadata.labels![
          LABEL
        ] === a &&
      after.owner(shardKey({ kind: "ConfigMap", namespace: NS, name: n })) ===
        c
    );
    assert.ok(name !== undefined, "no such name among 20");
    const handle = run.user.resource(CONFIGMAPS).namespace(NS);
    await handle.delete(name);
    await time.tick(2_000);
    run.start("op-2");
    await run.until(time, () => run.settled(["op-0", "op-1", "op-2"]));
    const since = run.writes.length;
    await handle.create({ metadata: { name } });
    await run.until(
      time,
      () => run.settled(["op-0", "op-1", "op-2"]) && run.writes.length > since,
    );
    await time.tick(2_000);
    // The sharder's writes to it: op-0 (draining) first, then op-2.
    const labels = run.writes.slice(since).filter((w) =>
      w.status < 300 && w.path.endsWith(`/configmaps/${name}`) &&
      w.query.get("fieldManager") === `${RING}-sharder`
    ).map((w) =>
      (w.body as { metadata: { labels: Record<string, string> } }).metadata
        .labels
    );
    assert.deepEqual(labels, [{ [LABEL]: a, [DRAIN]: "true" }, { [LABEL]: c }]);
  });
});
