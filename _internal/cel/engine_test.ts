import assert from "node:assert/strict";
import {
  CelCompileError,
  CelCostError,
  CelRuntimeError,
  compile,
  schemaType,
} from "./mod.ts";

const spec = schemaType({
  type: "object",
  properties: {
    min: { type: "integer" },
    max: { type: "integer" },
    ratio: { type: "number" },
    name: { type: "string" },
    port: { "x-kubernetes-int-or-string": true },
    tags: { type: "array", items: { type: "string" } },
    items: {
      type: "array",
      items: { type: "object", properties: { n: { type: "integer" } } },
    },
    labels: { type: "object", additionalProperties: { type: "string" } },
    extra: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
    at: { type: "string", format: "date-time" },
    every: { type: "string", format: "duration" },
  },
});

Deno.test("compile: a rule over self evaluates with JSON values", () => {
  const program = compile("self.min <= self.max", {
    variables: { self: spec },
  });
  assert.equal(program.run({ self: { min: 1, max: 2 } }), true);
  assert.equal(program.run({ self: { min: 3, max: 2 } }), false);
  assert.equal(program.resultType, "bool");
});

Deno.test("compile: nested objects, lists, maps and dyn convert by type", () => {
  const run = (expression: string, self: unknown): unknown =>
    compile(expression, { variables: { self: spec } }).run({ self });
  assert.equal(
    run("self.items.all(i, i.n > 0)", { items: [{ n: 1 }, { n: 2 }] }),
    true,
  );
  assert.equal(run("self.items[1].n", { items: [{ n: 1 }, { n: 2 }] }), 2n);
  assert.equal(run("self.labels.app == 'x'", { labels: { app: "x" } }), true);
  assert.equal(run("self.extra.a.b == 1", { extra: { a: { b: 1 } } }), true);
  assert.equal(run("self.ratio > 0.5", { ratio: 1 }), true);
  assert.equal(run("has(self.name)", {}), false);
  assert.equal(
    run("self.port == 80 || self.port == 'http'", { port: "http" }),
    true,
  );
  assert.equal(
    run("self.at < timestamp('2030-01-01T00:00:00Z')", {
      at: "2024-01-01T00:00:00Z",
    }),
    true,
  );
  assert.equal(run("self.every > duration('1m')", { every: "2m" }), true);
  assert.equal(run("self == self", { min: 1, items: [{ n: 1 }] }), true);
});

Deno.test("compile: errors are cel-go's words", () => {
  assert.throws(
    () => compile("x > 1", { variables: { self: spec } }),
    (error: unknown) => {
      assert.ok(error instanceof CelCompileError);
      assert.equal(
        error.message,
        "ERROR: <input>:1:1: undeclared reference to 'x' (in container '')\n | x > 1\n | ^",
      );
      return true;
    },
  );
  assert.throws(
    () => compile("self.nope > 1", { variables: { self: spec } }),
    {
      name: "CelCompileError",
      message:
        "ERROR: <input>:1:5: undefined field 'nope'\n | self.nope > 1\n | ....^",
    },
  );
  assert.throws(
    () => compile("self.min + self.name", { variables: { self: spec } }),
    /found no matching overload for '_\+_' applied to '\(int, string\)'/,
  );
});

Deno.test("run: a missing key is cel-go's runtime error", () => {
  const program = compile("self.labels.foo == 'a'", {
    variables: { self: spec },
  });
  assert.throws(
    () => program.run({ self: { labels: {} } }),
    (error: unknown) => {
      assert.ok(error instanceof CelRuntimeError);
      assert.equal(error.message, "no such key: foo");
      return true;
    },
  );
});

Deno.test("run: the cost limit stops a runaway expression", () => {
  const program = compile(
    "self.tags.all(a, self.tags.all(b, self.tags.all(c, a + b + c != '')))",
    { variables: { self: spec } },
  );
  const tags = Array.from({ length: 200 }, (_, i) => `t${i}`);
  assert.throws(() => program.run({ self: { tags } }), (error: unknown) => {
    assert.ok(error instanceof CelCostError);
    assert.equal(
      error.message,
      "operation cancelled: actual cost limit exceeded",
    );
    return true;
  });
  assert.equal(program.run({ self: { tags: ["a"] } }), true);
  assert.ok(program.lastCost > 0 && program.lastCost < 100);
});
