// Validation rules and ratcheting as the API server applies them (the
// differential scenarios validation-rules*, validation-ratcheting hold the
// fake to the recorded answers; these pin the pieces).
import assert from "node:assert/strict";
import type { Cause, Schema } from "./types.ts";
import { decodeWith } from "./decode.ts";
import { hasRules, ruleCauses, ruleErrors } from "./rules.ts";

const SCHEMA: Schema = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      "x-kubernetes-validations": [{
        rule: "!has(self.replicas) || self.replicas <= 10",
        message: "at most 10 replicas",
        fieldPath: ".replicas",
        reason: "FieldValueForbidden",
      }],
      properties: {
        replicas: { type: "integer" },
        name: {
          type: "string",
          maxLength: 5,
          "x-kubernetes-validations": [{
            rule: "self == oldSelf",
            message: "name is immutable",
          }],
        },
        mode: {
          type: "string",
          "x-kubernetes-validations": [{
            rule: "self in ['fast', 'slow']",
            messageExpression: "'mode ' + self + ' is not known'",
          }],
        },
        ports: {
          type: "array",
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["name"],
          items: {
            type: "object",
            properties: {
              name: { type: "string" },
              port: { type: "integer", maximum: 1000 },
            },
          },
        },
        tags: { type: "array", items: { type: "string", maxLength: 3 } },
        letters: {
          type: "array",
          items: { type: "string" },
          "x-kubernetes-validations": [{
            rule: "self.all(a, self.all(b, self.all(c, a != 'z')))",
            message: "no z",
          }],
        },
      },
    },
  },
};

function check(
  object: Record<string, unknown>,
  old?: Record<string, unknown>,
): { causes: Cause[]; warnings: string[] } {
  const { causes } = decodeWith(SCHEMA, object, old);
  const rules = ruleCauses(SCHEMA, object, causes, old);
  return { causes: [...causes, ...rules.causes], warnings: rules.warnings };
}

Deno.test("a failing rule is a cause at its fieldPath, with its reason and message", () => {
  assert.deepEqual(check({ spec: { replicas: 20 } }).causes, [{
    field: "spec.replicas",
    reason: "FieldValueForbidden",
    message: "Forbidden: at most 10 replicas",
  }]);
  assert.deepEqual(check({ spec: { mode: "sideways" } }).causes, [{
    field: "spec.mode",
    reason: "FieldValueInvalid",
    message: 'Invalid value: "sideways": mode sideways is not known',
  }]);
  assert.deepEqual(check({ spec: { replicas: 2, mode: "fast" } }).causes, []);
  assert.ok(hasRules(SCHEMA));
  assert.ok(
    !hasRules({ type: "object", properties: { a: { type: "string" } } }),
  );
});

Deno.test("a transition rule runs only on an update", () => {
  assert.deepEqual(check({ spec: { name: "a" } }).causes, []);
  assert.deepEqual(
    check({ spec: { name: "b" } }, { spec: { name: "a" } }).causes,
    [{
      field: "spec.name",
      reason: "FieldValueInvalid",
      message: 'Invalid value: "b": name is immutable',
    }],
  );
});

Deno.test("a blocking schema error stops the rules", () => {
  const { causes } = check({ spec: { name: "too-long", replicas: 20 } });
  assert.deepEqual(causes.map((c) => c.field), ["spec.name", "<nil>"]);
});

Deno.test("ratcheting: kept values pass a tightened schema, changed ones do not", () => {
  const old = {
    spec: {
      name: "much-too-long",
      ports: [{ name: "a", port: 5000 }, { name: "b", port: 80 }],
      tags: ["long", "ok"],
      replicas: 20,
    },
  };
  // Reordered map-list items correlate by key; the rule on spec, whose
  // value changed, refuses; the kept name passes.
  const moved = {
    spec: {
      ...old.spec,
      ports: [{ name: "b", port: 80 }, { name: "a", port: 5000 }],
    },
  };
  assert.deepEqual(check(moved, old).causes.map((c) => c.field), [
    "spec.replicas",
  ]);
  const changed = {
    spec: { ...moved.spec, ports: [{ name: "a", port: 6000 }] },
  };
  assert.deepEqual(check(changed, old).causes.map((c) => c.field), [
    "spec.ports[0].port",
    "spec.replicas",
  ]);
  // Items of an atomic list do not correlate: reordered, they are checked.
  const tags = { spec: { ...old.spec, tags: ["ok", "long"] } };
  assert.deepEqual(check(tags, old).causes.map((c) => c.field), [
    "spec.tags[1]",
    "<nil>",
  ]);
});

Deno.test("ratcheting: a rule failing on a kept value only warns", () => {
  const old = { spec: { replicas: 20 }, other: 1 };
  const result = check({ spec: { replicas: 20 }, other: 2 }, old);
  assert.deepEqual(result.causes, []);
  assert.deepEqual(result.warnings, [
    "spec.replicas: Forbidden: at most 10 replicas",
  ]);
});

