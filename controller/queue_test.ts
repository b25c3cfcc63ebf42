import assert from "node:assert/strict";
import { installFakeTime } from "../testing/mod.ts";
import { StopTimeoutError } from "../_internal/stop_timeout.ts";
import { WorkQueue } from "./queue.ts";
import { MAX_ADD_AFTER } from "./_defaults.ts";

/** Takes and finishes every queued key. */
async function drain(queue: WorkQueue): Promise<string[]> {
  const keys: string[] = [];
  while (queue.length > 0) keys.push((await queue.take())!);
  for (const key of keys) queue.finish(key);
  return keys;
}

Deno.test("a key waits in the queue at most once, in the order first added", async () => {
  await using queue = new WorkQueue();
  queue.add("a");
  queue.add("b");
  queue.add("a");
  assert.equal(queue.length, 2);
  assert.deepEqual(await drain(queue), ["a", "b"]);
});

Deno.test("a key added while it is worked on is not handed out twice, and runs once more after finish", async () => {
  await using queue = new WorkQueue();
  queue.add("a");
  assert.equal(await queue.take(), "a");
  queue.add("a");
  queue.add("a");
  assert.equal(queue.length, 0);
  const second = queue.take();
  let taken: string | undefined = "none";
  void second.then((key) => taken = key);
  await Promise.resolve();
  assert.equal(taken, "none");
  queue.finish("a");
  assert.equal(await second, "a");
  queue.finish("a");
  assert.equal(queue.length, 0);
  assert.equal(queue.working, 0);
});

Deno.test("a waiting taker gets the next key added", async () => {
  await using queue = new WorkQueue();
  const first = queue.take();
  const second = queue.take();
  queue.add("x");
  queue.add("y");
  assert.equal(await first, "x");
  assert.equal(await second, "y");
  assert.equal(queue.working, 2);
  queue.finish("x");
  queue.finish("y");
  assert.equal(queue.working, 0);
});

Deno.test("take ends with undefined when its signal aborts", async () => {
  await using queue = new WorkQueue();
  const controller = new AbortController();
  const taking = queue.take({ signal: controller.signal });
  controller.abort();
  assert.equal(await taking, undefined);
  // The aborted taker does not swallow the next key.
  queue.add("a");
  assert.equal(queue.length, 1);
});

Deno.test("addAfter queues at the due time; the earliest time wins", async () => {
  using time = installFakeTime();
  await using queue = new WorkQueue();
  queue.addAfter("a", 1_000);
  queue.addAfter("a", 5_000); // later: ignored
  queue.addAfter("b", 2_000);
  queue.addAfter("b", 500); // earlier: wins
  await time.tick(499);
  assert.equal(queue.length, 0);
  await time.tick(1);
  assert.deepEqual(await drain(queue), ["b"]);
  await time.tick(500);
  assert.deepEqual(await drain(queue), ["a"]);
  await time.tick(10_000);
  assert.equal(queue.length, 0);
  assert.equal(time.countTimers(), 0);
});

Deno.test("addAfter with no delay, a negative one or NaN queues at once; a huge one is cut to the maximum", async () => {
  using time = installFakeTime();
  await using queue = new WorkQueue();
  queue.addAfter("zero", 0);
  queue.addAfter("negative", -5);
  queue.addAfter("nan", NaN);
  assert.deepEqual(await drain(queue), ["zero", "negative", "nan"]);
  queue.addAfter("huge", 1e12);
  await time.tick(MAX_ADD_AFTER - 1);
  assert.equal(queue.length, 0);
  await time.tick(1);
  assert.deepEqual(await drain(queue), ["huge"]);
});

Deno.test("retry backs off per key: 5 ms doubling, capped, and forget resets it", async () => {
  using time = installFakeTime();
  await using queue = new WorkQueue({ qps: Infinity, maxDelay: 40 });
  const delays: number[] = [];
  for (let i = 0; i < 6; i++) delays.push(queue.retry("a"));
  assert.deepEqual(delays, [5, 10, 20, 40, 40, 40]);
  assert.equal(queue.retries("a"), 6);
  assert.equal(queue.retry("b"), 5);
  queue.forget("a");
  assert.equal(queue.retries("a"), 0);
  assert.equal(queue.retry("a"), 5);
  await time.tick(5);
  assert.deepEqual((await drain(queue)).sort(), ["a", "b"]);
});

Deno.test("the default backoff caps at 1,000 s and survives thousands of failures", () => {
  using _time = installFakeTime();
  const queue = new WorkQueue({ qps: Infinity });
  let last = 0;
  for (let i = 0; i < 3_000; i++) last = queue.retry("a");
  assert.equal(last, 1_000_000);
  void queue.stop();
});

