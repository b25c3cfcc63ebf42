// The fake serves custom resources from CustomResourceDefinitions created
// through the API, as kube-apiserver does: schema validation, pruning,
// defaulting, the status subresource, several versions, printer columns,
// list maps under server-side apply, and removal with the definition.
import assert from "node:assert/strict";
import { FakeApiServer } from "./mod.ts";

const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const GADGETS = "/apis/example.com/v1/namespaces/default/gadgets";
const OLD_GADGETS = "/apis/example.com/v1beta1/namespaces/default/gadgets";
const MERGE = "application/merge-patch+json";
const APPLY = "application/apply-patch+yaml";

// deno-lint-ignore no-explicit-any
type Json = any;

async function send(
  server: FakeApiServer,
  method: string,
  path: string,
  options: { body?: unknown; type?: string; accept?: string } = {},
): Promise<{ status: number; body: Json; warning: string | null }> {
  const headers: Record<string, string> = {
    "content-type": options.type ?? "application/json",
    "user-agent": "crd-test/1.0",
  };
  if (options.accept) headers.accept = options.accept;
  const res = await server.fetch(`${server.url}${path}`, {
    method,
    headers,
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

const SCHEMA = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      required: ["size"],
      properties: {
        size: { type: "integer", minimum: 1 },
        color: { type: "string", default: "blue" },
        options: {
          type: "object",
          properties: { retries: { type: "integer", default: 3 } },
        },
        ports: {
          type: "array",
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["name"],
          items: {
            type: "object",
            required: ["name"],
            properties: {
              name: { type: "string" },
              port: { type: "integer" },
            },
          },
        },
      },
    },
    status: { type: "object", properties: { ready: { type: "boolean" } } },
  },
};

function definition(): unknown {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "gadgets.example.com" },
    spec: {
      group: "example.com",
      names: { plural: "gadgets", kind: "Gadget" },
      scope: "Namespaced",
      versions: [
        {
          name: "v1beta1",
          served: true,
          storage: false,
          subresources: { status: {} },
          schema: { openAPIV3Schema: SCHEMA },
        },
        {
          name: "v1",
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [
            { name: "Size", type: "integer", jsonPath: ".spec.size" },
            { name: "Ready", type: "boolean", jsonPath: ".status.ready" },
          ],
          schema: { openAPIV3Schema: SCHEMA },
        },
      ],
    },
  };
}

async function served(): Promise<FakeApiServer> {
  const server = new FakeApiServer();
  const made = await send(server, "POST", CRDS, { body: definition() });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  return server;
}

function gadget(spec: unknown, extra: object = {}): unknown {
  return {
    apiVersion: "example.com/v1",
    kind: "Gadget",
    metadata: { name: "g" },
    spec,
    ...extra,
  };
}

Deno.test("crd: a created definition gets defaults, then Established and NamesAccepted", async () => {
  await using server = new FakeApiServer();
  const made = await send(server, "POST", CRDS, { body: definition() });
  assert.equal(made.status, 201);
  assert.deepEqual(made.body.spec.names, {
    plural: "gadgets",
    kind: "Gadget",
    singular: "gadget",
    listKind: "GadgetList",
  });
  assert.deepEqual(made.body.spec.conversion, { strategy: "None" });
  assert.deepEqual(made.body.status, {
    conditions: null,
    acceptedNames: { plural: "", kind: "" },
    storedVersions: ["v1"],
  });
  const got = (await send(server, "GET", `${CRDS}/gadgets.example.com`)).body;
  assert.deepEqual(
    got.status.conditions.map((c: Json) => [c.type, c.status, c.reason]),
    [
      ["NamesAccepted", "True", "NoConflicts"],
      ["Established", "True", "InitialNamesAccepted"],
    ],
  );
  assert.equal(got.status.acceptedNames.listKind, "GadgetList");
  assert.deepEqual(
    got.metadata.managedFields.map((f: Json) => [f.manager, f.subresource]),
    [["crd-test", undefined], ["kube-apiserver", "status"]],
  );
});

Deno.test("crd: a definition the API server refuses is refused with its causes", async () => {
  await using server = new FakeApiServer();
  const wrong = definition() as Json;
  wrong.metadata.name = "gears.example.com";
  const named = await send(server, "POST", CRDS, { body: wrong });
  assert.equal(named.status, 422);
  assert.deepEqual(named.body.details.causes, [{
    reason: "FieldValueInvalid",
    message:
      'Invalid value: "gears.example.com": must be spec.names.plural+"."+spec.group',
    field: "metadata.name",
  }]);
  const loose = definition() as Json;
  const schema = structuredClone(SCHEMA) as Json;
  schema.properties.spec.properties.loose = { description: "no type" };
  for (const v of loose.spec.versions) v.schema = { openAPIV3Schema: schema };
  const refused = await send(server, "POST", CRDS, { body: loose });
  assert.equal(refused.status, 422);
  assert.deepEqual(refused.body.details.causes, [{
    reason: "FieldValueRequired",
    message: "Required value: must not be empty for specified object fields",
    field:
      "spec.validation.openAPIV3Schema.properties[spec].properties[loose].type",
  }]);
  // Served nothing.
  const none = await send(server, "GET", GADGETS);
  assert.equal(none.status, 404);
  assert.equal(none.body, "404 page not found\n");
});

