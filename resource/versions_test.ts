// The CRD's other parts: several versions, the scale subresource,
// categories, selectable fields, deprecated versions and CEL rules, as
// defineResource writes them, and decode per version.
import assert from "node:assert/strict";
import { defineResource, StructuralSchemaError } from "./mod.ts";

const spec = (extra: Record<string, unknown>) =>
  ({
    type: "object",
    properties: {
      spec: {
        type: "object",
        properties: { replicas: { type: "integer" }, ...extra },
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
  categories: ["all", "gadgets"],
  status: true,
  scale: {
    specReplicasPath: ".spec.replicas",
    statusReplicasPath: ".status.replicas",
    labelSelectorPath: ".status.selector",
  },
  versions: [
    {
      name: "v1",
      storage: true,
      selectableFields: [".spec.color"],
      printerColumns: [{
        name: "Color",
        type: "string",
        jsonPath: ".spec.color",
      }],
      schema: spec({ color: { type: "string", default: "blue" } }),
    },
    {
      name: "v1beta1",
      deprecated: true,
      schema: spec({ colour: { type: "string", default: "red" } }),
    },
    {
      name: "v1alpha1",
      served: false,
      deprecated: true,
      deprecationWarning: "v1alpha1 gizmos are gone",
      status: false,
      scale: undefined,
      schema: spec({}),
    },
  ],
});

Deno.test("crd() lists every version with its own parts", () => {
  const crd = GIZMOS.crd();
  assert.deepEqual(crd.spec.names.categories, ["all", "gadgets"]);
  assert.deepEqual(crd.spec.conversion, { strategy: "None" });
  const [v1, v1beta1, v1alpha1] = crd.spec.versions;
  const scale = {
    specReplicasPath: ".spec.replicas",
    statusReplicasPath: ".status.replicas",
    labelSelectorPath: ".status.selector",
  };
  assert.deepEqual(v1, {
    name: "v1",
    served: true,
    storage: true,
    subresources: { status: {}, scale },
    additionalPrinterColumns: [{
      name: "Color",
      type: "string",
      jsonPath: ".spec.color",
    }],
    selectableFields: [{ jsonPath: ".spec.color" }],
    schema: {
      openAPIV3Schema: spec({ color: { type: "string", default: "blue" } }),
    },
  });
  assert.deepEqual(v1beta1, {
    name: "v1beta1",
    served: true,
    storage: false,
    deprecated: true,
    subresources: { status: {}, scale },
    schema: {
      openAPIV3Schema: spec({ colour: { type: "string", default: "red" } }),
    },
  });
  // Its own status: false; scale: undefined takes the definition's.
  assert.deepEqual(v1alpha1!.subresources, { scale });
  assert.equal(v1alpha1!.served, false);
  assert.equal(v1alpha1!.deprecationWarning, "v1alpha1 gizmos are gone");
});

Deno.test("the definition is the storage version's Resource; forVersion another's", () => {
  assert.equal(GIZMOS.version, "v1");
  assert.equal(GIZMOS.apiVersion, "example.com/v1");
  const old = GIZMOS.forVersion("v1beta1");
  assert.equal(old.version, "v1beta1");
  assert.equal(old.apiVersion, "example.com/v1beta1");
  assert.equal(old.resource, "gizmos");
  assert.deepEqual(old.crd(), GIZMOS.crd());
  assert.equal(old.forVersion("v1").apiVersion, "example.com/v1");
  assert.throws(
    () => (GIZMOS.forVersion as (name: string) => unknown)("v2"),
    TypeError,
  );
});

Deno.test("decode is per version: each version's schema prunes and defaults", () => {
  const object = {
    metadata: { name: "g" },
    spec: { replicas: 1, color: "x", colour: "y" },
  };
  assert.deepEqual(GIZMOS.decode(object).spec, { replicas: 1, color: "x" });
  assert.deepEqual(
    GIZMOS.forVersion("v1beta1").decode(object).spec,
    { replicas: 1, colour: "y" },
  );
  assert.deepEqual(
    GIZMOS.forVersion("v1beta1").decode({ metadata: {}, spec: {} }).spec,
    { colour: "red" },
  );
  assert.deepEqual(GIZMOS.decode({ metadata: {}, spec: {} }).spec, {
    color: "blue",
  });
});

Deno.test("version chooses the Resource of a definition of several", () => {
  const OLD = defineResource({
    group: "example.com",
    kind: "Gizmo",
    plural: "gizmos",
    scope: "Namespaced",
    version: "v1beta1",
    versions: [
      { name: "v1", storage: true, schema: { type: "object" } },
      { name: "v1beta1", schema: { type: "object" } },
    ],
  });
  assert.equal(OLD.apiVersion, "example.com/v1beta1");
  assert.equal(OLD.crd().spec.versions.find((v) => v.storage)?.name, "v1");
});

Deno.test("the single-version form writes scale, selectable fields and no conversion", () => {
  const ONE = defineResource({
    group: "example.com",
    version: "v1",
    kind: "Gizmo",
    plural: "gizmos",
    scope: "Cluster",
    scale: {
      specReplicasPath: ".spec.replicas",
      statusReplicasPath: ".status.replicas",
    },
    selectableFields: [".spec.color", ".spec.replicas"],
    schema: spec({ color: { type: "string" } }),
  });
  const crd = ONE.crd();
  assert.equal(crd.spec.conversion, undefined);
  assert.deepEqual(crd.spec.versions[0]!.subresources, {
    scale: {
      specReplicasPath: ".spec.replicas",
      statusReplicasPath: ".status.replicas",
    },
  });
  assert.deepEqual(crd.spec.versions[0]!.selectableFields, [
    { jsonPath: ".spec.color" },
    { jsonPath: ".spec.replicas" },
  ]);
  assert.equal(crd.spec.versions[0]!.deprecated, undefined);
});

Deno.test("versions the API server would refuse are refused", () => {
  const make = (versions: unknown, extra: Record<string, unknown> = {}) => () =>
    defineResource({
      group: "example.com",
      kind: "Gizmo",
      plural: "gizmos",
      scope: "Namespaced",
      versions: versions as [{ name: "v1"; schema: { type: "object" } }],
      ...extra,
    });
  const object = { type: "object" };
  assert.throws(
    make([{ name: "v1", schema: object }, { name: "v2", schema: object }]),
    { message: "Exactly one version must be the storage version, not 0" },
  );
  assert.throws(
    make([{ name: "v1", storage: true, schema: object }, {
      name: "v1",
      schema: object,
    }]),
    { message: "The version v1 is named twice" },
  );
  assert.throws(
    make([{
      name: "v1",
      storage: true,
      deprecationWarning: "no",
      schema: object,
    }]),
    {
      message: "The version v1 has a deprecationWarning but is not deprecated",
    },
  );
  assert.throws(
    make([{ name: "v1", storage: true, schema: object }], {
      scale: {
        specReplicasPath: ".replicas",
        statusReplicasPath: ".status.replicas",
      },
    }),
    {
      message: 'The specReplicasPath ".replicas" is not a JSONPath under .spec',
    },
  );
  assert.throws(
    make([{
      name: "v1",
      storage: true,
      schema: object,
      selectableFields: ["spec.x"],
    }]),
    {
      message:
        'The selectable field "spec.x" is not a simple JSONPath such as .spec.color',
    },
  );
  assert.throws(
    make([{ name: "V1", storage: true, schema: object }]),
    { message: 'The name "V1" is not a lower-case DNS label' },
  );
  assert.throws(
    make([{ name: "v1", storage: true, schema: object }], { version: "v2" }),
    { message: 'The version "v2" is not one of the versions' },
  );
  // Each version's schema is checked at its own path.
  try {
    make([
      { name: "v1", storage: true, schema: object },
      { name: "v2", schema: { type: "object", properties: { spec: {} } } },
    ])();
    assert.fail("taken");
  } catch (error) {
    assert.ok(error instanceof StructuralSchemaError);
    assert.deepEqual(error.causes.map((c) => c.field), [
      "spec.versions[1].schema.openAPIV3Schema.properties[spec].type",
    ]);
  }
});

Deno.test("CEL rules reach the CRD and are not evaluated by decode by default", () => {
  const RULED = defineResource({
    group: "example.com",
    version: "v1",
    kind: "Gizmo",
    plural: "gizmos",
    scope: "Namespaced",
    schema: {
      type: "object",
      properties: {
        spec: {
          type: "object",
          "x-kubernetes-validations": [{
            rule: "self.replicas <= 10",
            message: "at most 10 replicas",
          }],
          properties: { replicas: { type: "integer" } },
        },
      },
    },
  });
  const schema = RULED.crd().spec.versions[0]!.schema.openAPIV3Schema;
  assert.deepEqual(schema.properties?.spec?.["x-kubernetes-validations"], [{
    rule: "self.replicas <= 10",
    message: "at most 10 replicas",
  }]);
  // The API server refuses this object (see the differential suite's
  // custom-resource-parts); decode evaluates rules only when given them
  // (resource/rules_test.ts).
  assert.deepEqual(
    RULED.decode({ metadata: { name: "g" }, spec: { replicas: 20 } }).spec,
    { replicas: 20 },
  );
});
