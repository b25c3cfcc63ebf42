import assert from "node:assert/strict";
import { flush } from "./_test_util.ts";
import { Versions } from "./versions.ts";
import { KeyedQueue } from "./_queue.ts";

Deno.test("current: an object never noted is current at any version", () => {
  const versions = new Versions();
  assert.equal(versions.current("a", "1"), true);
  assert.equal(versions.current("a", ""), true);
  assert.equal(versions.noted("a"), false);
});

Deno.test("current: a noted object is current only at the noted version", () => {
  const versions = new Versions();
  versions.note("ns/a", "5");
  assert.equal(versions.current("ns/a", "5"), true);
  // Versions compare only for equality: a "higher" one is not current.
  assert.equal(versions.current("ns/a", "6"), false);
  assert.equal(versions.current("ns/a", "4"), false);
  versions.note("ns/a", "7");
  assert.equal(versions.current("ns/a", "5"), false);
  assert.equal(versions.current("ns/a", "7"), true);
  // Other keys are untouched.
  assert.equal(versions.current("ns/b", "5"), true);
});

Deno.test("note: the empty version makes every stored copy stale", () => {
  const versions = new Versions();
  versions.note("a", "");
  assert.equal(versions.noted("a"), true);
  assert.equal(versions.current("a", "1"), false);
  assert.equal(versions.current("a", "5"), false);
});

Deno.test("send: notes the version the request answered", async () => {
  const versions = new Versions();
  await versions.send("a", () => Promise.resolve("3"));
  assert.equal(versions.current("a", "3"), true);
  assert.equal(versions.current("a", "2"), false);
});

Deno.test("send: a failure notes the empty version and rethrows", async () => {
  const versions = new Versions();
  versions.note("a", "3");
  const failure = new Error("Conflict");
  await assert.rejects(
    versions.send("a", () => Promise.reject(failure)),
    (error) => error === failure,
  );
  assert.equal(versions.noted("a"), true);
  assert.equal(versions.current("a", "3"), false);
  // A request that throws before it answers a promise counts as failed too.
  versions.note("b", "1");
  await assert.rejects(
    versions.send("b", () => {
      throw new TypeError("Boom");
    }),
    TypeError,
  );
  assert.equal(versions.current("b", "1"), false);
});

Deno.test("send: two writers of one object note in the server's order even when the later answer is ready first", async () => {
  const versions = new Versions();
  const first = Promise.withResolvers<string>();
  const second = Promise.withResolvers<string>();
  const started: string[] = [];
  const one = versions.send("ns/a", () => {
    started.push("first");
    return first.promise;
  });
  const two = versions.send("ns/a", () => {
    started.push("second");
    return second.promise;
  });
  // The second answer arrives before the first.
  second.resolve("12");
  await flush();
  // The second request waits for the first to end.
  assert.deepEqual(started, ["first"]);
  assert.equal(versions.noted("ns/a"), false);
  first.resolve("11");
  await one;
  await flush();
  assert.deepEqual(started, ["first", "second"]);
  await two;
  // Without the queue the older "11" could be noted last and a store's copy
  // at 11 would count as current.
  assert.equal(versions.current("ns/a", "12"), true);
  assert.equal(versions.current("ns/a", "11"), false);
});

Deno.test("send: each note is made as its answer comes, in order", async () => {
  const versions = new Versions();
  const first = Promise.withResolvers<string>();
  const second = Promise.withResolvers<string>();
  const one = versions.send("a", () => first.promise);
  const two = versions.send("a", () => second.promise);
  first.resolve("1");
  await one;
  assert.equal(versions.current("a", "1"), true);
  second.resolve("2");
  await two;
  assert.equal(versions.current("a", "2"), true);
});

Deno.test("send: requests about other objects do not wait", async () => {
  const versions = new Versions();
  const held = Promise.withResolvers<string>();
  const slow = versions.send("a", () => held.promise);
  let ran = false;
  await versions.send("b", () => {
    ran = true;
    return Promise.resolve("9");
  });
  assert.equal(ran, true);
  assert.equal(versions.current("b", "9"), true);
  held.resolve("1");
  await slow;
});

Deno.test("send: a failed request does not block the next one", async () => {
  const versions = new Versions();
  const first = Promise.withResolvers<string>();
  const one = versions.send("a", () => first.promise);
  const two = versions.send("a", () => Promise.resolve("8"));
  first.reject(new Error("Lost answer"));
  await assert.rejects(one, /Lost answer/);
  await two;
  assert.equal(versions.current("a", "8"), true);
});

