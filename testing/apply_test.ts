import assert from "node:assert/strict";
import { FakeApiServer } from "./fake_server.ts";
import { installFakeTime } from "./fake_time.ts";
import { type Answer, call } from "./_test_util.ts";
import { Client } from "../apiclient/client.ts";
import { ConflictError } from "../apiclient/errors.ts";
import type { KubeObject } from "../apiclient/types.ts";

const CM = "/api/v1/namespaces/default/configmaps";
const PODS = "/api/v1/namespaces/default/pods";
const APPLY = "application/apply-patch+yaml";

function apply(
  server: FakeApiServer,
  path: string,
  manager: string,
  body: unknown,
  force = false,
): Promise<Answer> {
  return call(
    server,
    "PATCH",
    `${path}?fieldManager=${manager}${force ? "&force=true" : ""}`,
    body,
    APPLY,
  );
}

const cm = (data: Record<string, string>, labels?: Record<string, string>) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: labels ? { name: "a", labels } : { name: "a" },
  data,
});

Deno.test("apply writes managedFields with fieldsV1 as the API server does", async () => {
  using _time = installFakeTime({ now: Date.UTC(2030, 0, 1) });
  await using server = new FakeApiServer({ managedFields: true });
  const res = await apply(server, `${PODS}/p`, "op", {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p", labels: { app: "x" }, finalizers: ["f/a"] },
    spec: {
      containers: [{
        name: "main",
        image: "nginx",
        args: ["-v"],
        ports: [{ containerPort: 80, protocol: "TCP" }],
        env: [{ name: "A", value: "1" }],
      }],
    },
  });
  assert.equal(res.status, 201);
  assert.deepEqual(res.body.metadata.managedFields, [{
    manager: "op",
    operation: "Apply",
    apiVersion: "v1",
    time: "2030-01-01T00:00:00Z",
    fieldsType: "FieldsV1",
    fieldsV1: {
      "f:metadata": {
        "f:finalizers": { 'v:"f/a"': {} },
        "f:labels": { "f:app": {} },
      },
      "f:spec": {
        "f:containers": {
          'k:{"name":"main"}': {
            ".": {},
            "f:args": {},
            "f:env": {
              'k:{"name":"A"}': { ".": {}, "f:name": {}, "f:value": {} },
            },
            "f:image": {},
            "f:name": {},
            "f:ports": {
              'k:{"containerPort":80,"protocol":"TCP"}': {
                ".": {},
                "f:containerPort": {},
                "f:protocol": {},
              },
            },
          },
        },
      },
    },
  }]);
});

Deno.test("an update is recorded as an Update manager owning what it changed", async () => {
  using _time = installFakeTime({ now: Date.UTC(2030, 0, 1) });
  await using server = new FakeApiServer({ managedFields: true });
  await apply(server, `${CM}/a`, "op", cm({ x: "1" }));
  const res = await call(
    server,
    "PATCH",
    `${CM}/a?fieldManager=editor`,
    { metadata: { labels: { l: "v" } }, data: { x: "2" } },
    "application/merge-patch+json",
  );
  assert.deepEqual(
    res.body.metadata.managedFields.map((
      f: { manager: string; operation: string; fieldsV1: unknown },
    ) => [f.manager, f.operation, f.fieldsV1]),
    [
      // "op" lost .data.x (changed by the update), so it owns nothing.
      [
        "editor",
        "Update",
        {
          "f:data": { "f:x": {} },
          "f:metadata": { "f:labels": { ".": {}, "f:l": {} } },
        },
      ],
    ],
  );
});

Deno.test("two managers applying one field at different values conflict, with the API server's Status", async () => {
  await using server = new FakeApiServer();
  assert.equal(
    (await apply(server, `${CM}/a`, "one", cm({ x: "1" }))).status,
    201,
  );
  const res = await apply(server, `${CM}/a`, "two", cm({ x: "2" }));
  assert.equal(res.status, 409);
  assert.deepEqual(res.body, {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: 'Apply failed with 1 conflict: conflict with "one": .data.x',
    reason: "Conflict",
    details: {
      causes: [{
        reason: "FieldManagerConflict",
        message: 'conflict with "one"',
        field: ".data.x",
      }],
    },
    code: 409,
  });
  const stored = server.object<KubeObject & { data?: unknown }>(`${CM}/a`);
  assert.deepEqual(stored?.data, { x: "1" });
});

