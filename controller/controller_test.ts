import assert from "node:assert/strict";
import {
  Client,
  type KubeObject,
  type OwnerReference,
} from "../apiclient/mod.ts";
import { Lead } from "../election/mod.ts";
import { Recorder } from "../events/mod.ts";
import {
  FakeApiServer,
  type FakeTime,
  installFakeTime,
} from "../testing/mod.ts";
import { Controller, type ReconcileContext, ReconcileError } from "./mod.ts";
import { testLogger } from "../_internal/_log_test_util.ts";

const CM = "/api/v1/namespaces/default/configmaps";
const SECRETS = "/api/v1/namespaces/default/secrets";
const CONFIGMAPS = { version: "v1", resource: "configmaps", kind: "ConfigMap" };
const SECRET_SOURCE = { version: "v1", resource: "secrets" };

interface Harness extends AsyncDisposable {
  time: FakeTime;
  server: FakeApiServer;
  client: Client;
}

function setup(): Harness {
  const time = installFakeTime({ now: Date.parse("2030-01-01T00:00:00Z") });
  const server = new FakeApiServer({
    freshCluster: false,
    namespaceLifecycle: false,
  });
  const client = new Client(server.url, { fetch: server.fetch });
  return {
    time,
    server,
    client,
    async [Symbol.asyncDispose](): Promise<void> {
      await server.stop();
      time[Symbol.dispose]();
    },
  };
}

/** Records every reconcile as `key present|gone`. */
function recording(): {
  seen: string[];
  reconcile: (context: ReconcileContext) => void;
} {
  const seen: string[] = [];
  return {
    seen,
    reconcile: ({ key, object }) =>
      void seen.push(`${key} ${object === undefined ? "gone" : "present"}`),
  };
}

function owner(object: KubeObject, controller = true): OwnerReference {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    name: object.metadata.name!,
    uid: object.metadata.uid!,
    controller,
  };
}

Deno.test("nothing is reconciled before every collection synced; then every primary once", async () => {
  await using h = setup();
  await h.client.create(CM, { metadata: { name: "a" } });
  await h.client.create(CM, { metadata: { name: "b" } });
  // The children's first list is refused for a while.
  h.server.refuse({ method: "GET", path: SECRETS, status: 503, count: 3 });
  const { seen, reconcile } = recording();
  await using controller = new Controller(h.client, {
    name: "t",
    for: CONFIGMAPS,
    owns: [{ ...SECRET_SOURCE, namespace: "default" }],
    reconcile,
    logger: testLogger({ onError: () => {} }),
  });
  await h.time.tick(100);
  assert.equal(controller.primary.synced(), true);
  assert.equal(controller.synced(), false);
  assert.deepEqual(seen, []);
  await h.time.tick(60_000);
  await controller.idle();
  assert.equal(controller.synced(), true);
  // Each primary exactly once: the children's failed first reads left no
  // gap to recover from.
  assert.deepEqual(seen.sort(), [
    "default/a present",
    "default/b present",
  ]);
});

