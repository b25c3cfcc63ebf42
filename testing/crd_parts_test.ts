// The CRD's other parts as the fake serves them (held to kube-apiserver by
// the differential scenario custom-resource-parts): the scale subresource,
// field selectors on selectable fields, the Warning of a deprecated
// version, each version's schema, and CEL rules (written and enforced).
import assert from "node:assert/strict";
import { defineResource } from "../resource/mod.ts";
import { FakeApiServer } from "./mod.ts";

const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const V1 = "/apis/example.com/v1/namespaces/default/gizmos";
const V1BETA1 = "/apis/example.com/v1beta1/namespaces/default/gizmos";
const V1ALPHA1 = "/apis/example.com/v1alpha1/namespaces/default/gizmos";
const MERGE = "application/merge-patch+json";

// deno-lint-ignore no-explicit-any
type Json = any;

const schema = (color: string, extra: Record<string, unknown> = {}) =>
  ({
    type: "object",
    properties: {
      spec: {
        type: "object",
        "x-kubernetes-validations": [{
          rule: "!has(self.replicas) || self.replicas <= 10",
          message: "at most 10 replicas",
        }],
        properties: {
          replicas: { type: "integer" },
          color: { type: "string", default: color },
          ...extra,
        },
      },
      status: {
        type: "object",
        properties: {
          replicas: { type: "integer" },
          selector: { type: "string" },
        },
      },
    },
  }) as const;

const GIZMOS = defineResource({
  group: "example.com",
  kind: "Gizmo",
  plural: "gizmos",
  scope: "Namespaced",
  categories: ["gadgets"],
  versions: [
    {
      name: "v1",
      storage: true,
      status: true,
      scale: {
        specReplicasPath: ".spec.replicas",
        statusReplicasPath: ".status.replicas",
        labelSelectorPath: ".status.selector",
      },
      selectableFields: [".spec.color"],
      schema: schema("blue"),
    },
    {
      name: "v1beta1",
      deprecated: true,
      schema: schema("red", { legacy: { type: "string" } }),
    },
    {
      name: "v1alpha1",
      deprecated: true,
      deprecationWarning: "v1alpha1 gizmos are going away",
      schema: schema("green"),
    },
  ],
});

async function send(
  server: FakeApiServer,
  method: string,
  path: string,
  options: { body?: unknown; type?: string } = {},
): Promise<{ status: number; body: Json; warning: string | null }> {
  const res = await server.fetch(`${server.url}${path}`, {
    method,
    headers: {
      "content-type": options.type ?? "application/json",
      "user-agent": "parts-test/1.0",
    },
    ...(options.body === undefined ? {} : {
      body: JSON.stringify(options.body),
    }),
  });
  const text = await res.text();
  let body: Json = text;
  try {
    body = JSON.parse(text);
  } catch { /* plain text */ }
  return { status: res.status, body, warning: res.headers.get("warning") };
}

async function served(): Promise<FakeApiServer> {
  const server = new FakeApiServer();
  const made = await send(server, "POST", CRDS, { body: GIZMOS.crd() });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  assert.deepEqual(made.body.spec.names.categories, ["gadgets"]);
  await Promise.resolve();
  return server;
}

function gizmo(version: string, name: string, spec: object): unknown {
  return {
    apiVersion: `example.com/${version}`,
    kind: "Gizmo",
    metadata: { name },
    spec,
  };
}

Deno.test("scale: GET reads the paths, PUT and PATCH write spec replicas", async () => {
  await using server = await served();
  await send(server, "POST", V1, { body: gizmo("v1", "g", { replicas: 2 }) });
  const read = await send(server, "GET", `${V1}/g/scale`);
  assert.equal(read.status, 200);
  assert.equal(read.body.kind, "Scale");
  assert.equal(read.body.apiVersion, "autoscaling/v1");
  assert.equal(read.body.metadata.name, "g");
  assert.equal(read.body.metadata.namespace, "default");
  assert.deepEqual(read.body.spec, { replicas: 2 });
  assert.deepEqual(read.body.status, { replicas: 0 });

  const put = await send(server, "PUT", `${V1}/g/scale`, {
    body: {
      apiVersion: "autoscaling/v1",
      kind: "Scale",
      spec: { replicas: 5 },
    },
  });
  assert.equal(put.status, 200);
  assert.deepEqual(put.body.spec, { replicas: 5 });
  assert.notEqual(
    put.body.metadata.resourceVersion,
    read.body.metadata.resourceVersion,
  );
  const patched = await send(server, "PATCH", `${V1}/g/scale`, {
    body: { spec: { replicas: 3 } },
    type: MERGE,
  });
  assert.deepEqual(patched.body.spec, { replicas: 3 });

  const object = server.object<Json>(`${V1}/g`)!;
  assert.equal(object.spec.replicas, 3);
  assert.equal(object.metadata.generation, 3);
  const entry = object.metadata.managedFields.find((e: Json) =>
    e.subresource === "scale"
  );
  // The API server's scale entry has no time.
  assert.deepEqual(entry, {
    manager: "parts-test",
    operation: "Update",
    apiVersion: "example.com/v1",
    fieldsType: "FieldsV1",
    fieldsV1: { "f:spec": { "f:replicas": {} } },
    subresource: "scale",
  });

  await send(server, "PATCH", `${V1}/g/status`, {
    body: { status: { replicas: 3, selector: "app=g" } },
    type: MERGE,
  });
  const after = await send(server, "GET", `${V1}/g/scale`);
  assert.deepEqual(after.body.status, { replicas: 3, selector: "app=g" });
});

