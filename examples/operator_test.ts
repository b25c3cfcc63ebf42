import assert from "node:assert/strict";
import { Client } from "../apiclient/mod.ts";
import { Metrics } from "../metrics/mod.ts";
import { FakeApiServer, installFakeTime } from "../testing/mod.ts";
import { NotLeadingError, REQUEST_TIMEOUT } from "../election/mod.ts";
import { startOperator } from "./operator.ts";
import { type ConfigMap, GREETING, type Greeting } from "./greeting.ts";
import { configMapPath, greetingPath, newGreeting } from "./samples.ts";
import { testLogger } from "../_internal/_log_test_util.ts";

const KIND = GREETING.kind;

/** A fake API server that serves the Greeting from its generated CRD. */
async function fake(): Promise<FakeApiServer> {
  const server = new FakeApiServer();
  const admin = new Client(server.url, { fetch: server.fetch });
  await admin.create(
    "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
    GREETING.crd(),
  );
  return server;
}

Deno.test("the example operator reconciles Greetings end to end", async () => {
  using time = installFakeTime({ now: Date.parse("2030-01-01T00:00:00Z") });
  await using server = await fake();
  const client = new Client(server.url, {
    fetch: server.fetch,
    timeout: REQUEST_TIMEOUT,
  });
  const user = new Client(server.url, { fetch: server.fetch });
  const ns = "default";
  await user.create(greetingPath(ns), newGreeting("hello", "Hello, world"));

  const lines: string[] = [];
  const exits: number[] = [];
  const operator = await startOperator(client, {
    pod: "greeter-0",
    leaseNamespace: ns,
    logger: testLogger({ all: (line) => lines.push(line) }),
    exit: (code) => exits.push(code),
  });
  assert.equal(
    server.leaseHolder(ns, "greeting-operator"),
    operator.lead?.identity,
  );
  await time.settle();
  await operator.idle();
  await time.settle();
  assert.ok(operator.synced());

  // The first Greeting: a ConfigMap with an owner reference, and a status.
  const cm = server.object<ConfigMap>(configMapPath(ns, "hello-greeting"));
  assert.equal(cm?.data?.message, "Hello, world");
  const hello = server.object<Greeting>(greetingPath(ns, "hello"))!;
  assert.deepEqual(cm?.metadata.ownerReferences, [{
    apiVersion: GREETING.apiVersion,
    kind: KIND,
    name: "hello",
    uid: hello.metadata.uid,
    controller: true,
    blockOwnerDeletion: true,
  }]);
  // Applied by the controller's field manager: it owns data.message.
  const fields = cm?.metadata.managedFields as
    | { manager: string; operation: string }[]
    | undefined;
  const manager = fields?.find((m) => m.manager === "greeting");
  assert.equal(manager?.operation, "Apply");
  assert.equal(hello.status?.configMap, "hello-greeting");
  assert.equal(hello.status?.observedGeneration, hello.metadata.generation);
  const ready = hello.status?.conditions?.find((c) => c.type === "Ready");
  assert.equal(ready?.status, "True");
  assert.equal(ready?.reason, "MessagePublished");

  // More Greetings, an edit, and a delete.
  await user.create(greetingPath(ns), newGreeting("bonjour", "Bonjour"));
  await user.create(greetingPath(ns), newGreeting("hola", "Hola"));
  await time.settle();
  await operator.idle();
  const bonjour = server.object<Greeting>(greetingPath(ns, "bonjour"))!;
  await user.replace(greetingPath(ns, "bonjour"), {
    ...bonjour,
    spec: { message: "Bonjour à tous" },
  });
  await user.delete(greetingPath(ns, "hola"));
  await time.settle();
  await operator.idle();
  await time.tick(10); // the fake's garbage collector deletes its ConfigMap
  await time.settle();
  assert.equal(
    server.object<ConfigMap>(configMapPath(ns, "bonjour-greeting"))?.data
      ?.message,
    "Bonjour à tous",
  );
  // Memo-aware cached reads: bonjour was made after the stores held their
  // first read, so its passes (at least four: create, status, edit, status)
  // read the stores; the API server only when the store's copy is older
  // than the operator's own status write (once here), and the ConfigMap
  // once, the miss before the create (the store holds only labelled ones).
  const gets = (path: string): number => server.count({ method: "GET", path });
  assert.ok(gets(greetingPath(ns, "bonjour")) <= 1);
  assert.equal(gets(configMapPath(ns, "bonjour-greeting")), 1);
  const edited = server.object<Greeting>(greetingPath(ns, "bonjour"))!;
  assert.equal(edited.status?.observedGeneration, edited.metadata.generation);
  assert.equal(
    server.object(configMapPath(ns, "hola-greeting")),
    undefined,
  );

  // A ConfigMap someone else made: Ready=False with a Warning.
  await user.create(configMapPath(ns), {
    metadata: { name: "taken-greeting" },
    data: { message: "mine" },
  });
  await user.create(greetingPath(ns), newGreeting("taken", "Hi"));
  await time.settle();
  await operator.idle();
  await time.settle();
  const taken = server.object<Greeting>(greetingPath(ns, "taken"))!;
  assert.equal(taken.status?.conditions?.[0]?.reason, "ConfigMapTaken");
  assert.equal(
    server.object<ConfigMap>(configMapPath(ns, "taken-greeting"))?.data
      ?.message,
    "mine",
  );

  // Shut down in order: the Events are written, then the Lease released.
  await operator.stop();
  assert.equal(server.leaseHolder(ns, "greeting-operator") ?? "", "");
  const reasons = (name: string): string[] =>
    server.eventsAbout({ kind: KIND, name, namespace: ns }).map((e) =>
      `${e.type}/${e.reason}`
    ).sort();
  assert.deepEqual(reasons("hello"), [
    "Normal/ConfigMapCreated",
    "Normal/MessagePublished",
  ]);
  assert.deepEqual(reasons("bonjour"), [
    "Normal/ConfigMapCreated",
    "Normal/ConfigMapUpdated",
    "Normal/MessagePublished",
  ]);
  assert.deepEqual(reasons("taken"), ["Warning/ConfigMapTaken"]);
  // An Event's message names the kind of what it made, as kubectl shows it.
  assert.deepEqual(
    server.eventsAbout({ kind: KIND, name: "hello", namespace: ns })
      .filter((e) => e.reason === "ConfigMapCreated").map((e) => e.message),
    ["Created ConfigMap hello-greeting"],
  );
  // Status writes: one per Greeting, and one more for bonjour's edit; each
  // pass applies the ConfigMap once, and a pass that changes nothing
  // leaves its resourceVersion (no ConfigMapUpdated Event).
  assert.equal(
    server.count({ method: "PUT", path: /\/greetings\/.*\/status$/ }),
    5,
  );
  assert.ok(lines.every((l) => !/failed/.test(l)), lines.join("\n"));
  const order = lines.filter((l) =>
    /^"(Stopping|Writing|Releasing)/.test(l) &&
    / (controller="greeting"|logger="manager")/.test(l)
  );
  assert.deepEqual(order, [
    '"Stopping the controllers (watches, reconciles, queued Events)" logger="manager"',
    '"Stopping the watches and reconciles" controller="greeting"',
    '"Writing the queued Events" controller="greeting"',
    '"Releasing the Lease" logger="manager"',
  ]);
  // Two controllers on the labelled ConfigMaps (the Greeting controller's
  // owns, the orphan collector's primary): one watch between them.
  const watchesOf = (path: string): number =>
    server.requests.filter((r) =>
      r.method === "GET" && r.path === path &&
      new URLSearchParams(r.query ?? "").get("watch") === "true"
    ).length;
  assert.equal(watchesOf("/api/v1/configmaps"), 1);
  assert.equal(watchesOf("/apis/demo.liken.dev/v1alpha1/greetings"), 1);
  assert.deepEqual(exits, []);
});

