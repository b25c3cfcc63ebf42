import assert from "node:assert/strict";
import { Client, objectPath, WriteRefusedError } from "../apiclient/mod.ts";
import { describe } from "../_internal/errors.ts";
import { FakeApiServer, installFakeTime } from "../testing/mod.ts";
import type { FakeTime, HoldLeaseOptions } from "../testing/mod.ts";
import {
  Lead,
  type LeadOptions,
  NotLeadingError,
  RENEW_DEADLINE,
  StoppedError,
} from "./mod.ts";
import { FaultyLink } from "../_internal/_link_test_util.ts";
import { testLogger } from "../_internal/_log_test_util.ts";

/** Whether a log line says the Lease default/op was released. */
const released = (line: string): boolean =>
  line.startsWith('"Released the Lease" lease="default/op"');
/** Whether a log line says the Lease default/op was lost. */
const lost = (line: string): boolean =>
  line.startsWith('"Lost the Lease" lease="default/op"');

const NAMESPACE = "default";
const NAME = "op";
const LEASE = { namespace: NAMESPACE, name: NAME };
const PATH = objectPath({
  group: "coordination.k8s.io",
  version: "v1",
  resource: "leases",
  ...LEASE,
});
const START = Date.UTC(2026, 11, 2, 12, 0, 0);
const MICRO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

interface LeaseShape {
  metadata: { resourceVersion?: string };
  spec: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

/**
 * One candidate: its lead, its lines (`log` and `onError` in order), its
 * exits, its link.
 */
interface Candidate {
  lead: Lead;
  lines: string[];
  exits: { code: number; at: number }[];
  link: FaultyLink;
  client: Client;
}

function candidate(
  server: FakeApiServer,
  pod: string,
  options: Partial<LeadOptions> = {},
): Candidate {
  const lines: string[] = [];
  const exits: { code: number; at: number }[] = [];
  const link = new FaultyLink(server.fetch);
  const client = new Client(server.url, { fetch: link.fetch });
  const lead = new Lead(client, {
    lease: LEASE,
    pod,
    logger: testLogger({
      log: (line) => lines.push(line),
      onError: (error) => lines.push(describe(error)),
    }),
    exit: (code) => exits.push({ code, at: Date.now() }),
    ...options,
  });
  return { lead, lines, exits, link, client };
}

/** Writes the Lease as `identity`, holding it, would. */
function hold(
  server: FakeApiServer,
  identity: string,
  options: Partial<HoldLeaseOptions> = {},
): void {
  server.holdLease({ namespace: NAMESPACE, name: NAME, identity, ...options });
}

function lease(server: FakeApiServer): LeaseShape {
  const object = server.object<LeaseShape & { metadata: object }>(PATH);
  assert.ok(object, "the Lease exists");
  return object;
}

/** Ticks in steps until `condition` holds; answers the fake time it took. */
async function until(
  time: FakeTime,
  condition: () => boolean,
  limit: number,
  step = 100,
): Promise<number> {
  const start = time.now();
  while (!condition()) {
    if (time.now() - start > limit) {
      throw new Error(`Condition not met within ${limit} ms of fake time`);
    }
    await time.tick(step);
  }
  return time.now() - start;
}

function allows(lead: Lead): boolean {
  try {
    lead.mayWrite();
    return true;
  } catch (error) {
    assert.ok(error instanceof NotLeadingError);
    return false;
  }
}

Deno.test("acquires an absent Lease with a MicroTime record", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  // Another process of the same pod, elsewhere: only its identity matters.
  await using elsewhere = new FakeApiServer();
  const a = candidate(elsewhere, "op-a");
  const started: AbortSignal[] = [];
  const leaders: string[] = [];
  const c = candidate(server, "op-a", {
    onStartedLeading: (signal) => started.push(signal),
    onNewLeader: (identity) => leaders.push(identity),
  });
  assert.match(c.lead.identity, /^op-a_[0-9a-f]{8}$/);
  assert.notEqual(c.lead.identity, a.lead.identity);
  await c.lead.leading();
  assert.ok(c.lead.leads());
  c.lead.mayWrite();
  const stored = lease(server);
  assert.equal(stored.spec.holderIdentity, c.lead.identity);
  assert.equal(stored.spec.leaseDurationSeconds, 30);
  assert.equal(stored.spec.leaseTransitions, 0);
  assert.equal(stored.spec.acquireTime, "2026-12-02T12:00:00.000000Z");
  assert.match(stored.spec.renewTime!, MICRO);
  assert.equal(server.count({ method: "POST" }), 1);
  assert.deepEqual(leaders, [c.lead.identity]);
  assert.equal(started.length, 1);
  assert.deepEqual(c.lines, [
    `"Acquired the Lease" lease="default/op" identity="${c.lead.identity}"`,
  ]);

  // A leader renews every retry period, keeping acquireTime.
  await time.tick(60_000);
  const puts = server.count({ method: "PUT", path: PATH });
  // client-go renews once at once after the take, then every 5 s.
  assert.equal(puts, 13, `${puts} renewals in 60 s`);
  const renewed = lease(server);
  assert.equal(renewed.spec.acquireTime, "2026-12-02T12:00:00.000000Z");
  assert.ok(Date.parse(renewed.spec.renewTime!) >= START + 55_000);

  await c.lead.stop();
  assert.equal(started[0]!.aborted, true, "the lead's signal ends");
  assert.equal(lease(server).spec.holderIdentity, "");
  assert.equal(lease(server).spec.leaseDurationSeconds, 1);
  assert.deepEqual(c.exits, []);
  assert.equal(c.lead.leads(), false);
  assert.throws(() => c.lead.mayWrite(), /stepping down/);
  await c.lead.done;
  await a.lead.stop();
  void time;
});

