import assert from "node:assert/strict";
import type { ObjectReference } from "../apiclient/mod.ts";
import type { Condition } from "../conditions/mod.ts";
import {
  CONDITIONS_SCHEMA,
  defineResource,
  OBJECT_REFERENCE_SCHEMA,
  SchemaError,
} from "./mod.ts";

const TASKS = defineResource({
  group: "example.com",
  version: "v1",
  kind: "Task",
  plural: "tasks",
  scope: "Namespaced",
  status: true,
  schema: {
    type: "object",
    properties: {
      status: {
        type: "object",
        properties: {
          conditions: CONDITIONS_SCHEMA,
          runner: OBJECT_REFERENCE_SCHEMA,
        },
      },
    },
  },
});

Deno.test("CONDITIONS_SCHEMA: a map list keyed by type in the CRD, one condition per type on decode, typed as Condition", () => {
  const status = TASKS.crd().spec.versions[0]!.schema.openAPIV3Schema
    .properties?.status?.properties;
  const conditions = status?.conditions as Record<string, unknown>;
  assert.equal(conditions["x-kubernetes-list-type"], "map");
  assert.deepEqual(conditions["x-kubernetes-list-map-keys"], ["type"]);
  const ready = {
    type: "Ready",
    status: "False",
    observedGeneration: 3,
    reason: "Waiting",
    message: "",
    lastTransitionTime: "2030-01-01T00:00:00Z",
  } as const;
  const task = TASKS.decode({
    metadata: { name: "t" },
    status: { conditions: [ready] },
  });
  const typed: Condition[] | undefined = task.status?.conditions;
  assert.deepEqual(typed, [ready]);
  assert.throws(
    () =>
      TASKS.decode({
        metadata: { name: "t" },
        status: { conditions: [ready, { ...ready, status: "Maybe" }] },
      }),
    (error) =>
      error instanceof SchemaError &&
      /status\.conditions\[1\]\.status: Unsupported value: "Maybe"/.test(
        error.message,
      ) &&
      /status\.conditions\[1\]: Duplicate value/.test(error.message),
  );
});

Deno.test("OBJECT_REFERENCE_SCHEMA: kind and name required, unknown fields pruned, typed as ObjectReference", () => {
  const task = TASKS.decode({
    metadata: { name: "t" },
    status: {
      runner: { kind: "Pod", name: "p", fieldPath: "spec", extra: true },
    },
  });
  const runner: ObjectReference | undefined = task.status?.runner;
  assert.deepEqual(runner, { kind: "Pod", name: "p", fieldPath: "spec" });
  assert.throws(
    () =>
      TASKS.decode({
        metadata: { name: "t" },
        status: { runner: { kind: "Pod" } },
      }),
    /status\.runner\.name: Required value/,
  );
});
