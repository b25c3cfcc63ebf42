// A Collection's stop and the shared Collections' stop bound their requests:
// a list or a watch held (or streaming) when they stop is ended by the time
// the stop resolves, and nothing is sent after it.
import assert from "node:assert/strict";
import { Client } from "../apiclient/mod.ts";
import { Gate, settledWithin } from "../_internal/_gate_test_util.ts";
import { FakeApiServer, installFakeTime } from "../testing/mod.ts";
import { Collection, Collections } from "./mod.ts";
import { testLogger } from "../_internal/_log_test_util.ts";

const CONFIGMAPS = { version: "v1", resource: "configmaps" };
const START = Date.UTC(2030, 0, 1);

async function seeded(): Promise<FakeApiServer> {
  const server = new FakeApiServer();
  const client = new Client(server.url, { fetch: server.fetch });
  await client.create("/api/v1/namespaces/default/configmaps", {
    metadata: { name: "a" },
  });
  return server;
}

/**
 * The fake's fetch, as a server without streaming lists answers (422 to
 * `sendInitialEvents`): the first read is a paged list.
 */
function withoutStreamingLists(inner: typeof fetch): typeof fetch {
  return (input, init) => {
    const url = new URL(input instanceof Request ? input.url : input);
    if (!url.searchParams.has("sendInitialEvents")) return inner(input, init);
    return Promise.resolve(Response.json({
      kind: "Status",
      apiVersion: "v1",
      status: "Failure",
      reason: "Invalid",
      code: 422,
      message: "sendInitialEvents is forbidden for watch",
    }, { status: 422 }));
  };
}

for (const first of ["streaming list", "paged list"] as const) {
  Deno.test(`a Collection's stop ends its held first read (${first}) by the time it resolves`, async () => {
    using time = installFakeTime({ now: START });
    await using server = await seeded();
    const gate = new Gate(server.fetch);
    const fetch = first === "paged list"
      ? withoutStreamingLists(gate.fetch)
      : gate.fetch;
    gate.close((_, url) =>
      url.searchParams.has("watch") === (first === "streaming list")
    );
    const errors: unknown[] = [];
    const collection = new Collection(
      new Client(server.url, { fetch }),
      CONFIGMAPS,
      { logger: testLogger({ onError: (error) => errors.push(error) }) },
    );
    await time.tick(0);
    assert.equal(gate.held, 1, "the first read is held");
    await settledWithin(time, collection.stop(), 1_000);
    assert.deepEqual(gate.holding(), [], "no read outlives the stop");
    const arrived = gate.arrived;
    await time.tick(60_000);
    assert.equal(gate.arrived, arrived, "nothing is sent after the stop");
    assert.deepEqual(errors, [], "a read the stop ended is no failure");
    gate.open();
  });
}

Deno.test("a Collection's stop ends its held watch and its open watch stream by the time it resolves", async () => {
  using time = installFakeTime({ now: START });
  await using server = await seeded();
  for (const at of ["held", "streaming"] as const) {
    const gate = new Gate(server.fetch);
    const collection = new Collection(
      new Client(server.url, { fetch: gate.fetch }),
      CONFIGMAPS,
    );
    while (!collection.synced()) await time.tick(10);
    assert.equal(server.openWatches, 1, "the watch streams");
    if (at === "held") {
      // The watch is cut; the one opened again is held.
      gate.close();
      server.cutWatches();
      while (gate.held === 0) await time.tick(100);
      assert.equal(server.openWatches, 0);
    }
    await settledWithin(time, collection.stop(), 1_000);
    assert.deepEqual(gate.holding(), [], `${at}: nothing outlives the stop`);
    assert.equal(server.openWatches, 0, `${at}: the watch stream ended`);
    gate.open();
  }
});

Deno.test("the shared Collections' stop ends a held read by the time it resolves, as a registration's last stop does", async () => {
  using time = installFakeTime({ now: START });
  await using server = await seeded();
  for (const how of ["collections", "registration"] as const) {
    const gate = new Gate(server.fetch);
    gate.close();
    const collections = new Collections(
      new Client(server.url, { fetch: gate.fetch }),
    );
    const one = collections.register(CONFIGMAPS);
    const two = collections.register(CONFIGMAPS);
    await time.tick(0);
    assert.equal(gate.held, 1, "one shared read, held");
    if (how === "registration") {
      await settledWithin(time, one.stop(), 1_000);
      assert.equal(gate.held, 1, "another registration keeps the read");
      await settledWithin(time, two.stop(), 1_000);
    } else {
      await settledWithin(time, collections.stop(), 1_000);
    }
    assert.deepEqual(gate.holding(), [], `${how}: no read outlives the stop`);
    const arrived = gate.arrived;
    await time.tick(60_000);
    assert.equal(gate.arrived, arrived, `${how}: nothing sent after the stop`);
    await collections.stop();
    gate.open();
  }
});
