// The built-in kinds the fake serves without register(): every resource of
// the recorded discovery, each kind's generation rule, the workloads'
// scale subresource and the built-in status strategies.
import assert from "node:assert/strict";
import { FakeApiServer } from "./mod.ts";
import { BUILT_IN_RESOURCES } from "./_registry.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

async function send(
  server: FakeApiServer,
  method: string,
  path: string,
  body?: unknown,
  contentType = "application/json",
): Promise<{ status: number; body: Json }> {
  const res = await server.fetch(`${server.url}${path}`, {
    method,
    headers: { "content-type": contentType },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json() };
}

const TEMPLATE = {
  metadata: { labels: { app: "web" } },
  spec: { containers: [{ name: "app", image: "nginx:1.27" }] },
};
const DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments";

function workload(kind: string, replicas = 2): Json {
  return {
    apiVersion: "apps/v1",
    kind,
    metadata: { name: "w" },
    spec: {
      replicas,
      selector: {
        matchLabels: { app: "web" },
        matchExpressions: [{ key: "tier", operator: "NotIn", values: ["db"] }],
      },
      template: TEMPLATE,
    },
  };
}

Deno.test("built-ins: every recorded resource is served without register()", async () => {
  await using server = new FakeApiServer();
  assert.equal(server.resources.length, BUILT_IN_RESOURCES.length);
  assert.ok(BUILT_IN_RESOURCES.length > 60);
  for (
    const path of [
      "/apis/apps/v1/namespaces/default/deployments",
      "/apis/batch/v1/namespaces/default/jobs",
      "/apis/rbac.authorization.k8s.io/v1/clusterroles",
      "/apis/networking.k8s.io/v1/namespaces/default/ingresses",
      "/api/v1/nodes",
    ]
  ) {
    const list = await send(server, "GET", path);
    assert.equal(list.status, 200, path);
    assert.match(list.body.kind, /List$/);
  }
  const made = await send(server, "POST", DEPLOYMENTS, workload("Deployment"));
  assert.equal(made.status, 201);
  const list = await send(server, "GET", DEPLOYMENTS);
  // A built-in kind's list items carry no kind, as the API server's.
  assert.equal(list.body.items[0].kind, undefined);
});

Deno.test("built-ins: generation is carried by the kinds the API server gives one", async () => {
  await using server = new FakeApiServer();
  const deployment = await send(
    server,
    "POST",
    DEPLOYMENTS,
    workload("Deployment"),
  );
  assert.equal(deployment.body.metadata.generation, 1);
  const node = await send(server, "POST", "/api/v1/nodes", {
    metadata: { name: "n1", generation: 5 },
  });
  assert.equal(node.status, 201);
  assert.equal(node.body.metadata.generation, undefined);
  const priority = await send(
    server,
    "POST",
    "/apis/scheduling.k8s.io/v1/priorityclasses",
    { metadata: { name: "pc" }, value: 10 },
  );
  assert.equal(priority.body.metadata.generation, 1);
});

Deno.test("built-ins: register() of a built-in kind returns it as served", async () => {
  await using server = new FakeApiServer();
  const before = server.resources;
  const jobs = before.find((r) =>
    r.group === "batch" && r.resource === "jobs"
  )!;
  const registered = server.register({
    group: "batch",
    version: "v1",
    resource: "jobs",
    kind: "Job",
    statusSubresource: false,
  });
  assert.equal(registered, jobs);
  assert.equal(registered.statusSubresource, true);
  assert.deepEqual(server.resources, before);
});

for (
  const [resource, kind] of [
    ["deployments", "Deployment"],
    ["statefulsets", "StatefulSet"],
    ["replicasets", "ReplicaSet"],
  ] as const
) {
  Deno.test(`built-ins: ${resource}/scale reads and writes spec.replicas`, async () => {
    await using server = new FakeApiServer();
    const path = `/apis/apps/v1/namespaces/default/${resource}`;
    const made = await send(server, "POST", path, workload(kind));
    const scale = await send(server, "GET", `${path}/w/scale`);
    assert.equal(scale.status, 200);
    assert.equal(scale.body.kind, "Scale");
    assert.equal(scale.body.apiVersion, "autoscaling/v1");
    assert.deepEqual(scale.body.spec, { replicas: 2 });
    assert.deepEqual(scale.body.status, {
      replicas: 0,
      selector: "app=web,tier notin (db)",
    });
    const put = await send(server, "PUT", `${path}/w/scale`, {
      apiVersion: "autoscaling/v1",
      kind: "Scale",
      metadata: {
        name: "w",
        resourceVersion: made.body.metadata.resourceVersion,
      },
      spec: { replicas: 4 },
    });
    assert.equal(put.status, 200);
    assert.equal(put.body.spec.replicas, 4);
    const patched = await send(
      server,
      "PATCH",
      `${path}/w/scale`,
      { spec: { replicas: 1 } },
      "application/merge-patch+json",
    );
    assert.equal(patched.body.spec.replicas, 1);
    const read = await send(server, "GET", `${path}/w`);
    assert.equal(read.body.spec.replicas, 1);
    assert.equal(read.body.metadata.generation, 3);
  });
}

Deno.test("built-ins: a kind without scale answers 404 for it", async () => {
  await using server = new FakeApiServer();
  const path = "/apis/apps/v1/namespaces/default/daemonsets";
  await send(server, "POST", path, workload("DaemonSet"));
  const scale = await send(server, "GET", `${path}/w/scale`);
  assert.equal(scale.status, 404);
  const missing = await send(server, "GET", `${DEPLOYMENTS}/missing/scale`);
  assert.equal(missing.status, 404);
  assert.equal(missing.body.message, 'deployments.apps "missing" not found');
});

Deno.test("built-ins: a status write keeps metadata, but a Deployment's labels", async () => {
  await using server = new FakeApiServer();
  await send(server, "POST", DEPLOYMENTS, workload("Deployment"));
  const status = {
    metadata: { labels: { a: "b" }, annotations: { x: "y" } },
    spec: { replicas: 9 },
    status: { replicas: 1 },
  };
  const merge = "application/merge-patch+json";
  const d = await send(
    server,
    "PATCH",
    `${DEPLOYMENTS}/w/status`,
    status,
    merge,
  );
  assert.equal(d.status, 200);
  assert.equal(d.body.metadata.labels, undefined);
  assert.deepEqual(d.body.metadata.annotations, { x: "y" });
  assert.equal(d.body.spec.replicas, 2);
  assert.deepEqual(d.body.status, { replicas: 1 });
  const sets = "/apis/apps/v1/namespaces/default/statefulsets";
  await send(server, "POST", sets, workload("StatefulSet"));
  const s = await send(server, "PATCH", `${sets}/w/status`, status, merge);
  assert.deepEqual(s.body.metadata.labels, { a: "b" });
  assert.deepEqual(s.body.metadata.annotations, { x: "y" });
  assert.equal(s.body.spec.replicas, 2);
});
