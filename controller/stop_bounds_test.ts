// A Controller's and a Manager's stop bound their requests: a Lease write,
// a reconcile's request through context.client, or an Event write held when
// they stop is ended by the time the stop resolves.
import assert from "node:assert/strict";
import { Client } from "../apiclient/mod.ts";
import type { KubeObject } from "../apiclient/types.ts";
import { describe } from "../_internal/errors.ts";
import {
  Gate,
  type GateMatch,
  settledWithin,
} from "../_internal/_gate_test_util.ts";
import { Lead, RETRY_PERIOD } from "../election/mod.ts";
import { memberLeaseName } from "../shard/mod.ts";
import { FakeApiServer, installFakeTime } from "../testing/mod.ts";
import {
  Controller,
  type ControllerOptions,
  Manager,
  type ReconcileContext,
} from "./mod.ts";
import { testLogger } from "../_internal/_log_test_util.ts";

const START = Date.UTC(2030, 0, 1);
const CONFIGMAPS = { version: "v1", resource: "configmaps", kind: "ConfigMap" };
const LEASE = { namespace: "default", name: "op" };
const STOP_TIMEOUT = 1_000;

type Held =
  | "Lease write"
  | "reconcile request"
  | "reconcile request sent without its signal"
  | "Event write";

const matches: Record<Held, GateMatch> = {
  "Lease write": (method, url) =>
    method === "PUT" && url.pathname.includes("/leases/"),
  "reconcile request": (method, url) =>
    method === "POST" && url.pathname.endsWith("/secrets"),
  "reconcile request sent without its signal": (method, url) =>
    method === "POST" && url.pathname.endsWith("/secrets"),
  "Event write": (method, url) =>
    method === "POST" && url.pathname.endsWith("/events"),
};

/** A reconcile that sends what the case holds, through its context. */
function reconcile(
  held: Held,
): (context: ReconcileContext<KubeObject>) => Promise<void> {
  return async (context: ReconcileContext<KubeObject>): Promise<void> => {
    if (held === "reconcile request") {
      await context.client.create("/api/v1/namespaces/default/secrets", {
        metadata: { name: `of-${context.ref.name}` },
      }, { signal: context.signal });
    } else if (held === "reconcile request sent without its signal") {
      // The reconcile's client ends it when the stop's bound passes.
      await context.client.resource({ version: "v1", resource: "secrets" })
        .namespace("default").create({
          metadata: { name: `of-${context.ref.name}` },
        });
    } else if (held === "Event write") {
      context.normal({ reason: "Seen", message: "seen" });
    }
  };
}

interface Setup {
  server: FakeApiServer;
  gate: Gate;
  client: Client;
  errors: string[];
}

async function setup(): Promise<Setup> {
  const server = new FakeApiServer();
  await new Client(server.url, { fetch: server.fetch }).create(
    "/api/v1/namespaces/default/configmaps",
    { metadata: { name: "a" } },
  );
  const gate = new Gate(server.fetch);
  const client = new Client(server.url, { fetch: gate.fetch });
  return { server, gate, client, errors: [] };
}

/** Ticks until the gate holds a request (the renewal is 5 s away). */
async function held(
  time: { tick(ms: number): Promise<void> },
  gate: Gate,
): Promise<void> {
  for (let waited = 0; gate.held === 0; waited += 100) {
    if (waited > 2 * RETRY_PERIOD) throw new Error("Nothing was held");
    await time.tick(100);
  }
}

const MANAGER: readonly Held[] = [
  "Lease write",
  "reconcile request",
  "reconcile request sent without its signal",
  "Event write",
];

for (const what of Object.keys(matches) as Held[]) {
  Deno.test(`a Controller's stop ends its held ${what} by the time it resolves`, async () => {
    using time = installFakeTime({ now: START });
    const { server, gate, client, errors } = await setup();
    await using _server = server;
    const lead = new Lead(client, {
      lease: LEASE,
      pod: "op-a",
      exit: () => {},
      logger: testLogger({ onError: (error) => errors.push(describe(error)) }),
    });
    await lead.leading();
    gate.close(matches[what]);
    const options: ControllerOptions<KubeObject> = {
      name: "demo",
      for: CONFIGMAPS,
      wiring: {
        lead,
        events: { instance: "pod-a" },
      },
      stopTimeout: STOP_TIMEOUT,
      logger: testLogger({ onError: (error) => errors.push(describe(error)) }),
      reconcile: reconcile(what),
    };
    const controller = new Controller(client, options);
    await held(time, gate);
    assert.equal(gate.held, 1, `the ${what} is held`);
    await settledWithin(time, controller.stop(), 120_000);
    assert.deepEqual(gate.holding(), [], `no ${what} outlives the stop`);
    const arrived = gate.arrived;
    await time.tick(60_000);
    assert.equal(gate.arrived, arrived, "nothing is sent after the stop");
    gate.open();
  });
}

