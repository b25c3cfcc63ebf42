import assert from "node:assert/strict";
import { objectRef } from "../apiclient/resource.ts";
import { flush } from "./_test_util.ts";
import { Versions } from "./versions.ts";
import { KeyedQueue } from "./_queue.ts";

const CONFIGMAPS = { version: "v1", resource: "configmaps" };
const SECRETS = { version: "v1", resource: "secrets" };
/** A ConfigMap by its store key. */
const cm = (key: string) => objectRef(CONFIGMAPS, key);

Deno.test("current: an object never noted is current at any version", () => {
  const versions = new Versions();
  assert.equal(versions.current(cm("a"), "1"), true);
  assert.equal(versions.current(cm("a"), ""), true);
  assert.equal(versions.noted(cm("a")), false);
});

Deno.test("current: a noted object is current only at the noted version", () => {
  const versions = new Versions();
  versions.note(cm("ns/a"), "5");
  assert.equal(versions.current(cm("ns/a"), "5"), true);
  // Versions compare only for equality: a "higher" one is not current.
  assert.equal(versions.current(cm("ns/a"), "6"), false);
  assert.equal(versions.current(cm("ns/a"), "4"), false);
  versions.note(cm("ns/a"), "7");
  assert.equal(versions.current(cm("ns/a"), "5"), false);
  assert.equal(versions.current(cm("ns/a"), "7"), true);
  // Other keys are untouched.
  assert.equal(versions.current(cm("ns/b"), "5"), true);
});

Deno.test("note: the empty version makes every stored copy stale", () => {
  const versions = new Versions();
  versions.note(cm("a"), "");
  assert.equal(versions.noted(cm("a")), true);
  assert.equal(versions.current(cm("a"), "1"), false);
  assert.equal(versions.current(cm("a"), "5"), false);
});

Deno.test("send: notes the version the request answered", async () => {
  const versions = new Versions();
  await versions.send(cm("a"), () => Promise.resolve("3"));
  assert.equal(versions.current(cm("a"), "3"), true);
  assert.equal(versions.current(cm("a"), "2"), false);
});

Deno.test("send: a failure notes the empty version and rethrows", async () => {
  const versions = new Versions();
  versions.note(cm("a"), "3");
  const failure = new Error("Conflict");
  await assert.rejects(
    versions.send(cm("a"), () => Promise.reject(failure)),
    (error) => error === failure,
  );
  assert.equal(versions.noted(cm("a")), true);
  assert.equal(versions.current(cm("a"), "3"), false);
  // A request that throws before it answers a promise counts as failed too.
  versions.note(cm("b"), "1");
  await assert.rejects(
    versions.send(cm("b"), () => {
      throw new TypeError("Boom");
    }),
    TypeError,
  );
  assert.equal(versions.current(cm("b"), "1"), false);
});

Deno.test("send: two writers of one object note in the server's order even when the later answer is ready first", async () => {
  const versions = new Versions();
  const first = Promise.withResolvers<string>();
  const second = Promise.withResolvers<string>();
  const started: string[] = [];
  const one = versions.send(cm("ns/a"), () => {
    started.push("first");
    return first.promise;
  });
  const two = versions.send(cm("ns/a"), () => {
    started.push("second");
    return second.promise;
  });
  // The second answer arrives before the first.
  second.resolve("12");
  await flush();
  // The second request waits for the first to end.
  assert.deepEqual(started, ["first"]);
  assert.equal(versions.noted(cm("ns/a")), false);
  first.resolve("11");
  await one;
  await flush();
  assert.deepEqual(started, ["first", "second"]);
  await two;
  // Without the queue the older "11" could be noted last and a store's copy
  // at 11 would count as current.
  assert.equal(versions.current(cm("ns/a"), "12"), true);
  assert.equal(versions.current(cm("ns/a"), "11"), false);
});

Deno.test("send: each note is made as its answer comes, in order", async () => {
  const versions = new Versions();
  const first = Promise.withResolvers<string>();
  const second = Promise.withResolvers<string>();
  const one = versions.send(cm("a"), () => first.promise);
  const two = versions.send(cm("a"), () => second.promise);
  first.resolve("1");
  await one;
  assert.equal(versions.current(cm("a"), "1"), true);
  second.resolve("2");
  await two;
  assert.equal(versions.current(cm("a"), "2"), true);
});

