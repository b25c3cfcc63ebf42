// crd() against the example's CRD (generated from the same definition by
// `deno task manifests`; examples/manifests_test.ts checks the file).
import assert from "node:assert/strict";
import { load } from "js-yaml";
import crdText from "../examples/manifests/crd.yaml" with { type: "text" };
import { GREETING as GREETINGS } from "../examples/greeting.ts";
import { defineResource } from "./mod.ts";

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

Deno.test("crd({ conversion }) writes a webhook conversion as given, a fresh copy; the default stays None", () => {
  const spec = (field: string) =>
    ({
      type: "object",
      properties: {
        spec: { type: "object", properties: { [field]: { type: "string" } } },
      },
    }) as const;
  const NOTES = defineResource({
    group: "example.com",
    kind: "Note",
    plural: "notes",
    scope: "Namespaced",
    versions: [
      { name: "v1", storage: true, schema: spec("message") },
      { name: "v2", schema: spec("text") },
    ],
  });
  const conversion = {
    strategy: "Webhook",
    webhook: {
      clientConfig: {
        service: {
          namespace: "ops",
          name: "hooks",
          path: "/convert",
          port: 9443,
        },
        caBundle: "Q0E=",
      },
      conversionReviewVersions: ["v1"],
    },
  } as const;
  const crd = NOTES.crd({
    conversion: {
      ...conversion,
      webhook: {
        ...conversion.webhook,
        conversionReviewVersions: [
          ...conversion.webhook.conversionReviewVersions,
        ],
      },
    },
  });
  assert.deepEqual(crd.spec.conversion, conversion);
  // A url instead of a service.
  const byUrl = NOTES.crd({
    conversion: {
      strategy: "Webhook",
      webhook: {
        clientConfig: { url: "https://127.0.0.1:9443/convert" },
        conversionReviewVersions: ["v1"],
      },
    },
  });
  assert.deepEqual(byUrl.spec.conversion?.webhook?.clientConfig, {
    url: "https://127.0.0.1:9443/convert",
  });
  // A copy: changing the answer changes neither the option nor later CRDs.
  const given = {
    strategy: "Webhook" as const,
    webhook: {
      clientConfig: { url: "https://a/convert" },
      conversionReviewVersions: ["v1"],
    },
  };
  const first = NOTES.crd({ conversion: given });
  first.spec.conversion!.webhook!.conversionReviewVersions.push("v1beta1");
  assert.deepEqual(given.webhook.conversionReviewVersions, ["v1"]);
  assert.deepEqual(NOTES.crd().spec.conversion, { strategy: "None" });
  assert.deepEqual(NOTES.crd({}).spec.conversion, { strategy: "None" });
});
