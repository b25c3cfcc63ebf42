// Policies written from code, taken by the fake API server as the API
// server takes them, and enforced there: a validating policy with a
// messageExpression and a Warn binding, a mutating policy with params.
import assert from "node:assert/strict";
import { FakeApiServer } from "../testing/mod.ts";
import { defineResource } from "../resource/mod.ts";
import { mutatingPolicy, validatingPolicy } from "./mod.ts";

const WIDGET = defineResource({
  group: "policies.liken.dev",
  version: "v1",
  kind: "Widget",
  plural: "widgets",
  scope: "Namespaced",
  schema: {
    type: "object",
    properties: {
      spec: {
        type: "object",
        properties: {
          size: { type: "integer" },
          colour: { type: "string" },
        },
      },
    },
  },
});
const ADMISSION = "/apis/admissionregistration.k8s.io/v1";
const WIDGETS = "/apis/policies.liken.dev/v1/namespaces/default/widgets";

async function send(
  server: FakeApiServer,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown>; warning: string }> {
  const answer = await server.fetch(`${server.url}${path}`, {
    method,
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return {
    status: answer.status,
    body: await answer.json(),
    warning: answer.headers.get("warning") ?? "",
  };
}

async function create(
  server: FakeApiServer,
  objects: unknown[],
): Promise<void> {
  for (const object of objects) {
    const { kind } = object as { kind: string };
    const path = kind === "CustomResourceDefinition"
      ? "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
      : `${ADMISSION}/${kind.toLowerCase()}s`.replace(/ys$/, "ies");
    const made = await send(server, "POST", path, object);
    assert.equal(made.status, 201, JSON.stringify(made.body));
    // A policy is stored as written: its defaults are already there.
    if (kind !== "CustomResourceDefinition") {
      assert.deepEqual(made.body.spec, (object as { spec?: unknown }).spec);
    }
  }
}

function widget(name: string, spec: Record<string, unknown>): unknown {
  return {
    apiVersion: "policies.liken.dev/v1",
    kind: "Widget",
    metadata: { name },
    spec,
  };
}

Deno.test("manifests: a validating policy from code is taken and enforced by the fake", async () => {
  await using server = new FakeApiServer();
  await create(server, [
    WIDGET.crd(),
    ...validatingPolicy({
      name: "size.policies.liken.dev",
      resources: [WIDGET],
      variables: [{ name: "size", expression: "object.spec.size" }],
      validations: [{
        expression: "variables.size <= 10",
        messageExpression: "'size ' + string(variables.size) + ' is over 10'",
        reason: "Forbidden",
      }],
    }),
    ...validatingPolicy({
      name: "colour.policies.liken.dev",
      resources: [WIDGET],
      matchConditions: [{
        name: "coloured",
        expression: "has(object.spec.colour)",
      }],
      validations: [{
        expression: "object.spec.colour != 'brown'",
        message: "brown is discouraged",
      }],
      actions: ["Warn"],
    }),
  ]);
  const big = await send(server, "POST", WIDGETS, widget("big", { size: 11 }));
  assert.equal(big.status, 403);
  assert.equal(
    big.body.message,
    `widgets.policies.liken.dev "big" is forbidden: ValidatingAdmissionPolicy 'size.policies.liken.dev' with binding 'size.policies.liken.dev' denied request: size 11 is over 10`,
  );
  const brown = await send(
    server,
    "POST",
    WIDGETS,
    widget("brown", { size: 1, colour: "brown" }),
  );
  assert.equal(brown.status, 201);
  assert.equal(
    brown.warning,
    `299 - "Validation failed for ValidatingAdmissionPolicy 'colour.policies.liken.dev' with binding 'colour.policies.liken.dev': brown is discouraged"`,
  );
  const plain = await send(
    server,
    "POST",
    WIDGETS,
    widget("plain", { size: 1 }),
  );
  assert.equal(plain.status, 201);
  assert.equal(plain.warning, "");
});

Deno.test("manifests: a mutating policy with params from code is taken and enforced by the fake", async () => {
  await using server = new FakeApiServer();
  await create(server, [
    WIDGET.crd(),
    ...mutatingPolicy({
      name: "colour.policies.liken.dev",
      resources: [WIDGET],
      operations: ["CREATE"],
      params: { apiVersion: "v1", kind: "ConfigMap", name: "widget-defaults" },
      matchConditions: [{
        name: "uncoloured",
        expression: "!has(object.spec.colour)",
      }],
      mutations: [{
        applyConfiguration:
          "Object{spec: Object.spec{colour: params.data.colour}}",
      }, {
        jsonPatch:
          "[JSONPatch{op: 'add', path: '/metadata/labels', value: {'coloured': 'by-policy'}}]",
      }],
    }),
  ]);
  const missing = await send(server, "POST", WIDGETS, widget("a", { size: 1 }));
  assert.equal(missing.status, 403);
  assert.match(
    String(missing.body.message),
    /no params found for policy binding with `Deny` parameterNotFoundAction$/,
  );
  const cm = await send(
    server,
    "POST",
    "/api/v1/namespaces/default/configmaps",
    {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "widget-defaults" },
      data: { colour: "green" },
    },
  );
  assert.equal(cm.status, 201);
  const made = await send(server, "POST", WIDGETS, widget("b", { size: 1 }));
  assert.equal(made.status, 201, JSON.stringify(made.body));
  assert.deepEqual(made.body.spec, { size: 1, colour: "green" });
  assert.deepEqual(
    (made.body.metadata as { labels?: unknown }).labels,
    { coloured: "by-policy" },
  );
  const kept = await send(
    server,
    "POST",
    WIDGETS,
    widget("c", { size: 1, colour: "red" }),
  );
  assert.deepEqual(kept.body.spec, { size: 1, colour: "red" });
});

Deno.test("manifests: a policy the API server would refuse is refused when written", () => {
  const base = {
    name: "p.example.com",
    resources: [WIDGET],
    validations: [{ expression: "true" }],
  };
  assert.throws(
    () => validatingPolicy({ ...base, actions: ["Deny", "Warn"] }),
    /must not hold both Deny and Warn/,
  );
  assert.throws(
    () => validatingPolicy({ ...base, name: "Not_A_Name" }),
    /must be a DNS subdomain/,
  );
  assert.throws(
    () => validatingPolicy({ ...base, validations: [] }),
    /has no validations/,
  );
  assert.throws(
    () =>
      validatingPolicy({
        ...base,
        params: { apiVersion: "v1", kind: "ConfigMap" },
      }),
    /need a name or a selector/,
  );
  assert.throws(
    () => mutatingPolicy({ ...base, mutations: [] }),
    /has no mutations/,
  );
});
