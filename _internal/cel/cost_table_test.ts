// The estimator against the API server's own expectations: the cases of
// k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel
// compilation_test.go `TestCostEstimation` (a rule's `MaxCost`, without the
// node's cardinality), each with its sizes left unbounded ("calc") and
// bounded by maxItems, maxProperties or maxLength ("set").
import assert from "node:assert/strict";
import { compile, schemaSizes, schemaType } from "./mod.ts";
import type { Schema } from "../schema/types.ts";

type Generator = (max?: number) => Schema;

function itemOf(type: string): Schema {
  switch (type) {
    case "duration":
    case "date":
    case "date-time":
      return { type: "string", format: type };
    case "int-or-string":
      return { "x-kubernetes-int-or-string": true };
  }
  return { type: type as NonNullable<Schema["type"]> };
}

const rule = (rule: string): Pick<Schema, "x-kubernetes-validations"> => ({
  "x-kubernetes-validations": [{ rule }],
});

const array = (type: string, text: string): Generator => (max) => ({
  type: "array",
  items: itemOf(type),
  ...(max === undefined ? {} : { maxItems: max }),
  ...rule(text),
});

const map = (item: Schema, text: string): Generator => (max) => ({
  type: "object",
  additionalProperties: item,
  ...(max === undefined ? {} : { maxProperties: max }),
  ...rule(text),
});

const string = (text: string, extra: Schema = {}): Generator => (max) => ({
  type: "string",
  ...extra,
  ...(max === undefined ? {} : { maxLength: max }),
  ...rule(text),
});

const OBJECT: Schema = {
  type: "object",
  properties: { required: { type: "string" }, optional: { type: "string" } },
  required: ["required"],
};

const nested = (text: string, all: boolean): Generator => (max) => {
  const bound = max === undefined ? {} : { maxProperties: max };
  return {
    type: "array",
    ...(all && max !== undefined ? { maxItems: max } : {}),
    items: {
      type: "object",
      ...bound,
      additionalProperties: { ...OBJECT, ...(all ? bound : {}) },
    },
    ...rule(text),
  };
};

const stringOf = (max?: number): Schema => ({
  type: "string",
  ...(max === undefined ? {} : { maxLength: max }),
});

