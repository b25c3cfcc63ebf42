import assert from "node:assert/strict";
import { FakeApiServer } from "./fake_server.ts";
import { installFakeTime, realSleep } from "./fake_time.ts";

Deno.test("installFakeTime sets the start time from a number or a Date", () => {
  {
    using time = installFakeTime({ now: 1_000 });
    assert.equal(Date.now(), 1_000);
    assert.equal(time.now(), 1_000);
  }
  {
    using time = installFakeTime({ now: new Date("2030-01-01T00:00:00Z") });
    assert.equal(new Date().toISOString(), "2030-01-01T00:00:00.000Z");
    assert.equal(time.now(), Date.UTC(2030, 0, 1));
  }
  using time = installFakeTime();
  assert.equal(time.now(), 0);
});

Deno.test("tick fires timers and intervals due on the way and moves Date", async () => {
  using time = installFakeTime({ now: 0 });
  const fired: number[] = [];
  setTimeout(() => fired.push(Date.now()), 1_500);
  const interval = setInterval(() => fired.push(Date.now()), 1_000);
  await time.tick(999);
  assert.deepEqual(fired, []);
  await time.tick(2_001);
  assert.deepEqual(fired, [1_000, 1_500, 2_000, 3_000]);
  assert.equal(Date.now(), 3_000);
  clearInterval(interval);
  assert.equal(time.countTimers(), 0);
});

Deno.test("tick lets promise chains started by a timer run before the next one", async () => {
  using time = installFakeTime();
  const steps: string[] = [];
  setTimeout(async () => {
    await Promise.resolve();
    await Promise.resolve();
    steps.push("chain of t=10 done");
  }, 10);
  setTimeout(() => steps.push("t=20"), 20);
  await time.tick(20);
  assert.deepEqual(steps, ["chain of t=10 done", "t=20"]);
});

Deno.test("queueMicrotask and performance stay real", async () => {
  using time = installFakeTime();
  let ran = false;
  queueMicrotask(() => ran = true);
  await Promise.resolve();
  assert.equal(ran, true, "queueMicrotask must not wait for the fake clock");
  const before = performance.now();
  await time.tick(60_000);
  assert.ok(performance.now() - before < 30_000, "performance.now moved");
});

Deno.test("settle runs microtasks and timers due now, never moving the clock", async () => {
  using time = installFakeTime({ now: 5_000 });
  const steps: string[] = [];
  // An in-memory exchange: a handler answering after a zero-delay timer and a
  // streamed body read by the caller.
  const handler = async (): Promise<Response> => {
    await new Promise((resolve) => setTimeout(resolve, 0));
    return new Response(
      new ReadableStream({
        start(controller): void {
          controller.enqueue(new TextEncoder().encode("ok"));
          setTimeout(() => controller.close(), 0);
        },
      }),
    );
  };
  handler().then((res) => res.text()).then((text) => {
    steps.push(text);
    setTimeout(() => steps.push("later"), 1);
  });
  await time.settle();
  assert.deepEqual(steps, ["ok"]);
  assert.equal(time.now(), 5_000);
  assert.equal(time.countTimers(), 1, "the 1 ms timer stays pending");
  await time.tick(1);
  assert.deepEqual(steps, ["ok", "later"]);
});

Deno.test("settle returns at once when nothing is pending", async () => {
  using time = installFakeTime();
  setTimeout(() => {}, 10_000);
  await time.settle();
  assert.equal(time.now(), 0);
  assert.equal(time.countTimers(), 1);
});

Deno.test("settle fails on a timer that keeps rescheduling itself for now", async () => {
  using time = installFakeTime();
  let handle: ReturnType<typeof setTimeout> | undefined;
  const loop = (): void => {
    handle = setTimeout(loop, 0);
  };
  loop();
  await assert.rejects(
    () => time.settle({ maxRounds: 50 }),
    /did not settle within 50 rounds/,
  );
  clearTimeout(handle);
});

