// decode, keyword by keyword: a valid value, an invalid one with its field
// path and the API server's wording, pruning and defaulting.
import assert from "node:assert/strict";
import {
  type Cause,
  defineResource,
  type ObjectSchema,
  type Schema,
  SchemaError,
} from "./mod.ts";

/** A definition whose `spec.x` has the schema `x`. */
// deno-lint-ignore explicit-function-return-type
function field(x: Schema, more: Partial<ObjectSchema> = {}) {
  return defineResource({
    group: "example.com",
    version: "v1",
    kind: "Thing",
    plural: "things",
    scope: "Namespaced",
    schema: {
      type: "object",
      properties: { spec: { type: "object", properties: { x }, ...more } },
    },
  });
}

function decoded(x: Schema, value: unknown): unknown {
  return (field(x).decode({ metadata: {}, spec: { x: value } }) as {
    spec: { x?: unknown };
  }).spec.x;
}

function causes(x: Schema, value: unknown): Cause[] {
  try {
    field(x).decode({ metadata: { name: "t" }, spec: { x: value } });
  } catch (error) {
    assert.ok(error instanceof SchemaError);
    return [...error.causes];
  }
  throw new Error("The object decoded");
}

function one(
  x: Schema,
  value: unknown,
  reason: string,
  message: string,
  at = "spec.x",
): void {
  assert.deepEqual(causes(x, value), [{ field: at, reason, message }]);
}

Deno.test("type", () => {
  assert.equal(decoded({ type: "string" }, "a"), "a");
  assert.equal(decoded({ type: "number" }, 1.5), 1.5);
  assert.equal(decoded({ type: "boolean" }, false), false);
  one(
    { type: "integer" },
    1.5,
    "FieldValueTypeInvalid",
    'Invalid value: "number": spec.x in body must be of type integer: "number"',
  );
  one(
    { type: "string" },
    1,
    "FieldValueTypeInvalid",
    'Invalid value: "integer": spec.x in body must be of type string: "integer"',
  );
  one(
    { type: "object" },
    [],
    "FieldValueTypeInvalid",
    'Invalid value: "array": spec.x in body must be of type object: "array"',
  );
  one(
    { type: "array", items: { type: "string" } },
    {},
    "FieldValueTypeInvalid",
    'Invalid value: "object": spec.x in body must be of type array: "object"',
  );
  one(
    { type: "boolean" },
    "true",
    "FieldValueTypeInvalid",
    'Invalid value: "string": spec.x in body must be of type boolean: "string"',
  );
});

Deno.test("format", () => {
  const time = { type: "string", format: "date-time" } as const;
  assert.equal(decoded(time, "2030-01-01T00:00:00Z"), "2030-01-01T00:00:00Z");
  assert.equal(
    decoded(time, "2030-01-01T00:00:00.5+02:00"),
    "2030-01-01T00:00:00.5+02:00",
  );
  one(
    time,
    "2030-02-30T00:00:00Z",
    "FieldValueTypeInvalid",
    'Invalid value: "2030-02-30T00:00:00Z": spec.x in body must be of type date-time: "2030-02-30T00:00:00Z"',
  );
  one(
    { type: "string", format: "date" },
    "yesterday",
    "FieldValueTypeInvalid",
    'Invalid value: "yesterday": spec.x in body must be of type date: "yesterday"',
  );
  assert.equal(
    decoded({ type: "string", format: "date" }, "2030-12-31"),
    "2030-12-31",
  );
  assert.equal(
    decoded({ type: "integer", format: "int32" }, 2 ** 31 - 1),
    2 ** 31 - 1,
  );
  one(
    { type: "integer", format: "int32" },
    2 ** 31,
    "FieldValueTypeInvalid",
    `Invalid value: "${2 ** 31}": spec.x in body must be of type int32: "${
      2 ** 31
    }"`,
  );
  assert.equal(decoded({ type: "integer", format: "int64" }, 2 ** 40), 2 ** 40);
  assert.equal(decoded({ type: "string", format: "unknown-format" }, "x"), "x");
});

Deno.test("properties and required", () => {
  const schema = {
    type: "object",
    required: ["a"],
    properties: { a: { type: "string" }, b: { type: "integer" } },
  } as const;
  assert.deepEqual(decoded(schema, { a: "1", b: 2, c: 3 }), { a: "1", b: 2 });
  one(schema, { b: 2 }, "FieldValueRequired", "Required value", "spec.x.a");
  one(
    schema,
    { a: "1", b: "2" },
    "FieldValueTypeInvalid",
    'Invalid value: "string": spec.x.b in body must be of type integer: "string"',
    "spec.x.b",
  );
});

