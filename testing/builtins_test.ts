// The built-in kinds the fake serves without register(): every resource of
// the recorded discovery, each kind's generation rule, the workloads'
// scale subresource and the built-in status strategies.
import assert from "node:assert/strict";
import { FakeApiServer } from "./mod.ts";
import { BUILT_IN_RESOURCES } from "./_store/registry.ts";
import { readGolden, runScenario } from "./differential/_runner.ts";
import { SCENARIOS } from "./differential/scenarios.ts";

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

/** A transcript without `managedFields`, which the defaults do not concern. */
function withoutOwners(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutOwners);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).filter(([k]) => k !== "managedFields").map((
      [k, v],
    ) => [k, withoutOwners(v)]),
  );
}

for (const name of ["builtin-defaults", "builtin-cluster-defaults"]) {
  Deno.test(`built-ins: defaults answer as recorded in ${name} (managedFields aside)`, async () => {
    const golden = await readGolden(name);
    assert.ok(golden !== undefined, `no golden for ${name}`);
    const scenario = SCENARIOS.find((s) => s.name === name)!;
    await using server = new FakeApiServer();
    const steps = await runScenario(
      {
        name: "fake",
        url: server.url,
        fetch: (request) => server.fetch(request),
      },
      scenario,
      { compact: () => Promise.resolve() },
    );
    let compared = 0;
    for (const [i, step] of golden.steps.entries()) {
      // CSIDriver's many defaults are not written (a known difference).
      if (step.step.endsWith("csidrivers")) continue;
      assert.deepEqual(
        withoutOwners(JSON.parse(JSON.stringify(steps[i]))),
        withoutOwners(step),
        `${name}/${step.step}`,
      );
      compared++;
    }
    assert.ok(compared >= 20);
  });
}

Deno.test("built-ins: imagePullPolicy follows the image's tag", async () => {
  await using server = new FakeApiServer();
  const images = {
    a: "nginx",
    b: "nginx:latest",
    c: "nginx:1.27",
    d: "registry.local:5000/nginx",
    e: "nginx@sha256:0000000000000000000000000000000000000000000000000000000000000000",
    f: "registry.local:5000/nginx:1.0",
  };
  const made = await send(server, "POST", "/api/v1/namespaces/default/pods", {
    metadata: { name: "p" },
    spec: {
      containers: Object.entries(images).map(([name, image]) => ({
        name,
        image,
      })),
    },
  });
  assert.equal(made.status, 201);
  assert.deepEqual(
    made.body.spec.containers.map((c: Json) => c.imagePullPolicy),
    [
      "Always",
      "Always",
      "IfNotPresent",
      "Always",
      "IfNotPresent",
      "IfNotPresent",
    ],
  );
  assert.deepEqual(made.body.status, {
    phase: "Pending",
    qosClass: "BestEffort",
  });
});

Deno.test("built-ins: a Service gets a free cluster IP from 10.96.0.0/16 (the kubernetes Service holds 10.96.0.1) and its targetPort", async () => {
  await using server = new FakeApiServer();
  const path = "/api/v1/namespaces/default/services";
  const one = await send(server, "POST", path, {
    metadata: { name: "one" },
    spec: { ports: [{ port: 80 }, { port: 81, targetPort: "http" }] },
  });
  assert.equal(one.status, 201);
  assert.equal(one.body.spec.clusterIP, "10.96.0.2");
  assert.deepEqual(one.body.spec.clusterIPs, ["10.96.0.2"]);
  assert.deepEqual(one.body.spec.ports, [
    { port: 80, protocol: "TCP", targetPort: 80 },
    { port: 81, protocol: "TCP", targetPort: "http" },
  ]);
  const two = await send(server, "POST", path, { metadata: { name: "two" } });
  assert.equal(two.body.spec.clusterIP, "10.96.0.3");
  const bad = await send(server, "POST", path, { metadata: { name: "1bad" } });
  assert.equal(bad.status, 422);
});

