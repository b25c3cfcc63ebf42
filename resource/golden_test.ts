// decode against the real kube-apiserver's answers, recorded in the
// differential suite's golden file (a JSON import: no read permission).
import assert from "node:assert/strict";
import golden from "../testing/differential/golden/custom-resources.json" with {
  type: "json",
};
import { defineResource, type ObjectSchema, SchemaError } from "./mod.ts";

interface Step {
  step: string;
  body: {
    spec?: { versions: { schema: { openAPIV3Schema: unknown } }[] };
    message?: string;
    details?: { causes: unknown[] };
  };
}
const steps = golden.steps as unknown as Step[];
function step(name: string): Step["body"] {
  return steps.find((s) => s.step === name)!.body;
}
const schema = step("create definition").spec!.versions[0]!.schema
  .openAPIV3Schema as ObjectSchema;
const GADGETS = defineResource({
  group: "ns.example.com",
  version: "v1",
  kind: "Gadget",
  plural: "gadgets",
  scope: "Namespaced",
  status: true,
  schema,
});
const gadget = (name: string, spec: unknown): unknown => ({
  apiVersion: "ns.example.com/v1",
  kind: "Gadget",
  metadata: { name },
  spec,
});

/** The Status message and causes the real server answered for `name`. */
function refusal(name: string): { message: string; causes: unknown[] } {
  const body = step(name);
  return {
    message: body.message!.replace("<ns>", "ns"),
    causes: body.details!.causes,
  };
}

function refused(value: unknown): { message: string; causes: unknown[] } {
  try {
    GADGETS.decode(value);
  } catch (error) {
    assert.ok(error instanceof SchemaError);
    return {
      message: error.message,
      // The server orders a cause's keys reason, message, field.
      causes: error.causes.map(({ reason, message, field }) => ({
        reason,
        message,
        field,
      })),
    };
  }
  throw new Error("The object decoded");
}

Deno.test("decode prunes and defaults as the real server did", () => {
  const unknown: string[] = [];
  const decoded = GADGETS.decode(gadget("g", { size: 2, extra: "dropped" }), {
    onUnknownField: (path) => unknown.push(path),
  });
  const body = step("create pruned and defaulted") as { spec?: unknown };
  assert.deepEqual((decoded as { spec?: unknown }).spec, body.spec);
  // The server's warning: 299 - "unknown field \"spec.extra\"".
  assert.deepEqual(unknown, ["spec.extra"]);
});

Deno.test("decode words an invalid value and too many items as the real server", () => {
  assert.deepEqual(
    refused(gadget("bad", { size: 0, tags: ["a", "b", "c"] })),
    refusal("invalid value"),
  );
});

Deno.test("decode words a wrong type as the real server", () => {
  assert.deepEqual(
    refused(gadget("bad2", { size: "big" })),
    refusal("wrong type"),
  );
});

Deno.test("decode words a missing required field as the real server", () => {
  assert.deepEqual(
    refused(gadget("bad3", { color: "red" })),
    refusal("missing required"),
  );
});

Deno.test("crd() writes the schema the real server stored", () => {
  assert.deepEqual(
    GADGETS.crd().spec.versions[0]!.schema.openAPIV3Schema,
    schema,
  );
});