Deno.test("adds, meaningful updates and deletes reconcile; status-only writes do not", async () => {
  await using h = setup();
  h.server.register({
    group: "example.com",
    version: "v1",
    resource: "widgets",
    kind: "Widget",
    statusSubresource: true,
  });
  const widgets = "/apis/example.com/v1/namespaces/default/widgets";
  const { seen, reconcile } = recording();
  await using controller = new Controller(h.client, {
    name: "t",
    for: {
      group: "example.com",
      version: "v1",
      resource: "widgets",
      kind: "Widget",
    },
    reconcile,
  });
  await h.time.settle();
  await controller.idle();
  const made = await h.client.create<KubeObject & { spec: unknown }>(widgets, {
    apiVersion: "example.com/v1",
    kind: "Widget",
    metadata: { name: "w" },
    spec: { size: 1 },
  });
  await h.time.settle();
  await controller.idle();
  assert.deepEqual(seen, ["default/w present"]);
  // A status write: no reconcile.
  await h.client.replaceStatus(`${widgets}/w`, {
    ...made,
    status: { phase: "Ready" },
  });
  await h.time.settle();
  await controller.idle();
  assert.deepEqual(seen, ["default/w present"]);
  // A spec change (new generation) and a label change: one reconcile each.
  const current = h.server.object<typeof made>(`${widgets}/w`)!;
  await h.client.replace(`${widgets}/w`, { ...current, spec: { size: 2 } });
  await h.time.settle();
  await controller.idle();
  const next = h.server.object<typeof made>(`${widgets}/w`)!;
  await h.client.replace(`${widgets}/w`, {
    ...next,
    metadata: { ...next.metadata, labels: { a: "b" } },
  });
  await h.time.settle();
  await controller.idle();
  await h.client.delete(`${widgets}/w`);
  await h.time.settle();
  await controller.idle();
  assert.deepEqual(seen, [
    "default/w present",
    "default/w present",
    "default/w present",
    "default/w gone",
  ]);
});

Deno.test("a child wakes its controlling owner only: not a non-controller owner, another kind, or an owner in another namespace", async () => {
  await using h = setup();
  const a = await h.client.create(CM, { metadata: { name: "a" } });
  const { seen, reconcile } = recording();
  await using controller = new Controller(h.client, {
    name: "t",
    for: CONFIGMAPS,
    owns: [SECRET_SOURCE],
    reconcile,
  });
  await h.time.settle();
  await controller.idle();
  seen.length = 0;
  await h.client.create(SECRETS, {
    metadata: { name: "s1", ownerReferences: [owner(a, false)] },
  });
  await h.client.create(SECRETS, {
    metadata: {
      name: "s2",
      ownerReferences: [{ ...owner(a), kind: "Deployment" }],
    },
  });
  await h.time.settle();
  await controller.idle();
  assert.deepEqual(seen, []);
  // Owner references never cross namespaces: a child in another namespace
  // that names "a" concerns other/a, not default/a.
  await h.client.create("/api/v1/namespaces/other/secrets", {
    metadata: { name: "s3", ownerReferences: [owner(a)] },
  });
  await h.time.settle();
  await controller.idle();
  assert.deepEqual(seen, ["other/a gone"]);
  seen.length = 0;
  await h.client.create(SECRETS, {
    metadata: { name: "s4", ownerReferences: [owner(a)] },
  });
  await h.time.settle();
  await controller.idle();
  assert.deepEqual(seen, ["default/a present"]);
  await h.client.delete(`${SECRETS}/s4`);
  await h.time.settle();
  await controller.idle();
  assert.deepEqual(seen, ["default/a present", "default/a present"]);
});

Deno.test("watches map any collection to primary keys", async () => {
  await using h = setup();
  await h.client.create(CM, { metadata: { name: "a" } });
  const { seen, reconcile } = recording();
  await using controller = new Controller(h.client, {
    name: "t",
    for: CONFIGMAPS,
    watches: [{
      source: SECRET_SOURCE,
      map: (secret) => [{
        ...CONFIGMAPS,
        namespace: "default",
        name: secret.metadata.labels?.["for"] ?? "",
      }],
    }],
    reconcile,
  });
  await h.time.settle();
  await controller.idle();
  seen.length = 0;
  await h.client.create(SECRETS, {
    metadata: { name: "s", labels: { for: "a" } },
  });
  await h.time.settle();
  await controller.idle();
  assert.deepEqual(seen, ["default/a present"]);
});