Deno.test("takes a Lease that names no holder at once", async () => {
  using _time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  hold(server, "", { leaseTransitions: 4 });
  const c = candidate(server, "op-b");
  await c.lead.leading();
  assert.equal(lease(server).spec.holderIdentity, c.lead.identity);
  assert.equal(lease(server).spec.leaseTransitions, 5);
  await c.lead.stop();
});

Deno.test("waits a whole duration from its own observation of a live holder", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  // The holder's renewTime is an hour old by this node's clock: another
  // node wrote it, so the wait counts from this process's first read.
  hold(server, "other-pod_1234", { renewTime: START - 3_600_000 });
  const leaders: string[] = [];
  const c = candidate(server, "op-a", {
    onNewLeader: (identity) => leaders.push(identity),
  });
  await time.tick(29_900);
  assert.equal(c.lead.leads(), false);
  assert.equal(allows(c.lead), false);
  assert.equal(server.leaseHolder(NAMESPACE, NAME), "other-pod_1234");
  assert.deepEqual(c.lines, [
    `"Waiting for the Lease" lease="default/op" identity="${c.lead.identity}" holder="other-pod_1234"`,
  ]);
  const took = 29_900 + await until(time, () => c.lead.leads(), 15_000);
  assert.ok(took >= 30_000 && took <= 41_000, `took it after ${took} ms`);
  assert.deepEqual(leaders, ["other-pod_1234", c.lead.identity]);
  assert.equal(lease(server).spec.leaseTransitions, 1);
  await c.lead.stop();
});

Deno.test("never takes a Lease whose holder keeps renewing", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  hold(server, "b_1");
  const c = candidate(server, "op-a");
  for (let i = 0; i < 24; i++) {
    await time.tick(5_000);
    hold(server, "b_1");
  }
  assert.equal(c.lead.leads(), false);
  assert.equal(server.leaseHolder(NAMESPACE, NAME), "b_1");
  // A waiting copy reads every 5 to 11 s.
  const reads = server.count({ method: "GET", path: PATH });
  assert.ok(reads >= 11 && reads <= 25, `${reads} reads in 120 s`);
  await c.lead.stop();
  assert.equal(server.leaseHolder(NAMESPACE, NAME), "b_1", "left alone");
});

Deno.test("a waiting copy takes a released Lease on its next retry", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const a = candidate(server, "op-a");
  await a.lead.leading();
  const b = candidate(server, "op-b");
  await time.tick(20_000);
  assert.equal(b.lead.leads(), false);
  await a.lead.stop();
  assert.ok(a.lines.some(released));
  const stored = lease(server);
  assert.equal(stored.spec.holderIdentity, "");
  assert.equal(stored.spec.leaseDurationSeconds, 1);
  const took = await until(time, () => b.lead.leads(), 12_000);
  assert.ok(took <= 11_000, `took the released Lease after ${took} ms`);
  assert.equal(lease(server).spec.leaseTransitions, 1);
  assert.deepEqual(a.exits, []);
  await b.lead.stop();
});

