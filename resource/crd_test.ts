// crd() against the example's hand-written CRD: the same object, from one
// definition.
import assert from "node:assert/strict";
import { load } from "js-yaml";
import crdText from "../examples/manifests/crd.yaml" with { type: "text" };
import { defineResource } from "./mod.ts";

const CONDITION = {
  type: "object",
  required: ["type", "status", "reason", "message", "lastTransitionTime"],
  properties: {
    type: { type: "string" },
    status: { type: "string", enum: ["True", "False", "Unknown"] },
    observedGeneration: { type: "integer", format: "int64" },
    reason: { type: "string" },
    message: { type: "string" },
    lastTransitionTime: { type: "string", format: "date-time" },
  },
} as const;

const GREETINGS = defineResource({
  group: "demo.liken.dev",
  version: "v1alpha1",
  kind: "Greeting",
  plural: "greetings",
  scope: "Namespaced",
  shortNames: ["greet"],
  status: true,
  printerColumns: [
    { name: "Message", type: "string", jsonPath: ".spec.message" },
    {
      name: "Ready",
      type: "string",
      jsonPath: '.status.conditions[?(@.type=="Ready")].status',
    },
    { name: "ConfigMap", type: "string", jsonPath: ".status.configMap" },
    { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
  ],
  schema: {
    type: "object",
    required: ["spec"],
    properties: {
      spec: {
        type: "object",
        required: ["message"],
        properties: { message: { type: "string", maxLength: 4096 } },
      },
      status: {
        type: "object",
        properties: {
          observedGeneration: { type: "integer", format: "int64" },
          configMap: { type: "string" },
          conditions: {
            type: "array",
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["type"],
            items: CONDITION,
          },
        },
      },
    },
  },
});

Deno.test("crd() is the example's CRD", () => {
  assert.deepEqual(GREETINGS.crd(), load(crdText));
});

Deno.test("the definition is the Resource and Primary of its collection", () => {
  const { group, version, resource, namespaced, kind } = GREETINGS;
  assert.deepEqual({ group, version, resource, namespaced, kind }, {
    group: "demo.liken.dev",
    version: "v1alpha1",
    resource: "greetings",
    namespaced: true,
    kind: "Greeting",
  });
  assert.equal(GREETINGS.apiVersion, "demo.liken.dev/v1alpha1");
});

Deno.test("crd() leaves out what is not set, and is a fresh copy", () => {
  const THINGS = defineResource({
    group: "example.com",
    version: "v1",
    kind: "Thing",
    plural: "things",
    singular: "thing",
    scope: "Cluster",
    categories: ["all"],
    schema: { type: "object" },
  });
  const crd = THINGS.crd();
  assert.deepEqual(crd.spec, {
    group: "example.com",
    names: {
      plural: "things",
      singular: "thing",
      kind: "Thing",
      listKind: "ThingList",
      categories: ["all"],
    },
    scope: "Cluster",
    versions: [{
      name: "v1",
      served: true,
      storage: true,
      schema: { openAPIV3Schema: { type: "object" } },
    }],
  });
  crd.spec.versions[0]!.schema.openAPIV3Schema = {
    type: "object",
    nullable: true,
  };
  assert.deepEqual(THINGS.crd().spec.versions[0]!.schema.openAPIV3Schema, {
    type: "object",
  });
});