Deno.test("a rule over the cost limit is refused and stops the rules", () => {
  const { causes } = check({ spec: { letters: Array(100).fill("a") } });
  assert.deepEqual(causes, [{
    field: "spec.letters",
    reason: "FieldValueInvalid",
    message:
      "Invalid value: \"array\": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: no z",
  }]);
});

Deno.test("a definition's bad rules are refused in the API server's words", () => {
  const schema: Schema = {
    type: "object",
    properties: {
      spec: {
        type: "object",
        properties: {
          count: {
            type: "integer",
            // A rule's fields are checked first: these stop the
            // compilation of this node's rules.
            "x-kubernetes-validations": [
              { rule: "true", fieldPath: ".nope" },
              { rule: "true", message: "one\ntwo" },
              { rule: "self >", reason: "Bad" as "FieldValueInvalid" },
            ],
          },
          things: {
            type: "array",
            items: {
              type: "object",
              "x-kubernetes-validations": [{ rule: "self == oldSelf" }],
            },
          },
        },
        "x-kubernetes-validations": [
          { rule: "self.nope > 1" },
          { rule: "self.count + 1" },
          { rule: "self.count > 1", optionalOldSelf: true },
        ],
      },
    },
  };
  const at = "spec.validation.openAPIV3Schema.properties[spec]";
  const errors = ruleErrors(schema, "spec.validation.openAPIV3Schema");
  const count = `${at}.properties[count].x-kubernetes-validations`;
  assert.deepEqual(errors.map((c) => c.field), [
    `${at}.x-kubernetes-validations[0].rule`,
    `${at}.x-kubernetes-validations[1].rule`,
    `${at}.x-kubernetes-validations[2].optionalOldSelf`,
    `${count}[0].fieldPath`,
    `${count}[1].message`,
    `${count}[2].reason`,
    `${at}.properties[things].items.x-kubernetes-validations[0].rule`,
  ]);
  assert.match(
    errors[0]!.message,
    /^Invalid value: \{"Rule":"self.nope \\u003e 1","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null\}: compilation failed: ERROR: <input>:1:5: undefined field 'nope'/,
  );
  assert.match(errors[1]!.message, /: cel expression must evaluate to a bool$/);
  assert.equal(
    errors[2]!.message,
    "Invalid value: true: may not be set if oldSelf is not used in rule",
  );
  assert.equal(
    errors[3]!.message,
    'Invalid value: ".nope": must be a valid path',
  );
  assert.equal(
    errors[4]!.message,
    'Invalid value: "one\\ntwo": must not contain line breaks',
  );
  assert.equal(
    errors[5]!.message,
    'Unsupported value: "Bad": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"',
  );
  assert.equal(
    errors[6]!.message,
    `Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within ${at}.properties[things]`,
  );
});

Deno.test("an optionalOldSelf rule runs on a create too, with oldSelf unset", () => {
  const schema: Schema = {
    type: "object",
    properties: {
      size: {
        type: "integer",
        "x-kubernetes-validations": [{
          rule: "oldSelf.hasValue() ? self >= oldSelf.value() : self <= 5",
          message: "starts at 5 at most and never shrinks",
          optionalOldSelf: true,
        }],
      },
    },
  };
  const causes = (object: Record<string, unknown>, old?: object): string[] =>
    ruleCauses(schema, object, [], old as Record<string, unknown>).causes
      .map((c) => c.message);
  assert.deepEqual(causes({ size: 5 }), []);
  assert.deepEqual(causes({ size: 6 }), [
    "Invalid value: 6: starts at 5 at most and never shrinks",
  ]);
  assert.deepEqual(causes({ size: 9 }, { size: 3 }), []);
  assert.deepEqual(causes({ size: 2 }, { size: 3 }), [
    "Invalid value: 2: starts at 5 at most and never shrinks",
  ]);
});

Deno.test("ratcheting: list duplicates are checked unless the old object has some", () => {
  const schema: Schema = {
    type: "object",
    properties: {
      a: {
        type: "array",
        "x-kubernetes-list-type": "set",
        items: { type: "string" },
      },
      b: {
        type: "array",
        "x-kubernetes-list-type": "set",
        items: { type: "string" },
      },
    },
  };
  const causes = (object: Record<string, unknown>, old?: object): string[] =>
    decodeWith(schema, object, old as Record<string, unknown>).causes.map((c) =>
      `${c.field}: ${c.reason}`
    );
  assert.deepEqual(causes({ a: ["x", "x"] }, { a: ["x"] }), [
    "a[1]: FieldValueDuplicate",
  ]);
  // Old duplicates (a list type added since): none is checked.
  assert.deepEqual(
    causes({ a: ["x", "x"], b: ["y", "y"] }, { a: ["x", "x"] }),
    [],
  );
  assert.deepEqual(causes({ a: ["x", "x"], b: ["y", "y"] }), [
    "a[1]: FieldValueDuplicate",
    "b[1]: FieldValueDuplicate",
  ]);
});

Deno.test("an error of evaluation is refused even where the value is kept", () => {
  const schema: Schema = {
    type: "object",
    properties: {
      math: {
        type: "object",
        properties: { a: { type: "integer" }, b: { type: "integer" } },
        "x-kubernetes-validations": [{ rule: "self.a / self.b >= 0" }],
      },
      n: {
        type: "integer",
        "x-kubernetes-validations": [{ rule: "self < 10" }],
      },
    },
  };
  const old = { math: { a: 1, b: 0 }, n: 20 };
  const result = ruleCauses(schema, { ...old }, [], old);
  // Without a message, the rule's text names it (failed rule: … for a failure).
  assert.deepEqual(result.causes, [{
    field: "math",
    reason: "FieldValueInvalid",
    message:
      'Invalid value: "object": division by zero evaluating rule: self.a / self.b >= 0',
  }]);
  assert.deepEqual(result.warnings, [
    "n: Invalid value: 20: failed rule: self < 10",
  ]);
});

Deno.test("an expression the definition already had compiles as a stored one", () => {
  const schema: Schema = {
    type: "object",
    properties: {
      spec: {
        type: "object",
        properties: { tags: { type: "array", items: { type: "string" } } },
        "x-kubernetes-validations": [{
          rule: "!self.tags.includes('x')",
          message: "no x",
        }],
      },
    },
  };
  // New in 1.37's environment: a new rule compiles in 1.36's, without it.
  assert.equal(ruleErrors(schema, "s").length, 1);
  assert.deepEqual(
    ruleErrors(schema, "s", new Set(["!self.tags.includes('x')"])),
    [],
  );
});

Deno.test("an optionalOldSelf rule over an object reads the old object's fields", () => {
  const schema: Schema = {
    type: "object",
    properties: {
      spec: {
        type: "object",
        properties: { size: { type: "integer" } },
        "x-kubernetes-validations": [{
          rule: "!oldSelf.hasValue() || self.size >= oldSelf.value().size",
          message: "size never shrinks",
          optionalOldSelf: true,
        }],
      },
    },
  };
  const causes = (object: Record<string, unknown>, old?: object): string[] =>
    ruleCauses(schema, object, [], old as Record<string, unknown>).causes
      .map((c) => `${c.field}: ${c.message}`);
  assert.deepEqual(causes({ spec: { size: 1 } }), []);
  assert.deepEqual(causes({ spec: { size: 1 } }, { spec: { size: 2 } }), [
    "spec: Invalid value: size never shrinks",
  ]);
});

Deno.test("a rule over the estimated cost limit is refused when the definition is written", () => {
  const schema = (maxItems: number): Schema => ({
    type: "object",
    properties: {
      spec: {
        type: "object",
        properties: {
          items: {
            type: "array",
            maxItems,
            items: {
              type: "object",
              properties: { name: { type: "string", maxLength: 1000 } },
              "x-kubernetes-validations": [{
                rule: "self.name.matches('^[a-z]+$')",
              }],
            },
          },
        },
      },
    },
  });
  // `self.name` (2) and `matches`: a tenth of 4,001 bytes times a quarter
  // of the pattern's 8 (802); one per item, at most `maxItems` of them.
  assert.deepEqual(ruleErrors(schema(1000), "s"), []);
  const field =
    "s.properties[spec].properties[items].items.x-kubernetes-validations[0].rule";
  const words = (factor: string): Cause[] => [{
    field,
    reason: "FieldValueForbidden",
    message:
      `Forbidden: estimated rule cost exceeds budget by factor of ${factor} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
  }];
  assert.deepEqual(ruleErrors(schema(20_000), "s"), words("1.6x"));
  assert.deepEqual(ruleErrors(schema(13_000), "s"), words("1.045200x"));
  // A rule the definition had before keeps its place.
  assert.deepEqual(
    ruleErrors(schema(20_000), "s", new Set(["self.name.matches('^[a-z]+$')"])),
    [],
  );
});

Deno.test("rules over the estimated cost limit of a whole definition are refused", () => {
  // Each rule under the per-expression limit (about 8,000,008: two items
  // of `contains` over two strings of up to 20,000 bytes), 13 of them over
  // the definition's 100,000,000.
  const rules = Array.from({ length: 13 }, (_, i) => ({
    rule: `self.a.contains(self.b)${" || has(self.a)".repeat(i)}`,
  }));
  const schema: Schema = {
    type: "object",
    properties: {
      spec: {
        type: "array",
        maxItems: 2,
        items: {
          type: "object",
          properties: {
            a: { type: "string", maxLength: 5000 },
            b: { type: "string", maxLength: 5000 },
          },
          "x-kubernetes-validations": rules,
        },
      },
    },
  };
  const errors = ruleErrors(schema, "s");
  const at = (i: number): string =>
    `s.properties[spec].items.x-kubernetes-validations[${i}].rule`;
  // The four most expensive first, then the total.
  assert.deepEqual(errors.map((e) => e.field), [
    at(12),
    at(11),
    at(10),
    at(9),
    "s",
  ]);
  assert.equal(
    errors[0]!.message,
    "Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
  );
  assert.match(
    errors[4]!.message,
    /^Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of 1\.040\d+x /,
  );
});