Deno.test("step down releases even when a late renewal makes the first release conflict", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const a = candidate(server, "op-a");
  await a.lead.leading();
  const b = candidate(server, "op-b");
  await time.tick(12_000);
  // The next renewal stays in flight; the step-down aborts it, and the
  // server applies it after the elector's own release read the Lease.
  a.link.pause();
  await time.tick(4_000);
  assert.equal(a.link.pending, 1, "one renewal in flight");
  const conflicts = server.count({ method: "PUT" });
  // The second release's first read is followed by one more late write.
  server.landAfterNextRead({ path: PATH });
  const stepping = a.lead.stop();
  a.link.resume();
  await stepping;
  const lines = a.lines.join("\n");
  assert.match(
    lines,
    /Releasing Lease default\/op: .*409/,
    "the first conflicts",
  );
  assert.doesNotMatch(lines, /renewing/i, "the stop is no failure");
  assert.ok(released(a.lines.at(-1) ?? ""), lines);
  assert.equal(lease(server).spec.holderIdentity, "");
  assert.equal(lease(server).spec.leaseDurationSeconds, 1);
  // late renewal + release (its read came before the landing, so it
  // conflicts) + second release (read again, then success)
  assert.equal(server.count({ method: "PUT" }) - conflicts, 3);
  assert.equal(server.count({ method: "GET", path: PATH }) >= 2, true);
  const took = await until(time, () => b.lead.leads(), 12_000);
  assert.ok(took <= 11_000, `took it after ${took} ms`);
  assert.deepEqual(a.exits, []);
  await b.lead.stop();
});

Deno.test("the second release reads again at most 3 times", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const a = candidate(server, "op-a");
  await a.lead.leading();
  await time.tick(2_000);
  // A renewal of this process lands late, so the first release conflicts;
  // then every read of the second release is followed by another one.
  hold(server, a.lead.identity);
  for (let i = 0; i < 4; i++) server.landAfterNextRead({ path: PATH });
  const gets = server.count({ method: "GET", path: PATH });
  const puts = server.count({ method: "PUT", path: PATH });
  await a.lead.stop();
  // The elector's release reads first, then the second release's 3 reads.
  assert.equal(server.count({ method: "GET", path: PATH }) - gets, 4);
  // The elector's release, then one write per read of the second release.
  assert.equal(server.count({ method: "PUT", path: PATH }) - puts, 4);
  assert.equal(server.leaseHolder(NAMESPACE, NAME), a.lead.identity);
  assert.equal(a.lines.some(released), false);
  // The landing left over is used up, so the test leaves nothing armed.
  await (await server.fetch(`${server.url}${PATH}`)).body?.cancel();
});

Deno.test("a step-down against a server that never answers ends within the bounds", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const a = candidate(server, "op-a");
  await a.lead.leading();
  await time.tick(2_000);
  a.link.pause();
  let ended = false;
  const stepping = a.lead.stop().then(() => ended = true);
  // The elector's release has RENEW_DEADLINE, the second release half of it.
  await time.tick(RENEW_DEADLINE + RENEW_DEADLINE / 2 - 1);
  assert.equal(ended, false);
  await time.tick(1);
  await stepping;
  assert.equal(ended, true);
  assert.match(a.lines.join("\n"), /Releasing Lease default\/op: /);
  assert.match(a.lines.join("\n"), /Reading Lease default\/op to release it: /);
  assert.deepEqual(a.exits, []);
  a.link.heal();
  await time.settle();
});

Deno.test("a refused release leaves the Lease to expire", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const a = candidate(server, "op-a");
  await a.lead.leading();
  await time.tick(3_000);
  const refusal = server.refuse({ method: "PUT", path: PATH, status: 403 });
  await a.lead.stop();
  refusal.allow();
  assert.equal(server.leaseHolder(NAMESPACE, NAME), a.lead.identity);
  assert.equal(lease(server).spec.leaseDurationSeconds, 30);
  assert.equal(a.lines.filter((l) => l.startsWith("Releasing")).length, 2);
  assert.equal(a.lines.some(released), false);
  assert.deepEqual(a.exits, []);
  // Another pod waits the whole duration from its first read.
  const b = candidate(server, "op-b");
  await time.tick(29_000);
  assert.equal(b.lead.leads(), false);
  const took = 29_000 + await until(time, () => b.lead.leads(), 13_000);
  assert.ok(took >= 30_000 && took <= 41_000, `took it after ${took} ms`);
  await b.lead.stop();
});