Deno.test("built-ins: an update gets the defaults back; an apply's configuration owns only what it sent", async () => {
  await using server = new FakeApiServer();
  const made = await send(server, "POST", DEPLOYMENTS, workload("Deployment"));
  const sent = structuredClone(made.body);
  delete sent.spec.strategy;
  delete sent.spec.template.spec.containers[0].imagePullPolicy;
  const put = await send(server, "PUT", `${DEPLOYMENTS}/w`, sent);
  assert.equal(put.status, 200);
  assert.equal(put.body.spec.strategy.type, "RollingUpdate");
  assert.equal(
    put.body.spec.template.spec.containers[0].imagePullPolicy,
    "IfNotPresent",
  );
  // Nothing changed in the end, so generation stays.
  assert.equal(put.body.metadata.generation, 1);
  const applied = await send(
    server,
    "PATCH",
    "/apis/apps/v1/namespaces/default/deployments/a?fieldManager=me",
    { ...workload("Deployment"), metadata: { name: "a" } },
    "application/apply-patch+yaml",
  );
  assert.equal(applied.status, 201);
  assert.equal(applied.body.spec.revisionHistoryLimit, 10);
  const mine = applied.body.metadata.managedFields.find((e: Json) =>
    e.manager === "me"
  );
  assert.equal(mine.fieldsV1["f:spec"]["f:revisionHistoryLimit"], undefined);
});

Deno.test("built-ins: a Job gets its generated selector and labels", async () => {
  await using server = new FakeApiServer();
  const made = await send(
    server,
    "POST",
    "/apis/batch/v1/namespaces/default/jobs",
    {
      metadata: { name: "j" },
      spec: {
        template: {
          spec: {
            containers: [{ name: "c", image: "busybox" }],
            restartPolicy: "Never",
          },
        },
      },
    },
  );
  assert.equal(made.status, 201);
  const uid = made.body.metadata.uid;
  assert.deepEqual(made.body.spec.selector, {
    matchLabels: { "batch.kubernetes.io/controller-uid": uid },
  });
  assert.equal(made.body.spec.template.metadata.labels["job-name"], "j");
  assert.equal(made.body.metadata.labels["batch.kubernetes.io/job-name"], "j");
  assert.equal(made.body.spec.completions, 1);
  assert.equal(made.body.spec.backoffLimit, 6);
});

Deno.test("built-ins: a pod spec needs containers with names and images", async () => {
  await using server = new FakeApiServer();
  const pods = "/api/v1/namespaces/default/pods";
  const none = await send(server, "POST", pods, { metadata: { name: "p" } });
  assert.equal(none.status, 422);
  assert.equal(
    none.body.message,
    'Pod "p" is invalid: spec.containers: Required value',
  );
  const noImage = await send(server, "POST", pods, {
    metadata: { name: "p" },
    spec: { containers: [{ name: "c" }] },
  });
  assert.deepEqual(noImage.body.details.causes, [{
    reason: "FieldValueRequired",
    message: "Required value",
    field: "spec.containers[0].image",
  }]);
  const empty = await send(server, "POST", DEPLOYMENTS, {
    ...workload("Deployment"),
    spec: {
      selector: { matchLabels: { app: "web" } },
      template: { metadata: TEMPLATE.metadata },
    },
  });
  assert.equal(empty.status, 422);
  assert.equal(
    empty.body.details.causes[0].field,
    "spec.template.spec.containers",
  );
});

Deno.test("built-ins: a workload's selector must match its template and never changes", async () => {
  await using server = new FakeApiServer();
  const mismatch = await send(server, "POST", DEPLOYMENTS, {
    ...workload("Deployment"),
    spec: { selector: { matchLabels: { app: "other" } }, template: TEMPLATE },
  });
  assert.equal(mismatch.status, 422);
  assert.equal(
    mismatch.body.details.causes[0].message,
    'Invalid value: {"app":"web"}: `selector` does not match template `labels`',
  );
  assert.equal(
    (await send(server, "POST", DEPLOYMENTS, workload("Deployment"))).status,
    201,
  );
  const changed = await send(
    server,
    "PATCH",
    `${DEPLOYMENTS}/w`,
    {
      spec: {
        selector: {
          matchExpressions: null,
          matchLabels: { app: "web", x: "y" },
        },
      },
    },
    "application/merge-patch+json",
  );
  assert.equal(changed.status, 422);
  assert.match(
    changed.body.message,
    /spec\.selector: Invalid value: .*: field is immutable/,
  );
});

