// The inferred object type of a nested schema, pinned: `deno check` (and
// `deno test`, which checks first) fails when inference breaks, because an
// `@ts-expect-error` below would no longer find its error.
import assert from "node:assert/strict";
import { defineResource, type Infer, type ObjectOf } from "./mod.ts";

const WIDGETS = defineResource({
  group: "example.com",
  version: "v1",
  kind: "Widget",
  plural: "widgets",
  scope: "Namespaced",
  status: true,
  schema: {
    type: "object",
    required: ["spec"],
    properties: {
      spec: {
        type: "object",
        required: ["size", "parts"],
        properties: {
          size: { type: "integer", minimum: 1 },
          color: { type: "string", enum: ["red", "blue"] },
          port: { "x-kubernetes-int-or-string": true },
          note: { type: "string", nullable: true },
          labels: {
            type: "object",
            additionalProperties: { type: "string" },
          },
          raw: { "x-kubernetes-preserve-unknown-fields": true },
          parts: {
            type: "array",
            items: {
              type: "object",
              required: ["name"],
              properties: {
                name: { type: "string" },
                weight: { type: "number" },
                nested: {
                  type: "object",
                  properties: { deep: { type: "boolean" } },
                },
              },
            },
          },
        },
      },
      status: {
        type: "object",
        properties: { ready: { type: "boolean" } },
      },
    },
  },
});
type Widget = ObjectOf<typeof WIDGETS>;

Deno.test("the object type follows the schema", () => {
  const widget: Widget = {
    apiVersion: "example.com/v1",
    kind: "Widget",
    metadata: { name: "w" },
    spec: {
      size: 1,
      color: "red",
      port: "http",
      note: null,
      labels: { a: "b" },
      raw: { anything: [1, 2] },
      parts: [{ name: "p", weight: 0.5, nested: { deep: true } }],
    },
    status: { ready: true },
  };
  const port: number | string | undefined = widget.spec.port;
  const size: number = widget.spec.size;
  const name: string = widget.spec.parts[0]!.name;
  const deep: boolean | undefined = widget.spec.parts[0]!.nested?.deep;
  const raw: unknown = widget.spec.raw;
  const label: string | undefined = widget.spec.labels?.["a"];
  void [port, size, name, deep, raw, label];
  assert.equal(widget.spec.parts.length, 1);
});

Deno.test("a wrong field type does not compile", () => {
  type Spec = Widget["spec"];
  type Part = Spec["parts"][number];
  // @ts-expect-error a nested boolean given a string
  const deep: Part = { name: "p", nested: { deep: "yes" } };
  // @ts-expect-error an integer given a string
  const size: Spec = { size: "1", parts: [] };
  // @ts-expect-error a value outside the enum
  const color: Spec = { size: 1, parts: [], color: "green" };
  // @ts-expect-error a required field missing
  const missing: Spec = { parts: [] };
  // @ts-expect-error a required item field missing
  const item: Part = { weight: 1 };
  // @ts-expect-error null where the schema is not nullable
  const nulled: Spec = { size: 1, parts: [], color: null };
  // @ts-expect-error a map value of the wrong type
  const labels: Spec = { size: 1, parts: [], labels: { a: 1 } };
  // @ts-expect-error a field the schema does not name
  const extra: Spec = { size: 1, parts: [], extra: 1 };
  // @ts-expect-error spec is required at the root
  const root: Widget = { metadata: {} };
  const wrong = [deep, size, color, missing, item, nulled, labels, extra, root];
  assert.equal(wrong.length, 9);
});

Deno.test("Infer reads a schema node alone", () => {
  const node = {
    type: "array",
    items: { type: "string", enum: ["a", "b"] },
  } as const;
  const value: Infer<typeof node> = ["a", "b"];
  // @ts-expect-error not a member of the enum
  const wrong: Infer<typeof node> = ["c"];
  assert.deepEqual([value, wrong].length, 2);
});

const GIZMOS = defineResource({
  group: "example.com",
  kind: "Gizmo",
  plural: "gizmos",
  scope: "Namespaced",
  versions: [
    {
      name: "v1",
      storage: true,
      schema: {
        type: "object",
        required: ["spec"],
        properties: {
          spec: {
            type: "object",
            required: ["size"],
            properties: { size: { type: "integer" } },
          },
        },
      },
    },
    {
      name: "v1beta1",
      deprecated: true,
      schema: {
        type: "object",
        properties: {
          spec: { type: "object", properties: { count: { type: "string" } } },
        },
      },
    },
  ],
});

Deno.test("each version of a definition of several has its object type", () => {
  const stored: ObjectOf<typeof GIZMOS> = { metadata: {}, spec: { size: 1 } };
  const v1: ObjectOf<typeof GIZMOS, "v1"> = stored;
  const old: ObjectOf<typeof GIZMOS, "v1beta1"> = {
    metadata: {},
    spec: { count: "1" },
  };
  const OLD = GIZMOS.forVersion("v1beta1");
  const alsoOld: ObjectOf<typeof OLD> = old;
  // @ts-expect-error v1beta1's field in the storage version
  const mixed: ObjectOf<typeof GIZMOS> = { metadata: {}, spec: { count: "1" } };
  const wrongOld: ObjectOf<typeof GIZMOS, "v1beta1"> = {
    metadata: {},
    // @ts-expect-error v1's spec.size is not a field of v1beta1
    spec: { size: 1 },
  };
  // @ts-expect-error v1beta1's count is a string
  const typed: ObjectOf<typeof OLD> = { metadata: {}, spec: { count: 1 } };
  // @ts-expect-error no such version
  type Missing = ObjectOf<typeof GIZMOS, "v2">;
  // @ts-expect-error no such version to choose
  const none = () => GIZMOS.forVersion("v2");
  const v: Missing | undefined = undefined;
  assert.equal([v1, alsoOld, mixed, wrongOld, typed, none, v].length, 7);
});
