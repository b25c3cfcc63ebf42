import assert from "node:assert/strict";
import { Client } from "../apiclient/mod.ts";
import { describe } from "../_internal/errors.ts";
import { FakeApiServer, installFakeTime } from "../testing/mod.ts";
import { SERIES_LIMIT, SERIES_WINDOW } from "./_series.ts";
import {
  EventDroppedError,
  EventWriteError,
  Recorder,
  StopTimeoutError,
} from "./mod.ts";
import {
  about,
  failed,
  machine,
  patches,
  pod,
  posts,
  setup,
  START,
} from "./_recorder_test_util.ts";
import { testLogger } from "../_internal/_log_test_util.ts";
import { ATTEMPTS, QUEUE_LENGTH, RETRY_WAIT } from "./_options.ts";
import { RECORDER_STOP_TIMEOUT } from "../_internal/stop_timeout.ts";

Deno.test("normal and warning build the Event at the call and return at once", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const { recorder } = setup(server);
  setTimeout(() => {}, 3_000);
  recorder.normal(machine, { reason: "Started", message: "Began" });
  assert.equal(server.requests.length, 0, "normal returned before any write");
  time.runNext(); // the clock moves 3 s before anything is written
  recorder.warning(machine, failed);
  await recorder.stop();
  const [first, second] = about(server, machine);
  assert.ok(first && second);
  assert.equal(first.type, "Normal");
  assert.equal(first.firstTimestamp, "2030-01-01T00:00:00Z");
  assert.equal(first.lastTimestamp, "2030-01-01T00:00:00Z");
  assert.equal(second.type, "Warning");
  assert.equal(second.firstTimestamp, "2030-01-01T00:00:03Z");
  assert.equal(second.reason, "StepFailed");
  assert.equal(second.message, "The mount did not answer");
  assert.equal(second.count, 1);
  assert.equal(second.reportingComponent, "test-operator");
  assert.equal(second.reportingInstance, "pod-1");
  assert.deepEqual(second.source, {
    component: "test-operator",
    host: "pod-1",
  });
  assert.deepEqual(second.involvedObject, machine);
  assert.ok(second.metadata.name?.startsWith("m1."));
  assert.equal(second.metadata.namespace, "default");
  assert.equal("eventTime" in second, false);
  const sent = server.requests.find((r) => r.method === "POST")
    ?.body as Record<string, unknown> & { metadata: Record<string, unknown> };
  assert.equal(sent.metadata.generateName, "m1.");
  assert.equal(sent.metadata.name, undefined);
  assert.equal("eventTime" in sent, false);
});

Deno.test("Events about a namespaced object go in its namespace; cluster-scoped in default", async () => {
  using _time = installFakeTime({ now: START });
  await using server = new FakeApiServer({ namespaceLifecycle: false });
  const { recorder, logs } = setup(server);
  recorder.normal(pod, { reason: "Created", message: "Created" });
  recorder.normal({ kind: "Node", name: "n1" }, {
    reason: "Seen",
    message: "",
  });
  recorder.normal({ kind: "Node", name: "n2", namespace: "" }, {
    reason: "Seen",
    message: "",
  });
  await recorder.stop();
  assert.deepEqual(logs, []);
  const paths = server.requests.filter((r) => r.method === "POST").map((r) =>
    r.path
  );
  assert.deepEqual(paths, [
    "/api/v1/namespaces/apps/events",
    "/api/v1/namespaces/default/events",
    "/api/v1/namespaces/default/events",
  ]);
  const [podEvent] = about(server, { kind: "Pod", name: "p1" });
  assert.equal(podEvent?.metadata.namespace, "apps");
  assert.equal(podEvent?.involvedObject.namespace, "apps");
  const [node] = about(server, { kind: "Node", name: "n2" });
  assert.equal(node?.metadata.namespace, "default");
  assert.equal(node?.involvedObject.namespace, undefined);
});

