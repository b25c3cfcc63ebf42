import assert from "node:assert/strict";
import { FakeApiServer } from "./fake_server.ts";
import { installFakeTime } from "./fake_time.ts";
import { Lines } from "./_test_util.ts";

/** What kubectl get sends for lists, single gets and get -w. */
const KUBECTL =
  "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";
const START = Date.UTC(2030, 0, 1);
const NS = "/api/v1/namespaces/default";

// deno-lint-ignore no-explicit-any
type Json = any;

async function send(
  server: FakeApiServer,
  method: string,
  path: string,
  body?: unknown,
): Promise<Json> {
  const res = await server.fetch(server.url + path, {
    method,
    ...(body === undefined ? {} : {
      body: JSON.stringify(body),
      headers: { "content-type": "application/json" },
    }),
  });
  const json = await res.json();
  assert.ok(res.ok, `${method} ${path}: ${JSON.stringify(json)}`);
  return json;
}

async function table(
  server: FakeApiServer,
  path: string,
  accept = KUBECTL,
): Promise<{ status: number; type: string | null; body: Json }> {
  const res = await server.fetch(server.url + path, {
    headers: { accept },
  });
  return {
    status: res.status,
    type: res.headers.get("content-type"),
    body: await res.json(),
  };
}

function names(t: Json): string[] {
  return t.columnDefinitions.map((c: { name: string }) => c.name);
}

Deno.test("table: a ConfigMap list is a Table of NAME DATA AGE with metadata rows", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  await send(server, "POST", `${NS}/configmaps`, {
    metadata: { name: "one", labels: { app: "x" } },
    data: { a: "1", b: "2" },
    binaryData: { c: "AA==" },
  });
  await time.tick(300_000);
  await send(server, "POST", `${NS}/configmaps`, { metadata: { name: "two" } });
  await time.tick(5_000);

  const { status, type, body } = await table(server, `${NS}/configmaps`);
  assert.equal(status, 200);
  assert.equal(type, "application/json");
  assert.equal(body.kind, "Table");
  assert.equal(body.apiVersion, "meta.k8s.io/v1");
  assert.deepEqual(body.metadata, { resourceVersion: server.resourceVersion });
  assert.deepEqual(names(body), ["Name", "Data", "Age"]);
  assert.deepEqual(
    Object.keys(body.columnDefinitions[0]),
    ["name", "type", "format", "description", "priority"],
  );
  assert.equal(body.columnDefinitions[0].format, "name");
  assert.equal(body.columnDefinitions[1].format, "");
  assert.match(body.columnDefinitions[2].description, /^CreationTimestamp/);
  assert.deepEqual(body.rows.map((r: Json) => r.cells), [
    ["one", 3, "5m5s"],
    ["two", 0, "5s"],
  ]);
  const object = body.rows[0].object;
  assert.equal(object.kind, "PartialObjectMetadata");
  assert.equal(object.apiVersion, "meta.k8s.io/v1");
  assert.deepEqual(object.metadata.labels, { app: "x" });
  assert.equal(object.metadata.namespace, "default");
  assert.equal(object.data, undefined, "metadata only by default");

  // A plain JSON Accept answers exactly as before.
  const plain = await table(server, `${NS}/configmaps`, "application/json");
  assert.equal(plain.body.kind, "ConfigMapList");
  assert.equal(plain.body.items.length, 2);
  const none = await table(server, `${NS}/configmaps`, "");
  assert.equal(none.body.kind, "ConfigMapList");
});