Deno.test("runNext jumps to the next timer and fires it without running promises", async () => {
  using time = installFakeTime();
  const steps: string[] = [];
  setTimeout(() => {
    steps.push("timer");
    Promise.resolve().then(() => steps.push("microtask"));
  }, 3_000);
  setTimeout(() => steps.push("second"), 7_000);
  time.runNext();
  assert.deepEqual(steps, ["timer"]);
  assert.equal(time.now(), 3_000);
  await Promise.resolve();
  assert.deepEqual(steps, ["timer", "microtask"]);
  time.runNext();
  assert.equal(time.now(), 7_000);
  time.runNext(); // nothing pending: no effect
  assert.equal(time.now(), 7_000);
  assert.deepEqual(steps, ["timer", "microtask", "second"]);
});

Deno.test("next advances to the next timer only and lets promises run", async () => {
  using time = installFakeTime();
  const steps: string[] = [];
  setTimeout(() => steps.push("b"), 5_000);
  setTimeout(async () => {
    await Promise.resolve();
    steps.push("a");
  }, 1_000);
  await time.next();
  assert.deepEqual(steps, ["a"]);
  assert.equal(time.now(), 1_000);
  assert.equal(time.countTimers(), 1);
  await time.next();
  assert.deepEqual(steps, ["a", "b"]);
  assert.equal(time.now(), 5_000);
});

Deno.test("countTimers counts pending timeouts and intervals", () => {
  using time = installFakeTime();
  assert.equal(time.countTimers(), 0);
  const a = setTimeout(() => {}, 1);
  const b = setInterval(() => {}, 1);
  assert.equal(time.countTimers(), 2);
  clearTimeout(a);
  clearInterval(b);
  assert.equal(time.countTimers(), 0);
});

Deno.test("realSleep waits real time while the fake clock stands still", async () => {
  using time = installFakeTime({ now: 42 });
  const realStart = performance.now();
  await realSleep(20);
  assert.ok(performance.now() - realStart >= 15);
  assert.equal(time.now(), 42);
});

Deno.test("waitFor polls in real time and throws after its timeout", async () => {
  using time = installFakeTime();
  let ready = false;
  realSleep(10).then(() => ready = true);
  await time.waitFor(() => ready, { timeout: 2_000 });
  assert.equal(ready, true);
  await assert.rejects(
    () => time.waitFor(() => false, { timeout: 20 }),
    /Condition not met within 20 ms of real time/,
  );
  assert.equal(time.now(), 0);
});

Deno.test({
  name: "waitFor parks real-socket code on a fake timer before the tick",
  timeout: 10_000,
  async fn(): Promise<void> {
    await using server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen(): void {} },
      () => new Response("pong"),
    );
    using time = installFakeTime();
    const seen: Array<[string, number]> = [];
    const poller = (async () => {
      for (let i = 0; i < 2; i++) {
        const res = await fetch(`http://127.0.0.1:${server.addr.port}/`);
        seen.push([await res.text(), Date.now()]);
        await new Promise((resolve) => setTimeout(resolve, 300_000));
      }
    })();
    await time.waitFor(() => time.countTimers() > 0);
    assert.deepEqual(seen, [["pong", 0]]);
    await time.tick(300_000);
    await time.waitFor(() => time.countTimers() > 0);
    assert.deepEqual(seen, [["pong", 0], ["pong", 300_000]]);
    await time.tick(300_000);
    await poller;
  },
});

Deno.test("dispose puts the real timers back and allows a new install", () => {
  const realSetTimeout = globalThis.setTimeout;
  const realDate = globalThis.Date;
  const time = installFakeTime();
  assert.notEqual(globalThis.setTimeout, realSetTimeout);
  assert.notEqual(globalThis.Date, realDate);
  assert.throws(() => installFakeTime(), /twice/);
  time[Symbol.dispose]();
  time[Symbol.dispose](); // a second dispose is harmless
  assert.equal(globalThis.setTimeout, realSetTimeout);
  assert.equal(globalThis.Date, realDate);
  using again = installFakeTime({ now: 7 });
  assert.equal(again.now(), 7);
  assert.equal(Date.now(), 7);
});

Deno.test("settle completes an in-memory request to the fake server", async () => {
  await using server = new FakeApiServer();
  using time = installFakeTime({ now: 0 });
  let status = 0;
  let kind = "";
  server.fetch(`${server.url}/api/v1/namespaces/default/configmaps`)
    .then(async (res) => {
      status = res.status;
      kind = (await res.json()).kind;
    });
  await time.settle();
  assert.equal(status, 200);
  assert.equal(kind, "ConfigMapList");
  assert.equal(time.now(), 0);
});