Deno.test("reason and message are cut to the API limits at a character boundary", async () => {
  using _time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const { recorder, logs } = setup(server);
  recorder.warning(machine, {
    reason: "R".repeat(300),
    message: "é".repeat(1000), // 2000 bytes
  });
  await recorder.stop();
  assert.deepEqual(logs, []);
  const [event] = about(server, machine);
  assert.ok(event);
  const bytes = (s: string): number => new TextEncoder().encode(s).length;
  assert.equal(event.reason, "R".repeat(125) + "…");
  assert.equal(bytes(event.reason), 128);
  // 1021 bytes before the ellipsis fall inside an "é": keep 510 of them.
  assert.equal(event.message, "é".repeat(510) + "…");
  assert.equal(bytes(event.message), 1023);
});

Deno.test("a repeat within 10 minutes patches count and lastTimestamp", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const { recorder, logs } = setup(server);
  recorder.warning(machine, failed);
  await time.settle();
  await time.tick(60_000);
  recorder.warning(machine, failed);
  await time.settle();
  await time.tick(SERIES_WINDOW - 1_000); // 9:59 after the last repeat
  recorder.warning(machine, failed);
  await recorder.stop();
  assert.deepEqual(logs, []);
  assert.equal(posts(server), 1);
  assert.equal(patches(server), 2);
  const patch = server.requests.find((r) => r.method === "PATCH");
  assert.deepEqual(patch?.body, {
    count: 2,
    lastTimestamp: "2030-01-01T00:01:00Z",
  });
  const events = about(server, machine);
  assert.equal(events.length, 1);
  assert.equal(events[0]?.count, 3);
  assert.equal(events[0]?.firstTimestamp, "2030-01-01T00:00:00Z");
  assert.equal(events[0]?.lastTimestamp, "2030-01-01T00:10:59Z");
});

Deno.test("a repeat 10 minutes or more after the last starts a new Event", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const { recorder } = setup(server);
  recorder.warning(machine, failed);
  await time.settle();
  await time.tick(SERIES_WINDOW);
  recorder.warning(machine, failed);
  await recorder.stop();
  assert.equal(posts(server), 2);
  assert.equal(patches(server), 0);
  const events = about(server, machine);
  assert.deepEqual(events.map((e) => e.count), [1, 1]);
  assert.notEqual(events[0]?.metadata.name, events[1]?.metadata.name);
});

Deno.test("a different message, type, reason or object is a different series", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const { recorder } = setup(server);
  recorder.warning(machine, failed);
  recorder.warning(machine, { ...failed, message: "Another" });
  recorder.normal(machine, failed);
  recorder.warning(machine, { ...failed, reason: "Other" });
  recorder.warning({ ...machine, uid: "u-9" }, failed);
  await time.settle();
  recorder.warning(machine, failed);
  await recorder.stop();
  assert.equal(posts(server), 5);
  assert.equal(patches(server), 1);
});

Deno.test("a 404 on the patch (the TTL deleted the Event) starts a new Event", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const { recorder, logs } = setup(server);
  recorder.warning(machine, failed);
  recorder.warning(machine, failed);
  await time.settle();
  assert.equal(about(server, machine)[0]?.count, 2);
  server.expireEvents();
  await time.tick(1_000);
  recorder.warning(machine, failed);
  await time.settle();
  recorder.warning(machine, failed);
  await recorder.stop();
  assert.deepEqual(logs, []);
  assert.equal(posts(server), 2);
  assert.equal(patches(server), 3); // one answered 404
  const events = about(server, machine);
  assert.equal(events.length, 1);
  assert.equal(events[0]?.count, 2);
  assert.equal(events[0]?.firstTimestamp, "2030-01-01T00:00:01Z");
});