Deno.test("requeueAfter runs the key again after the delay", async () => {
  await using h = setup();
  await h.client.create(CM, { metadata: { name: "a" } });
  const times: number[] = [];
  await using controller = new Controller(h.client, {
    name: "t",
    for: CONFIGMAPS,
    reconcile: () => {
      times.push(Date.now());
      return times.length < 3 ? { requeueAfter: 60_000 } : undefined;
    },
  });
  await h.time.settle();
  await controller.idle();
  await h.time.tick(59_999);
  assert.equal(times.length, 1);
  await h.time.tick(1);
  await controller.idle();
  await h.time.tick(60_000);
  await controller.idle();
  await h.time.tick(600_000);
  assert.deepEqual(times.map((t) => t - times[0]!), [0, 60_000, 120_000]);
});

Deno.test("a failing reconcile backs off 5 ms doubling, reports a ReconcileError, and resets on success", async () => {
  await using h = setup();
  await h.client.create(CM, { metadata: { name: "a" } });
  const times: number[] = [];
  const retries: number[] = [];
  const errors: unknown[] = [];
  await using controller = new Controller(h.client, {
    name: "t",
    for: CONFIGMAPS,
    reconcile: (context) => {
      times.push(Date.now());
      retries.push(context.retries);
      if (times.length <= 4) throw new Error("boom");
    },
    logger: testLogger({ onError: (error) => errors.push(error) }),
  });
  await h.time.settle();
  for (let i = 0; i < 10; i++) await h.time.tick(5);
  await h.time.tick(100);
  await controller.idle();
  const start = times[0]!;
  assert.deepEqual(times.map((t) => t - start), [0, 5, 15, 35, 75]);
  assert.deepEqual(retries, [0, 1, 2, 3, 4]);
  assert.equal(errors.length, 4);
  assert.ok(errors[0] instanceof ReconcileError);
  assert.match(
    (errors[0] as Error).message,
    /Reconciling default\/a \(t\) failed: boom/,
  );
  assert.equal(controller.queue.retries("default/a"), 0);
});

Deno.test("an error policy chooses the delay", async () => {
  await using h = setup();
  await h.client.create(CM, { metadata: { name: "a" } });
  const times: number[] = [];
  await using controller = new Controller(h.client, {
    name: "t",
    for: CONFIGMAPS,
    reconcile: () => {
      times.push(Date.now());
      if (times.length === 1) throw new Error("later");
    },
    errorPolicy: () => 30_000,
    logger: testLogger({ onError: () => {} }),
  });
  await h.time.settle();
  await h.time.tick(29_999);
  assert.equal(times.length, 1);
  await h.time.tick(1);
  await controller.idle();
  assert.equal(times.length, 2);
});

Deno.test("concurrency N runs N slow reconciles at once, never two of one key", async () => {
  await using h = setup();
  for (const name of ["a", "b", "c", "d"]) {
    await h.client.create(CM, { metadata: { name } });
  }
  let running = 0;
  let most = 0;
  const active = new Set<string>();
  const twice: string[] = [];
  const runs = new Map<string, number>();
  await using controller = new Controller(h.client, {
    name: "t",
    for: CONFIGMAPS,
    concurrency: 3,
    reconcile: async ({ key }) => {
      // Recorded, not asserted here: a throw would only become a retry.
      if (active.has(key)) twice.push(key);
      active.add(key);
      runs.set(key, (runs.get(key) ?? 0) + 1);
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      running -= 1;
      active.delete(key);
    },
  });
  await h.time.settle();
  // A change during the slow reconcile of a queues it once more, after.
  const a = h.server.object(`${CM}/a`)!;
  await h.client.replace(`${CM}/a`, { ...a, data: { x: "1" } });
  await h.client.replace(`${CM}/a`, {
    ...h.server.object(`${CM}/a`)!,
    data: { x: "2" },
  });
  await h.time.tick(1_000);
  await h.time.tick(1_000);
  await h.time.tick(1_000);
  await controller.idle();
  assert.equal(most, 3);
  assert.deepEqual(twice, []);
  assert.deepEqual(Object.fromEntries(runs), {
    "default/a": 2,
    "default/b": 1,
    "default/c": 1,
    "default/d": 1,
  });
});

