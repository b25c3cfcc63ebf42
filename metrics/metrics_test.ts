import assert from "node:assert/strict";
import { Client, type KubeObject, ThrottledError } from "../apiclient/mod.ts";
import { Controller } from "../controller/mod.ts";
import { Collection } from "../informer/mod.ts";
import { Lead } from "../election/mod.ts";
import { EventDroppedError, Recorder } from "../events/mod.ts";
import {
  FakeApiServer,
  type FakeTime,
  installFakeTime,
} from "../testing/mod.ts";
import { Metrics } from "./mod.ts";
import { parse, sample, value } from "./_prometheus_test_util.ts";
import { testLogger } from "../_internal/_log_test_util.ts";

const CM = "/api/v1/namespaces/default/configmaps";
const CONFIGMAPS = {
  version: "v1",
  resource: "configmaps",
  namespace: "default",
};

interface Setup extends AsyncDisposable {
  time: FakeTime;
  server: FakeApiServer;
  metrics: Metrics;
  client: Client;
  host: string;
}

/** Fake time, a fake server, metrics and an observed client. */
function setup(now = 1_000_000): Setup {
  const time = installFakeTime({ now });
  const server = new FakeApiServer();
  const metrics = new Metrics();
  const client = metrics.client(
    new Client(server.url, { fetch: server.fetch }),
  );
  return {
    time,
    server,
    metrics,
    client,
    host: new URL(server.url).host,
    async [Symbol.asyncDispose](): Promise<void> {
      await server.stop();
      time[Symbol.dispose]();
    },
  };
}

Deno.test("client: requests count by code, method and host, with their latency", async () => {
  await using h = setup();
  const { client, server, metrics, host } = h;
  await client.create(CM, { metadata: { name: "a" } });
  await client.get(`${CM}/a`);
  await client.get(`${CM}/missing`).catch(() => {});
  server.down();
  await client.get(`${CM}/a`).catch(() => {});
  server.up();
  const families = parse(metrics.render());
  const requests = (code: string, method: string): number =>
    value(families, "rest_client_requests_total", { code, method, host });
  assert.equal(requests("201", "POST"), 1);
  assert.equal(requests("200", "GET"), 1);
  assert.equal(requests("404", "GET"), 1);
  assert.equal(requests("<error>", "GET"), 1, "no answer: client-go's code");
  assert.match(
    metrics.render(),
    new RegExp(
      `^rest_client_request_duration_seconds_count\\{verb="GET",host="${host}"\\} 3$`,
      "m",
    ),
  );
});