Deno.test("built-ins: immutable fields of Secrets, ConfigMaps and Jobs", async () => {
  await using server = new FakeApiServer();
  const merge = "application/merge-patch+json";
  const secrets = "/api/v1/namespaces/default/secrets";
  await send(server, "POST", secrets, {
    metadata: { name: "s" },
    stringData: { k: "v" },
  });
  const type = await send(
    server,
    "PATCH",
    `${secrets}/s`,
    { type: "other" },
    merge,
  );
  assert.equal(type.status, 422);
  assert.equal(
    type.body.message,
    'Secret "s" is invalid: type: Invalid value: "other": field is immutable',
  );
  const cms = "/api/v1/namespaces/default/configmaps";
  await send(server, "POST", cms, {
    metadata: { name: "c" },
    data: { k: "v" },
    immutable: true,
  });
  const data = await send(
    server,
    "PATCH",
    `${cms}/c`,
    { data: { k: "w" } },
    merge,
  );
  assert.equal(data.status, 422);
  assert.equal(data.body.details.causes[0].reason, "FieldValueForbidden");
  const labels = await send(server, "PATCH", `${cms}/c`, {
    metadata: { labels: { a: "b" } },
  }, merge);
  assert.equal(labels.status, 200);
  const jobs = "/apis/batch/v1/namespaces/default/jobs";
  const always = await send(server, "POST", jobs, {
    metadata: { name: "j" },
    spec: {
      template: { spec: { containers: [{ name: "c", image: "busybox" }] } },
    },
  });
  assert.equal(always.status, 422);
  assert.equal(
    always.body.details.causes[0].field,
    "spec.template.spec.restartPolicy",
  );
});

Deno.test("built-ins: fieldValidation reads the kind's schema (Strict 400, Warn and the default a warning, the field dropped)", async () => {
  await using server = new FakeApiServer();
  const body = (name: string) => ({
    ...workload("Deployment"),
    metadata: { name },
    spec: { ...workload("Deployment").spec, bogus: 1 },
  });
  const strict = await send(
    server,
    "POST",
    `${DEPLOYMENTS}?fieldValidation=Strict`,
    body("a"),
  );
  assert.equal(strict.status, 400);
  assert.equal(
    strict.body.message,
    'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.bogus"',
  );
  const res = await server.fetch(`${server.url}${DEPLOYMENTS}`, {
    method: "POST",
    body: JSON.stringify(body("b")),
  });
  assert.equal(res.status, 201);
  assert.equal(
    res.headers.get("warning"),
    '299 - "unknown field \\"spec.bogus\\""',
  );
  assert.equal((await res.json()).spec.bogus, undefined);
  // Metadata the generated schemas cut stays.
  const owned = await send(
    server,
    "POST",
    `${DEPLOYMENTS}?fieldValidation=Strict`,
    {
      ...body("c"),
      spec: workload("Deployment").spec,
      metadata: {
        name: "c",
        ownerReferences: [{
          apiVersion: "v1",
          kind: "ConfigMap",
          name: "o",
          uid: "u",
        }],
      },
    },
  );
  assert.equal(owned.status, 201);
  assert.equal(owned.body.metadata.ownerReferences.length, 1);
});

Deno.test("built-ins: NamespaceLifecycle refuses a create in a namespace that does not exist, unless turned off", async () => {
  const cm = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;
  await using lax = new FakeApiServer({ namespaceLifecycle: false });
  assert.equal(
    (await send(lax, "POST", cm("nowhere"), { metadata: { name: "c" } }))
      .status,
    201,
  );
  await using server = new FakeApiServer();
  const missing = await send(server, "POST", cm("nowhere"), {
    metadata: { name: "c" },
  });
  assert.equal(missing.status, 404);
  assert.equal(missing.body.message, 'namespaces "nowhere" not found');
  assert.deepEqual(missing.body.details, {
    name: "nowhere",
    kind: "namespaces",
  });
  assert.equal(
    (await send(server, "POST", cm("default"), { metadata: { name: "c" } }))
      .status,
    201,
  );
  await send(server, "POST", "/api/v1/namespaces", {
    metadata: { name: "team" },
  });
  assert.equal(
    (await send(server, "POST", cm("team"), { metadata: { name: "c" } }))
      .status,
    201,
  );
});

const PODS = "/api/v1/namespaces/default/pods";
const POD = {
  metadata: { name: "p" },
  spec: { containers: [{ name: "c", image: "busybox" }] },
};

Deno.test("built-ins: pods/binding sets the node once", async () => {
  await using server = new FakeApiServer();
  await send(server, "POST", PODS, POD);
  const bind = (node: string) =>
    send(server, "POST", `${PODS}/p/binding`, {
      apiVersion: "v1",
      kind: "Binding",
      metadata: { name: "p" },
      target: { apiVersion: "v1", kind: "Node", name: node },
    });
  const bound = await bind("n1");
  assert.equal(bound.status, 201);
  assert.deepEqual(bound.body, {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Success",
    code: 201,
  });
  const pod = await send(server, "GET", `${PODS}/p`);
  assert.equal(pod.body.spec.nodeName, "n1");
  assert.equal(pod.body.status.conditions[0].type, "PodScheduled");
  const again = await bind("n2");
  assert.equal(again.status, 409);
  assert.equal(
    again.body.message,
    'Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node "n1"',
  );
  const get = await send(server, "GET", `${PODS}/p/binding`);
  assert.equal(get.status, 405);
});