/** name, schema, unbounded cost, bound, bounded cost (-1: over 1,000,000). */
const CASES: [string, Generator, number, number, number][] = [
  [
    "number array with all",
    array("number", "self.all(x, true)"),
    4718591,
    10,
    32,
  ],
  [
    "string array with all",
    array("string", "self.all(x, true)"),
    3145727,
    20,
    62,
  ],
  [
    "boolean array with all",
    array("boolean", "self.all(x, true)"),
    1887437,
    5,
    17,
  ],
  [
    "array of number arrays with all",
    (max) => ({
      type: "array",
      items: { type: "array", items: { type: "number" } },
      ...(max === undefined ? {} : { maxItems: max }),
      ...rule("self.all(x, true)"),
    }),
    3145727,
    100,
    302,
  ],
  [
    "array of objects with all",
    (max) => ({
      type: "array",
      items: OBJECT,
      ...(max === undefined ? {} : { maxItems: max }),
      ...rule("self.all(x, true)"),
    }),
    555128,
    50,
    152,
  ],
  [
    "map of numbers with all",
    map(itemOf("number"), "self.all(x, true)"),
    1348169,
    10,
    32,
  ],
  [
    "map of strings with all",
    map(itemOf("string"), "self.all(x, true)"),
    1179647,
    3,
    11,
  ],
  [
    "map of booleans with all",
    map(itemOf("boolean"), "self.all(x, true)"),
    943718,
    100,
    302,
  ],
  ["string with contains", string("self.contains('test')"), 314574, 10, 5],
  ["string with startsWith", string("self.startsWith('test')"), 2, 15, 2],
  ["string with endsWith", string("self.endsWith('test')"), 2, 30, 2],
  [
    "concat string",
    string(`size(self + "hello") > size("hello")`),
    314578,
    4,
    7,
  ],
  [
    "index of array with numbers",
    array("number", "self[1] == 0.0"),
    2,
    5000,
    2,
  ],
  [
    "index of array with strings",
    array("string", "self[1] == self[1]"),
    314577,
    8,
    314577,
  ],
  [
    "O(n^2) loop with numbers",
    array("number", "self.all(x, self.all(y, true))"),
    -1,
    10,
    352,
  ],
  [
    "O(n^3) loop with numbers",
    array("number", "self.all(x, self.all(y, self.all(z, true)))"),
    -1,
    10,
    3552,
  ],
  ["regex matches simple", string(`self.matches("x")`), 314574, 50, 22],
  [
    "regex matches empty string",
    string(`"".matches("(((((((((())))))))))[0-9]")`),
    7,
    10,
    7,
  ],
  ["regex matches empty regex", string(`self.matches("")`), 1, 100, 1],
  [
    "map of strings with value length",
    (max) => ({
      type: "object",
      additionalProperties: stringOf(max),
      ...(max === undefined ? {} : { maxProperties: max }),
      ...rule("self.all(x, x.contains(self[x]))"),
    }),
    2752507,
    10,
    72,
  ],
  ["set array maxLength to zero", array("number", "self[3] == 0.0"), 2, 0, 2],
  [
    "set map maxLength to zero",
    map(itemOf("number"), `self["x"] == 0.0`),
    2,
    0,
    2,
  ],
  ["set string maxLength to zero", string(`self == "x"`), 2, 0, 1],
  [
    "set bytes maxLength to zero",
    string(`self == b"x"`, { format: "byte" }),
    2,
    0,
    1,
  ],
  [
    "set maxLength greater than estimated maxLength",
    array("number", "self.all(x, x == 0.0)"),
    6291454,
    3 * 1024 * 2048,
    25165826,
  ],
  [
    "nested types with root rule with all supporting maxLength",
    nested(`self.all(x, x["y"].required == "z")`, true),
    7340027,
    10,
    72,
  ],
  [
    "nested types with root rule with one supporting maxLength",
    nested(`self.all(x, x["y"].required == "z")`, false),
    7340027,
    10,
    7340027,
  ],
  [
    "int-or-string array with all",
    array("int-or-string", "self.all(x, true)"),
    4718591,
    10,
    32,
  ],
  [
    "index of array with int-or-strings",
    array("int-or-string", "self[0] == 5"),
    3,
    10,
    3,
  ],
  [
    "index of array with booleans",
    array("boolean", "self[0] == false"),
    2,
    25,
    2,
  ],
  [
    "index of array of objects",
    (max) => ({
      type: "array",
      items: OBJECT,
      ...(max === undefined ? {} : { maxItems: max }),
      ...rule("self[0] == null"),
    }),
    2,
    422,
    2,
  ],
  [
    "array of number maps with all",
    (max) => ({
      type: "array",
      items: { type: "object", additionalProperties: { type: "number" } },
      ...(max === undefined ? {} : { maxItems: max }),
      ...rule("self.all(x, x.y == 25.2)"),
    }),
    6291452,
    12,
    74,
  ],
  [
    "duration array with all",
    array("duration", "self.all(x, true)"),
    2359295,
    5,
    17,
  ],
  [
    "index of duration array",
    array("duration", "self[0].getHours() == 2"),
    4,
    525,
    4,
  ],
  ["date array with all", array("date", "self.all(x, true)"), 725936, 15, 47],
  [
    "index of date array",
    array("date", "self[2].getDayOfMonth() == 13"),
    4,
    42,
    4,
  ],
  [
    "date-time array with all",
    array("date-time", "self.all(x, true)"),
    428963,
    25,
    77,
  ],
  [
    "index of date-time array",
    array("date-time", "self[2].getMinutes() == 45"),
    4,
    99,
    4,
  ],
  [
    "map of int-or-strings with all",
    map(itemOf("int-or-string"), "self.all(x, true)"),
    1348169,
    15,
    47,
  ],
  ["map of objects with all", map(OBJECT, "self.all(x, true)"), 428963, 20, 62],
  [
    "map of number maps with all",
    map(
      { type: "object", additionalProperties: { type: "number" } },
      "self.all(x, true)",
    ),
    1179647,
    10,
    32,
  ],
  [
    "map of number arrays with all",
    map({ type: "array", items: { type: "number" } }, "self.all(x, true)"),
    1179647,
    25,
    77,
  ],
  [
    "map of durations with all",
    map(itemOf("duration"), "self.all(x, true)"),
    1048577,
    5,
    17,
  ],
  [
    "map of dates with all",
    map(itemOf("date"), "self.all(x, true)"),
    524288,
    10,
    32,
  ],
  [
    "map of date-times with all",
    map(itemOf("date-time"), "self.all(x, true)"),
    349526,
    25,
    77,
  ],
  [
    "extended library regex find",
    string("self.find('[0-9]+') == ''"),
    629147,
    10,
    11,
  ],
  [
    "extended library join",
    (max) => ({
      type: "array",
      items: stringOf(max),
      ...(max === undefined ? {} : { maxItems: max }),
      ...rule("self.join(' ') == 'aa bb'"),
    }),
    329853068905,
    10,
    43,
  ],
  [
    "extended library isSorted",
    (max) => ({
      type: "array",
      items: stringOf(max),
      ...(max === undefined ? {} : { maxItems: max }),
      ...rule("self.isSorted() == true"),
    }),
    329854432052,
    10,
    52,
  ],
  [
    "extended library replace",
    (max) => ({
      type: "object",
      properties: {
        str: stringOf(max),
        before: stringOf(2),
        after: stringOf(4),
      },
      ...rule("self.str.replace(self.before, self.after) == 'does not matter'"),
    }),
    629154,
    4,
    12,
  ],
  [
    "extended library split",
    (max) => ({
      type: "object",
      properties: { str: stringOf(max), separator: stringOf(max) },
      ...rule("self.str.split(self.separator) == []"),
    }),
    629160,
    10,
    22,
  ],
  [
    "extended library lowerAscii",
    string("self.lowerAscii() == 'lower!'"),
    314575,
    10,
    6,
  ],
  [
    "check cost of size call",
    map(itemOf("integer"), "oldSelf.size() == self.size()"),
    5,
    10,
    5,
  ],
  [
    "check cost of timestamp comparison",
    map(itemOf("date-time"), `self["a"] == self["b"]`),
    8,
    7,
    8,
  ],
  [
    "check cost of duration comparison",
    map(itemOf("duration"), `self["c"] == self["d"]`),
    8,
    42,
    8,
  ],
  [
    "enums with maxLength equals to the longest possible value",
    string("self.contains('A')", { enum: ["A", "B", "C", "LongValue"] }),
    2,
    1000,
    401,
  ],
];

function estimate(schema: Schema): number {
  const text = schema["x-kubernetes-validations"]![0]!.rule;
  const self = schemaType(schema);
  const sizes = schemaSizes(schema, false);
  return compile(text, { variables: { self, oldSelf: self } })
    .estimateCost({ self: sizes, oldSelf: sizes }).max;
}

for (const [name, generate, unbounded, bound, bounded] of CASES) {
  Deno.test(`estimateCost as the API server's TestCostEstimation: ${name}`, () => {
    const calc = estimate(generate());
    if (unbounded < 0) assert.ok(calc > 1_000_000, `unbounded: ${calc}`);
    else assert.equal(calc, unbounded, "unbounded");
    assert.equal(estimate(generate(bound)), bounded, `bounded by ${bound}`);
  });
}
