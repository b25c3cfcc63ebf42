// A Sharder's stop bounds its requests: a label write, a takeover of a gone
// member's Lease, or its own Lease request held when it stops is ended by
// the time the stop resolves, and nothing is sent after it.
import assert from "node:assert/strict";
import { Client } from "../apiclient/mod.ts";
import { describe } from "../_internal/errors.ts";
import { Gate, type GateMatch } from "../_internal/_gate_test_util.ts";
import { settledWithin } from "../_internal/_gate_test_util.ts";
import { FakeApiServer, installFakeTime } from "../testing/mod.ts";
import { MEMBER_LABEL, RING_LABEL, shardLabel } from "./labels.ts";
import { Sharder } from "./sharder.ts";
import { testLogger } from "../_internal/_log_test_util.ts";

const NS = "default";
const RING = "demo";
const CONFIGMAPS = { version: "v1", resource: "configmaps", kind: "ConfigMap" };
const START = Date.UTC(2030, 0, 1);

async function lease(
  client: Client,
  member: string,
  holder: string,
): Promise<void> {
  await client.create(`/apis/coordination.k8s.io/v1/namespaces/${NS}/leases`, {
    metadata: {
      name: `${RING}-${member}`,
      labels: { [RING_LABEL]: RING, [MEMBER_LABEL]: member },
    },
    spec: { holderIdentity: holder, leaseDurationSeconds: 30 },
  });
}

const cases: Record<string, GateMatch> = {
  // The label of a new object, for the one live member.
  "label write": (method, url) =>
    method === "PATCH" && url.pathname.includes("/configmaps/"),
  // An object of a member whose Lease names nobody: the takeover.
  "takeover": (method, url) =>
    method === "PUT" && url.pathname.endsWith(`/leases/${RING}-gone`),
  // The sharder's own Lease: its next renewal.
  "renewal": (method, url) =>
    method === "PUT" && url.pathname.endsWith(`/leases/${RING}-sharder`),
};

for (const [what, match] of Object.entries(cases)) {
  Deno.test(`a Sharder's stop ends its held ${what} by the time it resolves`, async () => {
    using time = installFakeTime({ now: START });
    await using server = new FakeApiServer();
    const plain = new Client(server.url, { fetch: server.fetch });
    await lease(plain, "live", "op-live_1");
    await lease(plain, "gone", "");
    const gate = new Gate(server.fetch);
    gate.close(match);
    const errors: string[] = [];
    const sharder = new Sharder(new Client(server.url, { fetch: gate.fetch }), {
      ring: RING,
      namespace: NS,
      for: CONFIGMAPS,
      pod: "op-a",
      exit: () => {},
      logger: testLogger({ onError: (error) => errors.push(describe(error)) }),
    });
    await sharder.lead.leading();
    await plain.create(`/api/v1/namespaces/${NS}/configmaps`, {
      metadata: {
        name: "cm",
        labels: what === "takeover" ? { [shardLabel(RING)]: "gone" } : {},
      },
    });
    while (gate.held === 0) await time.tick(100);
    assert.equal(gate.held, 1, `the ${what} is held`);
    const took = await settledWithin(time, sharder.stop(), 60_000);
    assert.deepEqual(gate.holding(), [], `no ${what} outlives the stop`);
    // The stop ends its own writes at once (not at the client's 30 s
    // timeout); its Lease's releases have their own bounds.
    if (what === "renewal") assert.equal(took, 15_000);
    else assert.ok(took <= 100, `took ${took} ms`);
    const arrived = gate.arrived;
    await time.tick(60_000);
    assert.equal(gate.arrived, arrived, "nothing is sent after the stop");
    // A request the stop ended is no failure; the releases (held too when
    // the Lease's writes are) report their bounds.
    assert.deepEqual(
      errors,
      what === "renewal"
        ? [
          "Releasing Lease default/demo-sharder: The release took longer than 10000 ms",
          "Releasing Lease default/demo-sharder: The second release took longer than 5000 ms",
        ]
        : [],
    );
    gate.open();
  });
}
