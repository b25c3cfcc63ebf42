import assert from "node:assert/strict";
import { Client, type KubeObject } from "../apiclient/mod.ts";
import { REQUEST_TIMEOUT } from "../election/mod.ts";
import { Metrics } from "../metrics/mod.ts";
import {
  FakeApiServer,
  type FakeTime,
  installFakeTime,
} from "../testing/mod.ts";
import {
  type ControllerOptions,
  Manager,
  type ReconcileContext,
} from "./mod.ts";
import { testLogger } from "../_internal/_log_test_util.ts";
import { Encoded } from "../informer/_bytes.ts";

const CONFIGMAPS = { version: "v1", resource: "configmaps", kind: "ConfigMap" };
const SECRETS = { version: "v1", resource: "secrets", kind: "Secret" };
const CM = "/api/v1/namespaces/default/configmaps";
const LEASE = { namespace: "default", name: "op" };

interface Harness extends AsyncDisposable {
  time: FakeTime;
  server: FakeApiServer;
  client: () => Client;
  user: Client;
}

function setup(): Harness {
  const time = installFakeTime({ now: Date.parse("2030-01-01T00:00:00Z") });
  const server = new FakeApiServer({
    freshCluster: false,
    namespaceLifecycle: false,
  });
  return {
    time,
    server,
    client: () =>
      new Client(server.url, { fetch: server.fetch, timeout: REQUEST_TIMEOUT }),
    user: new Client(server.url, { fetch: server.fetch }),
    async [Symbol.asyncDispose](): Promise<void> {
      await server.stop();
      time[Symbol.dispose]();
    },
  };
}

/** Watch requests of a collection path (a streaming list is a watch too). */
function watches(server: FakeApiServer, path: string): number {
  return server.requests.filter((r) =>
    r.method === "GET" && r.path === path &&
    new URLSearchParams(r.query ?? "").get("watch") === "true"
  ).length;
}

/** Ticks a second at a time until `check` holds (at most 5 min). */
async function until(
  time: FakeTime,
  check: () => boolean,
  lines: string[] = [],
): Promise<void> {
  for (let i = 0; i < 300 && !check(); i++) await time.tick(1_000);
  assert.ok(check(), lines.join("\n"));
}

function recording(
  name: string,
  seen: string[],
  extra: Partial<ControllerOptions> = {},
): ControllerOptions {
  return {
    name,
    for: CONFIGMAPS,
    reconcile: (context: ReconcileContext) => {
      seen.push(`${name} ${context.key}`);
    },
    ...extra,
  };
}

Deno.test("two controllers on one collection open one watch, and both reconcile every change", async () => {
  await using h = setup();
  const seen: string[] = [];
  await using manager = new Manager(h.client(), {
    controllers: [recording("a", seen), recording("b", seen)],
  });
  await h.time.settle();
  await h.user.create(CM, { metadata: { name: "x" } });
  await h.user.create(CM, { metadata: { name: "y" } });
  await h.time.settle();
  await manager.idle();
  assert.deepEqual(seen.sort(), [
    "a default/x",
    "a default/y",
    "b default/x",
    "b default/y",
  ]);
  assert.equal(watches(h.server, "/api/v1/configmaps"), 1);
  assert.equal(manager.collections.size(), 1);
  assert.ok(manager.synced());
});

Deno.test("storage: the shared caches keep text, and the controllers reconcile each change from them", async () => {
  await using h = setup();
  const seen: string[] = [];
  await using manager = new Manager(h.client(), {
    controllers: [recording("a", seen)],
    storage: "bytes",
  });
  await h.time.settle();
  await h.user.create(CM, { metadata: { name: "x" } });
  await h.time.settle();
  await manager.idle();
  await h.user.patch(`${CM}/x`, { metadata: { labels: { l: "1" } } }, {
    type: "merge",
  });
  await h.time.settle();
  await manager.idle();
  assert.deepEqual(seen, ["a default/x", "a default/x"]);
  // A registration naming no storage shares the controller's store.
  await using registration = manager.collections.register(CONFIGMAPS);
  const held = [
    ...(registration.store as unknown as { entries(): Map<string, unknown> })
      .entries().values(),
  ];
  assert.equal(held.length, 1);
  assert.ok(held[0] instanceof Encoded);
  assert.equal(watches(h.server, "/api/v1/configmaps"), 1);
});

