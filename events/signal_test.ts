// The recorder's signal stops it as stop() does, and the stop's bound.
import assert from "node:assert/strict";
import { FakeApiServer, installFakeTime } from "../testing/mod.ts";
import { EventDroppedError, EventWriteError, StopTimeoutError } from "./mod.ts";
import {
  about,
  failed,
  machine,
  pod,
  posts,
  setup,
  START,
} from "./_recorder_test_util.ts";
import { RETRY_WAIT } from "./_options.ts";
import { RECORDER_STOP_TIMEOUT } from "../_internal/stop_timeout.ts";

Deno.test("aborting the recorder's signal writes the queued Events before done, as stop() does", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer({ namespaceLifecycle: false });
  const controller = new AbortController();
  const { recorder, gate, logs } = setup(server, {
    signal: controller.signal,
  });
  gate.close();
  recorder.warning(machine, failed);
  recorder.normal({ ...machine, name: "m2" }, failed);
  recorder.normal(pod, { reason: "Created", message: "" });
  await time.settle();
  assert.equal(gate.held, 1, "the first write is in flight");
  let ended = false;
  void recorder.done.then(() => ended = true);
  controller.abort(new Error("SIGTERM"));
  // A post after the abort is dropped, as after stop().
  recorder.normal({ ...machine, name: "late" }, failed);
  await time.settle();
  assert.equal(ended, false, "done waits for the write in flight");
  assert.equal(gate.held, 1, "the write in flight was not cut off");
  gate.open();
  await recorder.done;
  assert.equal(time.now(), START, "no time passed");
  assert.equal(posts(server), 3);
  assert.equal(about(server, machine).length, 1);
  assert.equal(about(server, { kind: "Machine", name: "m2" }).length, 1);
  assert.equal(about(server, { kind: "Pod", name: "p1" }).length, 1);
  assert.equal(about(server, { kind: "Machine", name: "late" }).length, 0);
  assert.equal(logs.length, 1);
  assert.match(logs[0]!, /Machine late: the recorder has stopped$/);
  await recorder.stop(); // resolves: the stop is over
  assert.equal(time.countTimers(), 0, "the stop's bound was cleared");
});

Deno.test("the signal's stop is bounded by stopTimeout and reports its StopTimeoutError to onError", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const controller = new AbortController();
  const { recorder, gate, logs, errors } = setup(server, {
    signal: controller.signal,
    stopTimeout: 1_000,
  });
  gate.close();
  recorder.warning(machine, failed);
  recorder.normal(pod, { reason: "Created", message: "" });
  await time.settle();
  controller.abort();
  await time.tick(999);
  assert.equal(errors.length, 0);
  await time.tick(1);
  const error = errors[0];
  assert.ok(error instanceof StopTimeoutError);
  assert.equal(
    error.message,
    "The Event recorder test-operator did not finish stopping: its last write had not returned; queued Events not written: 1",
  );
  assert.match((error.cause as Error).message, /took longer than 1000 ms/);
  // The bound also ends the write in flight: no request outlives the stop
  // (it would have gone on until the client's 30 s request timeout).
  assert.equal(gate.held, 0, "the held write was aborted at the bound");
  await recorder.done;
  assert.equal(errors.length, 1, "the aborted write is not reported twice");
  gate.open();
  assert.equal(posts(server), 0, "nothing was sent after the bound");
  assert.match(
    logs.at(-1)!,
    /^"The stop ended before the queue was written" .*unwritten=1$/,
  );
});

Deno.test("stopTimeout bounds stop() without a timeout (and NaN); a stop's own timeout wins", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  for (const options of [undefined, { timeout: Number.NaN }]) {
    const { recorder, gate } = setup(server, { stopTimeout: 2_000 });
    gate.close();
    recorder.warning(machine, failed);
    await time.settle();
    let result: unknown = "pending";
    const outcome = (): unknown => result;
    const stopping = recorder.stop(options).catch((error) => result = error);
    await time.tick(1_999);
    assert.equal(outcome(), "pending");
    await time.tick(1);
    assert.ok(outcome() instanceof StopTimeoutError);
    await stopping;
    gate.open();
    await recorder.done;
  }
  const { recorder, gate } = setup(server, { stopTimeout: 2_000 });
  gate.close();
  recorder.warning(machine, failed);
  await time.settle();
  const stopping = recorder.stop({ timeout: RECORDER_STOP_TIMEOUT * 2 });
  const rejected = assert.rejects(stopping, StopTimeoutError);
  await time.tick(RECORDER_STOP_TIMEOUT * 2);
  await rejected;
  gate.open();
  await recorder.done;
});

Deno.test("aborting the signal gives up a write parked for a retry and writes the queue behind it once", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer({ namespaceLifecycle: false });
  const controller = new AbortController();
  const { recorder, errors } = setup(server, { signal: controller.signal });
  const refusal = server.refuse({
    method: "POST",
    path: /\/events$/,
    status: 503,
    count: 1,
  });
  recorder.warning(machine, failed);
  await time.settle(); // the first try failed; a retry waits 10 s
  recorder.normal(pod, { reason: "Created", message: "" });
  controller.abort();
  await recorder.done;
  assert.equal(time.now(), START, "the retry was not waited for");
  refusal.allow();
  assert.equal(errors.length, 1);
  assert.ok(errors[0] instanceof EventWriteError);
  assert.equal(errors[0].event.involvedObject.name, "m1");
  assert.equal(about(server, { kind: "Pod", name: "p1" }).length, 1);
  await time.tick(RETRY_WAIT);
  assert.equal(posts(server), 2, "nothing is sent after the stop");
});

Deno.test("an already aborted signal stops the recorder at once", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const { recorder, errors } = setup(server, { signal: AbortSignal.abort() });
  await recorder.done;
  recorder.warning(machine, failed);
  assert.ok(errors[0] instanceof EventDroppedError);
  assert.equal(errors[0].why, "stopped");
  await recorder.stop();
  assert.equal(server.requests.length, 0);
  assert.equal(time.now(), START);
});