Deno.test("at most 4096 series are remembered, the least recently used forgotten", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const { recorder } = setup(server);
  const object = (i: number): typeof machine => ({
    ...machine,
    name: `m${i}`,
    uid: `u${i}`,
  });
  // Series 0 .. 4096: one more than the limit, so series 0 is forgotten.
  for (let i = 0; i <= SERIES_LIMIT; i += 128) {
    for (let j = i; j < Math.min(i + 128, SERIES_LIMIT + 1); j++) {
      recorder.warning(object(j), failed);
    }
    await time.settle();
  }
  assert.equal(posts(server), SERIES_LIMIT + 1);
  recorder.warning(object(SERIES_LIMIT), failed); // remembered: patch
  recorder.warning(object(1), failed); // remembered: patch
  recorder.warning(object(0), failed); // forgotten: a new Event
  await recorder.stop();
  assert.equal(patches(server), 2);
  assert.equal(posts(server), SERIES_LIMIT + 2);
  assert.deepEqual(about(server, object(0)).map((e) => e.count), [1, 1]);
  assert.equal(about(server, object(1))[0]?.count, 2);
});

Deno.test("a full queue drops Events, counts them and logs the first drop", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const { recorder, logs, errors, gate } = setup(server);
  gate.close();
  recorder.warning(machine, failed); // taken by the writer, held in flight
  await time.settle();
  assert.equal(gate.held, 1);
  for (let i = 0; i < QUEUE_LENGTH + 10; i++) {
    recorder.normal({ ...machine, name: `m${i}` }, failed);
  }
  assert.equal(recorder.dropped(), 10);
  assert.equal(logs.length, 1);
  assert.match(logs[0]!, /^Dropped the Normal.*StepFailed.*Machine m256/);
  assert.match(logs[0]!, /256 Events wait/);
  assert.ok(errors[0] instanceof EventDroppedError);
  assert.equal(errors[0].name, "EventDroppedError");
  assert.equal(errors[0].why, "full");
  assert.equal(errors[0].object.name, "m256");
  gate.open();
  await recorder.stop({ timeout: Infinity });
  assert.equal(posts(server), QUEUE_LENGTH + 1);
  assert.equal(logs.length, 1);
  assert.equal(recorder.dropped(), 10);
});

Deno.test("a write refused with 503 is sent again 10 s later and lands", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const { recorder, logs } = setup(server);
  server.refuse({ method: "POST", path: /\/events$/, status: 503, count: 2 });
  recorder.warning(machine, failed);
  await time.settle();
  assert.equal(posts(server), 1);
  await time.tick(RETRY_WAIT - 1);
  assert.equal(posts(server), 1, "no send before the retry wait");
  await time.tick(1);
  assert.equal(posts(server), 2);
  await time.tick(RETRY_WAIT);
  assert.equal(posts(server), 3);
  assert.equal(about(server, machine).length, 1);
  assert.deepEqual(logs, []);
  await recorder.stop();
});

Deno.test("a series patch refused with 503 is sent again and the count stays right", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const { recorder, logs } = setup(server);
  recorder.warning(machine, failed);
  await time.settle();
  server.refuse({ method: "PATCH", path: /\/events\//, status: 503, count: 1 });
  await time.tick(1_000);
  recorder.warning(machine, failed);
  await time.settle();
  assert.equal(patches(server), 1, "the first patch was refused");
  await time.tick(RETRY_WAIT);
  assert.equal(patches(server), 2);
  recorder.warning(machine, failed);
  await recorder.stop();
  assert.deepEqual(logs, []);
  // The refused patch did not advance the series: 1, then 2, then 3.
  assert.deepEqual(
    server.requests.filter((r) => r.method === "PATCH").map((r) =>
      (r.body as { count: number }).count
    ),
    [2, 2, 3],
  );
  assert.equal(posts(server), 1);
  assert.equal(about(server, machine)[0]?.count, 3);
});

Deno.test("a write that fails every attempt is logged once with type, reason, kind and name", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer({ namespaceLifecycle: false });
  const { recorder, logs, errors } = setup(server);
  const refusal = server.refuse({
    method: "POST",
    path: /\/events$/,
    status: 503,
  });
  recorder.warning(machine, failed);
  recorder.normal(pod, { reason: "Created", message: "" });
  await time.settle();
  await time.tick(RETRY_WAIT * (ATTEMPTS - 1));
  // The Machine's Event was sent ATTEMPTS times; the Pod's once already.
  assert.equal(posts(server), ATTEMPTS + 1);
  assert.equal(logs.length, 1);
  assert.match(
    logs[0]!,
    /^Could not write the Warning Event StepFailed about the Machine m1 reported by test-operator \(instance pod-1\): /,
  );
  assert.ok(errors[0] instanceof EventWriteError);
  assert.equal(errors[0].name, "EventWriteError");
  assert.equal(errors[0].event.reportingComponent, "test-operator");
  assert.equal(errors[0].event.involvedObject.name, "m1");
  // The next Event in the queue gets its own attempts.
  refusal.allow();
  await time.tick(RETRY_WAIT);
  assert.equal(posts(server), ATTEMPTS + 2);
  assert.equal(logs.length, 1);
  assert.equal(about(server, machine).length, 0);
  assert.equal(about(server, { kind: "Pod", name: "p1" }).length, 1);
  await recorder.stop();
});

