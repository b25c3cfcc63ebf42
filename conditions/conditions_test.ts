import assert from "node:assert/strict";
import { type Condition, find, set } from "./mod.ts";
import { installFakeTime } from "../testing/fake_time.ts";

async function withClock(
  now: string,
  fn: (tick: (ms: number) => Promise<void>) => void | Promise<void>,
): Promise<void> {
  using time = installFakeTime({ now: new Date(now) });
  await fn((ms) => time.tick(ms));
}

Deno.test("set appends a new condition with the present time cut to the second", async () => {
  await withClock("2026-12-02T10:00:00.750Z", () => {
    const list: Condition[] = [];
    const transitioned = set(list, {
      type: "Ready",
      status: "True",
      reason: "Serving",
      message: "ok",
    });
    assert.equal(transitioned, true);
    assert.deepEqual(list, [{
      type: "Ready",
      status: "True",
      reason: "Serving",
      message: "ok",
      lastTransitionTime: "2026-12-02T10:00:00Z",
    }]);
  });
});

Deno.test("set keeps the transition time when only the message changes", async () => {
  await withClock("2026-12-02T10:00:00Z", async (tick) => {
    const list: Condition[] = [];
    set(list, { type: "Ready", status: "False", reason: "Wait", message: "1" });
    await tick(60_000);
    const transitioned = set(list, {
      type: "Ready",
      status: "False",
      reason: "Wait",
      message: "2",
      observedGeneration: 4,
    });
    assert.equal(transitioned, false);
    assert.equal(list.length, 1);
    assert.equal(list[0]?.message, "2");
    assert.equal(list[0]?.observedGeneration, 4);
    assert.equal(list[0]?.lastTransitionTime, "2026-12-02T10:00:00Z");
  });
});

Deno.test("set: a new reason transitions but keeps the time of the unchanged status", async () => {
  await withClock("2026-12-02T10:00:00Z", async (tick) => {
    const list: Condition[] = [];
    set(list, { type: "Ready", status: "False", reason: "A", message: "" });
    await tick(5_000);
    assert.equal(
      set(list, { type: "Ready", status: "False", reason: "B", message: "" }),
      true,
    );
    assert.equal(list[0]?.lastTransitionTime, "2026-12-02T10:00:00Z");
    assert.equal(list[0]?.reason, "B");
  });
});

Deno.test("set moves the transition time when the status changes", async () => {
  await withClock("2026-12-02T10:00:00Z", async (tick) => {
    const list: Condition[] = [];
    set(list, { type: "Ready", status: "False", reason: "A", message: "" });
    await tick(90_500);
    assert.equal(
      set(list, { type: "Ready", status: "True", reason: "A", message: "" }),
      true,
    );
    assert.equal(list[0]?.lastTransitionTime, "2026-12-02T10:01:30Z");
  });
});

Deno.test("set takes the caller's transition time when the status changes", () => {
  const list: Condition[] = [{
    type: "Ready",
    status: "False",
    reason: "A",
    message: "",
    lastTransitionTime: "2020-01-01T00:00:00Z",
  }];
  set(list, {
    type: "Ready",
    status: "True",
    reason: "A",
    message: "",
    lastTransitionTime: "2021-01-01T00:00:00Z",
  });
  assert.equal(list[0]?.lastTransitionTime, "2021-01-01T00:00:00Z");
  // The same status with another stated time keeps the held time.
  set(list, {
    type: "Ready",
    status: "True",
    reason: "A",
    message: "",
    lastTransitionTime: "2022-01-01T00:00:00Z",
  });
  assert.equal(list[0]?.lastTransitionTime, "2021-01-01T00:00:00Z");
});

Deno.test("set replaces only the condition of its type", () => {
  const list: Condition[] = [];
  set(list, { type: "Ready", status: "True", reason: "A", message: "" });
  set(list, { type: "Degraded", status: "False", reason: "B", message: "" });
  set(list, { type: "Ready", status: "False", reason: "C", message: "" });
  assert.deepEqual(list.map((c) => [c.type, c.status]), [
    ["Ready", "False"],
    ["Degraded", "False"],
  ]);
});

Deno.test("find answers the condition of a type or undefined", () => {
  const list: Condition[] = [
    { type: "A", status: "True", reason: "r", message: "" },
    { type: "B", status: "Unknown", reason: "r", message: "" },
  ];
  assert.equal(find(list, "B")?.status, "Unknown");
  assert.equal(find(list, "C"), undefined);
  assert.equal(find(undefined, "A"), undefined);
});

Deno.test("set gives a held condition without a time one, even when its status stays", async () => {
  await withClock("2026-12-02T10:00:00.400Z", () => {
    const list: Condition[] = [{
      type: "Ready",
      status: "True",
      reason: "A",
      message: "",
    }];
    assert.equal(
      set(list, { type: "Ready", status: "True", reason: "A", message: "x" }),
      false,
    );
    assert.equal(list[0]?.lastTransitionTime, "2026-12-02T10:00:00Z");
  });
});

Deno.test("set stores a copy: the caller's condition is not changed or shared", () => {
  const list: Condition[] = [];
  const next: Condition = {
    type: "Ready",
    status: "True",
    reason: "A",
    message: "",
  };
  set(list, next);
  assert.equal(next.lastTransitionTime, undefined);
  assert.notEqual(list[0], next);
  next.status = "False";
  assert.equal(list[0]?.status, "True");
});