Deno.test("one election for every controller: the standby's caches run, only the leader reconciles", async () => {
  await using h = setup();
  const seen: string[] = [];
  const exits: number[] = [];
  const election = (pod: string) => ({
    lease: LEASE,
    pod,
    exit: (code: number) => void exits.push(code),
  });
  await using first = new Manager(h.client(), {
    controllers: [recording("a", seen), {
      ...recording("b", seen),
      for: SECRETS,
    }],
    election: election("pod-a"),
  });
  await h.time.settle();
  await using second = new Manager(h.client(), {
    controllers: [recording("a", seen), {
      ...recording("b", seen),
      for: SECRETS,
    }],
    election: election("pod-b"),
  });
  await h.time.tick(1_000);
  assert.equal(h.server.leaseHolder("default", "op"), first.lead?.identity);
  await h.user.create(CM, { metadata: { name: "x" } });
  await h.time.settle();
  await first.idle();
  await h.time.settle();
  // The standby's caches hold the object too, and are synced.
  assert.ok(second.synced());
  const standby = second.controllers[0]!;
  assert.ok(standby.primary.store.get("default/x") !== undefined);
  // One reconcile per controller of the leader; none on the standby.
  assert.deepEqual(seen.sort(), ["a default/x"]);
  assert.equal(
    h.server.count({ method: "PUT", path: /\/leases\/op$/ }) > 0,
    true,
  );
  assert.deepEqual(exits, []);
});