Deno.test("items", () => {
  const schema = {
    type: "array",
    items: { type: "object", properties: { n: { type: "integer" } } },
  } as const;
  assert.deepEqual(decoded(schema, [{ n: 1, drop: true }, {}]), [{ n: 1 }, {}]);
  one(
    schema,
    [{ n: 1 }, { n: "2" }],
    "FieldValueTypeInvalid",
    'Invalid value: "string": spec.x[1].n in body must be of type integer: "string"',
    "spec.x[1].n",
  );
});

Deno.test("additionalProperties", () => {
  const schema = {
    type: "object",
    additionalProperties: {
      type: "object",
      properties: { n: { type: "integer" } },
    },
  } as const;
  assert.deepEqual(decoded(schema, { a: { n: 1, drop: 1 } }), { a: { n: 1 } });
  one(
    schema,
    { a: { n: true } },
    "FieldValueTypeInvalid",
    'Invalid value: "boolean": spec.x.a.n in body must be of type integer: "boolean"',
    "spec.x.a.n",
  );
  assert.deepEqual(
    decoded({ type: "object", additionalProperties: true }, { a: { any: 1 } }),
    { a: { any: 1 } },
  );
});

Deno.test("enum", () => {
  const schema = { type: "string", enum: ["True", "False"] } as const;
  assert.equal(decoded(schema, "True"), "True");
  one(
    schema,
    "Maybe",
    "FieldValueNotSupported",
    'Unsupported value: "Maybe": supported values: "True", "False"',
  );
  one(
    { type: "integer", enum: [1, 2] },
    3,
    "FieldValueNotSupported",
    'Unsupported value: 3: supported values: "1", "2"',
  );
});

Deno.test("minimum, maximum and their exclusive forms", () => {
  assert.equal(decoded({ type: "integer", minimum: 1, maximum: 3 }, 3), 3);
  one(
    { type: "integer", minimum: 1 },
    0,
    "FieldValueInvalid",
    "Invalid value: 0: spec.x in body should be greater than or equal to 1",
  );
  one(
    { type: "integer", minimum: 1, exclusiveMinimum: true },
    1,
    "FieldValueInvalid",
    "Invalid value: 1: spec.x in body should be greater than 1",
  );
  one(
    { type: "number", maximum: 2.5 },
    3,
    "FieldValueInvalid",
    "Invalid value: 3: spec.x in body should be less than or equal to 2.5",
  );
  one(
    { type: "integer", maximum: 2, exclusiveMaximum: true },
    2,
    "FieldValueInvalid",
    "Invalid value: 2: spec.x in body should be less than 2",
  );
  one(
    { type: "integer", multipleOf: 5 },
    7,
    "FieldValueInvalid",
    "Invalid value: 7: spec.x in body should be a multiple of 5",
  );
});

Deno.test("minLength and maxLength count characters", () => {
  assert.equal(decoded({ type: "string", maxLength: 2 }, "éé"), "éé");
  one(
    { type: "string", maxLength: 2 },
    "abc",
    "FieldValueTooLong",
    "Too long: may not be more than 2 bytes",
  );
  one(
    { type: "string", minLength: 2 },
    "a",
    "FieldValueInvalid",
    'Invalid value: "a": spec.x in body should be at least 2 chars long',
  );
});

Deno.test("pattern", () => {
  const schema = { type: "string", pattern: "^[a-z]+$" } as const;
  assert.equal(decoded(schema, "abc"), "abc");
  one(
    schema,
    "ABC",
    "FieldValueInvalid",
    `Invalid value: "ABC": spec.x in body should match '^[a-z]+$'`,
  );
  assert.equal(decoded({ type: "string", pattern: "b" }, "abc"), "abc");
});

Deno.test("minItems and maxItems", () => {
  const schema = {
    type: "array",
    minItems: 1,
    maxItems: 2,
    items: { type: "integer" },
  } as const;
  assert.deepEqual(decoded(schema, [1, 2]), [1, 2]);
  one(
    schema,
    [1, 2, 3],
    "FieldValueTooMany",
    "Too many: 3: must have at most 2 items",
  );
  one(
    schema,
    [],
    "FieldValueInvalid",
    "Invalid value: []: spec.x in body should have at least 1 items",
  );
});

