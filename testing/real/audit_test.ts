// The chaos judge on hand-written audit lines: order by resourceVersion,
// acquisitions, a late write of a deposed replica, the failover gap.
import assert from "node:assert/strict";
import { judge } from "./_audit.ts";

const NS = "n";

function line(
  user: string,
  rv: number,
  at: number,
  what: { lease?: string; verb?: string; code?: number; name?: string } = {},
): string {
  const lease = what.lease !== undefined;
  return JSON.stringify({
    stage: "ResponseComplete",
    verb: what.verb ?? (lease ? "update" : "patch"),
    user: { username: user },
    objectRef: {
      resource: lease ? "leases" : "configmaps",
      name: lease ? "greeting-operator" : (what.name ?? "c"),
      namespace: NS,
    },
    responseStatus: { code: what.code ?? 200 },
    responseObject: {
      metadata: { resourceVersion: String(rv) },
      ...(lease ? { spec: { holderIdentity: what.lease } } : {}),
    },
    stageTimestamp: new Date(at).toISOString(),
  });
}

Deno.test("the judge accepts writes of the holder, in resourceVersion order", () => {
  const judged = judge([
    line("replica-0", 10, 0, { lease: "replica-0-0" }),
    line("replica-0", 11, 1_000),
    line("replica-0", 12, 5_000, { lease: "replica-0-0" }),
    // Logged late (timestamps lie), ordered by rv: replica-1 acquires at 30.
    line("replica-1", 30, 40_000, { lease: "replica-1-0" }),
    line("replica-0", 20, 50_000),
    line("replica-1", 31, 41_000),
    // Refused and foreign writes do not count.
    line("replica-0", 32, 42_000, { code: 409 }),
    line("admin", 33, 42_000),
  ], NS);
  assert.deepEqual(judged.violations, []);
  assert.equal(judged.acquisitions, 2);
  assert.equal(judged.writes, 6);
  assert.equal(judged.worstFailoverMs, 35_000);
});

Deno.test("the judge reports a write accepted after another's acquisition", () => {
  const judged = judge([
    line("replica-0", 10, 0, { lease: "replica-0-0" }),
    line("replica-1", 30, 40_000, { lease: "replica-1-0" }),
    line("replica-0", 31, 39_000, { name: "late" }),
  ], NS);
  assert.equal(judged.violations.length, 1);
  assert.match(
    judged.violations[0]!,
    /replica-0 patch configmaps\/late at rv 31/,
  );
});

Deno.test("a write that changed nothing is not judged", () => {
  const judged = judge([
    line("replica-0", 10, 0, { lease: "replica-0-0" }),
    line("replica-0", 11, 1_000, { name: "same" }),
    line("replica-1", 30, 40_000, { lease: "replica-1-0" }),
    // replica-1's no-op apply answers the version replica-0 produced.
    line("replica-1", 11, 41_000, { name: "same" }),
  ], NS);
  assert.deepEqual(judged.violations, []);
  assert.equal(judged.noops, 1);
  assert.equal(judged.writes, 3);
});
