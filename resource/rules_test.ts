// decode evaluates validation rules only where asked (issue 46): an
// informer's decode of stored objects, which may predate a rule, never does.
import assert from "node:assert/strict";
import { defineResource, SchemaError, StructuralSchemaError } from "./mod.ts";

const THINGS = defineResource({
  group: "example.com",
  version: "v1",
  kind: "Thing",
  plural: "things",
  scope: "Namespaced",
  schema: {
    type: "object",
    properties: {
      spec: {
        type: "object",
        properties: {
          size: {
            type: "integer",
            "x-kubernetes-validations": [{
              rule: "self <= 10",
              // Not `string(self)`: a string of unknown size, whose
              // concatenation the API server's cost estimate refuses.
              messageExpression:
                "'size ' + (self > 99 ? 'far' : 'just') + ' above 10'",
              message: "size is above 10",
            }],
          },
          name: {
            type: "string",
            maxLength: 5,
            "x-kubernetes-validations": [{
              rule: "self == oldSelf",
              message: "name is immutable",
            }],
          },
        },
      },
    },
  },
});

function thing(spec: Record<string, unknown>): unknown {
  return {
    apiVersion: "example.com/v1",
    kind: "Thing",
    metadata: { name: "t" },
    spec,
  };
}

function causesOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    if (error instanceof SchemaError) return error.causes;
    throw error;
  }
  assert.fail("decode took it");
}

Deno.test("decode does not evaluate rules unless asked", () => {
  const decoded = THINGS.decode(thing({ size: 20 }));
  assert.equal(decoded.spec?.size, 20);
});

Deno.test("decode with rules refuses as the API server does", async () => {
  const rules = await THINGS.validationRules();
  assert.deepEqual(
    causesOf(() => THINGS.decode(thing({ size: 20 }), { rules })),
    [{
      field: "spec.size",
      reason: "FieldValueInvalid",
      message: "Invalid value: 20: size just above 10",
    }],
  );
  assert.equal(THINGS.decode(thing({ size: 2 }), { rules }).spec?.size, 2);
});

Deno.test("decode with old: transition rules and ratcheting", async () => {
  const rules = await THINGS.validationRules();
  const old = thing({ size: 20, name: "much-too-long" });
  // Kept values pass (the rule only warns); changed ones are checked.
  const warnings: string[] = [];
  const kept = THINGS.decode(old, {
    rules,
    old,
    onWarning: (w) => warnings.push(w),
  });
  assert.equal(kept.spec?.name, "much-too-long");
  assert.deepEqual(warnings, [
    "spec.size: Invalid value: 20: size just above 10",
  ]);
  assert.deepEqual(
    causesOf(() =>
      THINGS.decode(thing({ size: 20, name: "other" }), { rules, old })
    ),
    [{
      field: "spec.name",
      reason: "FieldValueInvalid",
      message: 'Invalid value: "other": name is immutable',
    }],
  );
  // Without rules, old still ratchets the schema (maxLength).
  assert.equal(THINGS.decode(old, { old }).spec?.name, "much-too-long");
  assert.deepEqual(
    causesOf(() => THINGS.decode(old)),
    [{
      field: "spec.name",
      reason: "FieldValueTooLong",
      message: "Too long: may not be more than 5 bytes",
    }],
  );
});

Deno.test("validationRules refuses a rule that does not compile", async () => {
  const BAD = defineResource({
    group: "example.com",
    version: "v1",
    kind: "Bad",
    plural: "bads",
    scope: "Namespaced",
    schema: {
      type: "object",
      properties: {
        spec: {
          type: "object",
          properties: { size: { type: "integer" } },
          "x-kubernetes-validations": [{ rule: "self.nope > 1" }],
        },
      },
    },
  });
  const error = await BAD.validationRules().then(
    () => assert.fail("compiled"),
    (e: unknown) => e,
  );
  assert.ok(error instanceof StructuralSchemaError);
  assert.equal(
    error.causes[0]?.field,
    "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule",
  );
});

Deno.test("defineResource refuses a rule's bad fields without the engine", () => {
  const define = (): unknown =>
    defineResource({
      group: "example.com",
      version: "v1",
      kind: "Worse",
      plural: "worses",
      scope: "Namespaced",
      schema: {
        type: "object",
        properties: {
          spec: {
            type: "object",
            properties: { size: { type: "integer" } },
            "x-kubernetes-validations": [{ rule: "true", fieldPath: ".nope" }],
          },
        },
      },
    });
  assert.throws(define, (error: unknown) => {
    assert.ok(error instanceof StructuralSchemaError);
    assert.deepEqual(error.causes, [{
      field:
        "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].fieldPath",
      reason: "FieldValueInvalid",
      message: 'Invalid value: ".nope": must be a valid path',
    }]);
    return true;
  });
});