Deno.test("a write fails over while the API server is down and lands when it is back", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const { recorder, logs } = setup(server);
  server.down();
  recorder.warning(machine, failed);
  await time.settle();
  await time.tick(RETRY_WAIT);
  server.up();
  await time.tick(RETRY_WAIT);
  assert.equal(about(server, machine).length, 1);
  assert.deepEqual(logs, []);
  await recorder.stop();
});

Deno.test("stop with an empty queue resolves at once and sends nothing", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const { recorder, logs } = setup(server);
  await time.settle();
  let resolved = false;
  const stopping = recorder.stop().then(() => resolved = true);
  await time.settle();
  assert.equal(resolved, true);
  await stopping;
  assert.equal(server.requests.length, 0);
  assert.equal(time.countTimers(), 0, "the default timeout was cleared");
  // A later post is dropped with a log line.
  recorder.warning(machine, failed);
  await time.settle();
  assert.equal(server.requests.length, 0);
  assert.equal(logs.length, 1);
  assert.match(
    logs[0]!,
    /Warning Event StepFailed about the Machine m1.*has stopped/,
  );
  // A second stop resolves too.
  await recorder.stop();
  await recorder.done;
});

Deno.test("stop writes each queued Event once, then resolves", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const { recorder, logs } = setup(server);
  for (let i = 0; i < 5; i++) {
    recorder.normal({ ...machine, name: `m${i}` }, failed);
  }
  await recorder.stop();
  assert.equal(posts(server), 5);
  for (let i = 0; i < 5; i++) {
    assert.equal(about(server, { kind: "Machine", name: `m${i}` }).length, 1);
  }
  assert.deepEqual(logs, []);
  assert.equal(time.countTimers(), 0);
});

Deno.test("stop sends a queued Event once: a failure is logged, not retried", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const { recorder, logs } = setup(server);
  server.refuse({ method: "POST", path: /\/events$/, status: 503 });
  recorder.warning(machine, failed);
  recorder.normal(pod, { reason: "Created", message: "" });
  const stopping = recorder.stop();
  await stopping;
  assert.equal(posts(server), 2);
  assert.equal(logs.length, 2);
  assert.match(logs[0]!, /Warning Event StepFailed about the Machine m1/);
  assert.match(logs[1]!, /Normal Event Created about the Pod p1/);
  await time.tick(RETRY_WAIT * ATTEMPTS);
  assert.equal(posts(server), 2, "nothing is sent after the stop");
});

