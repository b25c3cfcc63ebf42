// Keys from outside named like Object.prototype's members (`constructor`,
// `toString`, `valueOf`, `__proto__`) are fields like any other in the schema
// validator, pruner and defaulter and in the fake's merges.
import assert from "node:assert/strict";
import { decodeWith, pruneWith } from "./schema/decode.ts";
import { servedStructural } from "./schema/structural.ts";
import type { Schema } from "../resource/schema.ts";
import { FakeApiServer } from "../testing/fake_server.ts";
import { call } from "../testing/_test_util.ts";
import { jsonPatch, mergePatch } from "../testing/_patch.ts";
import { fieldSelector } from "../testing/_selectors.ts";
import { evaluate, parsePath } from "../testing/_jsonpath.ts";
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

Deno.test("the fake's merge patch and JSON patch treat such keys as own fields", () => {
  const merged = mergePatch(
    { l: { keep: "1" } },
    JSON.parse('{"l":{"constructor":"a","__proto__":{"x":1},"toString":"c"}}'),
  ) as { l: Record<string, unknown> };
  assert.equal(Object.getPrototypeOf(merged.l), Object.prototype);
  assert.equal(
    JSON.stringify(merged),
    '{"l":{"keep":"1","constructor":"a","__proto__":{"x":1},"toString":"c"}}',
  );
  // Removing one that is not there fails, as the API server's does.
  assert.throws(
    () => jsonPatch({ l: {} }, [{ op: "remove", path: "/l/constructor" }]),
    /nonexistent key/,
  );
  assert.throws(
    () =>
      jsonPatch({ l: {} }, [{ op: "replace", path: "/l/valueOf", value: 1 }]),
    /missing key/,
  );
  const added = jsonPatch({ l: {} }, [
    { op: "add", path: "/l/__proto__", value: "p" },
  ]) as { l: Record<string, unknown> };
  assert.ok(Object.hasOwn(added.l, "__proto__"));
  assert.equal(JSON.stringify(added), '{"l":{"__proto__":"p"}}');
});

Deno.test("the fake keeps labels and data keys named constructor, toString, valueOf and __proto__ through merge, JSON and apply patches", async () => {
  await using server = new FakeApiServer({ managedFields: true });
  const CM = "/api/v1/namespaces/default/configmaps";
  assert.equal(
    (await call(server, "POST", CM, { metadata: { name: "a" } })).status,
    201,
  );
  // `__proto__` is no valid label key, but is a valid data key.
  const names = JSON.stringify(Object.fromEntries(NAMES.map((n) => [n, n])));
  const labels = JSON.stringify(
    Object.fromEntries(NAMES.slice(0, 3).map((n) => [n, n])),
  );
  const merged = await call(
    server,
    "PATCH",
    `${CM}/a`,
    `{"metadata":{"labels":${labels}},"data":${names}}`,
    "application/merge-patch+json",
  );
  assert.equal(merged.status, 200, JSON.stringify(merged.body));
  const get = async (): Promise<string> => {
    const { metadata, data } = (await call(server, "GET", `${CM}/a`)).body;
    return JSON.stringify({ labels: metadata.labels, data });
  };
  assert.equal(await get(), `{"labels":${labels},"data":${names}}`);
  const removed = await call(
    server,
    "PATCH",
    `${CM}/a`,
    [
      { op: "remove", path: "/metadata/labels/constructor" },
      { op: "remove", path: "/data/__proto__" },
      { op: "remove", path: "/data/toString" },
    ],
    "application/json-patch+json",
  );
  assert.equal(removed.status, 200, JSON.stringify(removed.body));
  assert.equal(
    await get(),
    '{"labels":{"toString":"toString","valueOf":"valueOf"},"data":{"constructor":"constructor","valueOf":"valueOf"}}',
  );
  const applied = await call(
    server,
    "PATCH",
    `${CM}/a?fieldManager=op`,
    `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","labels":{"constructor":"c"}},"data":{"__proto__":"p","toString":"t"}}`,
    "application/apply-patch+yaml",
  );
  assert.equal(applied.status, 200, JSON.stringify(applied.body));
  assert.equal(
    await get(),
    '{"labels":{"toString":"toString","valueOf":"valueOf","constructor":"c"},"data":{"constructor":"constructor","valueOf":"valueOf","__proto__":"p","toString":"t"}}',
  );
});

Deno.test("the fake's field selectors and printer-column JSONPath read own fields only", () => {
  const object = JSON.parse(
    '{"metadata":{"name":"a","labels":{"valueOf":"v"}},"spec":{"__proto__":"p"}}',
  );
  // An absent field reads as "", as the API server reads it.
  assert.equal(fieldSelector("metadata.constructor=")!(object), true);
  assert.equal(fieldSelector("metadata.toString!=")!(object), false);
  assert.equal(fieldSelector("spec.__proto__=p")!(object), true);
  assert.deepEqual(evaluate(parsePath(".metadata.constructor")!, object), []);
  assert.deepEqual(evaluate(parsePath(".metadata.labels.valueOf")!, object), [
    "v",
  ]);
  assert.deepEqual(evaluate(parsePath(".spec.__proto__")!, object), ["p"]);
});