Deno.test("crd: objects are pruned, defaulted and validated against the schema", async () => {
  await using server = await served();
  const made = await send(server, "POST", GADGETS, {
    body: gadget({ size: 2, extra: 1, options: {} }),
  });
  assert.equal(made.status, 201);
  assert.deepEqual(made.body.spec, {
    size: 2,
    color: "blue",
    options: { retries: 3 },
  });
  assert.equal(made.warning, '299 - "unknown field \\"spec.extra\\""');
  const noParent = await send(server, "POST", GADGETS, {
    body: { ...gadget({ size: 1 }) as object, metadata: { name: "h" } },
  });
  assert.equal(noParent.body.spec.options, undefined);
  const bad = await send(server, "POST", GADGETS, {
    body: { ...gadget({ size: 0 }) as object, metadata: { name: "bad" } },
  });
  assert.equal(bad.status, 422);
  assert.equal(
    bad.body.message,
    'Gadget.example.com "bad" is invalid: spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1',
  );
  const missing = await send(server, "POST", GADGETS, {
    body: { ...gadget({}) as object, metadata: { name: "bad" } },
  });
  assert.deepEqual(missing.body.details.causes, [{
    reason: "FieldValueRequired",
    message: "Required value",
    field: "spec.size",
  }]);
  const strict = await send(
    server,
    "POST",
    `${GADGETS}?fieldValidation=Strict`,
    {
      body: {
        ...gadget({ size: 1, nope: 1 }) as object,
        metadata: { name: "s" },
      },
    },
  );
  assert.equal(strict.status, 400);
  assert.equal(
    strict.body.message,
    'Gadget in version "v1" cannot be handled as a Gadget: strict decoding error: unknown field "spec.nope"',
  );
  const ignored = await send(
    server,
    "POST",
    `${GADGETS}?fieldValidation=Ignore`,
    {
      body: {
        ...gadget({ size: 1, nope: 1 }) as object,
        metadata: { name: "i" },
      },
    },
  );
  assert.equal(ignored.status, 201);
  assert.equal(ignored.warning, null);
  const patched = await send(server, "PATCH", `${GADGETS}/g`, {
    body: { spec: { size: -1 } },
    type: MERGE,
  });
  assert.equal(patched.status, 422);
  const strategic = await send(server, "PATCH", `${GADGETS}/g`, {
    body: { spec: { size: 3 } },
    type: "application/strategic-merge-patch+json",
  });
  assert.equal(strategic.status, 415);
  assert.equal(strategic.body.reason, "UnsupportedMediaType");
});

Deno.test("crd: the status subresource splits what each path writes", async () => {
  await using server = await served();
  const made = await send(server, "POST", GADGETS, {
    body: gadget({ size: 1 }, { status: { ready: true } }),
  });
  assert.equal(made.body.status, undefined);
  const main = await send(server, "PATCH", `${GADGETS}/g`, {
    body: { status: { ready: true } },
    type: MERGE,
  });
  assert.equal(main.body.status, undefined);
  assert.equal(
    main.body.metadata.resourceVersion,
    made.body.metadata.resourceVersion,
  );
  const status = await send(server, "PATCH", `${GADGETS}/g/status`, {
    body: { spec: { size: 9 }, status: { ready: true } },
    type: MERGE,
  });
  assert.deepEqual(status.body.status, { ready: true });
  assert.equal(status.body.spec.size, 1);
  assert.equal(status.body.metadata.generation, 1);
  const spec = await send(server, "PATCH", `${GADGETS}/g`, {
    body: { spec: { size: 5 } },
    type: MERGE,
  });
  assert.equal(spec.body.metadata.generation, 2);
  const invalidStatus = await send(server, "PATCH", `${GADGETS}/g/status`, {
    body: { status: { ready: "yes" } },
    type: MERGE,
  });
  assert.equal(invalidStatus.status, 422);
});

