import { microTime } from "../_internal/time.ts";
import assert from "node:assert/strict";
import { parseMicroTime, recordOf, withRecord } from "./_lease.ts";

Deno.test("parseMicroTime reads micro, milli and whole seconds", () => {
  const ms = Date.UTC(2026, 11, 2, 11, 38, 29, 123);
  assert.equal(parseMicroTime("2026-12-02T11:38:29.123456Z"), ms);
  assert.equal(parseMicroTime("2026-12-02T11:38:29.123Z"), ms);
  assert.equal(parseMicroTime("2026-12-02T11:38:29Z"), ms - 123);
  assert.equal(parseMicroTime("2026-12-02T12:38:29.123456+01:00"), ms);
  assert.equal(parseMicroTime(microTime(ms)), ms);
  // Absent or unreadable reads as Go's zero time: long expired.
  assert.equal(parseMicroTime(undefined), 0);
  assert.equal(parseMicroTime("yesterday"), 0);
});

Deno.test("recordOf reads absent fields as empty and zero", () => {
  assert.deepEqual(recordOf({ metadata: {} }), {
    holderIdentity: "",
    leaseDurationSeconds: 0,
    acquireTime: "",
    renewTime: "",
    leaseTransitions: 0,
  });
  const lease = {
    metadata: { name: "a", resourceVersion: "7" },
    spec: {
      holderIdentity: "p_1",
      leaseDurationSeconds: 30,
      acquireTime: "2026-12-02T11:38:29.123456Z",
      renewTime: "2026-12-02T11:38:30.000000Z",
      leaseTransitions: 2,
    },
  };
  assert.deepEqual(recordOf(lease), lease.spec);
});

Deno.test("withRecord keeps metadata and unknown spec fields", () => {
  const lease = {
    metadata: { name: "a", resourceVersion: "7" },
    spec: { holderIdentity: "x", strategy: "OldestEmulationVersion" },
  };
  const written = withRecord(lease, {
    holderIdentity: "p_1",
    leaseDurationSeconds: 30,
    acquireTime: "",
    renewTime: "2026-12-02T11:38:30.000000Z",
    leaseTransitions: 1,
  });
  assert.equal(written.metadata.resourceVersion, "7");
  assert.deepEqual(written.spec, {
    holderIdentity: "p_1",
    leaseDurationSeconds: 30,
    renewTime: "2026-12-02T11:38:30.000000Z",
    leaseTransitions: 1,
    strategy: "OldestEmulationVersion",
  });
  assert.equal(lease.spec.holderIdentity, "x", "the input is not changed");
});