Deno.test("built-ins: pods/eviction deletes the Pod; a missing one is 404", async () => {
  await using server = new FakeApiServer();
  await send(server, "POST", PODS, POD);
  const evict = (name: string) =>
    send(server, "POST", `${PODS}/${name}/eviction`, {
      apiVersion: "policy/v1",
      kind: "Eviction",
      metadata: { name },
    });
  assert.equal((await evict("p")).status, 201);
  assert.equal((await send(server, "GET", `${PODS}/p`)).status, 404);
  const missing = await evict("p");
  assert.equal(missing.status, 404);
  assert.equal(missing.body.message, 'pods "p" not found');
});

Deno.test("built-ins: serviceaccounts/token answers a TokenRequest for an existing account", async () => {
  await using server = new FakeApiServer();
  const accounts = "/api/v1/namespaces/default/serviceaccounts";
  await send(server, "POST", accounts, { metadata: { name: "robot" } });
  const request = {
    apiVersion: "authentication.k8s.io/v1",
    kind: "TokenRequest",
    spec: { audiences: ["api"], expirationSeconds: 600 },
  };
  const made = await send(server, "POST", `${accounts}/robot/token`, request);
  assert.equal(made.status, 201);
  assert.equal(made.body.kind, "TokenRequest");
  assert.deepEqual(made.body.spec.audiences, ["api"]);
  const [, payload] = made.body.status.token.split(".");
  const claims = JSON.parse(
    atob(payload.replaceAll("-", "+").replaceAll("_", "/")),
  );
  assert.equal(claims.sub, "system:serviceaccount:default:robot");
  assert.equal(claims.exp - claims.iat, 600);
  const missing = await send(
    server,
    "POST",
    `${accounts}/nobody/token`,
    request,
  );
  assert.equal(missing.status, 404);
  const other = await send(
    server,
    "POST",
    "/api/v1/namespaces/default/configmaps/x/token",
    request,
  );
  assert.equal(other.status, 404);
});

Deno.test("built-ins: certificatesigningrequests/approval changes the conditions alone", async () => {
  await using server = new FakeApiServer();
  const csrs = "/apis/certificates.k8s.io/v1/certificatesigningrequests";
  await send(server, "POST", csrs, {
    metadata: { name: "csr" },
    spec: {
      request: "cmVxdWVzdA==",
      signerName: "example.com/x",
      usages: ["digital signature"],
    },
  });
  const approved = await send(server, "PUT", `${csrs}/csr/approval`, {
    metadata: { name: "csr" },
    spec: { request: "b3RoZXI=", signerName: "example.com/x" },
    status: {
      conditions: [{ type: "Approved", status: "True", reason: "Test" }],
    },
  });
  assert.equal(approved.status, 200);
  assert.equal(approved.body.status.conditions[0].type, "Approved");
  assert.equal(approved.body.spec.request, "cmVxdWVzdA==");
});

Deno.test("built-ins: field selectors take the kind's field labels alone", async () => {
  await using server = new FakeApiServer();
  await send(server, "POST", PODS, POD);
  await send(server, "POST", PODS, { ...POD, metadata: { name: "q" } });
  await send(server, "POST", `${PODS}/q/binding`, {
    metadata: { name: "q" },
    target: { kind: "Node", name: "n1" },
  });
  const onNode = await send(
    server,
    "GET",
    `${PODS}?fieldSelector=spec.nodeName%3Dn1`,
  );
  assert.deepEqual(onNode.body.items.map((p: Json) => p.metadata.name), ["q"]);
  const pending = await send(
    server,
    "GET",
    `${PODS}?fieldSelector=status.phase%3DPending`,
  );
  assert.equal(pending.body.items.length, 2);
  const podField = await send(
    server,
    "GET",
    `${PODS}?fieldSelector=spec.foo%3Dx`,
  );
  assert.equal(podField.status, 400);
  assert.equal(podField.body.message, "field label not supported: spec.foo");
  const cms = "/api/v1/namespaces/default/configmaps?fieldSelector=data.k%3Dv";
  const generic = await send(server, "GET", cms);
  assert.equal(generic.status, 400);
  assert.equal(
    generic.body.message,
    '"data.k" is not a known field selector: only "metadata.name", "metadata.namespace"',
  );
});