Deno.test("client: a 429 that outlasts the wait counts as 429, its waits in the latency", async () => {
  await using h = setup();
  const { client, server, metrics, host, time } = h;
  server.refuse({ status: 429, retryAfterSeconds: 2 });
  const pending = client.get(`${CM}/a`).catch((e) => e);
  await time.tick(20_000);
  assert.ok(await pending instanceof ThrottledError);
  const text = metrics.render();
  assert.equal(
    value(parse(text), "rest_client_requests_total", { code: "429", host }),
    1,
  );
  // Waited 5 × 2 s before giving up: the 10 s bucket holds it, 8 s does not.
  assert.match(
    text,
    /duration_seconds_bucket\{verb="GET",host="[^"]+",le="8"\} 0$/m,
  );
  assert.match(
    text,
    /duration_seconds_bucket\{verb="GET",host="[^"]+",le="15"\} 1$/m,
  );
  assert.match(text, /duration_seconds_sum\{verb="GET",host="[^"]+"\} 10$/m);
});

Deno.test("collection: objects, synced, readiness, reopens, relists after 410, list failures, event age", async () => {
  await using h = setup();
  const { client, server, metrics, time } = h;
  await client.create(CM, { metadata: { name: "a" } });
  await client.create(CM, { metadata: { name: "b" } });
  const seen: string[] = [];
  let syncedCalls = 0;
  const hooks = metrics.collection(CONFIGMAPS, {
    handler: { add: (o) => void seen.push(o.metadata.name!) },
    synced: () => void syncedCalls++,
  });
  const read = (name: string): number =>
    value(parse(metrics.render()), name, { collection: "default/configmaps" });
  assert.equal((await metrics.readiness()).ok, false, "not ready before sync");
  assert.equal(read("informer_synced"), 0);
  await using configMaps = new Collection(client, CONFIGMAPS, { ...hooks });
  await time.settle();
  assert.equal(syncedCalls, 1, "the caller's synced still runs");
  assert.deepEqual(seen.sort(), ["a", "b"], "the caller's handler still runs");
  assert.equal(read("informer_synced"), 1);
  assert.equal(read("informer_objects"), 2);
  assert.deepEqual(await metrics.readiness(), {
    ok: true,
    checks: [{ name: "collection default/configmaps", ok: true }],
  });
  assert.equal(
    read("informer_relists_total"),
    0,
    "the first read is no relist",
  );

  await client.delete(`${CM}/a`);
  await time.settle();
  assert.equal(read("informer_objects"), 1);
  await time.tick(30_000);
  assert.equal(read("informer_last_event_seconds"), 30);

  // A watch the server closes is opened again: a reopen, not a relist.
  server.cutWatches();
  await time.tick(2_000);
  await time.settle();
  assert.equal(read("informer_watch_reopens_total"), 1);
  assert.equal(read("informer_relists_total"), 0);

  // A 410 Gone makes the informer read the whole collection again.
  server.cutWatches();
  server.put(`${CM}/c`, { metadata: {} });
  server.compact();
  await time.tick(10_000);
  await time.settle();
  assert.equal(read("informer_relists_total"), 1);
  assert.equal(read("informer_objects"), 2);
  assert.ok(read("informer_watch_reopens_total") >= 2);

  assert.equal(configMaps.store.size, read("informer_objects"));
});

Deno.test("collection: list failures and recoveries count, a name is wired once, a stopped collection fails a health check", async () => {
  await using h = setup();
  const { client, metrics, server, time } = h;
  server.refuse({ status: 500, count: 2 });
  const configMaps = new Collection(client, CONFIGMAPS, {
    logger: testLogger({ onError: () => {} }),
    ...metrics.collection(CONFIGMAPS),
  });
  assert.throws(() => metrics.collection(CONFIGMAPS), /wired already/);
  metrics.healthCheck("configmaps watch", configMaps);
  await time.tick(10_000);
  await time.settle();
  const read = (name: string): number =>
    value(parse(metrics.render()), name, { collection: "default/configmaps" });
  // The refused streaming list falls back to a list at once; that list's
  // refusal is the one failed read.
  assert.equal(read("informer_list_failures_total"), 1);
  // Failures before the first complete read leave no gap to recover from.
  assert.ok(Number.isNaN(read("informer_watch_recoveries_total")));
  assert.equal(read("informer_synced"), 1);
  assert.equal((await metrics.health()).ok, true);
  // A watch that broke after the first read, then opens again, recovers.
  server.refuse({ status: 500, count: 1, watch: true });
  server.cutWatches();
  await time.tick(10_000);
  await time.settle();
  assert.equal(read("informer_watch_recoveries_total"), 1);
  await configMaps.stop();
  assert.deepEqual(await metrics.health(), {
    ok: false,
    checks: [{ name: "configmaps watch", ok: false, reason: "it ended" }],
  });
});

Deno.test("election: status, renewal age and transitions follow a lost Lease", async () => {
  await using h = setup();
  const { server, time } = h;
  const base = new Client(server.url, { fetch: server.fetch });
  const lease = { namespace: "default", name: "op" };
  const exits: number[] = [];
  const a = new Lead(base, {
    lease,
    pod: "op-a",
    exit: (c) => void exits.push(c),
    logger: testLogger({ onError: () => {} }),
  });
  const b = new Lead(base, {
    lease,
    pod: "op-b",
    exit: () => {},
    logger: testLogger({ onError: () => {} }),
  });
  const ma = new Metrics();
  const mb = new Metrics();
  ma.lead(a);
  mb.lead(b);
  await a.leading();
  await time.tick(100);
  const read = (m: Metrics, name: string): number =>
    value(parse(m.render()), name, { name: "op" });
  assert.equal(read(ma, "leader_election_master_status"), 1);
  assert.equal(read(mb, "leader_election_master_status"), 0);
  assert.equal((await mb.readiness()).ok, true, "a standby copy is ready");
  assert.equal((await mb.health()).ok, true);
  assert.ok(read(ma, "leader_election_renewal_age_seconds") < 5);
  assert.equal(
    sample(parse(mb.render()), "leader_election_renewal_age_seconds"),
    undefined,
    "a copy that never renewed has no renewal age",
  );
  assert.equal(read(ma, "leader_election_lease_transitions"), 0);

  // The leader's renewals fail: it refuses writes at 10 s, gives up, exits.
  server.refuse({ method: "PUT", path: /leases/, status: 500, count: 8 });
  await time.tick(9_000);
  const age = read(ma, "leader_election_renewal_age_seconds");
  assert.ok(age >= 5 && age < 10, `renewal age ${age}`);
  await time.tick(30_000);
  assert.deepEqual(exits, [1]);
  assert.equal(read(ma, "leader_election_master_status"), 0);
  // The standby takes the expired Lease: it changed hands once.
  await time.tick(60_000);
  assert.equal(read(mb, "leader_election_master_status"), 1);
  assert.equal(read(mb, "leader_election_lease_transitions"), 1);
  await b.stop();
  await a.stop();
});

Deno.test("recorder: created, patched as a series, dropped and failed Events count", async () => {
  await using h = setup();
  const { client, server, metrics, time } = h;
  const errors: unknown[] = [];
  const heard: string[] = [];
  const recorder = new Recorder(client, "demo", {
    instance: "pod-1",
    queueLength: 1,
    attempts: 1,
    logger: testLogger({ onError: (e) => void errors.push(e) }),
    ...metrics.recorder("demo", (outcome) => void heard.push(outcome)),
  });
  const machine = { kind: "Machine", name: "m1" };
  recorder.normal(machine, { reason: "Started", message: "" });
  await time.settle();
  recorder.normal(machine, { reason: "Started", message: "" });
  await time.settle();
  // The queue holds one: the second and third posts in a row drop.
  server.latency(1_000);
  recorder.normal(machine, { reason: "A", message: "" });
  await time.tick(0);
  recorder.normal(machine, { reason: "B", message: "" });
  recorder.normal(machine, { reason: "C", message: "" });
  recorder.normal(machine, { reason: "D", message: "" });
  await time.tick(5_000);
  server.latency(0);
  server.refuse({ method: "POST", path: /events/, status: 500, count: 1 });
  recorder.warning(machine, { reason: "Failed", message: "" });
  await time.tick(1_000);
  await recorder.stop();
  const read = (result: string): number =>
    value(parse(metrics.render()), "event_recorder_events_total", {
      component: "demo",
      result,
    });
  assert.equal(read("created"), 3);
  assert.equal(read("patched"), 1);
  assert.equal(read("dropped"), 2, "every drop, not just the first reported");
  assert.equal(read("failed"), 1);
  assert.equal(heard.length, 7, "the caller's observer still hears each");
  assert.equal(errors.filter((e) => e instanceof EventDroppedError).length, 1);
});

Deno.test("controller: a failed reconcile, its retry and a stuck reconcile move the metrics", async () => {
  await using h = setup();
  const { client, metrics, time } = h;
  await client.create(CM, { metadata: { name: "a" } });
  const observer = metrics.controller("mirror", { stuckAfter: 60_000 });
  assert.throws(() => metrics.controller("mirror"), /wired already/);
  let calls = 0;
  const release = Promise.withResolvers<void>();
  await using controller = new Controller<KubeObject>(client, {
    name: "mirror",
    for: { ...CONFIGMAPS, kind: "ConfigMap" },
    reconcile: async () => {
      calls++;
      if (calls === 1) throw new Error("the first try fails");
      if (calls === 3) await release.promise; // stuck until released
    },
    wiring: {
      observer,
    },
    queue: { observer: observer.queue },
    logger: testLogger({ onError: () => {} }),
  });
  // A failed assertion must not leave the stuck reconcile holding the stop.
  try {
    await time.tick(1_000);
    await controller.idle();
    const read = (name: string, labels: Record<string, string>): number =>
      value(parse(metrics.render()), name, labels);
    const ctl = { controller: "mirror" };
    const q = { name: "mirror" };
    assert.equal(calls, 2);
    assert.equal(
      read("controller_runtime_reconcile_total", { ...ctl, result: "error" }),
      1,
    );
    assert.equal(
      read("controller_runtime_reconcile_total", { ...ctl, result: "success" }),
      1,
    );
    assert.equal(read("controller_runtime_reconcile_errors_total", ctl), 1);
    assert.equal(read("workqueue_retries_total", q), 1);
    assert.equal(read("workqueue_adds_total", q), 2);
    assert.equal(read("workqueue_depth", q), 0);
    assert.match(
      metrics.render(),
      /^workqueue_work_duration_seconds_count\{name="mirror"\} 2$/m,
    );
    assert.equal((await metrics.health()).ok, true);

    // A change reconciles again, and that reconcile hangs.
    await client.patch(`${CM}/a`, { data: { x: "1" } }, { type: "merge" });
    await time.tick(10);
    assert.equal(calls, 3);
    await time.tick(30_000);
    // Taken when the change arrived, 10 ms before the 30 s.
    assert.equal(read("workqueue_unfinished_work_seconds", q), 30.01);
    assert.equal(read("workqueue_longest_running_processor_seconds", q), 30.01);
    assert.equal((await metrics.health()).ok, true, "30 s is not stuck");
    await time.tick(31_000);
    assert.deepEqual(await metrics.health(), {
      ok: false,
      checks: [{
        name: "controller mirror",
        ok: false,
        reason: "a reconcile has run for 61 s",
      }],
    });
    release.resolve();
    await time.tick(10);
    await controller.idle();
    assert.equal((await metrics.health()).ok, true);
    assert.equal(read("workqueue_longest_running_processor_seconds", q), 0);
  } finally {
    release.resolve();
  }
});

Deno.test("controller: the queue observer's figures, and work timed from each take", async () => {
  await using h = setup();
  const { metrics, time } = h;
  const c = metrics.controller("greetings");
  c.queue.added(1);
  c.queue.added(2);
  c.queue.taken(2, 1);
  await time.tick(1_000);
  c.queue.taken(3, 0);
  await time.tick(500);
  // The first take ends: 1.5 s of work; the second has run 0.5 s.
  c.queue.finished(1.5);
  c.reconciled("requeue_after", 1.5);
  await time.tick(1_000);
  const families = parse(metrics.render());
  const q = { name: "greetings" };
  assert.equal(value(families, "workqueue_depth", q), 0);
  assert.equal(value(families, "workqueue_unfinished_work_seconds", q), 1.5);
  assert.equal(
    value(families, "workqueue_longest_running_processor_seconds", q),
    1.5,
  );
  const text = metrics.render();
  assert.match(
    text,
    /^workqueue_queue_duration_seconds_sum\{name="greetings"\} 5$/m,
  );
  assert.match(
    text,
    /^workqueue_queue_duration_seconds_bucket\{name="greetings",le="1"\} 0$/m,
  );
  assert.match(
    text,
    /^workqueue_queue_duration_seconds_bucket\{name="greetings",le="10"\} 2$/m,
  );
  assert.match(
    text,
    /^controller_runtime_reconcile_time_seconds_bucket\{controller="greetings",le="1\.5"\} 1$/m,
  );
  assert.equal(
    value(families, "controller_runtime_reconcile_total", {
      controller: "greetings",
      result: "requeue_after",
    }),
    1,
  );
});

Deno.test("checks: failures carry their reason, slow ones time out, names are unique", async () => {
  await using h = setup();
  const { time } = h;
  const metrics = new Metrics({ checkTimeout: 1_000 });
  metrics.readyCheck("fine", () => {});
  metrics.readyCheck("async", async () => {
    await Promise.resolve();
    throw new Error("not yet");
  });
  metrics.readyCheck("hangs", () => new Promise<void>(() => {}));
  assert.throws(() => metrics.readyCheck("fine", () => {}), /exists already/);
  const pending = metrics.readiness();
  await time.tick(1_000);
  assert.deepEqual(await pending, {
    ok: false,
    checks: [
      { name: "fine", ok: true },
      { name: "async", ok: false, reason: "not yet" },
      { name: "hangs", ok: false, reason: "no answer within 1000 ms" },
    ],
  });
  assert.deepEqual(await new Metrics().health(), { ok: true, checks: [] });
});

Deno.test("controller: instrument wires its watches into the informer metrics and readiness", async () => {
  await using h = setup();
  const { client, metrics, time } = h;
  await client.create(CM, { metadata: { name: "a" } });
  const observer = metrics.controller("wired");
  await using controller = new Controller<KubeObject>(client, {
    name: "wired",
    for: { ...CONFIGMAPS, kind: "ConfigMap" },
    owns: [{ version: "v1", resource: "secrets" }],
    wiring: {
      instrument: (source, hooks) => metrics.collection(source, hooks),
      observer,
    },
    reconcile: () => {},
    queue: { observer: observer.queue },
  });
  await time.tick(1_000);
  await controller.idle();
  const text = metrics.render();
  assert.match(
    text,
    /^informer_synced\{collection="default\/configmaps"\} 1$/m,
  );
  assert.match(text, /^informer_synced\{collection="secrets"\} 1$/m);
  assert.match(
    text,
    /^informer_objects\{collection="default\/configmaps"\} 1$/m,
  );
  assert.equal((await metrics.readiness()).ok, true);
  assert.equal(
    value(parse(text), "controller_runtime_reconcile_total", {
      controller: "wired",
      result: "success",
    }),
    1,
  );
});