Deno.test("table: includeObject, v1beta1, one object, pages and 404", async () => {
  await using server = new FakeApiServer();
  for (const name of ["a", "b", "c"]) {
    await send(server, "POST", `${NS}/configmaps`, {
      metadata: { name },
      data: { k: name },
    });
  }
  const full = await table(server, `${NS}/configmaps?includeObject=Object`);
  assert.equal(full.body.rows[0].object.kind, "ConfigMap");
  assert.deepEqual(full.body.rows[0].object.data, { k: "a" });
  const bare = await table(server, `${NS}/configmaps?includeObject=None`);
  assert.equal(bare.body.rows[0].object, null);
  assert.ok("object" in bare.body.rows[0]);
  const bad = await table(server, `${NS}/configmaps?includeObject=All`);
  assert.equal(bad.status, 400);
  assert.equal(bad.body.reason, "BadRequest");
  assert.match(bad.body.message, /includeObject: Invalid value: "All"/);

  const beta = await table(
    server,
    `${NS}/configmaps`,
    "application/json;as=Table;v=v1beta1;g=meta.k8s.io",
  );
  assert.equal(beta.body.apiVersion, "meta.k8s.io/v1beta1");
  assert.equal(beta.body.rows[0].object.apiVersion, "meta.k8s.io/v1beta1");

  const one = await table(server, `${NS}/configmaps/b`);
  assert.equal(one.body.kind, "Table");
  assert.equal(one.body.rows.length, 1);
  assert.deepEqual(one.body.rows[0].cells.slice(0, 2), ["b", 1]);
  assert.equal(
    one.body.metadata.resourceVersion,
    server.object(`${NS}/configmaps/b`)?.metadata.resourceVersion,
  );

  const page = await table(server, `${NS}/configmaps?limit=2`);
  assert.equal(page.body.rows.length, 2);
  assert.equal(page.body.metadata.remainingItemCount, 1);
  const rest = await table(
    server,
    `${NS}/configmaps?limit=2&continue=${
      encodeURIComponent(page.body.metadata.continue)
    }`,
  );
  assert.deepEqual(rest.body.rows.map((r: Json) => r.cells[0]), ["c"]);
  assert.equal(rest.body.metadata.continue, undefined);

  const empty = await table(server, "/api/v1/namespaces/none/configmaps");
  assert.deepEqual(empty.body.rows, []);
  assert.deepEqual(names(empty.body), ["Name", "Data", "Age"]);
  const missing = await table(server, `${NS}/configmaps/zzz`);
  assert.equal(missing.status, 404);
  assert.equal(missing.body.kind, "Status");
});

Deno.test("table: a watch answers one-row Tables; only the first carries columns", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  await send(server, "POST", `${NS}/configmaps`, { metadata: { name: "old" } });
  const controller = new AbortController();
  const res = await server.fetch(`${server.url}${NS}/configmaps?watch=true`, {
    headers: { accept: KUBECTL },
    signal: controller.signal,
  });
  const lines = new Lines(res);
  try {
    const first = await lines.event();
    assert.equal(first.type, "ADDED");
    assert.equal(first.object.kind, "Table");
    assert.deepEqual(names(first.object), ["Name", "Data", "Age"]);
    assert.deepEqual(first.object.rows.map((r: Json) => r.cells), [[
      "old",
      0,
      "0s",
    ]]);
    await time.tick(150_000);
    const made = await send(server, "POST", `${NS}/configmaps`, {
      metadata: { name: "new" },
      data: { x: "1" },
    });
    const second = await lines.event();
    assert.equal(second.type, "ADDED");
    assert.equal(second.object.columnDefinitions, null);
    assert.deepEqual(second.object.rows[0].cells, ["new", 1, "0s"]);
    assert.equal(
      second.object.metadata.resourceVersion,
      made.metadata.resourceVersion,
    );
    assert.equal(second.object.rows[0].object.kind, "PartialObjectMetadata");
    await send(server, "DELETE", `${NS}/configmaps/old`);
    const third = await lines.event();
    assert.equal(third.type, "DELETED");
    assert.deepEqual(third.object.rows[0].cells, ["old", 0, "2m30s"]);
  } finally {
    controller.abort();
    await lines.cancel();
  }

  // A watch from a compacted version answers the Status, not a Table.
  server.compact();
  const gone = await server.fetch(
    `${server.url}${NS}/configmaps?watch=true&resourceVersion=1`,
    { headers: { accept: KUBECTL } },
  );
  const events = await new Lines(gone).all();
  assert.equal(events.length, 1);
  assert.equal(events[0].type, "ERROR");
  assert.equal(events[0].object.kind, "Status");
  assert.equal(events[0].object.code, 410);
});