Deno.test("built-ins: strategic merge patches merge lists by their keys", async () => {
  await using server = new FakeApiServer();
  const smp = "application/strategic-merge-patch+json";
  // A copy: workload() shares the template constant.
  const deployment = structuredClone(workload("Deployment"));
  deployment.metadata.finalizers = ["example.com/a"];
  deployment.spec.template.spec = {
    containers: [
      { name: "app", image: "nginx:1.27", env: [{ name: "A", value: "1" }] },
      { name: "side", image: "busybox:1.36" },
    ],
  };
  await send(server, "POST", DEPLOYMENTS, deployment);
  const merged = await send(server, "PATCH", `${DEPLOYMENTS}/w`, {
    metadata: { finalizers: ["example.com/b"] },
    spec: {
      template: {
        spec: {
          containers: [
            { name: "side", image: "busybox:1.37" },
            { name: "app", env: [{ name: "B", value: "2" }] },
          ],
        },
      },
    },
  }, smp);
  assert.equal(merged.status, 200);
  const containers = merged.body.spec.template.spec.containers;
  assert.deepEqual(containers.map((c: Json) => [c.name, c.image]), [
    ["app", "nginx:1.27"],
    ["side", "busybox:1.37"],
  ]);
  assert.deepEqual(containers[0].env, [
    { name: "B", value: "2" },
    { name: "A", value: "1" },
  ]);
  assert.deepEqual(merged.body.metadata.finalizers, [
    "example.com/b",
    "example.com/a",
  ]);
  const deleted = await send(server, "PATCH", `${DEPLOYMENTS}/w`, {
    metadata: { "$deleteFromPrimitiveList/finalizers": ["example.com/a"] },
    spec: {
      template: { spec: { containers: [{ name: "side", $patch: "delete" }] } },
    },
  }, smp);
  assert.deepEqual(
    deleted.body.spec.template.spec.containers.map((c: Json) => c.name),
    ["app"],
  );
  assert.deepEqual(deleted.body.metadata.finalizers, ["example.com/b"]);
  const replaced = await send(server, "PATCH", `${DEPLOYMENTS}/w`, {
    metadata: { finalizers: null },
    spec: {
      template: {
        spec: {
          containers: [{ $patch: "replace" }, { name: "only", image: "x:1" }],
        },
      },
    },
  }, smp);
  assert.deepEqual(
    replaced.body.spec.template.spec.containers.map((c: Json) => c.name),
    ["only"],
  );
});

Deno.test("built-ins: a protobuf body of no built-in kind is refused with 415 naming JSON", async () => {
  await using server = new FakeApiServer();
  // The envelope's typeMeta: apiVersion example.com/v1, kind Widget.
  const typeMeta = [
    ...[0x0a, 14, ...new TextEncoder().encode("example.com/v1")],
    ...[0x12, 6, ...new TextEncoder().encode("Widget")],
  ];
  const res = await server.fetch(`${server.url}${DEPLOYMENTS}`, {
    method: "POST",
    headers: { "content-type": "application/vnd.kubernetes.protobuf" },
    body: new Uint8Array([0x6b, 0x38, 0x73, 0x00, 0x0a, 24, ...typeMeta]),
  });
  assert.equal(res.status, 415);
  const status = await res.json();
  assert.equal(status.reason, "UnsupportedMediaType");
  assert.match(status.message, /application\/json/);
  assert.match(status.message, /decodes protobuf only for built-in kinds/);
});