Deno.test("the release reads first: an unreadable Lease is left to expire, a late renewal is no conflict", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const a = candidate(server, "op-a");
  await a.lead.leading();
  await time.tick(3_000);
  // Every read is refused: no blind write clears the Lease.
  const refusal = server.refuse({ method: "GET", path: PATH, status: 500 });
  const puts = server.count({ method: "PUT", path: PATH });
  await a.lead.stop();
  refusal.allow();
  assert.equal(server.count({ method: "PUT", path: PATH }), puts);
  assert.equal(server.leaseHolder(NAMESPACE, NAME), a.lead.identity);
  assert.equal(lease(server).spec.leaseDurationSeconds, 30);
  assert.equal(a.lines.some(released), false);

  // A renewal that landed after the last copy this process saw: the read
  // finds it, and the one release write succeeds on it.
  const b = candidate(server, "op-b");
  await until(time, () => b.lead.leads(), 45_000);
  await time.tick(2_000);
  hold(server, b.lead.identity);
  const before = server.count({ method: "PUT", path: PATH });
  await b.lead.stop();
  assert.equal(server.count({ method: "PUT", path: PATH }) - before, 1);
  assert.equal(lease(server).spec.holderIdentity, "");
  assert.doesNotMatch(b.lines.join("\n"), /409|conflict/i);
});

for (const fault of ["down", "hang"] as const) {
  Deno.test(`a leader that cannot renew (${fault}) refuses writes at T+10 s and exits before T+30 s`, async () => {
    using time = installFakeTime({ now: START });
    await using server = new FakeApiServer();
    const a = candidate(server, "op-a");
    const writer = new Client(server.url, { fetch: server.fetch })
      .withWriteGuard(a.lead.mayWrite);
    await a.lead.leading();
    await time.tick(7_000);
    // T: the send time of the last accepted renewal.
    const renewals = server.requests.filter((r) =>
      r.method === "PUT" && r.path === PATH
    );
    const last = renewals.at(-1)!.time;
    assert.equal(Date.parse(lease(server).spec.renewTime!), last);
    if (fault === "down") a.link.partitioned = true;
    else a.link.pause();
    await time.tick(last + RENEW_DEADLINE - 1 - time.now());
    assert.equal(allows(a.lead), true, "allowed just before T+10 s");
    await writer.create(
      "/api/v1/namespaces/default/configmaps",
      { metadata: { name: "w1" } },
    );
    await time.tick(1);
    assert.throws(() => a.lead.mayWrite(), /was sent 10\.0 s ago/);
    const before = server.count({ method: "POST" });
    const refused = await writer.create(
      "/api/v1/namespaces/default/configmaps",
      { metadata: { name: "w2" } },
    ).catch((error) => error);
    assert.ok(refused instanceof WriteRefusedError);
    assert.ok(refused.cause instanceof NotLeadingError);
    assert.equal(server.count({ method: "POST" }), before, "nothing sent");
    await until(time, () => a.exits.length > 0, 30_000, 500);
    const exit = a.exits[0]!;
    assert.equal(exit.code, 1);
    assert.ok(exit.at - last >= 15_000, `gave up at T+${exit.at - last}`);
    assert.ok(exit.at - last < 30_000, `exited at T+${exit.at - last}`);
    // Gives up at T+15 s, releases at T+25 s (down: fails at once; hang:
    // bounded to end by T+29 s), then exits.
    assert.equal(exit.at - last, fault === "down" ? 25_000 : 29_000);
    assert.ok(a.lines.some(lost));
    assert.equal(a.lead.leads(), false);
    await a.lead.done;
    a.link.heal();
    await a.lead.stop();
  });
}

Deno.test("after a loss the release waits until the writes the guard allowed have ended", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const a = candidate(server, "op-a");
  await a.lead.leading();
  const b = candidate(server, "op-b");
  await time.tick(7_000);
  const last =
    server.requests.filter((r) => r.method === "PUT" && r.path === PATH).at(-1)!
      .time;
  // The API server refuses the renewals, then recovers after the elector
  // gave up (T+15 s): client-go would release at once, while a write the
  // guard allowed at T+10 s can be in flight until T+25 s.
  const refusal = server.refuse({ method: "PUT", path: PATH, status: 500 });
  await time.tick(last + 15_000 - time.now());
  assert.equal(a.lead.leads(), false, "gave up at T+15 s");
  refusal.allow();
  await time.tick(last + 25_000 - 1 - time.now());
  assert.equal(server.leaseHolder(NAMESPACE, NAME), a.lead.identity);
  assert.equal(a.exits.length, 0);
  assert.equal(b.lead.leads(), false);
  await time.tick(1);
  assert.equal(server.leaseHolder(NAMESPACE, NAME), undefined, "released");
  assert.ok(a.lines.some(released));
  assert.deepEqual(a.exits.map((e) => e.at - last), [25_000]);
  const took = await until(time, () => b.lead.leads(), 12_000);
  assert.ok(took <= 11_000, `took it ${took} ms after the release`);
  await b.lead.stop();
});