Deno.test("send: requests about other objects do not wait", async () => {
  const versions = new Versions();
  const held = Promise.withResolvers<string>();
  const slow = versions.send(cm("a"), () => held.promise);
  let ran = false;
  await versions.send(cm("b"), () => {
    ran = true;
    return Promise.resolve("9");
  });
  assert.equal(ran, true);
  assert.equal(versions.current(cm("b"), "9"), true);
  held.resolve("1");
  await slow;
});

Deno.test("send: a failed request does not block the next one", async () => {
  const versions = new Versions();
  const first = Promise.withResolvers<string>();
  const one = versions.send(cm("a"), () => first.promise);
  const two = versions.send(cm("a"), () => Promise.resolve("8"));
  first.reject(new Error("Lost answer"));
  await assert.rejects(one, /Lost answer/);
  await two;
  assert.equal(versions.current(cm("a"), "8"), true);
});

Deno.test("send: a signal ends the wait, sends nothing, and keeps the queue order", async () => {
  const versions = new Versions();
  const first = Promise.withResolvers<string>();
  const started: string[] = [];
  const one = versions.send(cm("a"), () => {
    started.push("first");
    return first.promise;
  });
  const controller = new AbortController();
  const two = versions.send(cm("a"), () => {
    started.push("second");
    return Promise.resolve("2");
  }, { signal: controller.signal });
  const three = versions.send(cm("a"), () => {
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
  assert.equal(versions.current(cm("a"), "3"), true);
});

Deno.test("send: an aborted signal rejects at once and notes nothing", async () => {
  const versions = new Versions();
  versions.note(cm("a"), "4");
  let ran = false;
  await assert.rejects(
    versions.send(cm("a"), () => {
      ran = true;
      return Promise.resolve("5");
    }, { signal: AbortSignal.abort(new Error("Stopped")) }),
    /Stopped/,
  );
  assert.equal(ran, false);
  assert.equal(versions.current(cm("a"), "4"), true);
});

Deno.test("sendList: notes each listed object", async () => {
  const versions = new Versions();
  versions.note(cm("a"), "1");
  await versions.sendList(
    CONFIGMAPS,
    () => Promise.resolve(new Map([["a", "5"], ["b", "6"]])),
  );
  // A version noted before the list was sent is replaced.
  assert.equal(versions.current(cm("a"), "5"), true);
  assert.equal(versions.current(cm("a"), "1"), false);
  assert.equal(versions.current(cm("b"), "6"), true);
});

Deno.test("sendList: a write noted while the list is in flight keeps its version", async () => {
  const versions = new Versions();
  const list = Promise.withResolvers<ReadonlyMap<string, string>>();
  const listing = versions.sendList(CONFIGMAPS, () => list.promise);
  // A write answers while the list runs; the list holds the older copy.
  await versions.send(cm("a"), () => Promise.resolve("20"));
  // A request sent before the list but answered during it counts too.
  const late = Promise.withResolvers<string>();
  const lateSend = versions.send(cm("b"), () => late.promise);
  late.resolve("31");
  await lateSend;
  list.resolve(new Map([["a", "19"], ["b", "30"], ["c", "7"]]));
  await listing;
  assert.equal(versions.current(cm("a"), "20"), true);
  assert.equal(versions.current(cm("a"), "19"), false);
  assert.equal(versions.current(cm("b"), "31"), true);
  assert.equal(versions.current(cm("c"), "7"), true);
});

Deno.test("sendList: a write noted before the list was sent is replaced", async () => {
  const versions = new Versions();
  await versions.send(cm("a"), () => Promise.resolve("20"));
  const list = Promise.withResolvers<ReadonlyMap<string, string>>();
  const listing = versions.sendList(CONFIGMAPS, () => list.promise);
  list.resolve(new Map([["a", "21"]]));
  await listing;
  assert.equal(versions.current(cm("a"), "21"), true);
});

Deno.test("sendList: a list that fails notes nothing", async () => {
  const versions = new Versions();
  versions.note(cm("a"), "1");
  const failure = new Error("List failed");
  await assert.rejects(
    versions.sendList(CONFIGMAPS, () => Promise.reject(failure)),
    (error) => error === failure,
  );
  assert.equal(versions.current(cm("a"), "1"), true);
  assert.equal(versions.current(cm("a"), ""), false);
  assert.equal(versions.noted(cm("b")), false);
});

Deno.test("forget: drops the record", () => {
  const versions = new Versions();
  versions.note(cm("a"), "1");
  versions.note(cm("b"), "2");
  versions.forget(cm("a"));
  assert.equal(versions.noted(cm("a")), false);
  assert.equal(versions.current(cm("a"), "0"), true);
  assert.equal(versions.noted(cm("b")), true);
});

Deno.test("forget racing a send: the running send still notes, a later send does not wait for it", async () => {
  const versions = new Versions();
  const first = Promise.withResolvers<string>();
  const one = versions.send(cm("a"), () => first.promise);
  versions.forget(cm("a"));
  assert.equal(versions.noted(cm("a")), false);
  // The forget dropped the queue: this send runs at once.
  let ran = false;
  await versions.send(cm("a"), () => {
    ran = true;
    return Promise.resolve("3");
  });
  assert.equal(ran, true);
  assert.equal(versions.current(cm("a"), "3"), true);
  // The older answer arrives last and is noted last: the documented hazard
  // of forgetting an object while a request about it runs.
  first.resolve("2");
  await one;
  assert.equal(versions.current(cm("a"), "2"), true);
});

Deno.test("forget racing a send: a send queued before the forget still waits", async () => {
  const versions = new Versions();
  const first = Promise.withResolvers<string>();
  const started: string[] = [];
  const one = versions.send(cm("a"), () => {
    started.push("first");
    return first.promise;
  });
  const two = versions.send(cm("a"), () => {
    started.push("second");
    return Promise.resolve("5");
  });
  versions.forget(cm("a"));
  await flush();
  assert.deepEqual(started, ["first"]);
  first.resolve("4");
  await Promise.all([one, two]);
  assert.deepEqual(started, ["first", "second"]);
  assert.equal(versions.current(cm("a"), "5"), true);
});

Deno.test("noted: true at any version, the empty one included", () => {
  const versions = new Versions();
  assert.equal(versions.noted(cm("a")), false);
  versions.note(cm("a"), "");
  assert.equal(versions.noted(cm("a")), true);
  versions.note(cm("b"), "3");
  assert.equal(versions.noted(cm("b")), true);
});

Deno.test("unheld: objects noted at a real version that the store lacks", () => {
  const versions = new Versions();
  versions.note(cm("held"), "1");
  versions.note(cm("new"), "2");
  versions.note(cm("failed"), "");
  const store = new Map([["held", {}]]);
  assert.deepEqual(versions.unheld(CONFIGMAPS, store), [cm("new")]);
  assert.deepEqual(new Versions().unheld(CONFIGMAPS, store), []);
});

Deno.test("forgetGone: drops only keys neither listed nor held", async () => {
  const versions = new Versions();
  versions.note(cm("listed"), "1");
  versions.note(cm("held"), "2");
  versions.note(cm("gone"), "3");
  versions.note(cm("gone-failed"), "");
  const store = new Map([["held", {}]]);
  versions.forgetGone(CONFIGMAPS, {
    listed: new Set(["listed", "other"]),
    store,
  });
  assert.equal(versions.noted(cm("listed")), true);
  assert.equal(versions.current(cm("listed"), "1"), true);
  // A deleted object the store still holds stays stale until the watch
  // removes it.
  assert.equal(versions.noted(cm("held")), true);
  assert.equal(versions.current(cm("held"), "1"), false);
  assert.equal(versions.noted(cm("gone")), false);
  assert.equal(versions.noted(cm("gone-failed")), false);
  assert.equal(versions.noted(cm("other")), false);
  // A forgotten key is noted afresh by a later list.
  await versions.sendList(
    CONFIGMAPS,
    () => Promise.resolve(new Map([["gone", "9"]])),
  );
  assert.equal(versions.current(cm("gone"), "9"), true);
});

Deno.test("forgetAt: drops the record only at the given version", () => {
  const versions = new Versions();
  versions.note(cm("a"), "5");
  versions.forgetAt(cm("a"), "4");
  assert.equal(versions.current(cm("a"), "5"), true);
  assert.equal(versions.current(cm("a"), "4"), false);
  versions.forgetAt(cm("a"), "5");
  assert.equal(versions.noted(cm("a")), false);
  // The empty version never matches, so a failed request keeps its record.
  versions.note(cm("b"), "");
  versions.forgetAt(cm("b"), "");
  assert.equal(versions.noted(cm("b")), true);
  // A key with no record is a no-op.
  versions.forgetAt(cm("c"), "1");
  assert.equal(versions.noted(cm("c")), false);
});

Deno.test("forgetAt: a write noted in the meantime keeps its record", async () => {
  const versions = new Versions();
  versions.note(cm("a"), "5");
  // The store reaches 5 while a newer write has already answered 6.
  await versions.send(cm("a"), () => Promise.resolve("6"));
  versions.forgetAt(cm("a"), "5");
  assert.equal(versions.current(cm("a"), "5"), false);
  assert.equal(versions.current(cm("a"), "6"), true);
});

Deno.test("one memo for two kinds: a ConfigMap and a Secret of one name have a note each", async () => {
  const versions = new Versions();
  const secret = objectRef(SECRETS, "default/web");
  await versions.send(cm("default/web"), () => Promise.resolve("5"));
  // The Secret was never noted: its store's copy is current at any version.
  assert.equal(versions.noted(secret), false);
  assert.equal(versions.current(secret, "4"), true);
  versions.note(secret, "9");
  assert.equal(versions.current(cm("default/web"), "5"), true);
  assert.equal(versions.current(secret, "9"), true);
  // A failure of one kind's write leaves the other's note alone.
  await assert.rejects(
    versions.send(secret, () => Promise.reject(new Error("Conflict"))),
    /Conflict/,
  );
  assert.equal(versions.current(cm("default/web"), "5"), true);
  assert.equal(versions.current(secret, "9"), false);
  // A store of ConfigMaps is told of ConfigMaps alone.
  assert.deepEqual(versions.unheld(CONFIGMAPS, new Map()), [cm("default/web")]);
  versions.note(secret, "10");
  assert.deepEqual(versions.unheld(SECRETS, new Map()), [secret]);
  // A list of ConfigMaps clears no Secret, and forget clears one kind.
  versions.forgetGone(CONFIGMAPS, { listed: new Set(), store: new Map() });
  assert.equal(versions.noted(cm("default/web")), false);
  assert.equal(versions.noted(secret), true);
  versions.note(cm("default/web"), "11");
  versions.forget(secret);
  assert.equal(versions.noted(cm("default/web")), true);
  versions.forgetAt(cm("default/web"), "10");
  assert.equal(versions.noted(cm("default/web")), true);
  // A list of Secrets notes Secrets.
  await versions.sendList(
    SECRETS,
    () => Promise.resolve(new Map([["default/web", "12"]])),
  );
  assert.equal(versions.current(secret, "12"), true);
  assert.equal(versions.current(cm("default/web"), "11"), true);
});

Deno.test("send: two kinds of one name do not wait for each other", async () => {
  const versions = new Versions();
  const held = Promise.withResolvers<string>();
  const slow = versions.send(cm("default/web"), () => held.promise);
  let ran = false;
  await versions.send(objectRef(SECRETS, "default/web"), () => {
    ran = true;
    return Promise.resolve("2");
  });
  assert.equal(ran, true);
  held.resolve("1");
  await slow;
});

Deno.test("the memo files an object under its group, resource, namespace and name, not its API version", () => {
  const versions = new Versions();
  const deployments = { group: "apps", version: "v1", resource: "deployments" };
  versions.note(objectRef(deployments, "default/web"), "7");
  const beta = objectRef({ ...deployments, version: "v1beta2" }, "default/web");
  assert.equal(versions.current(beta, "6"), false);
  assert.equal(versions.current(beta, "7"), true);
  // The same resource name in another group is another kind.
  const other = objectRef(
    { ...deployments, group: "example.com" },
    "default/web",
  );
  assert.equal(versions.noted(other), false);
  // A core resource is not the same as a group's resource of that name.
  assert.equal(
    versions.noted(
      objectRef({ version: "v1", resource: "deployments" }, "default/web"),
    ),
    false,
  );
});

Deno.test("unheld and forgetGone of a namespaced collection keep to its namespace", () => {
  const versions = new Versions();
  versions.note(cm("a/web"), "1");
  versions.note(cm("b/web"), "2");
  versions.note(cm("cluster-wide"), "3");
  const inA = { ...CONFIGMAPS, namespace: "a" };
  assert.deepEqual(versions.unheld(inA, new Map()), [cm("a/web")]);
  versions.forgetGone(inA, { listed: new Set(), store: new Map() });
  assert.equal(versions.noted(cm("a/web")), false);
  assert.equal(versions.noted(cm("b/web")), true);
  assert.equal(versions.noted(cm("cluster-wide")), true);
});

Deno.test("note and send refuse a ref without a name", async () => {
  const versions = new Versions();
  const nameless = { ...CONFIGMAPS, namespace: "default", name: "" };
  assert.throws(() => versions.note(nameless, "1"), TypeError);
  await assert.rejects(
    versions.send(nameless, () => Promise.resolve("1")),
    /The memo names an object by its name: configmaps has none/,
  );
  assert.equal(versions.noted(nameless), false);
});

Deno.test("KeyedQueue: keeps an object only while a task is queued", async () => {
  const queue = new KeyedQueue();
  const held = Promise.withResolvers<number>();
  const one = queue.run(cm("a"), () => held.promise);
  const two = queue.run(cm("a"), () => Promise.resolve(2));
  const other = queue.run(cm("b"), () => Promise.resolve(3));
  assert.equal(queue.size, 2);
  assert.equal(await other, 3);
  assert.equal(queue.size, 1);
  held.resolve(1);
  assert.deepEqual(await Promise.all([one, two]), [1, 2]);
  assert.equal(queue.size, 0);
  // Failures and aborted waits release the object too.
  const blocker = Promise.withResolvers<number>();
  const running = queue.run(cm("c"), () => blocker.promise);
  const controller = new AbortController();
  const waiting = queue.run(cm("c"), () => Promise.resolve(0), {
    signal: controller.signal,
  });
  controller.abort(new Error("Gone"));
  await assert.rejects(waiting, /Gone/);
  assert.equal(queue.size, 1);
  blocker.reject(new Error("Failed"));
  await assert.rejects(running, /Failed/);
  assert.equal(queue.size, 0);
});

Deno.test("KeyedQueue: many objects leave nothing behind once idle", async () => {
  const queue = new KeyedQueue();
  const runs: Promise<string>[] = [];
  for (let i = 0; i < 1000; i++) {
    const ref = objectRef(
      i % 2 ? CONFIGMAPS : SECRETS,
      `ns-${i % 4}/k${i % 100}`,
    );
    runs.push(queue.run(ref, () => Promise.resolve(`v${i}`)));
  }
  assert.equal(queue.size, 100);
  const answers = await Promise.all(runs);
  assert.equal(answers[999], "v999");
  assert.equal(queue.size, 0);
  // A dropped object's running task does not drop its successor's line.
  const first = Promise.withResolvers<void>();
  const running = queue.run(cm("d"), () => first.promise);
  queue.drop(cm("d"));
  assert.equal(queue.size, 0);
  const second = Promise.withResolvers<void>();
  const next = queue.run(cm("d"), () => second.promise);
  assert.equal(queue.size, 1);
  first.resolve();
  await running;
  assert.equal(queue.size, 1);
  second.resolve();
  await next;
  assert.equal(queue.size, 0);
});