Deno.test("conflicts with several fields and an Update manager are listed as the API server lists them", async () => {
  await using server = new FakeApiServer();
  await call(server, "POST", `${CM}?fieldManager=editor`, {
    metadata: { name: "a" },
    data: { x: "1", y: "1" },
  });
  const res = await apply(server, `${CM}/a`, "op", cm({ x: "2", y: "2" }));
  assert.equal(res.status, 409);
  assert.equal(
    res.body.message,
    'Apply failed with 2 conflicts: conflicts with "editor" using v1:\n- .data.x\n- .data.y',
  );
  assert.deepEqual(
    res.body.details.causes.map((c: { field: string }) => c.field),
    [".data.x", ".data.y"],
  );
});

Deno.test("the same value is shared, force takes ownership, and the loser's next apply conflicts", async () => {
  await using server = new FakeApiServer({ managedFields: true });
  await apply(server, `${CM}/a`, "one", cm({ x: "1", y: "1" }));
  // The same value: no conflict, both own it.
  assert.equal(
    (await apply(server, `${CM}/a`, "two", cm({ x: "1" }))).status,
    200,
  );
  const forced = await apply(
    server,
    `${CM}/a`,
    "two",
    cm({ x: "1", y: "2" }),
    true,
  );
  assert.equal(forced.status, 200);
  assert.deepEqual(forced.body.data, { x: "1", y: "2" });
  const owners = Object.fromEntries(
    forced.body.metadata.managedFields.map((
      f: { manager: string; fieldsV1: unknown },
    ) => [f.manager, f.fieldsV1]),
  );
  assert.deepEqual(owners, {
    one: { "f:data": { "f:x": {} } },
    two: { "f:data": { "f:x": {}, "f:y": {} } },
  });
  const back = await apply(server, `${CM}/a`, "one", cm({ x: "1", y: "1" }));
  assert.equal(back.status, 409);
  assert.match(back.body.message, /conflict with "two": \.data\.y$/);
});

Deno.test("a field a manager stops applying goes unless another manager owns it", async () => {
  await using server = new FakeApiServer();
  await apply(
    server,
    `${CM}/a`,
    "one",
    cm({ x: "1", y: "1", z: "1" }, { l: "1" }),
  );
  await apply(server, `${CM}/a`, "two", cm({ y: "1" }));
  const res = await apply(server, `${CM}/a`, "one", cm({ x: "1" }));
  assert.equal(res.status, 200);
  // z and the label go; y stays, as "two" owns it.
  assert.deepEqual(res.body.data, { x: "1", y: "1" });
  assert.equal(res.body.metadata.labels?.l, undefined);
});

Deno.test("list maps merge by key: containers by name, env by name; atomic lists are replaced whole", async () => {
  await using server = new FakeApiServer();
  const pod = (containers: unknown[]) => ({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p" },
    // No token volume: the containers are compared whole.
    spec: { automountServiceAccountToken: false, containers },
  });
  await apply(
    server,
    `${PODS}/p`,
    "one",
    pod([{
      name: "a",
      image: "a:1",
      args: ["x", "y"],
      env: [{ name: "E1", value: "1" }],
    }]),
  );
  const two = await apply(
    server,
    `${PODS}/p`,
    "two",
    pod([
      { name: "a", env: [{ name: "E2", value: "2" }] },
      { name: "b", image: "b:1" },
    ]),
  );
  assert.equal(two.status, 200);
  // A container's defaults, which the API server adds to the merged Pod.
  const defaults = {
    imagePullPolicy: "IfNotPresent",
    resources: {},
    terminationMessagePath: "/dev/termination-log",
    terminationMessagePolicy: "File",
  };
  assert.deepEqual(two.body.spec.containers, [
    {
      name: "a",
      image: "a:1",
      args: ["x", "y"],
      env: [{ name: "E1", value: "1" }, { name: "E2", value: "2" }],
      ...defaults,
    },
    { name: "b", image: "b:1", ...defaults },
  ]);
  // args is atomic: another value conflicts as one field.
  const args = await apply(
    server,
    `${PODS}/p`,
    "two",
    pod([
      { name: "a", args: ["z"] },
    ]),
  );
  assert.equal(args.status, 409);
  assert.match(
    args.body.message,
    /conflict with "one": \.spec\.containers\[name="a"\]\.args$/,
  );
  // "two" drops container b and its env entry: both go.
  const dropped = await apply(server, `${PODS}/p`, "two", pod([{ name: "a" }]));
  assert.equal(dropped.status, 200);
  assert.deepEqual(dropped.body.spec.containers, [{
    name: "a",
    image: "a:1",
    args: ["x", "y"],
    env: [{ name: "E1", value: "1" }],
    ...defaults,
  }]);
});

