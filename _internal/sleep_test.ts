import assert from "node:assert/strict";
import { installFakeTime } from "../testing/fake_time.ts";
import { MAX_TIMER, sleep, within } from "./sleep.ts";

Deno.test("sleep ends with its time or its signal, and leaves no timer", async () => {
  using time = installFakeTime();
  const controller = new AbortController();
  let slept = false;
  const short = sleep(1_000, controller.signal).then((full) => slept = full);
  await time.tick(999);
  assert.equal(slept, false);
  await time.tick(1);
  await short;
  assert.equal(slept, true);
  const long = sleep(60_000, controller.signal);
  controller.abort();
  assert.equal(await long, false);
  assert.equal(time.countTimers(), 0);
  await sleep(10, controller.signal); // already aborted: at once
});

Deno.test("sleep past a timer's range waits the whole time, chained", async () => {
  using time = installFakeTime();
  let slept: boolean | undefined;
  // 1e9 s: one setTimeout of this length would fire at once.
  void sleep(1e12).then((full) => slept = full);
  await time.tick(MAX_TIMER + 1);
  assert.equal(slept, undefined);
  await time.tick(1e12 - MAX_TIMER - 1);
  assert.equal(slept, true);
  assert.equal(time.countTimers(), 0);
});

Deno.test("sleep of a negative or non-numeric time ends on the next turn", async () => {
  using time = installFakeTime();
  for (const ms of [-5, Number.NaN]) {
    let slept: boolean | undefined;
    void sleep(ms).then((full) => slept = full);
    await time.tick(0);
    assert.equal(slept, true);
  }
});

Deno.test("within answers whether the promise settled in time", async () => {
  using time = installFakeTime();
  const never = new Promise<void>(() => {});
  const late = within(never, 1_000);
  await time.tick(1_000);
  assert.equal(await late, false);
  assert.equal(await within(Promise.reject(new Error("no")), 1_000), true);
  assert.equal(time.countTimers(), 0);
});