Deno.test("resync reconciles every primary object again", async () => {
  await using h = setup();
  await h.client.create(CM, { metadata: { name: "a" } });
  const { seen, reconcile } = recording();
  await using controller = new Controller(h.client, {
    name: "t",
    for: CONFIGMAPS,
    resync: 600_000,
    reconcile,
  });
  await h.time.settle();
  await controller.idle();
  await h.time.tick(600_000);
  await controller.idle();
  await h.time.tick(600_000);
  await controller.idle();
  assert.equal(seen.length, 3);
  controller.reconcileAll();
  await controller.idle();
  assert.equal(seen.length, 4);
});

Deno.test("with an election it reconciles only while leading, writes through the guard, and stops in order", async () => {
  await using h = setup();
  await h.client.create(CM, { metadata: { name: "a" } });
  h.server.holdLease({ namespace: "default", name: "op", identity: "other" });
  // Holds the answers to Event writes until the gate opens, so the stop's
  // order is visible: the Lease must stay held while an Event is written.
  let gate: PromiseWithResolvers<void> | undefined = undefined;
  const events = new Client(h.server.url, {
    fetch: async (input, init) => {
      const request = new Request(input, init);
      const answer = await h.server.fetch(request);
      if (gate !== undefined && request.url.includes("/events")) {
        await gate.promise;
      }
      return answer;
    },
  });
  const lead = new Lead(h.client, {
    lease: { namespace: "default", name: "op" },
    pod: "op-0",
    exit: () => {},
  });
  const recorder = new Recorder(events.withWriteGuard(lead.mayWrite), "op", {
    instance: "op-0",
  });
  const { seen } = recording();
  const guarded: boolean[] = [];
  const controller = new Controller(h.client, {
    name: "t",
    for: CONFIGMAPS,
    wiring: {
      lead,
      recorder,
    },
    reconcile: async ({ key, object, client }) => {
      seen.push(key);
      guarded.push(client !== h.client);
      if (object !== undefined) {
        recorder.normal({
          apiVersion: "v1",
          kind: "ConfigMap",
          namespace: "default",
          name: object.metadata.name!,
          uid: object.metadata.uid!,
        }, { reason: "Seen", message: "seen" });
      }
      await client.create(SECRETS, {
        metadata: { name: `for-${seen.length}` },
      });
    },
  });
  await h.time.tick(20_000);
  assert.deepEqual(seen, []);
  // The other holder stops renewing: after the Lease lapses, this copy leads.
  await h.time.tick(60_000);
  await controller.idle();
  assert.deepEqual(seen, ["default/a"]);
  assert.deepEqual(guarded, [true]);
  // An Event posted right before the stop is written before the release,
  // while the write guard still lets it through.
  await h.time.settle();
  gate = Promise.withResolvers<void>();
  recorder.normal({
    apiVersion: "v1",
    kind: "ConfigMap",
    namespace: "default",
    name: "a",
  }, { reason: "Stopping", message: "stopping" });
  let stopped = false;
  const stopping = controller.stop().then(() => stopped = true);
  await h.time.tick(1_000);
  // The Event's write is held: the stop waits, and the Lease stays held.
  assert.equal(stopped, false);
  assert.equal(h.server.leaseHolder("default", "op"), lead.identity);
  gate.resolve();
  await h.time.settle();
  await stopping;
  const log = h.server.requests.map((r) => `${r.method} ${r.path}`);
  const lastEvent = log.findLastIndex((line) => line.includes("/events"));
  const release = log.findLastIndex((line) =>
    line.startsWith("PUT") && line.includes("/leases/op")
  );
  assert.ok(lastEvent !== -1 && lastEvent < release, log.join("\n"));
  assert.deepEqual(
    h.server.events().map((event) => event.reason).sort(),
    ["Seen", "Stopping"],
  );
  // Released: no holder.
  assert.equal(h.server.leaseHolder("default", "op") ?? "", "");
});