Deno.test("table: Secret, Namespace, Lease and CustomResourceDefinition columns", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  await send(server, "POST", `${NS}/secrets`, {
    metadata: { name: "plain" },
    data: { a: "YQ==" },
  });
  await send(server, "POST", `${NS}/secrets`, {
    metadata: { name: "tls" },
    type: "kubernetes.io/tls",
    data: { "tls.crt": "", "tls.key": "" },
  });
  await send(server, "POST", "/api/v1/namespaces", {
    metadata: { name: "ns1" },
  });
  server.holdLease({ namespace: "default", name: "lead", identity: "pod-1" });
  await send(
    server,
    "POST",
    "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
    {
      metadata: { name: "widgets.example.com" },
      spec: {
        group: "example.com",
        names: { plural: "widgets", kind: "Widget" },
        scope: "Namespaced",
        versions: [{
          name: "v1",
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: "object" } },
        }],
      },
    },
  );
  await time.tick(3_600_000);

  const secrets = (await table(server, `${NS}/secrets`)).body;
  assert.deepEqual(names(secrets), ["Name", "Type", "Data", "Age"]);
  assert.deepEqual(secrets.rows.map((r: Json) => r.cells), [
    ["plain", "Opaque", 1, "60m"],
    ["tls", "kubernetes.io/tls", 2, "60m"],
  ]);
  const namespaces = (await table(server, "/api/v1/namespaces/ns1")).body;
  assert.deepEqual(names(namespaces), ["Name", "Status", "Age"]);
  assert.deepEqual(namespaces.rows[0].cells, ["ns1", "Active", "60m"]);
  const leases = (await table(
    server,
    "/apis/coordination.k8s.io/v1/namespaces/default/leases",
  )).body;
  assert.deepEqual(names(leases), ["Name", "Holder", "Age"]);
  assert.deepEqual(leases.rows[0].cells, ["lead", "pod-1", "60m"]);
  const crds = (await table(
    server,
    "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
  )).body;
  assert.deepEqual(names(crds), ["Name", "Created At"]);
  assert.equal(crds.columnDefinitions[1].type, "date");
  assert.deepEqual(crds.rows[0].cells, [
    "widgets.example.com",
    "2030-01-01T00:00:00Z",
  ]);
});

Deno.test("table: Pod columns follow the API server's printer", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const pod = (name: string, status: unknown, spec: unknown = {}) =>
    server.put(`${NS}/pods/${name}`, {
      metadata: {},
      spec: { containers: [{ name: "a" }, { name: "b" }], ...spec as object },
      status,
    } as never);
  pod("pending", { phase: "Pending" });
  pod("running", {
    phase: "Running",
    podIP: "10.0.0.7",
    podIPs: [{ ip: "10.0.0.7" }],
    conditions: [{ type: "Ready", status: "True" }, {
      type: "gate",
      status: "True",
    }],
    containerStatuses: [
      {
        name: "a",
        ready: true,
        restartCount: 2,
        state: { running: {} },
        lastState: {
          terminated: { exitCode: 1, finishedAt: "2029-12-31T23:50:00Z" },
        },
      },
      { name: "b", ready: true, restartCount: 0, state: { running: {} } },
    ],
  }, {
    nodeName: "node-1",
    readinessGates: [{ conditionType: "gate" }, { conditionType: "other" }],
    containers: [{ name: "a" }, { name: "b" }],
  });
  pod("crashing", {
    phase: "Running",
    containerStatuses: [{
      name: "a",
      ready: false,
      restartCount: 5,
      state: { waiting: { reason: "CrashLoopBackOff" } },
    }],
  });
  pod("init", {
    phase: "Pending",
    initContainerStatuses: [{ name: "i", state: { waiting: {} } }],
  }, { initContainers: [{ name: "i" }] });
  pod("done", {
    phase: "Succeeded",
    containerStatuses: [
      {
        name: "a",
        state: { terminated: { exitCode: 0, reason: "Completed" } },
      },
    ],
  });
  await time.tick(60_000);

  const pods = (await table(server, `${NS}/pods`)).body;
  assert.deepEqual(names(pods), [
    "Name",
    "Ready",
    "Status",
    "Restarts",
    "Age",
    "IP",
    "Node",
    "Nominated Node",
    "Readiness Gates",
  ]);
  assert.deepEqual(
    pods.columnDefinitions.map((c: Json) => c.priority),
    [0, 0, 0, 0, 0, 1, 1, 1, 1],
  );
  const rows = Object.fromEntries(
    pods.rows.map((r: Json) => [r.cells[0], r]),
  );
  assert.deepEqual(rows.pending.cells, [
    "pending",
    "0/2",
    "Pending",
    "0",
    "60s",
    "<none>",
    "<none>",
    "<none>",
    "<none>",
  ]);
  assert.deepEqual(rows.running.cells, [
    "running",
    "2/2",
    "Running",
    "2 (11m ago)",
    "60s",
    "10.0.0.7",
    "node-1",
    "<none>",
    "1/2",
  ]);
  assert.deepEqual(rows.crashing.cells.slice(1, 4), [
    "0/2",
    "CrashLoopBackOff",
    "5",
  ]);
  assert.equal(rows.init.cells[2], "Init:0/1");
  assert.equal(rows.done.cells[2], "Completed");
  assert.deepEqual(rows.done.conditions, [{
    type: "Completed",
    status: "True",
    reason: "Succeeded",
    message: "The pod has completed successfully.",
  }]);
  assert.equal(rows.running.conditions, undefined);
});