Deno.test("stop gives up a write that waits to be retried", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer({ namespaceLifecycle: false });
  const { recorder, logs } = setup(server);
  const refusal = server.refuse({
    method: "POST",
    path: /\/events$/,
    status: 503,
    count: 1,
  });
  recorder.warning(machine, failed);
  await time.settle(); // the first attempt failed; a retry waits 10 s
  assert.equal(posts(server), 1);
  recorder.normal(pod, { reason: "Created", message: "" });
  let resolved = false;
  const stopping = recorder.stop().then(() => resolved = true);
  await time.settle();
  assert.equal(resolved, true, "stop did not wait out the retry");
  await stopping;
  assert.equal(time.now(), START, "no time passed");
  refusal.allow();
  assert.equal(logs.length, 1);
  assert.match(
    logs[0]!,
    /Could not write the Warning Event StepFailed about the Machine m1 reported by test-operator \(instance pod-1\): /,
  );
  // The queued Event behind it was still sent, once.
  assert.equal(posts(server), 2);
  assert.equal(about(server, { kind: "Pod", name: "p1" }).length, 1);
  assert.equal(about(server, machine).length, 0);
});

Deno.test("stop rejects when its signal ends during a write; nothing more is sent", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const { recorder, logs, gate } = setup(server);
  gate.close();
  recorder.warning(machine, failed);
  recorder.normal({ ...machine, name: "m2" }, failed);
  recorder.normal({ ...machine, name: "m3" }, failed);
  await time.settle();
  assert.equal(gate.held, 1);
  const controller = new AbortController();
  let result: unknown = "pending";
  const outcome = (): unknown => result;
  const stopping = recorder.stop({ signal: controller.signal }).then(
    () => result = "resolved",
    (error) => result = error,
  );
  await time.settle();
  assert.equal(outcome(), "pending", "stop waits for the write in flight");
  controller.abort(new Error("Grace period over"));
  await time.settle();
  const error = outcome();
  assert.ok(error instanceof StopTimeoutError, "stop rejected at once");
  assert.equal(error.name, "StopTimeoutError");
  assert.match(error.message, /last write had not returned/);
  assert.match(error.message, /queued Events not written: 2$/);
  assert.equal((error.cause as Error).message, "Grace period over");
  await stopping;
  // The write in flight is aborted with the stop; the two queued Events
  // are never sent.
  assert.equal(gate.held, 0);
  gate.open();
  await recorder.done;
  assert.equal(gate.arrived, 1);
  assert.equal(about(server, machine).length, 0);
  assert.equal(posts(server), 0);
  assert.equal(logs.length, 1);
  assert.match(
    logs[0]!,
    /^"The stop ended before the queue was written" .*unwritten=2$/,
  );
});

Deno.test("stop's signal ended already: it rejects and sends nothing more", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const { recorder, logs, gate } = setup(server);
  gate.close();
  recorder.warning(machine, failed);
  recorder.normal(pod, { reason: "Created", message: "" });
  await time.settle();
  await assert.rejects(
    recorder.stop({ signal: AbortSignal.abort() }),
    /last write had not returned/,
  );
  gate.open();
  await recorder.done;
  assert.equal(gate.arrived, 1);
  assert.match(logs.join("\n"), /unwritten=1$/);
});

Deno.test("stop gives up after 5 s by default", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const { recorder, gate } = setup(server);
  gate.close();
  recorder.warning(machine, failed);
  await time.settle();
  let result: unknown = "pending";
  const outcome = (): unknown => result;
  const stopping = recorder.stop().catch((error) => result = error);
  await time.tick(RECORDER_STOP_TIMEOUT - 1);
  assert.equal(outcome(), "pending");
  await time.tick(1);
  const error = outcome();
  assert.ok(error instanceof StopTimeoutError);
  assert.equal((error.cause as DOMException).name, "TimeoutError");
  await stopping;
  gate.open();
  await recorder.done;
});

Deno.test("the instance defaults to the host name, also when empty", async () => {
  await using server = new FakeApiServer();
  const client = new Client(server.url, { fetch: server.fetch });
  const recorder = new Recorder(client, "c");
  assert.equal(recorder.instance, Deno.hostname());
  assert.equal(recorder.component, "c");
  await recorder.stop();
  const empty = new Recorder(client, "c", {
    instance: "",
    logger: testLogger({ log: () => {} }),
  });
  assert.equal(empty.instance, Deno.hostname());
  await empty.stop();
});