Deno.test("403 on every Lease request keeps a waiting copy waiting", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const refusal = server.refuse({ path: /\/leases/, status: 403 });
  const c = candidate(server, "op-a");
  await time.tick(300_000);
  assert.equal(c.lead.leads(), false);
  assert.equal(allows(c.lead), false);
  assert.deepEqual(c.exits, []);
  const reads = server.count({ method: "GET", path: PATH });
  assert.ok(reads >= 27 && reads <= 61, `${reads} reads in 5 min`);
  // The same failure is reported once, not every retry.
  assert.equal(c.lines.length, 1);
  assert.match(c.lines[0]!, /^Reading Lease default\/op: /);
  assert.equal(server.object(PATH), undefined);
  refusal.allow();
  const took = await until(time, () => c.lead.leads(), 12_000);
  assert.ok(took <= 11_000);
  await c.lead.stop();
});

Deno.test("an earlier process of this pod is taken at once", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  hold(server, "op-a_0badf00d", {
    renewTime: START - 30_000,
    leaseTransitions: 2,
  });
  const c = candidate(server, "op-a");
  await c.lead.leading();
  assert.equal(time.now(), START, "no wait");
  assert.equal(lease(server).spec.holderIdentity, c.lead.identity);
  assert.equal(lease(server).spec.leaseTransitions, 3);
  await c.lead.stop();
});

Deno.test("an earlier process of this pod whose Lease is young is waited for", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  hold(server, "op-a_0badf00d", { renewTime: START - 20_000 });
  const c = candidate(server, "op-a");
  await time.tick(9_900);
  assert.equal(c.lead.leads(), false);
  // Taken at the first read once renewTime is 30 s old (by this node's
  // clock), before a whole duration from the first read.
  const took = 9_900 + await until(time, () => c.lead.leads(), 15_000);
  assert.ok(took >= 10_000 && took <= 21_000, `took it after ${took} ms`);
  await c.lead.stop();
});

for (const other of ["op-ab_0badf00d", "op-a-2_0badf00d"]) {
  Deno.test(`a pod whose name only starts with this pod's name (${other}) is not taken`, async () => {
    using time = installFakeTime({ now: START });
    await using server = new FakeApiServer();
    hold(server, other, { renewTime: START - 3_600_000 });
    const c = candidate(server, "op-a");
    await time.tick(29_900);
    assert.equal(c.lead.leads(), false);
    assert.equal(server.leaseHolder(NAMESPACE, NAME), other);
    const took = 29_900 + await until(time, () => c.lead.leads(), 15_000);
    assert.ok(took >= 30_000, `took it after ${took} ms`);
    await c.lead.stop();
  });
}

Deno.test("a stop before the Lease clears an expired earlier process of this pod", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  hold(server, "op-a_0badf00d", { renewTime: START - 29_000 });
  const c = candidate(server, "op-a");
  const stop = new AbortController();
  const started = c.lead.leading({ signal: stop.signal });
  await time.tick(2_000);
  stop.abort();
  await assert.rejects(started, StoppedError);
  assert.equal(server.leaseHolder(NAMESPACE, NAME), undefined);
  assert.equal(lease(server).spec.leaseDurationSeconds, 1);
  // A Lease of another pod is left alone.
  hold(server, "op-b_1", { renewTime: START - 3_600_000 });
  const d = candidate(server, "op-a");
  await assert.rejects(
    d.lead.leading({ signal: AbortSignal.abort() }),
    StoppedError,
  );
  assert.equal(server.leaseHolder(NAMESPACE, NAME), "op-b_1");
  assert.equal(d.lead.leads(), false);
  await d.lead.done;
});