Deno.test("a second copy waits, then takes over when the leader steps down", async () => {
  using time = installFakeTime({ now: Date.parse("2030-01-01T00:00:00Z") });
  await using server = await fake();
  const client = (): Client =>
    new Client(server.url, { fetch: server.fetch, timeout: REQUEST_TIMEOUT });
  const user = new Client(server.url, { fetch: server.fetch });
  const ns = "default";
  const first = await startOperator(client(), {
    pod: "greeter-a",
    leaseNamespace: ns,
    exit: () => {},
  });
  let second: Awaited<ReturnType<typeof startOperator>> | undefined;
  const starting = startOperator(client(), {
    pod: "greeter-b",
    leaseNamespace: ns,
    exit: () => {},
  }).then((op) => second = op);
  await time.tick(20_000);
  assert.equal(second, undefined); // it waits while the first leads

  await first.stop();
  await time.tick(11_000); // a waiting copy reads within 5 to 11 s
  const next = await starting;
  assert.equal(second, next);
  assert.equal(
    server.leaseHolder(ns, "greeting-operator"),
    next.lead?.identity,
  );
  await user.create(greetingPath(ns), newGreeting("hello", "Hi"));
  await time.settle();
  await next.idle();
  await time.settle();
  assert.equal(
    server.object<ConfigMap>(configMapPath(ns, "hello-greeting"))?.data
      ?.message,
    "Hi",
  );
  // Applied by the second copy: the first's write guard refuses for good.
  assert.throws(() => first.lead?.mayWrite(), NotLeadingError);
  await next.stop();
});