Deno.test("Event paths encode the namespace and the name", async () => {
  using time = installFakeTime({ now: START });
  const paths: string[] = [];
  // Answers every create with a name that needs encoding in a path.
  const fetch: typeof globalThis.fetch = (input, init) => {
    const request = new Request(input, init);
    paths.push(`${request.method} ${new URL(request.url).pathname}`);
    const body = request.method === "POST"
      ? { metadata: { name: "m1.a/b c" } }
      : {};
    return Promise.resolve(
      new Response(JSON.stringify(body), {
        status: request.method === "POST" ? 201 : 200,
        headers: { "content-type": "application/json" },
      }),
    );
  };
  const errors: unknown[] = [];
  const recorder = new Recorder(
    new Client("http://127.0.0.1:9", { fetch }),
    "test-operator",
    {
      instance: "pod-1",
      logger: testLogger({ onError: (error) => errors.push(error) }),
    },
  );
  const odd = { kind: "Thing", namespace: "a/b c?", name: "m1" };
  recorder.warning(odd, failed);
  await time.settle();
  recorder.warning(odd, failed);
  await recorder.stop();
  assert.deepEqual(errors, []);
  assert.deepEqual(paths, [
    "POST /api/v1/namespaces/a%2Fb%20c%3F/events",
    "PATCH /api/v1/namespaces/a%2Fb%20c%3F/events/m1.a%2Fb%20c",
  ]);
});

Deno.test("queueLength sets the queue's capacity", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const { recorder, errors, gate } = setup(server, { queueLength: 2 });
  gate.close();
  recorder.warning(machine, failed); // in flight
  await time.settle();
  for (let i = 0; i < 5; i++) {
    recorder.normal({ ...machine, name: `m${i}` }, failed);
  }
  assert.equal(recorder.dropped(), 3);
  assert.match(describe(errors[0]), /: 2 Events wait to be written$/);
  gate.open();
  await recorder.stop();
  assert.equal(posts(server), 3);
});

Deno.test("attempts sets the tries per write", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const { recorder, errors } = setup(server, { attempts: 1 });
  server.refuse({ method: "POST", path: /\/events$/, status: 503 });
  recorder.warning(machine, failed);
  await time.settle();
  assert.equal(posts(server), 1);
  assert.equal(errors.length, 1, "given up after one try");
  assert.ok(errors[0] instanceof EventWriteError);
  assert.equal(time.countTimers(), 0, "no retry waits");
  await recorder.stop();
  assert.equal(posts(server), 1);
});

Deno.test("retryWait sets the pause between tries", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const { recorder, logs } = setup(server, { retryWait: 500 });
  server.refuse({ method: "POST", path: /\/events$/, status: 503, count: 1 });
  recorder.warning(machine, failed);
  await time.settle();
  assert.equal(posts(server), 1);
  await time.tick(499);
  assert.equal(posts(server), 1);
  await time.tick(1);
  assert.equal(posts(server), 2);
  assert.equal(about(server, machine).length, 1);
  assert.deepEqual(logs, []);
  await recorder.stop();
});

Deno.test("the tunables are kept within their bounds", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const { recorder, errors, gate } = setup(server, {
    queueLength: 0, // at least 1
    attempts: Number.NaN, // the default, 3
    retryWait: -5, // at least 100 ms
  });
  const refusal = server.refuse({
    method: "POST",
    path: /\/events$/,
    status: 503,
  });
  recorder.warning(machine, failed);
  await time.settle();
  assert.equal(posts(server), 1);
  await time.tick(99);
  assert.equal(posts(server), 1);
  await time.tick(1);
  assert.equal(posts(server), 2);
  await time.tick(100);
  assert.equal(posts(server), ATTEMPTS);
  assert.equal(errors.length, 1);
  gate.close();
  refusal.allow();
  recorder.warning({ ...machine, name: "m2" }, failed); // in flight
  await time.settle();
  recorder.warning({ ...machine, name: "m3" }, failed); // queued: 1 fits
  recorder.warning({ ...machine, name: "m4" }, failed); // dropped
  assert.equal(recorder.dropped(), 1);
  gate.open();
  await recorder.stop({ timeout: Infinity });
  assert.equal(about(server, { kind: "Machine", name: "m3" }).length, 1);
});