Deno.test("table: Service and Event columns follow the API server's printers", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  await send(server, "POST", `${NS}/services`, {
    metadata: { name: "web" },
    spec: {
      clusterIP: "10.96.0.10",
      clusterIPs: ["10.96.0.10"],
      selector: { tier: "web", app: "x" },
      ports: [{ port: 80 }, { port: 53, protocol: "UDP" }],
    },
  });
  await send(server, "POST", `${NS}/services`, {
    metadata: { name: "node" },
    spec: { type: "NodePort", ports: [{ port: 80, nodePort: 30080 }] },
  });
  await send(server, "POST", `${NS}/services`, {
    metadata: { name: "lb" },
    spec: { type: "LoadBalancer", externalIPs: ["1.2.3.4"] },
  });
  await send(server, "POST", `${NS}/services`, {
    metadata: { name: "ext" },
    spec: { type: "ExternalName", externalName: "example.com" },
  });
  await send(server, "POST", `${NS}/events`, {
    metadata: { name: "one.1" },
    involvedObject: { kind: "ConfigMap", name: "one", namespace: "default" },
    reason: "Reconciled",
    message: "  all good\n",
    type: "Normal",
    source: { component: "ctl", host: "h1" },
    count: 3,
    firstTimestamp: "2029-12-31T23:00:00Z",
    lastTimestamp: "2029-12-31T23:55:00Z",
  });
  await send(server, "POST", `${NS}/events`, {
    metadata: { name: "two.2" },
    involvedObject: { kind: "Node" },
    reason: "Started",
    type: "Warning",
    eventTime: "2029-12-31T23:59:00.000000Z",
    reportingComponent: "kubelet",
    reportingInstance: "node-1",
    action: "Start",
  });
  await time.tick(1_000);

  const services = (await table(server, `${NS}/services`)).body;
  assert.deepEqual(names(services), [
    "Name",
    "Type",
    "Cluster-IP",
    "External-IP",
    "Port(s)",
    "Age",
    "Selector",
  ]);
  const svc = Object.fromEntries(
    services.rows.map((r: Json) => [r.cells[0], r.cells]),
  );
  assert.deepEqual(svc.web, [
    "web",
    "ClusterIP",
    "10.96.0.10",
    "<none>",
    "80/TCP,53/UDP",
    "1s",
    "app=x,tier=web",
  ]);
  // Cluster IPs are handed out in order: web asked for its own.
  assert.deepEqual(svc.node.slice(1, 5), [
    "NodePort",
    "10.96.0.2",
    "<none>",
    "80:30080/TCP",
  ]);
  assert.deepEqual(svc.lb.slice(1, 5), [
    "LoadBalancer",
    "10.96.0.3",
    "1.2.3.4",
    "<none>",
  ]);
  assert.equal(svc.ext[3], "example.com");

  const events = (await table(server, `${NS}/events`)).body;
  assert.deepEqual(names(events), [
    "Last Seen",
    "Type",
    "Reason",
    "Object",
    "Subobject",
    "Source",
    "Message",
    "First Seen",
    "Count",
    "Name",
  ]);
  assert.deepEqual(
    events.columnDefinitions.filter((c: Json) => c.priority === 0).map((
      c: Json,
    ) => c.name),
    ["Last Seen", "Type", "Reason", "Object", "Message"],
  );
  const ev = Object.fromEntries(
    events.rows.map((r: Json) => [r.cells[9], r.cells]),
  );
  assert.deepEqual(ev["one.1"], [
    "5m1s",
    "Normal",
    "Reconciled",
    "configmap/one",
    "",
    "ctl, h1",
    "all good",
    "60m",
    3,
    "one.1",
  ]);
  assert.deepEqual(ev["two.2"], [
    "61s",
    "Warning",
    "Started",
    "node",
    "",
    "kubelet, node-1",
    "",
    "61s",
    1,
    "two.2",
  ]);
});