Deno.test("send: a signal ends the wait, sends nothing, and keeps the queue order", async () => {
  const versions = new Versions();
  const first = Promise.withResolvers<string>();
  const started: string[] = [];
  const one = versions.send("a", () => {
    started.push("first");
    return first.promise;
  });
  const controller = new AbortController();
  const two = versions.send("a", () => {
    started.push("second");
    return Promise.resolve("2");
  }, { signal: controller.signal });
  const three = versions.send("a", () => {
    started.push("third");
    return Promise.resolve("3");
  });
  controller.abort(new Error("Pass over"));
  await assert.rejects(two, /Pass over/);
  await flush();
  // The third still waits for the first: giving up let nobody jump ahead.
  assert.deepEqual(started, ["first"]);
  first.resolve("1");
  await one;
  await three;
  assert.deepEqual(started, ["first", "third"]);
  assert.equal(versions.current("a", "3"), true);
});

Deno.test("send: an aborted signal rejects at once and notes nothing", async () => {
  const versions = new Versions();
  versions.note("a", "4");
  let ran = false;
  await assert.rejects(
    versions.send("a", () => {
      ran = true;
      return Promise.resolve("5");
    }, { signal: AbortSignal.abort(new Error("Stopped")) }),
    /Stopped/,
  );
  assert.equal(ran, false);
  assert.equal(versions.current("a", "4"), true);
});

Deno.test("sendList: notes each listed object", async () => {
  const versions = new Versions();
  versions.note("a", "1");
  await versions.sendList(() =>
    Promise.resolve(new Map([["a", "5"], ["b", "6"]]))
  );
  // A version noted before the list was sent is replaced.
  assert.equal(versions.current("a", "5"), true);
  assert.equal(versions.current("a", "1"), false);
  assert.equal(versions.current("b", "6"), true);
});

Deno.test("sendList: a write noted while the list is in flight keeps its version", async () => {
  const versions = new Versions();
  const list = Promise.withResolvers<ReadonlyMap<string, string>>();
  const listing = versions.sendList(() => list.promise);
  // A write answers while the list runs; the list holds the older copy.
  await versions.send("a", () => Promise.resolve("20"));
  // A request sent before the list but answered during it counts too.
  const late = Promise.withResolvers<string>();
  const lateSend = versions.send("b", () => late.promise);
  late.resolve("31");
  await lateSend;
  list.resolve(new Map([["a", "19"], ["b", "30"], ["c", "7"]]));
  await listing;
  assert.equal(versions.current("a", "20"), true);
  assert.equal(versions.current("a", "19"), false);
  assert.equal(versions.current("b", "31"), true);
  assert.equal(versions.current("c", "7"), true);
});

Deno.test("sendList: a write noted before the list was sent is replaced", async () => {
  const versions = new Versions();
  await versions.send("a", () => Promise.resolve("20"));
  const list = Promise.withResolvers<ReadonlyMap<string, string>>();
  const listing = versions.sendList(() => list.promise);
  list.resolve(new Map([["a", "21"]]));
  await listing;
  assert.equal(versions.current("a", "21"), true);
});

Deno.test("sendList: a list that fails notes nothing", async () => {
  const versions = new Versions();
  versions.note("a", "1");
  const failure = new Error("List failed");
  await assert.rejects(
    versions.sendList(() => Promise.reject(failure)),
    (error) => error === failure,
  );
  assert.equal(versions.current("a", "1"), true);
  assert.equal(versions.current("a", ""), false);
  assert.equal(versions.noted("b"), false);
});

Deno.test("forget: drops the record", () => {
  const versions = new Versions();
  versions.note("a", "1");
  versions.note("b", "2");
  versions.forget("a");
  assert.equal(versions.noted("a"), false);
  assert.equal(versions.current("a", "0"), true);
  assert.equal(versions.noted("b"), true);
});

Deno.test("forget racing a send: the running send still notes, a later send does not wait for it", async () => {
  const versions = new Versions();
  const first = Promise.withResolvers<string>();
  const one = versions.send("a", () => first.promise);
  versions.forget("a");
  assert.equal(versions.noted("a"), false);
  // The forget dropped the queue: this send runs at once.
  let ran = false;
  await versions.send("a", () => {
    ran = true;
    return Promise.resolve("3");
  });
  assert.equal(ran, true);
  assert.equal(versions.current("a", "3"), true);
  // The older answer arrives last and is noted last: the documented hazard
  // of forgetting an object while a request about it runs.
  first.resolve("2");
  await one;
  assert.equal(versions.current("a", "2"), true);
});