Deno.test("retries over all keys are held to the rate after the burst", async () => {
  using time = installFakeTime();
  await using queue = new WorkQueue({ qps: 10, burst: 3 });
  const delays = ["a", "b", "c", "d", "e"].map((key) => queue.retry(key));
  // Three from the burst at their own 5 ms; then one token per 100 ms.
  assert.deepEqual(delays, [5, 5, 5, 100, 200]);
  await time.tick(1_000);
  // The bucket refilled: the next retry is back to its own backoff.
  assert.equal(queue.retry("f"), 5);
});

Deno.test("stop hands out nothing more, drops delayed keys, and waits for the keys in work", async () => {
  using time = installFakeTime();
  const queue = new WorkQueue();
  queue.add("a");
  queue.add("b");
  queue.addAfter("c", 1_000);
  const waiting = new WorkQueue();
  const parked = waiting.take();
  assert.equal(await queue.take(), "a");
  let stopped = false;
  const stopping = queue.stop().then(() => stopped = true);
  assert.equal(await queue.take(), undefined);
  queue.add("d");
  assert.equal(queue.length, 0);
  await time.tick(2_000);
  assert.equal(queue.length, 0);
  assert.equal(stopped, false);
  queue.finish("a");
  await stopping;
  assert.equal(stopped, true);
  await queue.done;
  await waiting.stop();
  assert.equal(await parked, undefined);
  assert.equal(time.countTimers(), 0);
});

Deno.test("stop rejects with StopTimeoutError naming the keys still in work at its bound", async () => {
  using time = installFakeTime();
  const queue = new WorkQueue();
  queue.add("slow");
  await queue.take();
  const stopping = queue.stop({ timeout: 1_000 });
  const checked = assert.rejects(stopping, (error: unknown) => {
    assert.ok(error instanceof StopTimeoutError);
    assert.match(
      error.message,
      /The work queue did not finish stopping: 1 key\(s\) still being worked on: slow/,
    );
    return true;
  });
  await time.tick(1_000);
  await checked;
  queue.finish("slow");
  await queue.done;
});

Deno.test("stop's signal ends its wait as the bound does, with the signal's reason as cause", async () => {
  using _time = installFakeTime();
  const queue = new WorkQueue();
  queue.add("slow");
  await queue.take();
  const grace = new AbortController();
  const stopping = queue.stop({ signal: grace.signal, timeout: Infinity });
  const reason = new Error("Grace period over");
  grace.abort(reason);
  await assert.rejects(stopping, (error: unknown) => {
    assert.ok(error instanceof StopTimeoutError);
    assert.equal(error.cause, reason);
    return true;
  });
  queue.finish("slow");
  await queue.done;
});

Deno.test("hostile options are bounded", async () => {
  using time = installFakeTime();
  await using queue = new WorkQueue({
    baseDelay: -1,
    maxDelay: NaN,
    qps: 0,
    burst: -3,
  });
  // baseDelay at least 1 ms; maxDelay at least baseDelay; a rate of at
  // least 0.001/s and a burst of at least one.
  assert.equal(queue.retry("a"), 1);
  const second = queue.retry("b");
  assert.ok(second > 0 && second <= 1_000_000, `${second}`);
  await time.tick(1);
  assert.deepEqual(await drain(queue), ["a"]);
});

Deno.test("an observer hears adds, takes with their wait, finishes with their work time, and retries; unfinished work is timed", async () => {
  using time = installFakeTime();
  const heard: string[] = [];
  await using queue = new WorkQueue({
    qps: Infinity,
    observer: {
      added: (depth) => void heard.push(`added ${depth}`),
      taken: (waited, depth) => void heard.push(`taken ${waited} ${depth}`),
      finished: (worked) => void heard.push(`finished ${worked}`),
      retried: () => void heard.push("retried"),
    },
  });
  queue.add("a");
  queue.add("b");
  await time.tick(2_000);
  assert.equal(await queue.take(), "a");
  await time.tick(3_000);
  assert.deepEqual(queue.unfinished(), { seconds: 3, longest: 3 });
  assert.equal(await queue.take(), "b");
  await time.tick(1_000);
  assert.deepEqual(queue.unfinished(), { seconds: 5, longest: 4 });
  queue.finish("a");
  queue.retry("b");
  queue.finish("b");
  assert.deepEqual(heard, [
    "added 1",
    "added 2",
    "taken 2 1",
    "taken 5 0",
    "finished 4",
    "retried",
    "finished 1",
  ]);
  assert.deepEqual(queue.unfinished(), { seconds: 0, longest: 0 });
});