Deno.test("minProperties and maxProperties", () => {
  const schema = {
    type: "object",
    minProperties: 1,
    maxProperties: 2,
    additionalProperties: { type: "string" },
  } as const;
  assert.deepEqual(decoded(schema, { a: "1" }), { a: "1" });
  one(
    schema,
    { a: "1", b: "2", c: "3" },
    "FieldValueTooMany",
    "Too many: 3: must have at most 2 items",
  );
  one(
    schema,
    {},
    "FieldValueInvalid",
    "Invalid value: {}: spec.x in body should have at least 1 properties",
  );
});

Deno.test("nullable", () => {
  const nullable = field({ type: "string", nullable: true });
  assert.deepEqual(nullable.decode({ metadata: {}, spec: { x: null } }).spec, {
    x: null,
  });
  // A null of a field that is not nullable is pruned, not refused.
  const plain = field({ type: "string" });
  assert.deepEqual(plain.decode({ metadata: {}, spec: { x: null } }).spec, {});
  // An item is not a field: a null item is a type error.
  one(
    { type: "array", items: { type: "string" } },
    ["a", null],
    "FieldValueTypeInvalid",
    'Invalid value: "null": spec.x[1] in body must be of type string: "null"',
    "spec.x[1]",
  );
  assert.deepEqual(
    decoded({ type: "array", items: { type: "string", nullable: true } }, [
      null,
    ]),
    [null],
  );
  // A null map value that is not nullable is pruned too.
  assert.deepEqual(
    decoded({ type: "object", additionalProperties: { type: "string" } }, {
      a: null,
      b: "1",
    }),
    { b: "1" },
  );
});

Deno.test("default: absent fields, nested only where the parent is present", () => {
  const schema = {
    type: "object",
    properties: {
      color: { type: "string", default: "blue" },
      inner: {
        type: "object",
        properties: { size: { type: "integer", default: 1 } },
      },
      made: {
        type: "object",
        default: {},
        properties: { size: { type: "integer", default: 2 } },
      },
    },
  } as const;
  // `inner` is absent: its default stays unset; `made` is defaulted, then
  // the defaults inside it apply.
  assert.deepEqual(decoded(schema, {}), { color: "blue", made: { size: 2 } });
  assert.deepEqual(decoded(schema, { inner: {} }), {
    color: "blue",
    inner: { size: 1 },
    made: { size: 2 },
  });
  // A null counts as absent for a field that is not nullable.
  assert.deepEqual(decoded(schema, { color: null, made: {} }), {
    color: "blue",
    made: { size: 2 },
  });
  // The spec itself absent: nothing below it is defaulted.
  const absent = field({ type: "string", default: "d" });
  assert.deepEqual(absent.decode({ metadata: {} }), { metadata: {} });
  // Defaults are copies.
  const a = decoded(schema, {}) as { made: { size: number } };
  a.made.size = 9;
  assert.deepEqual(decoded(schema, {}), { color: "blue", made: { size: 2 } });
  // Defaults are validated with the value.
  assert.deepEqual(
    decoded(
      { type: "array", default: ["a"], items: { type: "string" } },
      undefined,
    ),
    ["a"],
  );
});

Deno.test("x-kubernetes-preserve-unknown-fields", () => {
  const schema = {
    type: "object",
    "x-kubernetes-preserve-unknown-fields": true,
    properties: {
      known: { type: "object", properties: { n: { type: "integer" } } },
    },
  } as const;
  assert.deepEqual(
    decoded(schema, { any: { deep: [1] }, known: { n: 1, drop: 1 } }),
    {
      any: { deep: [1] },
      known: { n: 1 },
    },
  );
  one(
    schema,
    { known: { n: "1" } },
    "FieldValueTypeInvalid",
    'Invalid value: "string": spec.x.known.n in body must be of type integer: "string"',
    "spec.x.known.n",
  );
  assert.deepEqual(
    decoded({ "x-kubernetes-preserve-unknown-fields": true }, [1, { a: 2 }]),
    [1, { a: 2 }],
  );
});

Deno.test("x-kubernetes-int-or-string", () => {
  const schema = { "x-kubernetes-int-or-string": true } as const;
  assert.equal(decoded(schema, 8080), 8080);
  assert.equal(decoded(schema, "http"), "http");
  one(
    schema,
    1.5,
    "FieldValueTypeInvalid",
    'Invalid value: "number": spec.x in body must be of type integer or string: "number"',
  );
  one(
    schema,
    true,
    "FieldValueTypeInvalid",
    'Invalid value: "boolean": spec.x in body must be of type integer or string: "boolean"',
  );
});