Deno.test("conditions merge by type, so a status writer keeps the others' conditions", async () => {
  await using server = new FakeApiServer();
  server.register({
    group: "example.com",
    version: "v1",
    resource: "widgets",
    kind: "Widget",
    statusSubresource: true,
  });
  const path = "/apis/example.com/v1/namespaces/default/widgets/w";
  await apply(server, path, "op", {
    apiVersion: "example.com/v1",
    kind: "Widget",
    metadata: { name: "w" },
    spec: { size: 1 },
    status: { ignored: true },
  });
  assert.equal(
    (server.object(path) as { status?: unknown }).status,
    undefined,
    "the main path ignores status",
  );
  const status = (type: string) => ({
    apiVersion: "example.com/v1",
    kind: "Widget",
    metadata: { name: "w" },
    status: { conditions: [{ type, status: "True" }] },
  });
  assert.equal(
    (await apply(server, `${path}/status`, "a", status("Ready"))).status,
    200,
  );
  const res = await apply(server, `${path}/status`, "b", status("Synced"));
  assert.equal(res.status, 200);
  assert.deepEqual(
    res.body.status.conditions.map((c: { type: string }) => c.type),
    [
      "Ready",
      "Synced",
    ],
  );
  assert.deepEqual(res.body.spec, { size: 1 });
});

Deno.test("register's listTypes makes a custom list a list map; undeclared lists are atomic", async () => {
  await using server = new FakeApiServer();
  server.register({
    group: "example.com",
    version: "v1",
    resource: "routes",
    kind: "Route",
    listTypes: { "spec.rules": ["host"] },
  });
  const path = "/apis/example.com/v1/namespaces/default/routes/r";
  const route = (rules: unknown[], hosts?: string[]) => ({
    apiVersion: "example.com/v1",
    kind: "Route",
    metadata: { name: "r" },
    spec: hosts ? { rules, hosts } : { rules },
  });
  await apply(server, path, "one", route([{ host: "a", port: 1 }], ["a"]));
  const two = await apply(server, path, "two", route([{ host: "b", port: 2 }]));
  assert.equal(two.status, 200);
  assert.deepEqual(two.body.spec.rules, [
    { host: "a", port: 1 },
    { host: "b", port: 2 },
  ]);
  const hosts = await apply(server, path, "two", route([], ["b"]));
  assert.equal(hosts.status, 409);
  assert.match(hosts.body.message, /conflict with "one": \.spec\.hosts$/);
});

Deno.test("an apply that changes nothing writes nothing", async () => {
  await using server = new FakeApiServer({ managedFields: true });
  const made = await apply(server, `${CM}/a`, "one", cm({ x: "1" }));
  const again = await apply(server, `${CM}/a`, "one", cm({ x: "1" }));
  assert.equal(again.status, 200);
  assert.equal(
    again.body.metadata.resourceVersion,
    made.body.metadata.resourceVersion,
  );
});

Deno.test("Client.apply creates, applies, and throws ConflictError over the served fake", async () => {
  await using server = new FakeApiServer();
  await using served = await server.serve();
  const client = new Client(served.url);
  const path = `${CM}/a`;
  const made = await client.apply<{ data: Record<string, string> }>(
    path,
    cm({ x: "1" }),
    { fieldManager: "one" },
  );
  assert.deepEqual(made.data, { x: "1" });
  const error = await client.apply(path, cm({ x: "2" }), {
    fieldManager: "two",
  }).catch((e) => e);
  assert.ok(error instanceof ConflictError);
  assert.match(error.message, /conflict with "one": \.data\.x/);
  const forced = await client.apply<{ data: Record<string, string> }>(
    path,
    cm({ x: "2" }),
    { fieldManager: "two", force: true },
  );
  assert.deepEqual(forced.data, { x: "2" });
  await assert.rejects(
    client.apply(path, cm({}), { fieldManager: "" }),
    TypeError,
  );
});