for (const what of MANAGER) {
  Deno.test(`a Manager's stop ends its held ${what} by the time it resolves`, async () => {
    using time = installFakeTime({ now: START });
    const { server, gate, client, errors } = await setup();
    await using _server = server;
    const manager = new Manager(client, {
      controllers: [{
        name: "demo",
        for: CONFIGMAPS,
        wiring: {
          events: { instance: "pod-a" },
        },
        reconcile: reconcile(what),
      }],
      election: { lease: LEASE, pod: "op-a", exit: () => {} },
      stopTimeout: STOP_TIMEOUT,
      logger: testLogger({ onError: (error) => errors.push(describe(error)) }),
    });
    await manager.lead!.leading();
    gate.close(matches[what]);
    await held(time, gate);
    assert.equal(gate.held, 1, `the ${what} is held`);
    await settledWithin(time, manager.stop(), 120_000);
    assert.deepEqual(gate.holding(), [], `no ${what} outlives the stop`);
    const arrived = gate.arrived;
    await time.tick(60_000);
    assert.equal(gate.arrived, arrived, "nothing is sent after the stop");
    gate.open();
  });
}

// A member's Lease (a sharded controller's election) is stopped with its
// controller. (In a Manager with `shards` it is not bounded yet: the stop
// resolves at stopTimeout + 1 s with the member's release still in flight.)
Deno.test("a sharded Controller's stop ends its member Lease's held renewal and releases by the time it resolves", async () => {
  using time = installFakeTime({ now: START });
  const { server, gate, client, errors } = await setup();
  await using _server = server;
  const member = memberLeaseName("demo", "op-a");
  const controller = new Controller(client, {
    name: "demo",
    for: CONFIGMAPS,
    stopTimeout: STOP_TIMEOUT,
    wiring: {
      shards: {
        ring: "demo",
        namespace: "default",
        identity: "op-a",
        exit: () => {},
      },
    },
    logger: testLogger({ onError: (error) => errors.push(describe(error)) }),
    reconcile: () => {},
  });
  await time.tick(0);
  assert.ok(server.leaseHolder("default", member), "the member leads");
  gate.close((method, url) =>
    method === "PUT" && url.pathname.endsWith(`/leases/${member}`)
  );
  await held(time, gate);
  await settledWithin(time, controller.stop(), 120_000);
  assert.deepEqual(gate.holding(), [], "no Lease write outlives the stop");
  // The renewal, the release and the second release's write, each ended.
  assert.equal(gate.log.length, 3);
  const arrived = gate.arrived;
  await time.tick(60_000);
  assert.equal(gate.arrived, arrived, "nothing is sent after the stop");
  gate.open();
});

Deno.test("a Manager with shards ends its member Lease's held renewal and releases by the time its stop resolves", async () => {
  using time = installFakeTime({ now: START });
  const { server, gate, client, errors } = await setup();
  await using _server = server;
  const member = memberLeaseName("demo", "op-a");
  const manager = new Manager(client, {
    controllers: [{ name: "demo", for: CONFIGMAPS, reconcile: () => {} }],
    shards: { namespace: "default", identity: "op-a", exit: () => {} },
    stopTimeout: STOP_TIMEOUT,
    logger: testLogger({ onError: (error) => errors.push(describe(error)) }),
  });
  for (let i = 0; i < 50 && !server.leaseHolder("default", member); i++) {
    await time.tick(100);
  }
  assert.ok(server.leaseHolder("default", member), "the member leads");
  gate.close((method, url) =>
    method === "PUT" && url.pathname.endsWith(`/leases/${member}`)
  );
  await held(time, gate);
  const took = await settledWithin(time, manager.stop(), 120_000);
  // Within the manager's bound (stopTimeout and a second's grace), not the
  // member's own release bounds (up to 15 s).
  assert.ok(took <= STOP_TIMEOUT + 1_000 + 200, `the stop took ${took} ms`);
  assert.deepEqual(gate.holding(), [], "no Lease write outlives the stop");
  const arrived = gate.arrived;
  await time.tick(60_000);
  assert.equal(gate.arrived, arrived, "nothing is sent after the stop");
  gate.open();
});