Deno.test("x-kubernetes-embedded-resource keeps apiVersion, kind and ObjectMeta", () => {
  const schema = {
    type: "object",
    "x-kubernetes-embedded-resource": true,
    properties: {
      data: { type: "object", additionalProperties: { type: "string" } },
    },
  } as const;
  assert.deepEqual(
    decoded(schema, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "c", labels: { a: "b" }, bogus: 1 },
      data: { k: "v" },
      extra: 1,
    }),
    {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "c", labels: { a: "b" } },
      data: { k: "v" },
    },
  );
});

Deno.test("x-kubernetes-list-type set and map", () => {
  const set = {
    type: "array",
    "x-kubernetes-list-type": "set",
    items: { type: "string" },
  } as const;
  assert.deepEqual(decoded(set, ["a", "b"]), ["a", "b"]);
  one(
    set,
    ["a", "b", "a"],
    "FieldValueDuplicate",
    'Duplicate value: "a"',
    "spec.x[2]",
  );
  const map = {
    type: "array",
    "x-kubernetes-list-type": "map",
    "x-kubernetes-list-map-keys": ["type"],
    items: {
      type: "object",
      required: ["type"],
      properties: { type: { type: "string" }, status: { type: "string" } },
    },
  } as const;
  assert.deepEqual(decoded(map, [{ type: "A" }, { type: "B" }]), [
    { type: "A" },
    { type: "B" },
  ]);
  one(
    map,
    [{ type: "A" }, { type: "A", status: "x" }],
    "FieldValueDuplicate",
    'Duplicate value: {"type":"A"}',
    "spec.x[1]",
  );
  // atomic lists and map-type take any items.
  const atomic = {
    type: "array",
    "x-kubernetes-list-type": "atomic",
    items: { type: "string" },
  } as const;
  assert.deepEqual(decoded(atomic, ["a", "a"]), ["a", "a"]);
  const mapType = {
    type: "object",
    "x-kubernetes-map-type": "atomic",
    properties: { a: { type: "string" } },
  } as const;
  assert.deepEqual(decoded(mapType, { a: "1" }), { a: "1" });
});

Deno.test("the root keeps apiVersion and kind, and metadata cut to ObjectMeta", () => {
  const thing = field({ type: "string" });
  assert.deepEqual(
    thing.decode({
      apiVersion: "example.com/v1",
      kind: "Thing",
      metadata: {
        name: "t",
        namespace: "n",
        uid: "u",
        finalizers: ["f"],
        nope: 1,
      },
      spec: { x: "a" },
      other: 1,
    }),
    {
      apiVersion: "example.com/v1",
      kind: "Thing",
      metadata: { name: "t", namespace: "n", uid: "u", finalizers: ["f"] },
      spec: { x: "a" },
    },
  );
});

Deno.test("decode leaves its input alone and refuses what is not an object", () => {
  const input = { metadata: {}, spec: { x: "a", y: 1 } };
  field({ type: "string" }).decode(input);
  assert.deepEqual(input, { metadata: {}, spec: { x: "a", y: 1 } });
  assert.throws(
    () => field({ type: "string" }).decode([]),
    (error) =>
      error instanceof SchemaError &&
      error.message ===
        'Thing.example.com "" is invalid: : Invalid value: "array": must be of type object',
  );
});

Deno.test("several causes, in the order of the schema's fields", () => {
  const thing = defineResource({
    group: "example.com",
    version: "v1",
    kind: "Thing",
    plural: "things",
    scope: "Namespaced",
    schema: {
      type: "object",
      required: ["spec"],
      properties: {
        spec: {
          type: "object",
          properties: { b: { type: "integer" }, a: { type: "string" } },
        },
      },
    },
  });
  assert.throws(() => thing.decode({ metadata: { name: "t" } }), {
    name: "SchemaError",
    message: 'Thing.example.com "t" is invalid: spec: Required value',
  });
  try {
    thing.decode({ metadata: { name: "t" }, spec: { a: 1, b: "x" } });
  } catch (error) {
    assert.ok(error instanceof SchemaError);
    assert.deepEqual(error.causes.map((c) => c.field), ["spec.a", "spec.b"]);
  }
});