Deno.test("forget racing a send: a send queued before the forget still waits", async () => {
  const versions = new Versions();
  const first = Promise.withResolvers<string>();
  const started: string[] = [];
  const one = versions.send("a", () => {
    started.push("first");
    return first.promise;
  });
  const two = versions.send("a", () => {
    started.push("second");
    return Promise.resolve("5");
  });
  versions.forget("a");
  await flush();
  assert.deepEqual(started, ["first"]);
  first.resolve("4");
  await Promise.all([one, two]);
  assert.deepEqual(started, ["first", "second"]);
  assert.equal(versions.current("a", "5"), true);
});

Deno.test("noted: true at any version, the empty one included", () => {
  const versions = new Versions();
  assert.equal(versions.noted("a"), false);
  versions.note("a", "");
  assert.equal(versions.noted("a"), true);
  versions.note("b", "3");
  assert.equal(versions.noted("b"), true);
});

Deno.test("unheld: keys noted at a real version that the store lacks", () => {
  const versions = new Versions();
  versions.note("held", "1");
  versions.note("new", "2");
  versions.note("failed", "");
  const store = new Map([["held", {}]]);
  assert.deepEqual(versions.unheld(store), ["new"]);
  assert.deepEqual(new Versions().unheld(store), []);
});

Deno.test("forgetGone: drops only keys neither listed nor held", async () => {
  const versions = new Versions();
  versions.note("listed", "1");
  versions.note("held", "2");
  versions.note("gone", "3");
  versions.note("gone-failed", "");
  const store = new Map([["held", {}]]);
  versions.forgetGone(store, new Set(["listed", "other"]));
  assert.equal(versions.noted("listed"), true);
  assert.equal(versions.current("listed", "1"), true);
  // A deleted object the store still holds stays stale until the watch
  // removes it.
  assert.equal(versions.noted("held"), true);
  assert.equal(versions.current("held", "1"), false);
  assert.equal(versions.noted("gone"), false);
  assert.equal(versions.noted("gone-failed"), false);
  assert.equal(versions.noted("other"), false);
  // A forgotten key is noted afresh by a later list.
  await versions.sendList(() => Promise.resolve(new Map([["gone", "9"]])));
  assert.equal(versions.current("gone", "9"), true);
});

Deno.test("forgetAt: drops the record only at the given version", () => {
  const versions = new Versions();
  versions.note("a", "5");
  versions.forgetAt("a", "4");
  assert.equal(versions.current("a", "5"), true);
  assert.equal(versions.current("a", "4"), false);
  versions.forgetAt("a", "5");
  assert.equal(versions.noted("a"), false);
  // The empty version never matches, so a failed request keeps its record.
  versions.note("b", "");
  versions.forgetAt("b", "");
  assert.equal(versions.noted("b"), true);
  // A key with no record is a no-op.
  versions.forgetAt("c", "1");
  assert.equal(versions.noted("c"), false);
});

Deno.test("forgetAt: a write noted in the meantime keeps its record", async () => {
  const versions = new Versions();
  versions.note("a", "5");
  // The store reaches 5 while a newer write has already answered 6.
  await versions.send("a", () => Promise.resolve("6"));
  versions.forgetAt("a", "5");
  assert.equal(versions.current("a", "5"), false);
  assert.equal(versions.current("a", "6"), true);
});

Deno.test("KeyedQueue: keeps a key only while a task is queued", async () => {
  const queue = new KeyedQueue();
  const held = Promise.withResolvers<number>();
  const one = queue.run("a", () => held.promise);
  const two = queue.run("a", () => Promise.resolve(2));
  const other = queue.run("b", () => Promise.resolve(3));
  assert.equal(queue.size, 2);
  assert.equal(await other, 3);
  assert.equal(queue.size, 1);
  held.resolve(1);
  assert.deepEqual(await Promise.all([one, two]), [1, 2]);
  assert.equal(queue.size, 0);
  // Failures and aborted waits release the key too.
  const blocker = Promise.withResolvers<number>();
  const running = queue.run("c", () => blocker.promise);
  const controller = new AbortController();
  const waiting = queue.run("c", () => Promise.resolve(0), {
    signal: controller.signal,
  });
  controller.abort(new Error("Gone"));
  await assert.rejects(waiting, /Gone/);
  assert.equal(queue.size, 1);
  blocker.reject(new Error("Failed"));
  await assert.rejects(running, /Failed/);
  assert.equal(queue.size, 0);
});

Deno.test("KeyedQueue: many keys leave nothing behind once idle", async () => {
  const queue = new KeyedQueue();
  const runs: Promise<string>[] = [];
  for (let i = 0; i < 1000; i++) {
    runs.push(queue.run(`k${i % 100}`, () => Promise.resolve(`v${i}`)));
  }
  assert.equal(queue.size, 100);
  const answers = await Promise.all(runs);
  assert.equal(answers[999], "v999");
  assert.equal(queue.size, 0);
});