Deno.test("stop aborts the reconciles in flight, bounded by stopTimeout", async () => {
  await using h = setup();
  await h.client.create(CM, { metadata: { name: "a" } });
  let aborted = false;
  const errors: unknown[] = [];
  const controller = new Controller(h.client, {
    name: "t",
    for: CONFIGMAPS,
    stopTimeout: 5_000,
    logger: testLogger({ onError: (error) => errors.push(error) }),
    reconcile: ({ signal }) => {
      signal.addEventListener("abort", () => aborted = true);
      // Ignores its signal: the stop gives up on it after the bound.
      return new Promise(() => {});
    },
  });
  await h.time.settle();
  const stopping = controller.stop();
  await h.time.tick(5_000);
  await stopping;
  await controller.done;
  assert.equal(aborted, true);
  assert.equal(errors.length, 1);
  assert.match(String(errors[0]), /StopTimeoutError: The work queue/);
});

Deno.test("an aborted signal stops the controller", async () => {
  await using h = setup();
  const controller = new Controller(h.client, {
    name: "t",
    for: CONFIGMAPS,
    signal: AbortSignal.abort(),
    reconcile: () => {},
  });
  await controller.done;
  assert.equal(controller.queue.stopping, true);
});

Deno.test("a requeue of 0 ms or less goes through the rate limit, so timers still run", async () => {
  await using h = setup();
  await h.client.create(CM, { metadata: { name: "a" } });
  const times: number[] = [];
  await using controller = new Controller(h.client, {
    name: "t",
    for: CONFIGMAPS,
    reconcile: () => {
      times.push(Date.now());
      return times.length < 4 ? { requeueAfter: times.length - 2 } : undefined;
    },
  });
  await h.time.settle();
  for (let i = 0; i < 10; i++) await h.time.tick(5);
  await controller.idle();
  const start = times[0]!;
  // -1 and 0 wait the backoff (5 ms, then 10 ms); 1 ms is a plain requeue.
  assert.deepEqual(times.map((t) => t - start), [0, 5, 15, 16]);
});

Deno.test("an error policy that throws is reported, and the backoff retries the key; the worker lives on", async () => {
  await using h = setup();
  await h.client.create(CM, { metadata: { name: "a" } });
  const seen: string[] = [];
  const errors: string[] = [];
  const retries: number[] = [];
  await using controller = new Controller(h.client, {
    name: "t",
    for: CONFIGMAPS,
    reconcile: ({ key, retries: count }) => {
      seen.push(key);
      retries.push(count);
      if (seen.length === 1) throw new Error("first");
    },
    errorPolicy: () => {
      throw new Error("policy bug");
    },
    logger: testLogger({ onError: (error) => void errors.push(String(error)) }),
  });
  await h.time.settle();
  await h.time.tick(5);
  await controller.idle();
  await h.client.create(CM, { metadata: { name: "b" } });
  await h.time.settle();
  await controller.idle();
  assert.deepEqual(seen, ["default/a", "default/a", "default/b"]);
  assert.deepEqual(retries, [0, 1, 0]);
  assert.ok(errors.some((e) => /policy bug/.test(e)), errors.join("\n"));
});

Deno.test("with an error policy the failures still count in retries", async () => {
  await using h = setup();
  await h.client.create(CM, { metadata: { name: "a" } });
  const retries: number[] = [];
  await using controller = new Controller(h.client, {
    name: "t",
    for: CONFIGMAPS,
    reconcile: ({ retries: count }) => {
      retries.push(count);
      if (retries.length < 4) throw new Error("again");
    },
    errorPolicy: (_, { retries: count }) => 1_000 * (count + 1),
    logger: testLogger({ onError: () => {} }),
  });
  await h.time.settle();
  await h.time.tick(1_000);
  await h.time.tick(2_000);
  await h.time.tick(3_000);
  await controller.idle();
  assert.deepEqual(retries, [0, 1, 2, 3]);
});