Deno.test("a lost Lease stops every controller at once, no write follows, and the process exits", async () => {
  await using h = setup();
  const exits: number[] = [];
  const writes: string[] = [];
  const writer = (name: string): ControllerOptions => ({
    name,
    for: name === "a" ? CONFIGMAPS : SECRETS,
    reconcile: async (context: ReconcileContext) => {
      writes.push(`${name} ${context.key}`);
      await context.client.resource(CONFIGMAPS).namespace("default").apply({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: `${name}-out` },
      }, { fieldManager: name });
    },
    resync: 1_000,
  });
  await using manager = new Manager(h.client(), {
    controllers: [writer("a"), writer("b")],
    election: { lease: LEASE, pod: "pod-a", exit: (c) => void exits.push(c) },
  });
  await h.user.create(CM, { metadata: { name: "x" } });
  await h.user.create("/api/v1/namespaces/default/secrets", {
    metadata: { name: "s" },
  });
  await h.time.tick(2_000);
  assert.ok(writes.includes("a default/x") && writes.includes("b default/s"));
  // Renewals fail: the guard refuses, then the elector gives up.
  h.server.refuse({ method: "PUT", path: /\/leases\//, status: 500 });
  await h.time.tick(11_000);
  const before = writes.length;
  const applied = h.server.count({ method: "PATCH", path: /\/configmaps\// });
  await h.time.tick(30_000);
  assert.equal(writes.length, before, "no reconcile after the guard refused");
  assert.equal(
    h.server.count({ method: "PATCH", path: /\/configmaps\// }),
    applied,
    "no write after the guard refused",
  );
  assert.deepEqual(exits, [1]);
  await manager.done;
  for (const controller of manager.controllers) {
    await controller.done; // every controller stopped
  }
});

Deno.test("with onLost campaign, a lost Lease stops the controllers, and they start again when it leads again", async () => {
  await using h = setup();
  const seen: string[] = [];
  const lines: string[] = [];
  await using manager = new Manager(h.client(), {
    controllers: [recording("a", seen)],
    election: { lease: LEASE, pod: "pod-a", onLost: "campaign" },
    logger: testLogger({ log: (line) => lines.push(line) }),
  });
  await h.user.create(CM, { metadata: { name: "x" } });
  await h.time.tick(1_000);
  assert.deepEqual(seen, ["a default/x"]);
  const firstTerm = manager.controllers[0]!;
  const refusal = h.server.refuse({
    method: "PUT",
    path: /\/leases\//,
    status: 500,
  });
  await until(
    h.time,
    () => lines.includes(`"Campaigning again" logger="manager"`),
    lines,
  );
  let ended = false;
  void firstTerm.done.then(() => ended = true);
  await h.time.settle();
  assert.ok(ended, "the first term's controller stopped");
  refusal.allow();
  // The old record must expire (30 s on this clock) before a new take.
  await until(h.time, () => manager.lead?.leads() === true, lines);
  await h.time.settle();
  assert.notEqual(manager.controllers[0], firstTerm);
  assert.equal(h.server.leaseHolder("default", "op"), manager.lead?.identity);
  await manager.idle();
  // The new term reconciles every primary once more, from the caches.
  assert.deepEqual(seen, ["a default/x", "a default/x"]);
  assert.equal(watches(h.server, "/api/v1/configmaps"), 1, "caches kept");
});

Deno.test("shutdown order for all controllers: reconciles, then every queued Event, then the Lease", async () => {
  await using h = setup();
  const gate = Promise.withResolvers<void>();
  let held = 0;
  const client = new Client(h.server.url, {
    timeout: REQUEST_TIMEOUT,
    fetch: async (input, init) => {
      const request = new Request(input, init);
      if (new URL(request.url).pathname.endsWith("/events")) {
        held += 1;
        await gate.promise;
      }
      return h.server.fetch(request);
    },
  });
  const lines: string[] = [];
  const noting = (name: string, source: typeof CONFIGMAPS) => ({
    name,
    for: source,
    wiring: { events: { component: name, instance: "pod-a" } },
    reconcile: (context: ReconcileContext<KubeObject>) => {
      context.normal({ reason: "Seen", message: `${name} saw it` });
    },
  });
  const manager = new Manager(client, {
    controllers: [noting("a", CONFIGMAPS), noting("b", SECRETS)],
    election: { lease: LEASE, pod: "pod-a", exit: () => {} },
    logger: testLogger({ log: (line) => lines.push(line) }),
  });
  await h.user.create(CM, { metadata: { name: "x" } });
  await h.user.create("/api/v1/namespaces/default/secrets", {
    metadata: { name: "s" },
  });
  await h.time.tick(1_000);
  await manager.idle();
  assert.ok(held >= 1, "Event writes wait at the gate");
  let stopped = false;
  const stopping = manager.stop().then(() => stopped = true);
  await h.time.tick(1_000);
  assert.equal(stopped, false);
  assert.equal(h.server.leaseHolder("default", "op"), manager.lead?.identity);
  gate.resolve();
  await h.time.settle();
  await stopping;
  const log = h.server.requests;
  const lastEvent = log.findLastIndex((r) => r.path.endsWith("/events"));
  const release = log.findLastIndex((r) =>
    r.method === "PUT" && r.path.includes("/leases/")
  );
  assert.ok(lastEvent >= 0 && release > lastEvent, "the Lease goes last");
  assert.equal(h.server.leaseHolder("default", "op") ?? "", "");
  const reasons = [["ConfigMap", "x"], ["Secret", "s"]].map(([kind, name]) =>
    h.server.eventsAbout({ kind: kind!, name: name! }).map((e) => e.reason)
  );
  assert.deepEqual(reasons, [["Seen"], ["Seen"]]);
  assert.ok(lines.includes(`"Releasing the Lease" logger="manager"`));
});

Deno.test("tasks run on every replica, and end with the stop", async () => {
  await using h = setup();
  const ran: string[] = [];
  const errors: unknown[] = [];
  const task = (pod: string) => ({
    name: "server",
    run: async (signal: AbortSignal) => {
      ran.push(`${pod} start`);
      await new Promise((resolve) =>
        signal.addEventListener("abort", resolve, { once: true })
      );
      ran.push(`${pod} end`);
    },
  });
  const make = (pod: string): Manager =>
    new Manager(h.client(), {
      controllers: [],
      tasks: [task(pod), { name: "short", run: () => {} }],
      election: { lease: LEASE, pod, exit: () => {} },
      logger: testLogger({ onError: (error) => errors.push(error) }),
    });
  const a = make("pod-a");
  await h.time.settle();
  const b = make("pod-b");
  await h.time.settle();
  assert.deepEqual(ran.sort(), ["pod-a start", "pod-b start"]);
  // A task that ends by itself is reported, the others go on.
  assert.match(String(errors[0]), /The task short ended before/);
  await a.stop();
  await b.stop();
  assert.deepEqual(ran.sort(), [
    "pod-a end",
    "pod-a start",
    "pod-b end",
    "pod-b start",
  ]);
});

Deno.test("one metrics registry and one probe server: a standby is ready; each shared collection counted once", async () => {
  await using h = setup();
  const metrics = new Metrics();
  const other = new Metrics();
  await using leader = new Manager(h.client(), {
    controllers: [recording("a", []), recording("b", [])],
    election: { lease: LEASE, pod: "pod-a", exit: () => {} },
    metrics: other,
  });
  await h.time.settle();
  await using standby = new Manager(h.client(), {
    controllers: [recording("a", []), recording("b", [])],
    election: { lease: LEASE, pod: "pod-b", exit: () => {} },
    metrics,
    probes: { hostname: "127.0.0.1", port: 0 },
  });
  await h.time.tick(1_000);
  assert.equal(leader.lead?.leads(), true);
  assert.equal(standby.lead?.leads(), false);
  assert.equal((await metrics.readiness()).ok, true, "a standby is ready");
  const text = metrics.render();
  assert.match(
    text,
    /^leader_election_master_status\{name="op"\} 0$/m,
  );
  assert.match(text, /^informer_synced\{collection="configmaps"\} 1$/m);
  assert.match(text, /^workqueue_adds_total\{name="a"\} /m);
  assert.match(text, /^workqueue_adds_total\{name="b"\} /m);
  assert.ok(standby.probes !== undefined);
});

Deno.test("two controllers of one name are refused; probes need metrics", () => {
  const client = new Client("http://127.0.0.1:1");
  assert.throws(
    () =>
      new Manager(client, {
        controllers: [recording("a", []), recording("a", [])],
      }),
    { name: "TypeError", message: "Two controllers are named a" },
  );
  assert.throws(
    () => new Manager(client, { controllers: [], probes: { port: 0 } }),
    { name: "TypeError", message: "The probe server needs the metrics option" },
  );
});

Deno.test("controllers over a namespace set: one watch per namespace, no cluster-scoped request, reads answered from the cache", async () => {
  await using h = setup();
  const set = { namespaces: ["a", "b"] };
  const seen: string[] = [];
  const reads: (string | undefined)[] = [];
  await using manager = new Manager(h.client(), {
    controllers: [{
      name: "a",
      for: { ...CONFIGMAPS, ...set },
      reconcile: async (context: ReconcileContext) => {
        seen.push(context.key);
        const read = await context.read(context.ref);
        reads.push(read?.metadata.name);
      },
    }, recording("b", seen, { for: { ...CONFIGMAPS, ...set } })],
  });
  for (const ns of ["a", "b", "c"]) {
    await h.user.create(`/api/v1/namespaces/${ns}/configmaps`, {
      metadata: { name: "x" },
    });
  }
  await h.time.settle();
  await manager.idle();
  // Namespace c is outside the set: neither controller hears of it.
  assert.deepEqual(seen.sort(), ["a/x", "b a/x", "b b/x", "b/x"]);
  assert.deepEqual(reads, ["x", "x"]);
  const gets = h.server.requests.filter((r) => r.method === "GET");
  assert.ok(
    !gets.some((r) => r.path === "/api/v1/configmaps"),
    "no cluster list",
  );
  assert.equal(watches(h.server, "/api/v1/namespaces/a/configmaps"), 1);
  assert.equal(watches(h.server, "/api/v1/namespaces/b/configmaps"), 1);
  // The reads came from the shared store: no GET of a single object.
  assert.ok(!gets.some((r) => r.path.endsWith("/configmaps/x")));
});