Deno.test("table: a custom resource shows NAME AGE, or NAME and its printer columns", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  server.register({
    group: "example.com",
    version: "v1",
    resource: "plains",
    kind: "Plain",
  });
  const gadgets = server.register({
    group: "example.com",
    version: "v1",
    resource: "gadgets",
    kind: "Gadget",
    namespaced: false,
    printerColumns: [
      { name: "Size", type: "integer", jsonPath: ".spec.size" },
      {
        name: "Ready",
        type: "string",
        jsonPath: '.status.conditions[?(@.type=="Ready")].status',
        description: "Whether it is ready",
      },
      { name: "Color", type: "string", jsonPath: ".spec.color", priority: 1 },
      { name: "Tags", type: "string", jsonPath: ".spec.tags" },
      { name: "On", type: "boolean", jsonPath: ".spec.on" },
      { name: "Weight", type: "number", jsonPath: ".spec.weight" },
      {
        name: "Team",
        type: "string",
        jsonPath: ".metadata.labels.team\\.io/name",
      },
      { name: "First", type: "string", jsonPath: ".spec.items[0].name" },
      { name: "Since", type: "date", jsonPath: ".status.since" },
      { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
    ],
  });
  assert.equal(gadgets.printerColumns?.length, 10);
  assert.equal(
    server.resources.find((r) => r.resource === "gadgets")?.printerColumns
      ?.[0]?.jsonPath,
    ".spec.size",
  );
  await send(server, "POST", `/apis/example.com/v1/namespaces/default/plains`, {
    metadata: { name: "p" },
  });
  await send(server, "POST", "/apis/example.com/v1/gadgets", {
    metadata: { name: "g1", labels: { "team.io/name": "blue" } },
    spec: {
      size: 3.7,
      tags: ["a", "b"],
      on: true,
      weight: 1.5,
      items: [{ name: "first" }, { name: "second" }],
    },
    status: {
      conditions: [{ type: "Synced", status: "False" }, {
        type: "Ready",
        status: "True",
      }],
      since: "2029-12-31T23:00:00Z",
    },
  });
  await send(server, "POST", "/apis/example.com/v1/gadgets", {
    metadata: { name: "g2" },
    spec: { size: "big", color: "red" },
  });
  await time.tick(90_000);

  const plain =
    (await table(server, "/apis/example.com/v1/namespaces/default/plains"))
      .body;
  assert.deepEqual(names(plain), ["Name", "Age"]);
  assert.equal(plain.columnDefinitions[1].type, "date");
  assert.deepEqual(plain.rows[0].cells, ["p", "90s"]);

  const body = (await table(server, "/apis/example.com/v1/gadgets")).body;
  assert.deepEqual(names(body), [
    "Name",
    "Size",
    "Ready",
    "Color",
    "Tags",
    "On",
    "Weight",
    "Team",
    "First",
    "Since",
    "Age",
  ]);
  assert.equal(
    body.columnDefinitions[1].description,
    "Custom resource definition column (in JSONPath format): .spec.size",
  );
  assert.equal(body.columnDefinitions[2].description, "Whether it is ready");
  assert.equal(body.columnDefinitions[3].priority, 1);
  assert.equal(body.columnDefinitions[1].type, "integer");
  const [g1, g2] = body.rows.map((r: Json) => r.cells);
  assert.deepEqual(g1, [
    "g1",
    3,
    "True",
    null,
    '["a","b"]',
    true,
    1.5,
    "blue",
    "first",
    "61m",
    "90s",
  ]);
  // A value of the wrong type, or a missing one, is an empty cell.
  assert.deepEqual(g2, [
    "g2",
    null,
    null,
    "red",
    null,
    null,
    null,
    null,
    null,
    null,
    "90s",
  ]);
});