/** A protobuf field: its key, then a varint or a length and the bytes. */
function pb(num: number, value: number | string | Uint8Array): number[] {
  const varint = (n: number): number[] => {
    const out: number[] = [];
    do {
      out.push((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
      n = Math.floor(n / 128);
    } while (n > 0);
    return out;
  };
  if (typeof value === "number") return [...varint(num << 3), ...varint(value)];
  const bytes = typeof value === "string"
    ? new TextEncoder().encode(value)
    : value;
  return [...varint((num << 3) | 2), ...varint(bytes.length), ...bytes];
}

Deno.test("built-ins: a protobuf body is decoded as the Go type's JSON (omitempty zeros left out, pointers' zeros kept)", async () => {
  await using server = new FakeApiServer();
  const u = (...parts: number[][]) => new Uint8Array(parts.flat());
  // apps/v1 Deployment: metadata {name, generateName ""}, spec {replicas
  // 0 (a pointer), minReadySeconds 0 (omitempty), paused false, selector,
  // template {metadata {labels}, spec {containers [{name, image}]}}}.
  const labels = u(pb(1, "app"), pb(2, "web"));
  const deployment = u(
    pb(1, u(pb(1, "web"), pb(2, ""))),
    pb(
      2,
      u(
        pb(1, 0),
        pb(2, u(pb(1, labels))),
        pb(
          3,
          u(
            pb(1, u(pb(11, labels))),
            pb(2, u(pb(2, u(pb(1, "app"), pb(2, "nginx:1.27"))))),
          ),
        ),
        pb(5, 0),
        pb(7, 0),
      ),
    ),
  );
  const envelope = u(
    [0x6b, 0x38, 0x73, 0x00],
    pb(1, u(pb(1, "apps/v1"), pb(2, "Deployment"))),
    pb(2, deployment),
    pb(3, ""),
    pb(4, ""),
  );
  const res = await server.fetch(`${server.url}${DEPLOYMENTS}`, {
    method: "POST",
    headers: {
      "content-type": "application/vnd.kubernetes.protobuf",
      accept: "application/vnd.kubernetes.protobuf, */*",
    },
    body: envelope,
  });
  assert.equal(res.status, 201);
  assert.match(res.headers.get("content-type") ?? "", /application\/json/);
  const made = await res.json();
  assert.equal(made.metadata.name, "web");
  assert.equal(made.metadata.generateName, undefined);
  assert.equal(made.spec.replicas, 0);
  assert.equal(made.spec.minReadySeconds, undefined);
  assert.equal(made.spec.paused, undefined);
  assert.deepEqual(made.spec.selector, { matchLabels: { app: "web" } });
  assert.deepEqual(
    made.spec.template.spec.containers.map((c: Json) => [c.name, c.image]),
    [["app", "nginx:1.27"]],
  );
});

Deno.test("built-ins: workload Tables have the API server's columns", async () => {
  await using server = new FakeApiServer();
  await send(server, "POST", DEPLOYMENTS, workload("Deployment"));
  const res = await server.fetch(`${server.url}${DEPLOYMENTS}`, {
    headers: { accept: "application/json;as=Table;v=v1;g=meta.k8s.io" },
  });
  const table = await res.json();
  assert.deepEqual(
    table.columnDefinitions.map((c: Json) => c.name),
    [
      "Name",
      "Ready",
      "Up-to-date",
      "Available",
      "Age",
      "Containers",
      "Images",
      "Selector",
    ],
  );
  const cells = table.rows[0].cells;
  assert.deepEqual(cells.slice(0, 4), ["w", "0/2", 0, 0]);
  assert.deepEqual(cells.slice(5), [
    "app",
    "nginx:1.27",
    "app=web,tier notin (db)",
  ]);
  const jobs = "/apis/batch/v1/namespaces/default/jobs";
  await send(server, "POST", jobs, {
    metadata: { name: "j" },
    spec: {
      template: {
        spec: {
          containers: [{ name: "c", image: "busybox" }],
          restartPolicy: "Never",
        },
      },
    },
  });
  const jobTable = await (await server.fetch(`${server.url}${jobs}`, {
    headers: { accept: "application/json;as=Table;v=v1;g=meta.k8s.io" },
  })).json();
  assert.deepEqual(jobTable.rows[0].cells.slice(0, 4), [
    "j",
    "Running",
    "0/1",
    "",
  ]);
});

Deno.test("built-ins: managedFields own a LabelSelector and a roleRef whole, and a defaulted pointer struct as a node", async () => {
  await using server = new FakeApiServer();
  const made = await send(server, "POST", DEPLOYMENTS, workload("Deployment"));
  const fields = made.body.metadata.managedFields[0].fieldsV1["f:spec"];
  assert.deepEqual(fields["f:selector"], {});
  assert.deepEqual(fields["f:strategy"]["f:rollingUpdate"], {
    ".": {},
    "f:maxSurge": {},
    "f:maxUnavailable": {},
  });
  const binding = await send(
    server,
    "POST",
    "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings",
    {
      metadata: { name: "b" },
      roleRef: {
        apiGroup: "rbac.authorization.k8s.io",
        kind: "Role",
        name: "r",
      },
    },
  );
  assert.deepEqual(
    binding.body.metadata.managedFields[0].fieldsV1["f:roleRef"],
    {},
  );
});
