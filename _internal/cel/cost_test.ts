import assert from "node:assert/strict";
import { compile, schemaSizes, schemaType } from "./mod.ts";
import type { Schema } from "../schema/types.ts";

const cost = (
  expression: string,
  schema: Schema,
  self: unknown,
): number => {
  const program = compile(expression, {
    variables: { self: schemaType(schema) },
  });
  program.run({ self });
  return program.lastCost;
};

const NAME: Schema = {
  type: "object",
  properties: { name: { type: "string" } },
};

Deno.test("run: macros cost as cel-go's expansions of them", () => {
  const none: Schema = { type: "object" };
  // A list of constants is a constant (0); `exists` stops at 2: three
  // conditions (3 each), two steps (`__result__ ||` 1, `x` 1, `==` 1), the
  // result (1).
  assert.equal(cost("[1, 2, 3].exists(x, x == 2)", none, {}), 16);
  // The accumulator `[]` is a constant too; per item `__result__ + [x *
  // 2]` (12 and `x *`), the result.
  assert.equal(cost("[1, 2, 3].map(x, x * 2)", none, {}), 43);
  // Kept items push (13), dropped ones only read `__result__` (1).
  assert.equal(cost("[1, 2, 3].filter(x, x > 1)", none, {}), 34);
  // `p ? __result__ + 1 : __result__` (2 or 1 and `p`), and `__result__
  // == 1` at the end (2).
  assert.equal(cost("[1, 2, 3].exists_one(x, x == 2)", none, {}), 12);
  // Two-variable: per pair the condition, the step and the body.
  assert.equal(cost("[1, 2].all(i, v, v > i)", none, {}), 2 * 6 + 1);
  // A list that is not constant costs 10 to make.
  assert.equal(cost("[self, self].size() == 2", none, {}), 1 + 1 + 10 + 1 + 1);
});

Deno.test("run: strings cost by their length where cel-go weighs it", () => {
  const name = "n".repeat(25);
  // `self`, `.name`, and the comparison: a tenth of the shorter string.
  assert.equal(cost("self.name == 'abc'", NAME, { name }), 3);
  assert.equal(cost("self.name == self.name", NAME, { name }), 7);
  assert.equal(cost("self.name.startsWith('n')", NAME, { name }), 5);
  assert.equal(cost("self.name.lowerAscii() != ''", NAME, { name }), 5);
  // `in` a list costs its length, but a constant one is a set: nothing.
  assert.equal(cost("self.name in [self.name, 'b', 'c']", NAME, { name }), 17);
  assert.equal(cost("self.name in ['a', 'b', 'c']", NAME, { name }), 2);
});

Deno.test("run: the recorded nested rule costs what cel-go counts", () => {
  // A rule recorded on kube-apiserver: 22 of them fit in the per-object
  // budget of 10,000,000 and the 23rd does not, so 437,803 each.
  const batch: Schema = {
    type: "object",
    properties: {
      letters: {
        type: "array",
        maxItems: 44,
        items: { type: "string", maxLength: 1 },
      },
    },
  };
  const rule =
    "self.letters.all(a, self.letters.all(b, self.letters.all(c, a != 'x')))";
  const letters = Array(44).fill("a");
  assert.equal(cost(rule, batch, { letters }), 437_803);
  // The estimate of the worst case is the same: the schema bounds the list
  // and its strings (a `maxLength` of 1 is 4 bytes).
  const program = compile(rule, { variables: { self: schemaType(batch) } });
  assert.deepEqual(
    program.estimateCost({ self: schemaSizes(batch, false) }),
    { min: 3, max: 437_803 },
  );
});

Deno.test("estimateCost: sizes come from the schema, else the request limit", () => {
  const words = (items: Schema): Schema => ({
    type: "object",
    properties: { words: { type: "array", items } },
  });
  const estimate = (expression: string, schema: Schema): number =>
    compile(expression, { variables: { self: schemaType(schema) } })
      .estimateCost({ self: schemaSizes(schema, false) }).max;
  // Unbounded: (3 MiB - 2) / 3 strings of up to 3 MiB - 2 bytes.
  const unbounded = estimate(
    "self.words.all(x, x == 'a')",
    words({
      type: "string",
    }),
  );
  assert.equal(unbounded, 3 + 1_048_575 * (2 + 1 + 1 + 1));
  // An enum bounds a string as its longest value does.
  const enumerated = estimate(
    "self.words.all(x, x.startsWith('a'))",
    words({ type: "string", enum: ["ab", "abcdefghijklmnopqrstu"] }),
  );
  // `x.startsWith('a')` costs 1 + 1 (the argument's length, a tenth).
  assert.equal(enumerated, 3 + 1_048_575 * (2 + 1 + 1 + 1));
  const long = estimate(
    "self.words.all(x, x.lowerAscii() == 'a')",
    words({ type: "string", maxLength: 100 }),
  );
  // `x` (1), `lowerAscii` traversing up to 400 bytes (40), `==` a tenth
  // of the shorter side.
  assert.equal(long, 3 + 1_048_575 * (2 + 1 + 1 + 40 + 1));
});

Deno.test("estimateCost: a map's value by name has no size, a list made by map has its items'", () => {
  const schema: Schema = {
    type: "object",
    properties: {
      labels: { type: "object", additionalProperties: { type: "string" } },
      items: {
        type: "array",
        maxItems: 10,
        items: {
          type: "object",
          properties: { name: { type: "string", maxLength: 10 } },
        },
      },
    },
  };
  const estimate = (expression: string): number =>
    compile(expression, { variables: { self: schemaType(schema) } })
      .estimateCost({ self: schemaSizes(schema, false) }).max;
  // `self.labels.a` is unbounded to the API server (its size estimator
  // finds no field `a`): comparing two such strings is over any limit.
  assert.ok(estimate("self.labels.a == self.labels.b") > 1e17);
  // By index, a value has the schema's size (3 MiB - 2 bytes, a tenth).
  assert.equal(
    estimate("self.labels['a'] == self.labels['b']"),
    2 * (1 + 1 + 1) + 314_573,
  );
  // The names a `map` makes keep their `maxLength` (40 bytes): each
  // `matches` costs 5 × 1 besides `n`.
  assert.equal(
    estimate("self.items.map(x, x.name).all(n, n.matches('^a+$'))"),
    2 + 11 + 10 * (12 + 1 + 1) + 1 + 10 * (2 + 1 + 1 + 5),
  );
});

Deno.test("run: has() costs its selections, as cel-go's presence test", () => {
  const nested: Schema = {
    type: "object",
    properties: {
      a: { type: "object", properties: { b: { type: "integer" } } },
    },
  };
  assert.equal(cost("has(self.a)", nested, { a: {} }), 1);
  assert.equal(cost("has(self.a.b)", nested, { a: { b: 1 } }), 2);
});
