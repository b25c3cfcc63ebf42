// defineResource refuses what the API server refuses as not structural,
// with its reasons and its paths in the CRD.
import assert from "node:assert/strict";
import {
  type Cause,
  defineResource,
  type ObjectSchema,
  StructuralSchemaError,
} from "./mod.ts";

const ROOT = "spec.versions[0].schema.openAPIV3Schema";

function refusal(schema: unknown): Cause[] {
  try {
    defineResource({
      group: "example.com",
      version: "v1",
      kind: "Thing",
      plural: "things",
      scope: "Namespaced",
      schema: schema as ObjectSchema,
    });
  } catch (error) {
    assert.ok(error instanceof StructuralSchemaError);
    assert.equal(error.definition, "things.example.com");
    return [...error.causes];
  }
  throw new Error("The schema was taken");
}

/** `spec.x` with the schema `x`. */
function spec(x: unknown): unknown {
  return {
    type: "object",
    properties: { spec: { type: "object", properties: { x } } },
  };
}

const X = `${ROOT}.properties[spec].properties[x]`;

function forbidden(x: unknown, keyword: string, detail: string): void {
  assert.deepEqual(refusal(spec(x)), [{
    field: `${X}.${keyword}`,
    reason: "FieldValueForbidden",
    message: `Forbidden: ${detail}`,
  }]);
}

Deno.test("a node without type", () => {
  assert.deepEqual(refusal(spec({})), [{
    field: `${X}.type`,
    reason: "FieldValueRequired",
    message: "Required value: must not be empty for specified object fields",
  }]);
  assert.deepEqual(refusal(spec({ type: "array", items: {} })), [{
    field: `${X}.items.type`,
    reason: "FieldValueRequired",
    message: "Required value: must not be empty for specified array items",
  }]);
  assert.deepEqual(refusal({ properties: {} }), [{
    field: `${ROOT}.type`,
    reason: "FieldValueRequired",
    message: "Required value: must not be empty at the root",
  }]);
  // The two exceptions.
  defineResource({
    group: "example.com",
    version: "v1",
    kind: "Thing",
    plural: "things",
    scope: "Namespaced",
    schema: spec({ "x-kubernetes-int-or-string": true }) as ObjectSchema,
  });
  defineResource({
    group: "example.com",
    version: "v1",
    kind: "Thing",
    plural: "things",
    scope: "Namespaced",
    schema: spec({
      "x-kubernetes-preserve-unknown-fields": true,
    }) as ObjectSchema,
  });
});

Deno.test("properties with additionalProperties", () => {
  forbidden(
    {
      type: "object",
      properties: { a: { type: "string" } },
      additionalProperties: { type: "string" },
    },
    "additionalProperties",
    "additionalProperties and properties are mutual exclusive",
  );
  forbidden(
    { type: "object", additionalProperties: false },
    "additionalProperties",
    "additionalProperties cannot be set to false",
  );
});

Deno.test("keywords a structural schema does not take", () => {
  forbidden(
    { type: "object", $ref: "#/definitions/a" },
    "$ref",
    "$ref is not supported",
  );
  forbidden(
    { type: "object", definitions: { a: { type: "string" } } },
    "definitions",
    "definitions is not supported",
  );
  forbidden(
    { type: "object", dependencies: { a: ["b"] } },
    "dependencies",
    "dependencies is not supported",
  );
  forbidden(
    { type: "array", items: { type: "string" }, additionalItems: false },
    "additionalItems",
    "additionalItems is not supported",
  );
  forbidden(
    { type: "object", patternProperties: { "^a": { type: "string" } } },
    "patternProperties",
    "patternProperties is not supported",
  );
  forbidden({ type: "string", id: "x" }, "id", "id is not supported");
  forbidden(
    { type: "string", $schema: "http://json-schema.org/draft-04/schema#" },
    "$schema",
    "$schema is not supported",
  );
  forbidden(
    { type: "array", items: { type: "string" }, uniqueItems: true },
    "uniqueItems",
    "uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
  );
  forbidden(
    { type: "array", items: [{ type: "string" }] },
    "items",
    "items must be a schema object and not an array",
  );
  forbidden(
    { type: "string", nope: 1 },
    "nope",
    "is not a keyword of JSONSchemaProps",
  );
  // uniqueItems: false is harmless.
  assert.throws(
    () =>
      refusal(
        spec({ type: "array", items: { type: "string" }, uniqueItems: false }),
      ),
    /taken/,
  );
});

Deno.test("logical junctors are not evaluated yet, so refused", () => {
  for (const keyword of ["allOf", "anyOf", "oneOf", "not"]) {
    forbidden(
      { type: "string", [keyword]: [] },
      keyword,
      `${keyword} is not supported by defineResource yet`,
    );
  }
});

Deno.test("type null, an unknown type, a root that is not an object", () => {
  forbidden(
    { type: "null" },
    "type",
    "type cannot be set to null, use nullable as an alternative",
  );
  assert.equal(
    refusal(spec({ type: "int" }))[0]!.reason,
    "FieldValueNotSupported",
  );
  assert.deepEqual(refusal({ type: "string" }), [{
    field: `${ROOT}.type`,
    reason: "FieldValueInvalid",
    message: 'Invalid value: "string": must be object at the root',
  }]);
});

