// A Lead's stop bounds its requests: whatever Lease request is held when it
// stops, none is left open once stop() has resolved.
import assert from "node:assert/strict";
import { Client } from "../apiclient/mod.ts";
import { describe } from "../_internal/errors.ts";
import { Gate, settledWithin } from "../_internal/_gate_test_util.ts";
import { FakeApiServer, installFakeTime } from "../testing/mod.ts";
import { Lead, RENEW_DEADLINE, RETRY_PERIOD } from "./mod.ts";
import { testLogger } from "../_internal/_log_test_util.ts";

const LEASE = { namespace: "default", name: "op" };
const START = Date.UTC(2026, 11, 2, 12, 0, 0);
const leases = (_method: string, url: URL): boolean =>
  url.pathname.includes("/leases");

function candidate(
  server: FakeApiServer,
  pod: string,
): { lead: Lead; gate: Gate; lines: string[]; exits: number[] } {
  const gate = new Gate(server.fetch);
  const lines: string[] = [];
  const exits: number[] = [];
  const lead = new Lead(new Client(server.url, { fetch: gate.fetch }), {
    lease: LEASE,
    pod,
    logger: testLogger({
      log: (line) => lines.push(line),
      onError: (error) => lines.push(describe(error)),
    }),
    exit: (code) => void exits.push(code),
  });
  return { lead, gate, lines, exits };
}

Deno.test("a leader's stop ends its held renewal, release and second release by the time it resolves", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const a = candidate(server, "op-a");
  await a.lead.leading();
  // Every Lease request from now on is held: first the next renewal.
  a.gate.close(leases);
  await time.tick(RETRY_PERIOD);
  assert.deepEqual(a.gate.holding(), [
    "PUT /apis/coordination.k8s.io/v1/namespaces/default/leases/op",
  ]);
  const took = await settledWithin(time, a.lead.stop(), 60_000);
  assert.deepEqual(a.gate.holding(), [], "no Lease request outlives the stop");
  // The renewal ended with the stop, the elector's release read at its
  // bound (a renew deadline), the second release's read at half of one.
  assert.equal(took, RENEW_DEADLINE + RENEW_DEADLINE / 2);
  assert.deepEqual(
    a.gate.log.map((what) => what.split(" ")[0]),
    ["PUT", "GET", "GET"],
  );
  await a.lead.done;
  const arrived = a.gate.arrived;
  await time.tick(60_000);
  assert.equal(a.gate.arrived, arrived, "nothing is sent after the stop");
  assert.deepEqual(a.exits, []);
  a.gate.open();
});

Deno.test("a waiting copy's stop ends its held read at once and its second release's at half a renew deadline", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  server.holdLease({ ...LEASE, identity: "op-z_other" });
  const b = candidate(server, "op-b");
  await time.tick(0);
  // Its next read, 5 to 11 s later, is held.
  b.gate.close(leases);
  while (b.gate.held === 0) await time.tick(100);
  assert.equal(b.lead.leads(), false);
  const took = await settledWithin(time, b.lead.stop(), 60_000);
  assert.deepEqual(b.gate.holding(), []);
  assert.equal(took, RENEW_DEADLINE / 2);
  assert.deepEqual(b.gate.log.map((what) => what.split(" ")[0]), [
    "GET",
    "GET",
  ]);
  b.gate.open();
});

Deno.test("a stop during the release after a loss ends that release by the time it resolves", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const a = candidate(server, "op-a");
  await a.lead.leading();
  const last = server.requests.filter((r) => r.method === "PUT").at(-1)!.time;
  // The renewals are refused: the lead ends at T+15 s and its release,
  // sent at T+25 s, is held.
  const refusal = server.refuse({ method: "PUT", status: 500 });
  await time.tick(last + 25_000 - 1 - time.now());
  a.gate.close(leases);
  await time.tick(1);
  assert.equal(a.gate.held, 1, "the release's read is held");
  assert.equal(a.exits.length, 0);
  await time.tick(500);
  const took = await settledWithin(time, a.lead.stop(), 60_000);
  assert.deepEqual(a.gate.holding(), []);
  // The release after a loss is bounded to end by T+29 s; then the second
  // release's read, by half a renew deadline.
  assert.equal(time.now() - last, 29_000 + RENEW_DEADLINE / 2);
  assert.ok(took < 10_000, `took ${took} ms`);
  refusal.allow();
  a.gate.open();
});