Deno.test("a failed pass runs again with the queue's backoff", async () => {
  using time = installFakeTime({ now: Date.parse("2030-01-01T00:00:00Z") });
  await using server = await fake();
  const client = new Client(server.url, {
    fetch: server.fetch,
    timeout: REQUEST_TIMEOUT,
  });
  const ns = "default";
  const refusal = server.refuse({
    method: "PATCH",
    path: configMapPath(ns, "hello-greeting"),
    status: 500,
    message: "etcd is sad",
  });
  await server.put(greetingPath(ns, "hello"), {
    ...newGreeting("hello", "Hi"),
    metadata: { name: "hello", namespace: ns },
  });
  const lines: string[] = [];
  const operator = await startOperator(client, {
    pod: "greeter-0",
    leaseNamespace: ns,
    logger: testLogger({ all: (line) => lines.push(line) }),
    exit: () => {},
  });
  await time.tick(100); // 5, 10, 20 and 40 ms: four retries
  const failed = lines.filter((l) =>
    /^"Reconciler error" err="Reconciling default\/hello \(greeting\) failed: .*etcd is sad/
      .test(l)
  );
  assert.ok(failed.length >= 3, lines.join("\n"));
  assert.equal(server.object(configMapPath(ns, "hello-greeting")), undefined);
  refusal.allow();
  await time.tick(1_000);
  await operator.idle();
  await time.settle();
  assert.equal(
    server.object<ConfigMap>(configMapPath(ns, "hello-greeting"))?.data
      ?.message,
    "Hi",
  );
  const ready = server.object<Greeting>(greetingPath(ns, "hello"))?.status
    ?.conditions?.find((c) => c.type === "Ready");
  assert.equal(ready?.reason, "MessagePublished");
  await operator.stop();
});

Deno.test("shutdown writes the queued Events before it releases the Lease", async () => {
  using time = installFakeTime({ now: Date.parse("2030-01-01T00:00:00Z") });
  await using server = await fake();
  // Holds the operator's Event writes until the gate opens.
  const gate = Promise.withResolvers<void>();
  let held = 0;
  const client = new Client(server.url, {
    timeout: REQUEST_TIMEOUT,
    fetch: async (input, init) => {
      const request = new Request(input, init);
      if (new URL(request.url).pathname.endsWith("/events")) {
        held += 1;
        await gate.promise;
      }
      return server.fetch(request);
    },
  });
  const user = new Client(server.url, { fetch: server.fetch });
  const ns = "default";
  const operator = await startOperator(client, {
    pod: "greeter-0",
    leaseNamespace: ns,
    exit: () => {},
  });
  await user.create(greetingPath(ns), newGreeting("hello", "Hi"));
  await time.settle();
  await operator.idle();
  await time.settle();
  assert.ok(held > 0, "an Event write waits at the gate");
  assert.deepEqual(server.eventsAbout({ kind: KIND, name: "hello" }), []);

  let stopped = false;
  const stopping = operator.stop().then(() => stopped = true);
  await time.tick(1_000);
  // The recorder still writes: the Lease is held, the guard allows.
  assert.equal(stopped, false);
  assert.equal(
    server.leaseHolder(ns, "greeting-operator"),
    operator.lead?.identity,
  );
  gate.resolve();
  await time.settle();
  await stopping;
  assert.deepEqual(
    server.eventsAbout({ kind: KIND, name: "hello" }).map((e) => e.reason)
      .sort(),
    ["ConfigMapCreated", "MessagePublished"],
  );
  assert.equal(server.leaseHolder(ns, "greeting-operator") ?? "", "");
  // In the server's log too: the release comes after the last Event.
  const log = server.requests;
  const lastEvent = log.findLastIndex((r) => r.path.endsWith("/events"));
  const release = log.findLastIndex((r) =>
    r.method === "PUT" && r.path.includes("/leases/")
  );
  assert.ok(lastEvent >= 0 && release > lastEvent);
});

