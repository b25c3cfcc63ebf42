// Keys from outside named like Object.prototype's members (`constructor`,
// `toString`, `valueOf`, `__proto__`) are fields like any other in the schema
// validator, pruner and defaulter (the fake's merges: testing/own_keys_test.ts).
import assert from "node:assert/strict";
import { decodeWith, pruneWith } from "./schema/decode.ts";
import { servedStructural } from "./schema/structural.ts";
import type { Schema } from "../resource/schema.ts";
import { own, setOwn } from "./own.ts";

const NAMES = ["constructor", "toString", "valueOf", "__proto__"];

/** An object with each name as an own key (as JSON.parse makes them). */
function keyed(value: unknown): Record<string, unknown> {
  return JSON.parse(
    JSON.stringify(Object.fromEntries(NAMES.map((n) => [n, value]))),
  );
}

// A `constructor` key in a literal defeats the literal's contextual type.
const node = (schema: Schema): Schema => schema;

const root = (spec: Schema): Schema => ({
  type: "object",
  properties: {
    apiVersion: { type: "string" },
    kind: { type: "string" },
    metadata: { type: "object" },
    spec,
  },
});

Deno.test("own and setOwn never reach the prototype", () => {
  const record: Record<string, unknown> = {};
  for (const name of NAMES) assert.equal(own(record, name), undefined);
  setOwn(record, "__proto__", 1);
  assert.equal(Object.getPrototypeOf(record), Object.prototype);
  assert.ok(Object.hasOwn(record, "__proto__"));
  assert.equal(own(record, "__proto__"), 1);
  assert.equal(JSON.stringify(record), '{"__proto__":1}');
});

Deno.test("the validator checks values under constructor, toString, valueOf and __proto__ in an additionalProperties map", () => {
  const schema = root({
    type: "object",
    additionalProperties: { type: "integer", maximum: 10 },
  });
  const { causes } = decodeWith(schema, { spec: keyed(999) });
  assert.deepEqual(
    causes.map((c) => c.field).sort(),
    NAMES.map((n) => `spec.${n}`).sort(),
  );
  assert.ok(causes.every((c) => /less than or equal to 10/.test(c.message!)));
  assert.deepEqual(decodeWith(schema, { spec: keyed(3) }).causes, []);
});

Deno.test("the validator finds a required field named constructor or toString absent, and checks it by its property schema", () => {
  const schema = root({
    type: "object",
    required: ["constructor", "toString"],
    properties: {
      constructor: node({ type: "integer", maximum: 10 }),
      toString: node({ type: "string" }),
    },
  });
  const missing = decodeWith(schema, { spec: {} }).causes;
  assert.deepEqual(missing.map((c) => [c.reason, c.field]), [
    ["FieldValueRequired", "spec.constructor"],
    ["FieldValueRequired", "spec.toString"],
  ]);
  const wrong = decodeWith(schema, {
    spec: { constructor: 11, toString: "x" },
  }).causes;
  assert.deepEqual(wrong.map((c) => c.field), ["spec.constructor"]);
});

Deno.test("the validator's list-map keys named constructor are read as own fields", () => {
  const schema = root({
    type: "object",
    properties: {
      list: {
        type: "array",
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["constructor"],
        items: {
          type: "object",
          properties: { constructor: node({ type: "string" }) },
        },
      },
    },
  });
  // Distinct keys: no duplicate (today both read the inherited function).
  const distinct = decodeWith(schema, {
    spec: { list: [{ constructor: "a" }, { constructor: "b" }] },
  });
  assert.deepEqual(distinct.causes, []);
  const same = decodeWith(schema, {
    spec: { list: [{ constructor: "a" }, { constructor: "a" }] },
  });
  assert.deepEqual(same.causes.map((c) => c.reason), ["FieldValueDuplicate"]);
});

Deno.test("the pruner drops unknown fields named constructor, toString, valueOf and __proto__", () => {
  const schema = root({
    type: "object",
    properties: { a: { type: "string" } },
  });
  const { object, unknown } = pruneWith(schema, {
    spec: { a: "x", ...keyed(1) },
  });
  assert.deepEqual(unknown.sort(), NAMES.map((n) => `spec.${n}`).sort());
  assert.equal(JSON.stringify(object), '{"spec":{"a":"x"}}');
});

Deno.test("the defaulter sets defaults of fields named constructor, toString, valueOf and __proto__ as own fields", () => {
  const schema = root({
    type: "object",
    properties: Object.fromEntries(
      NAMES.map((n) => [n, { type: "object", default: { d: n } }]),
    ) as Record<string, Schema>,
  });
  const { object, causes } = decodeWith(schema, { spec: {} });
  assert.deepEqual(causes, []);
  const spec = object.spec as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(spec), Object.prototype);
  for (const name of NAMES) {
    assert.ok(Object.hasOwn(spec, name), name);
    assert.deepEqual(spec[name], { d: name });
  }
});

Deno.test("a schema with a property or keyword named constructor is checked, not crashed on", () => {
  const causes = servedStructural(
    { type: "object", properties: { constructor: node({ type: "string" }) } },
    "spec.validation.openAPIV3Schema",
  );
  assert.deepEqual(causes, []);
  const keyword = servedStructural(
    { type: "object", constructor: { type: "string" } } as unknown as Schema,
    "spec.validation.openAPIV3Schema",
  );
  // An unknown keyword, never the "unsupported" of an inherited member.
  assert.ok(keyword.every((c) => typeof c.message === "string"));
  assert.ok(!keyword.some((c) => /function/.test(c.message!)));
});
