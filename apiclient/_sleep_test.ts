import assert from "node:assert/strict";
import { installFakeTime } from "../testing/fake_time.ts";
import { sleep } from "./_sleep.ts";

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