Deno.test("leading with an aborted stop answers StoppedError and holds nothing", async () => {
  using _time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const client = new Client(server.url, { fetch: server.fetch });
  const lead = new Lead(client, { lease: LEASE, pod: "op-a" });
  await assert.rejects(
    lead.leading({ signal: AbortSignal.abort() }),
    StoppedError,
  );
  assert.equal(server.leaseHolder(NAMESPACE, NAME), undefined);
});

Deno.test("the options are checked", async () => {
  await using server = new FakeApiServer();
  const client = new Client(server.url, { fetch: server.fetch });
  assert.throws(
    () => new Lead(client, { lease: { namespace: "d", name: "" }, pod: "p" }),
    TypeError,
  );
  assert.throws(
    () => new Lead(client, { lease: { namespace: "", name: "n" }, pod: "p" }),
    TypeError,
  );
  assert.throws(
    () =>
      new Lead(client, { lease: { namespace: "d", name: "n" }, pod: "p_1" }),
    /underscore/,
  );
  const lead = new Lead(client, {
    lease: { namespace: "d", name: "n" },
    pod: "p",
  });
  assert.throws(() => lead.mayWrite(), /does not hold Lease d\/n/);
  await lead.stop();
  // A stopped election does not start again.
  await assert.rejects(lead.leading(), StoppedError);
});

Deno.test("callbacks: a loss ends the lead's signal before the release, and a throwing callback is reported", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const events: string[] = [];
  let leadSignal: AbortSignal | undefined;
  const a = candidate(server, "op-a", {
    onStartedLeading: (signal) => {
      leadSignal = signal;
      signal.addEventListener("abort", () => events.push("signal aborted"));
      events.push("started");
    },
    onStoppedLeading: () => events.push("stopped"),
    onNewLeader: () => {
      throw new Error("callback failed");
    },
  });
  const report = a.lines;
  await a.lead.leading();
  assert.match(
    report.join("\n"),
    /A callback of Lease default\/op threw: callback failed/,
  );
  await time.tick(2_000);
  a.link.pause();
  await until(time, () => a.exits.length > 0, 30_000, 500);
  assert.ok(leadSignal?.aborted);
  assert.deepEqual(events, ["started", "signal aborted", "stopped"]);
  // The release came after the signal: its failure is the last report
  // before the loss.
  assert.match(report.at(-2)!, /^Releasing Lease default\/op: /);
  assert.ok(lost(report.at(-1) ?? ""), report.join("\n"));
  a.link.heal();
  await a.lead.done;
});

Deno.test("await using stops at the end of the scope", async () => {
  using _time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const client = new Client(server.url, { fetch: server.fetch });
  {
    await using lead = new Lead(client, { lease: LEASE, pod: "op-a" });
    await lead.leading();
    assert.equal(server.leaseHolder(NAMESPACE, NAME), lead.identity);
  }
  assert.equal(server.leaseHolder(NAMESPACE, NAME), undefined);
});

Deno.test({
  name: "over a real socket: acquires, steps down, and another copy takes it",
  timeout: 10_000,
  async fn(): Promise<void> {
    using time = installFakeTime({ now: START });
    await using server = new FakeApiServer();
    await using served = await server.serve();
    const client = new Client(served.url);
    const aLines: string[] = [];
    const a = new Lead(client, {
      lease: LEASE,
      pod: "op-a",
      logger: testLogger({ log: (line) => aLines.push(line) }),
    });
    // Real I/O only moves while the test waits in real time.
    await time.waitFor(() => a.leads());
    await time.waitFor(() => server.count({ method: "PUT", path: PATH }) === 1);
    a.mayWrite();
    const stored = lease(server);
    assert.equal(stored.spec.holderIdentity, a.identity);
    assert.match(stored.spec.renewTime!, MICRO);
    const b = new Lead(client, { lease: LEASE, pod: "op-b" });
    await time.waitFor(() => server.count({ method: "GET", path: PATH }) === 1);
    assert.equal(b.leads(), false);

    await a.stop();
    assert.equal(server.leaseHolder(NAMESPACE, NAME), undefined);
    assert.ok(aLines.some(released), aLines.join("\n"));
    // b reads again within 11 s and takes the released Lease.
    await time.tick(11_000);
    await time.waitFor(() => b.leads());
    assert.equal(server.leaseHolder(NAMESPACE, NAME), b.identity);
    assert.equal(lease(server).spec.leaseTransitions, 1);
    await b.stop();
    assert.equal(server.leaseHolder(NAMESPACE, NAME), undefined);
  },
});