Deno.test("a cluster-scoped primary is woken by its namespaced children", async () => {
  await using h = setup();
  const ns = await h.client.create("/api/v1/namespaces", {
    metadata: { name: "ns1" },
  });
  const { seen, reconcile } = recording();
  await using controller = new Controller(h.client, {
    name: "t",
    for: {
      version: "v1",
      resource: "namespaces",
      kind: "Namespace",
      namespaced: false,
    },
    owns: [{ version: "v1", resource: "configmaps" }],
    reconcile,
  });
  await h.time.settle();
  await controller.idle();
  seen.length = 0;
  await h.client.create("/api/v1/namespaces/ns1/configmaps", {
    metadata: {
      name: "c",
      ownerReferences: [{
        apiVersion: "v1",
        kind: "Namespace",
        name: "ns1",
        uid: ns.metadata.uid!,
        controller: true,
      }],
    },
  });
  await h.time.settle();
  await controller.idle();
  assert.deepEqual(seen, ["ns1 present"]);
});

Deno.test("a child whose controller moves wakes the old owner and the new one", async () => {
  await using h = setup();
  const a = await h.client.create(CM, { metadata: { name: "a" } });
  const b = await h.client.create(CM, { metadata: { name: "b" } });
  await h.client.create(SECRETS, {
    metadata: { name: "s", ownerReferences: [owner(a)] },
  });
  const { seen, reconcile } = recording();
  await using controller = new Controller(h.client, {
    name: "t",
    for: CONFIGMAPS,
    owns: [SECRET_SOURCE],
    reconcile,
  });
  await h.time.settle();
  await controller.idle();
  seen.length = 0;
  const s = h.server.object(`${SECRETS}/s`)!;
  await h.client.replace(`${SECRETS}/s`, {
    ...s,
    metadata: { ...s.metadata, ownerReferences: [owner(b)] },
  });
  await h.time.settle();
  await controller.idle();
  assert.deepEqual(seen.sort(), ["default/a present", "default/b present"]);
});

Deno.test("an election that ends before this copy leads stops the controller", async () => {
  await using h = setup();
  h.server.holdLease({ namespace: "default", name: "op", identity: "other" });
  const lead = new Lead(h.client, {
    lease: { namespace: "default", name: "op" },
    pod: "op-0",
    exit: () => {},
    logger: testLogger({ onError: () => {} }),
  });
  const errors: unknown[] = [];
  const controller = new Controller(h.client, {
    name: "t",
    for: CONFIGMAPS,
    wiring: {
      lead,
    },
    reconcile: () => {},
    logger: testLogger({ onError: (error) => void errors.push(error) }),
  });
  await h.time.settle();
  await lead.stop();
  await h.time.settle();
  await controller.done;
  assert.equal(controller.queue.stopping, true);
  assert.equal(errors.length, 1);
});

Deno.test("after a watch recovers, every primary is reconciled once: a child made and deleted in the gap left no event", async () => {
  await using h = setup();
  const a = await h.client.create(CM, { metadata: { name: "a" } });
  const { seen, reconcile } = recording();
  await using controller = new Controller(h.client, {
    name: "t",
    for: CONFIGMAPS,
    owns: [SECRET_SOURCE],
    reconcile,
    logger: testLogger({ onError: () => {} }),
  });
  await h.time.settle();
  await controller.idle();
  seen.length = 0;
  // The children's watch fails; meanwhile a child is made and deleted, and
  // the history is compacted: the watch resumes with a relist that shows
  // nothing of it.
  const refusal = h.server.refuse({ path: /secrets/, status: 503 });
  h.server.cutWatches();
  await h.time.tick(1_000);
  h.server.put(`${SECRETS}/s`, {
    metadata: { name: "s", ownerReferences: [owner(a)] },
  });
  h.server.remove(`${SECRETS}/s`);
  h.server.compact();
  refusal.allow();
  await h.time.tick(60_000);
  await controller.idle();
  assert.deepEqual(seen, ["default/a present"]);
});