Deno.test("after the write guard refuses, the operator starts no pass and writes nothing", async () => {
  using time = installFakeTime({ now: Date.parse("2030-01-01T00:00:00Z") });
  await using server = await fake();
  const client = new Client(server.url, {
    fetch: server.fetch,
    timeout: REQUEST_TIMEOUT,
  });
  const user = new Client(server.url, { fetch: server.fetch });
  const ns = "default";
  const lines: string[] = [];
  const exits: number[] = [];
  const operator = await startOperator(client, {
    pod: "greeter-0",
    leaseNamespace: ns,
    logger: testLogger({ all: (line) => lines.push(line) }),
    exit: (code) => exits.push(code),
  });
  await time.settle();
  // Renewals fail: past the renew deadline the guard refuses every write,
  // and no reconcile starts (its other side effects are not guarded).
  server.refuse({ method: "PUT", path: /\/leases\//, status: 500 });
  await time.tick(11_000);
  await user.create(greetingPath(ns), newGreeting("hello", "Hi"));
  await time.settle();
  await time.tick(2_000);
  assert.equal(
    server.count({ path: /\/configmaps/, method: "PATCH" }) +
      server.count({ path: /\/configmaps/, method: "POST" }),
    0,
    "no ConfigMap write reached the server",
  );
  assert.ok(
    !lines.some((l) => /name="hello"/.test(l)),
    lines.join("\n"),
  );
  assert.ok(lines.some((l) => /No reconcile starts/.test(l)), lines.join("\n"));
  await time.tick(30_000); // the elector gives up and calls exit(1)
  assert.deepEqual(exits, [1]);
  await operator.stop();
});

Deno.test("with metrics the operator's reconciles, queue, watches and election are counted", async () => {
  using time = installFakeTime({ now: Date.parse("2030-01-01T00:00:00Z") });
  await using server = await fake();
  const client = new Client(server.url, {
    fetch: server.fetch,
    timeout: REQUEST_TIMEOUT,
  });
  const user = new Client(server.url, { fetch: server.fetch });
  await user.create(greetingPath("default"), newGreeting("hello", "Hi"));
  const metrics = new Metrics();
  const operator = await startOperator(client, {
    pod: "greeter-0",
    leaseNamespace: "default",
    metrics,
    exit: () => {},
  });
  await time.settle();
  await operator.idle();
  await time.settle();
  const text = metrics.render();
  assert.match(
    text,
    /^controller_runtime_reconcile_total\{controller="greeting",result="success"\} [1-9]/m,
  );
  assert.match(text, /^workqueue_adds_total\{name="greeting"\} [1-9]/m);
  assert.match(
    text,
    /^leader_election_master_status\{name="greeting-operator"\} 1$/m,
  );
  assert.match(
    text,
    /^informer_synced\{collection="greetings\.demo\.liken\.dev"\} 1$/m,
  );
  assert.match(
    text,
    /^event_recorder_events_total\{component="greeting-operator",result="created"\} [1-9]/m,
  );
  assert.equal((await metrics.readiness()).ok, true);
  assert.equal((await metrics.health()).ok, true);
  await operator.stop();
});

Deno.test("the fake serves the Greeting from its CRD: an invalid one is refused as the API server refuses it", async () => {
  await using server = await fake();
  const user = new Client(server.url, { fetch: server.fetch });
  await assert.rejects(
    user.create(greetingPath("default"), {
      ...newGreeting("long", "x".repeat(4097)),
    }),
    (error: Error & { status?: number }) => {
      assert.equal(error.status, 422);
      assert.match(
        error.message,
        /spec\.message: Too long: may not be more than 4096 bytes/,
      );
      return true;
    },
  );
  // Unknown fields are pruned, as for a structural schema.
  const made = await user.create<Greeting & { spec: { extra?: string } }>(
    greetingPath("default"),
    {
      ...newGreeting("ok", "Hi"),
      spec: { message: "Hi", extra: "x" } as Greeting["spec"],
    },
  );
  assert.deepEqual(made.spec, { message: "Hi" });
});

Deno.test("the orphan collector deletes a ConfigMap its Greeting left behind, and no other", async () => {
  using time = installFakeTime({ now: Date.parse("2030-01-01T00:00:00Z") });
  await using server = await fake();
  const client = new Client(server.url, {
    fetch: server.fetch,
    timeout: REQUEST_TIMEOUT,
  });
  const user = new Client(server.url, { fetch: server.fetch });
  const ns = "default";
  await using operator = await startOperator(client, {
    pod: "greeter-0",
    leaseNamespace: ns,
    exit: () => {},
  });
  await user.create(greetingPath(ns), newGreeting("kept", "Hi"));
  await user.create(greetingPath(ns), newGreeting("left", "Bye"));
  // Someone else's ConfigMap, unlabelled: never the collector's business.
  await user.create(configMapPath(ns), { metadata: { name: "mine" } });
  await time.settle();
  await operator.idle();
  await time.settle();
  assert.ok(server.object(configMapPath(ns, "left-greeting")));
  // Deleted with Orphan: the collector removes the ConfigMap left behind.
  await user.delete(greetingPath(ns, "left"), {
    propagationPolicy: "Orphan",
  });
  for (let i = 0; i < 5; i++) {
    await time.tick(10);
    await time.settle();
    await operator.idle();
  }
  assert.equal(server.object(configMapPath(ns, "left-greeting")), undefined);
  assert.ok(server.object(configMapPath(ns, "kept-greeting")));
  assert.ok(server.object(configMapPath(ns, "mine")));
});