Deno.test("an array without items, list-map rules, embedded resources", () => {
  assert.deepEqual(refusal(spec({ type: "array" })), [{
    field: `${X}.items`,
    reason: "FieldValueRequired",
    message: "Required value: must be specified",
  }]);
  assert.equal(
    refusal(
      spec({
        type: "array",
        items: { type: "object" },
        "x-kubernetes-list-type": "map",
      }),
    )[0]!.message,
    "Required value: must not be empty if x-kubernetes-list-type is map",
  );
  assert.equal(
    refusal(
      spec({ type: "string", "x-kubernetes-embedded-resource": true }),
    )[0]!.message,
    'Invalid value: "string": must be object if x-kubernetes-embedded-resource is true',
  );
  assert.equal(
    refusal(spec({ type: "string", pattern: "(" }))[0]!.message,
    'Invalid value: "(": must be a valid regular expression',
  );
});

Deno.test("metadata beyond name and generateName", () => {
  const cause = {
    field: `${ROOT}.properties[metadata]`,
    reason: "FieldValueForbidden",
    message:
      "Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified",
  };
  assert.deepEqual(
    refusal({
      type: "object",
      properties: {
        metadata: {
          type: "object",
          properties: { labels: { type: "object" } },
        },
      },
    }),
    [cause],
  );
  assert.deepEqual(
    refusal({
      type: "object",
      properties: { metadata: { type: "object", default: {} } },
    }),
    [cause],
  );
  defineResource({
    group: "example.com",
    version: "v1",
    kind: "Thing",
    plural: "things",
    scope: "Namespaced",
    schema: {
      type: "object",
      properties: {
        metadata: {
          type: "object",
          properties: { name: { type: "string", maxLength: 20 } },
        },
      },
    },
  });
});

Deno.test("a default that does not validate, or that would be pruned", () => {
  assert.deepEqual(refusal(spec({ type: "integer", minimum: 1, default: 0 })), [
    {
      field: `${X}.default`,
      reason: "FieldValueInvalid",
      message:
        `Invalid value: 0: ${X}.default in body should be greater than or equal to 1`,
    },
  ]);
  assert.deepEqual(refusal(spec({ type: "integer", default: "1" })), [{
    field: `${X}.default`,
    reason: "FieldValueTypeInvalid",
    message:
      `Invalid value: "string": ${X}.default in body must be of type integer: "string"`,
  }]);
  assert.deepEqual(
    refusal(
      spec({
        type: "object",
        required: ["a"],
        properties: { a: { type: "string" } },
        default: {},
      }),
    ),
    [{
      field: `${X}.default.a`,
      reason: "FieldValueRequired",
      message: "Required value",
    }],
  );
  assert.deepEqual(
    refusal(
      spec({
        type: "object",
        properties: { a: { type: "string" } },
        default: { b: 1 },
      }),
    ),
    [{
      field: `${X}.default`,
      reason: "FieldValueInvalid",
      message: 'Invalid value: {"b":1}: must not have unknown fields: b',
    }],
  );
  // A default that is valid once the defaults inside it are applied.
  defineResource({
    group: "example.com",
    version: "v1",
    kind: "Thing",
    plural: "things",
    scope: "Namespaced",
    schema: spec({
      type: "object",
      required: ["a"],
      properties: { a: { type: "string", default: "x" } },
      default: {},
    }) as ObjectSchema,
  });
});

Deno.test("names the API server would refuse", () => {
  const base = {
    version: "v1",
    kind: "Thing",
    plural: "things",
    scope: "Namespaced",
    schema: { type: "object" },
  } as const;
  assert.throws(() => defineResource({ ...base, group: "nodot" }), {
    name: "TypeError",
    message: 'The group "nodot" needs a dot',
  });
  assert.throws(
    () => defineResource({ ...base, group: "a.b", plural: "Things" }),
    /not a lower-case DNS label/,
  );
  assert.throws(
    () => defineResource({ ...base, group: "a.b", kind: "my-thing" }),
    /is not a name/,
  );
});

Deno.test("a list-map key that is neither required nor defaulted", () => {
  const list = (item: unknown): unknown => ({
    type: "array",
    "x-kubernetes-list-type": "map",
    "x-kubernetes-list-map-keys": ["name"],
    items: item,
  });
  const item = { type: "object", properties: { name: { type: "string" } } };
  assert.deepEqual(refusal(spec(list(item))), [{
    field: `${X}.items.properties[name].default`,
    reason: "FieldValueRequired",
    message:
      "Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
  }]);
  // Required, or defaulted (LocalObjectReference's name: ""), it is taken.
  for (
    const taken of [{ ...item, required: ["name"] }, {
      type: "object",
      properties: { name: { type: "string", default: "" } },
    }]
  ) {
    assert.throws(() => refusal(spec(list(taken))), /The schema was taken/);
  }
});

Deno.test("a list type on a node that is not an array", () => {
  assert.deepEqual(
    refusal(spec({ type: "string", "x-kubernetes-list-type": "atomic" })),
    [{
      field: `${X}.type`,
      reason: "FieldValueInvalid",
      message:
        'Invalid value: "string": must be array if x-kubernetes-list-type is specified',
    }],
  );
});