Deno.test("scale: the API server's refusals", async () => {
  await using server = await served();
  await send(server, "POST", V1, { body: gizmo("v1", "g", { replicas: 2 }) });
  await send(server, "POST", V1, { body: gizmo("v1", "none", {}) });
  const missing = await send(server, "GET", `${V1}/none/scale`);
  assert.equal(missing.status, 500);
  assert.equal(
    missing.body.message,
    'Internal error occurred: the spec replicas field ".spec.replicas" does not exist',
  );
  const gone = await send(server, "GET", `${V1}/nope/scale`);
  assert.equal(gone.status, 404);
  assert.equal(gone.body.message, 'gizmos.example.com "nope" not found');
  // A version without the subresource: the object is "not found".
  const other = await send(server, "GET", `${V1BETA1}/g/scale`);
  assert.equal(other.status, 404);
  assert.equal(other.body.message, 'gizmos.example.com "g" not found');
  const negative = await send(server, "PATCH", `${V1}/g/scale`, {
    body: { spec: { replicas: -1 } },
    type: MERGE,
  });
  assert.equal(negative.status, 422);
  assert.equal(
    negative.body.details.causes[0].message,
    "Invalid value: -1: must be greater than or equal to 0",
  );
  const stale = await send(server, "PUT", `${V1}/g/scale`, {
    body: { metadata: { resourceVersion: "1" }, spec: { replicas: 4 } },
  });
  assert.equal(stale.status, 409);
});

Deno.test("field selectors name selectable fields, and no other", async () => {
  await using server = await served();
  await send(server, "POST", V1, { body: gizmo("v1", "a", { color: "red" }) });
  await send(server, "POST", V1, { body: gizmo("v1", "b", {}) });
  const names = async (path: string): Promise<string[]> =>
    (await send(server, "GET", path)).body.items.map((i: Json) =>
      i.metadata.name
    );
  assert.deepEqual(await names(`${V1}?fieldSelector=spec.color%3Dred`), ["a"]);
  assert.deepEqual(await names(`${V1}?fieldSelector=spec.color!%3Dred`), ["b"]);
  assert.deepEqual(
    await names(`${V1}?fieldSelector=metadata.name%3Db,spec.color%3Dblue`),
    ["b"],
  );
  const refused = await send(
    server,
    "GET",
    `${V1}?fieldSelector=spec.replicas%3D1`,
  );
  assert.equal(refused.status, 400);
  assert.equal(
    refused.body.message,
    "field label not supported: spec.replicas",
  );
  // Selectable fields are the version's: v1beta1 has none.
  const other = await send(
    server,
    "GET",
    `${V1BETA1}?fieldSelector=spec.color%3Dred`,
  );
  assert.equal(other.status, 400);
  assert.equal(other.body.message, "field label not supported: spec.color");
  const watch = await send(
    server,
    "GET",
    `${V1}?watch=true&fieldSelector=spec.replicas%3D1`,
  );
  assert.equal(watch.status, 400);
});

Deno.test("a deprecated version warns on every request", async () => {
  await using server = await served();
  const current = await send(server, "POST", V1, {
    body: gizmo("v1", "a", {}),
  });
  assert.equal(current.warning, null);
  const old = await send(server, "GET", `${V1BETA1}/a`);
  assert.equal(
    old.warning,
    '299 - "example.com/v1beta1 Gizmo is deprecated; use example.com/v1 Gizmo"',
  );
  const own = await send(server, "GET", V1ALPHA1);
  assert.equal(own.warning, '299 - "v1alpha1 gizmos are going away"');
  const failed = await send(server, "GET", `${V1BETA1}/missing`);
  assert.equal(failed.status, 404);
  assert.match(failed.warning ?? "", /is deprecated/);
});

Deno.test("the default deprecation warning names a newer version only", async () => {
  await using server = new FakeApiServer();
  const ONLY = defineResource({
    group: "example.com",
    kind: "Gizmo",
    plural: "gizmos",
    scope: "Namespaced",
    versions: [
      {
        name: "v1",
        storage: true,
        deprecated: true,
        schema: { type: "object" },
      },
      { name: "v1beta1", schema: { type: "object" } },
    ],
  });
  await send(server, "POST", CRDS, { body: ONLY.crd() });
  const answer = await send(server, "GET", V1);
  assert.equal(answer.warning, '299 - "example.com/v1 Gizmo is deprecated"');
});

Deno.test("each version's schema: its defaults on write, the storage version's pruning", async () => {
  await using server = await served();
  const old = await send(server, "POST", V1BETA1, {
    body: gizmo("v1beta1", "old", { legacy: "kept?" }),
  });
  assert.equal(old.status, 201);
  // Defaulted by v1beta1's schema, pruned by the storage version's (v1).
  assert.deepEqual(old.body.spec, { color: "red" });
  assert.equal(old.body.apiVersion, "example.com/v1beta1");
  const fresh = await send(server, "POST", V1, {
    body: gizmo("v1", "new", { legacy: "dropped" }),
  });
  assert.equal(fresh.warning, '299 - "unknown field \\"spec.legacy\\""');
  assert.deepEqual(fresh.body.spec, { color: "blue" });
});

Deno.test("the fake enforces the CEL rules of a served CRD", async () => {
  await using server = await served();
  const crd = server.object<Json>(`${CRDS}/gizmos.example.com`)!;
  assert.equal(
    crd.spec.versions[0].schema.openAPIV3Schema.properties.spec[
      "x-kubernetes-validations"
    ][0].rule,
    "!has(self.replicas) || self.replicas <= 10",
  );
  // As kube-apiserver answers (golden custom-resource-parts).
  const many = await send(server, "POST", V1, {
    body: gizmo("v1", "many", { replicas: 20 }),
  });
  assert.equal(many.status, 422);
  assert.deepEqual(many.body.details.causes, [{
    reason: "FieldValueInvalid",
    message: "Invalid value: at most 10 replicas",
    field: "spec",
  }]);
});