Deno.test("crd: several versions share the objects, each read in its own apiVersion", async () => {
  await using server = await served();
  const made = await send(server, "POST", OLD_GADGETS, {
    body: {
      ...gadget({ size: 1 }) as object,
      apiVersion: "example.com/v1beta1",
    },
  });
  assert.equal(made.body.apiVersion, "example.com/v1beta1");
  const stored = server.object(`${GADGETS}/g`)!;
  assert.equal(stored.apiVersion, "example.com/v1");
  const read = await send(server, "GET", `${GADGETS}/g`);
  assert.equal(read.body.apiVersion, "example.com/v1");
  const list = await send(server, "GET", OLD_GADGETS);
  assert.equal(list.body.apiVersion, "example.com/v1beta1");
  assert.equal(list.body.items[0].apiVersion, "example.com/v1beta1");
  assert.equal(list.body.metadata.continue, "");
  const group = await send(server, "GET", "/apis/example.com");
  assert.deepEqual(group.body.preferredVersion, {
    groupVersion: "example.com/v1",
    version: "v1",
  });
  assert.deepEqual(
    group.body.versions.map((v: Json) => v.version),
    ["v1", "v1beta1"],
  );
  // Conversion None: the same object, unchanged by a read in another version.
  const same = await send(server, "PATCH", `${OLD_GADGETS}/g`, {
    body: { metadata: { labels: { a: "b" } } },
    type: MERGE,
  });
  assert.equal(same.body.apiVersion, "example.com/v1beta1");
  assert.equal(server.object(`${GADGETS}/g`)!.apiVersion, "example.com/v1");
});

Deno.test("crd: a Table has the version's printer columns", async () => {
  await using server = await served();
  await send(server, "POST", GADGETS, { body: gadget({ size: 4 }) });
  const table = await send(server, "GET", GADGETS, {
    accept: "application/json;as=Table;v=v1;g=meta.k8s.io",
  });
  assert.equal(table.body.kind, "Table");
  assert.deepEqual(
    table.body.columnDefinitions.map((c: Json) => c.name),
    ["Name", "Size", "Ready"],
  );
  assert.deepEqual(table.body.rows[0].cells, ["g", 4, null]);
  assert.equal(table.body.metadata.continue, undefined);
  // v1beta1 declares no columns: NAME and AGE.
  const old = await send(server, "GET", OLD_GADGETS, {
    accept: "application/json;as=Table;v=v1;g=meta.k8s.io",
  });
  assert.deepEqual(
    old.body.columnDefinitions.map((c: Json) => c.name),
    ["Name", "Age"],
  );
});

Deno.test("crd: server-side apply merges a list map by its keys", async () => {
  await using server = await served();
  const apply = (manager: string, port: unknown): Promise<Json> =>
    send(server, "PATCH", `${GADGETS}/g?fieldManager=${manager}`, {
      body: gadget({ size: 1, ports: [port] }),
      type: APPLY,
    });
  await apply("a", { name: "http", port: 80 });
  const merged = (await apply("b", { name: "https", port: 443 })).body;
  assert.deepEqual(merged.spec.ports, [
    { name: "http", port: 80 },
    { name: "https", port: 443 },
  ]);
  const a = merged.metadata.managedFields.find((f: Json) => f.manager === "a");
  assert.deepEqual(a.fieldsV1, {
    "f:spec": {
      "f:ports": {
        'k:{"name":"http"}': { ".": {}, "f:name": {}, "f:port": {} },
      },
      "f:size": {},
    },
  });
});

Deno.test("crd: deleting the definition removes the resource and its objects", async () => {
  await using server = await served();
  await send(server, "POST", GADGETS, { body: gadget({ size: 1 }) });
  const gone = await send(server, "DELETE", `${CRDS}/gadgets.example.com`);
  assert.equal(gone.status, 200);
  assert.equal(
    server.resources.some((r) => r.group === "example.com"),
    false,
  );
  const read = await send(server, "GET", GADGETS);
  assert.equal(read.status, 404);
  // Made again, it serves no object of before.
  await send(server, "POST", CRDS, { body: definition() });
  const list = await send(server, "GET", GADGETS);
  assert.deepEqual(list.body.items, []);
});

Deno.test("crd: a schema's `metadata: {type: object}` (controller-gen's) keeps the object's metadata", async () => {
  await using server = new FakeApiServer();
  const crd = definition() as Json;
  for (const version of crd.spec.versions) {
    version.schema.openAPIV3Schema = {
      ...SCHEMA,
      properties: { ...SCHEMA.properties, metadata: { type: "object" } },
    };
  }
  const made = await send(server, "POST", CRDS, { body: crd });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const created = await send(
    server,
    "POST",
    `${GADGETS}?fieldValidation=Strict`,
    {
      body: gadget({ size: 1 }, {
        metadata: { name: "g", labels: { team: "a" }, annotations: { a: "b" } },
      }),
    },
  );
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.equal(created.body.metadata.name, "g");
  assert.deepEqual(created.body.metadata.labels, { team: "a" });
  assert.deepEqual(created.body.metadata.annotations, { a: "b" });
});