Deno.test("retryWait is capped at one hour, attempts at 100", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const { recorder, errors } = setup(server, {
    retryWait: Infinity,
    attempts: 1e9,
  });
  server.refuse({ method: "POST", path: /\/events$/, status: 503 });
  recorder.warning(machine, failed);
  await time.settle();
  await time.tick(3_600_000 * 99);
  assert.equal(posts(server), 100);
  assert.equal(errors.length, 1);
  await recorder.stop();
});

Deno.test("stop's timeout option sets its bound; NaN is the default", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const { recorder, gate } = setup(server);
  gate.close();
  recorder.warning(machine, failed);
  await time.settle();
  let result: unknown = "pending";
  const outcome = (): unknown => result;
  const first = recorder.stop({ timeout: 1_000 }).catch((error) =>
    result = error
  );
  await time.tick(999);
  assert.equal(outcome(), "pending");
  await time.tick(1);
  assert.ok(outcome() instanceof StopTimeoutError);
  assert.match(
    ((outcome() as Error).cause as Error).message,
    /took longer than 1000 ms/,
  );
  await first;
  gate.open();
  await recorder.done;
  // A second recorder: NaN means 5 s.
  const other = setup(server);
  other.gate.close();
  other.recorder.warning(machine, failed);
  await time.settle();
  result = "pending";
  const second = other.recorder.stop({ timeout: Number.NaN }).catch((error) =>
    result = error
  );
  await time.tick(RECORDER_STOP_TIMEOUT - 1);
  assert.equal(outcome(), "pending");
  await time.tick(1);
  assert.ok(outcome() instanceof StopTimeoutError);
  await second;
  other.gate.open();
  await other.recorder.done;
});

Deno.test("await using stops the recorder: the queue is written", async () => {
  using _time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  let done: Promise<void> | undefined;
  {
    await using recorder = setup(server).recorder;
    done = recorder.done;
    recorder.warning(machine, failed);
  }
  assert.equal(about(server, machine).length, 1);
  await done;
});

Deno.test("by default errors go to console.error naming the recorder", async () => {
  using _time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const client = new Client(server.url, { fetch: server.fetch });
  const recorder = new Recorder(client, "test-operator", { instance: "p" });
  await recorder.stop();
  const printed: unknown[][] = [];
  // deno-lint-ignore no-console -- the test replaces the default error sink to read it.
  const original = console.error;
  // deno-lint-ignore no-console -- as above.
  console.error = (...args: unknown[]): void => void printed.push(args);
  try {
    recorder.warning(machine, failed);
  } finally {
    // deno-lint-ignore no-console -- as above.
    console.error = original;
  }
  assert.equal(printed.length, 1);
  assert.match(
    String(printed[0]?.[0]),
    /^E\d{4} [\d:.]+ events\/recorder\.ts:\d+\] "Event dropped" err="Dropped the Warning Event StepFailed about the Machine m1: the recorder has stopped" recorder="test-operator"$/,
  );
});

Deno.test("a reference's resourceVersion and fieldPath reach involvedObject, and a part of an object has its own series", async () => {
  using _time = installFakeTime({ now: START });
  await using server = new FakeApiServer({ namespaceLifecycle: false });
  const { recorder } = setup(server);
  const container = {
    ...pod,
    resourceVersion: "7",
    fieldPath: "spec.containers{web}",
  };
  recorder.warning(container, failed);
  recorder.warning(pod, failed);
  recorder.warning(container, failed);
  await recorder.stop();
  const events = about(server, pod);
  assert.deepEqual(
    events.map((event) => [event.involvedObject.fieldPath, event.count]),
    [["spec.containers{web}", 2], [undefined, 1]],
  );
  assert.equal(events[0]?.involvedObject.resourceVersion, "7");
});
