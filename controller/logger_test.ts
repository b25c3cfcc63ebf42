// The reconcile context's logger carries the object, the pass and the
// attempt, as controller-runtime's request logger does; a failed pass is a
// "Reconciler error" line on it, with the ReconcileError as its err.
import assert from "node:assert/strict";
import { Client } from "../apiclient/mod.ts";
import { type LogRecord, sinkLogger } from "../log/mod.ts";
import { FakeApiServer, installFakeTime } from "../testing/mod.ts";
import { Controller, ReconcileError } from "./mod.ts";

const CONFIGMAPS = { version: "v1", resource: "configmaps", kind: "ConfigMap" };

Deno.test("the reconcile context's logger names the controller, the object, the pass and the attempt", async () => {
  using time = installFakeTime({ now: Date.parse("2030-01-01T00:00:00Z") });
  await using server = new FakeApiServer({ freshCluster: false });
  const client = new Client(server.url, { fetch: server.fetch });
  await client.create("/api/v1/namespaces/default/configmaps", {
    metadata: { name: "a" },
  });
  const records: LogRecord[] = [];
  let passes = 0;
  await using controller = new Controller(client, {
    name: "mirror",
    for: CONFIGMAPS,
    reconcile: ({ logger, retries }) => {
      passes++;
      logger.info("Reconciling", { retries });
      logger.v(1).info("Not written at verbosity 0");
      if (passes < 3) throw new Error(`pass ${passes} failed`);
    },
    logger: sinkLogger((record) => records.push(record)),
  });
  await time.settle();
  await controller.idle();
  await time.tick(1_000); // the backoff's retries
  await controller.idle();
  assert.equal(passes, 3);
  const mine = records.filter((r) => r.fields.name === "a");
  assert.deepEqual(
    mine.map((r) => [r.msg, r.fields.attempt, r.fields.retries]),
    [
      ["Reconciling", 1, 0],
      ["Reconciler error", 1, undefined],
      ["Reconciling", 2, 1],
      ["Reconciler error", 2, undefined],
      ["Reconciling", 3, 2],
    ],
  );
  for (const record of mine) {
    assert.equal(record.fields.controller, "mirror");
    assert.equal(record.fields.namespace, "default");
    assert.match(String(record.fields.reconcileID), /^[0-9a-f-]{36}$/);
  }
  // One id per pass: a pass's lines share it, the next pass has its own.
  const ids = mine.map((r) => r.fields.reconcileID);
  assert.equal(ids[0], ids[1]);
  assert.equal(new Set(ids).size, 3);
  // The error keeps its class and cause; the caller is the controller.
  const failed = mine[1]!;
  assert.equal(failed.v, undefined);
  assert.ok(failed.err instanceof ReconcileError);
  assert.equal((failed.err.cause as Error).message, "pass 1 failed");
  assert.match(failed.caller!, /^controller\/controller\.ts:\d+$/);
  assert.match(mine[0]!.caller!, /^controller\/logger_test\.ts:\d+$/);
});

Deno.test("a cluster-scoped object's reconcile logger has no namespace field", async () => {
  using time = installFakeTime({ now: Date.parse("2030-01-01T00:00:00Z") });
  await using server = new FakeApiServer();
  const client = new Client(server.url, { fetch: server.fetch });
  await client.create("/api/v1/namespaces", { metadata: { name: "team" } });
  const records: LogRecord[] = [];
  await using controller = new Controller(client, {
    name: "namespaces",
    for: {
      version: "v1",
      resource: "namespaces",
      kind: "Namespace",
      namespaced: false,
    },
    reconcile: ({ logger }) => logger.info("Seen"),
    logger: sinkLogger((record) => records.push(record)),
  });
  await time.settle();
  await controller.idle();
  const seen = records.find((r) =>
    r.msg === "Seen" && r.fields.name === "team"
  );
  assert.ok(seen, JSON.stringify(records.map((r) => r.msg)));
  assert.equal("namespace" in seen.fields, false);
  assert.equal(seen.fields.attempt, 1);
});
