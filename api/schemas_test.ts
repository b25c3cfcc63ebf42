// A CRD embeds a built-in type's schema (issue 43, part 4): the generated
// schemas are structural (defineResource's check, the API server's rules,
// accepts them), a bad embedded template is refused by decode (the fake's
// validation) naming the field, pruning keeps the embedded metadata's five
// fields, and the field is typed as the generated type.
import assert from "node:assert/strict";
import type { Client } from "../apiclient/mod.ts";
import type { JobTemplateSpec } from "./batch/v1/mod.ts";
import { JOB_TEMPLATE_SPEC } from "./batch/v1/schemas.ts";
import { POD_TEMPLATE_SPEC } from "./core/v1/schemas.ts";
import { defineResource, type ObjectOf, SchemaError } from "../resource/mod.ts";
import { everySchema } from "./_schemas_test_util.ts";

const CRONS = defineResource({
  group: "example.com",
  version: "v1",
  kind: "Cron",
  plural: "crons",
  scope: "Namespaced",
  schema: {
    type: "object",
    properties: {
      spec: {
        type: "object",
        required: ["schedule", "jobTemplate"],
        properties: {
          schedule: { type: "string" },
          jobTemplate: JOB_TEMPLATE_SPEC,
        },
      },
    },
  },
});

const template = {
  metadata: { labels: { app: "x" }, uid: "pruned" },
  spec: {
    template: {
      spec: {
        restartPolicy: "Never",
        containers: [{
          name: "run",
          image: "busybox",
          ports: [{ containerPort: 80 }],
        }],
      },
    },
  },
};

function causes(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof SchemaError, String(error));
    return error.causes.map((c) => `${c.field}: ${c.reason}`);
  }
  return [];
}

Deno.test("api schemas: an embedded JobTemplateSpec validates, prunes and defaults as the CRD says", () => {
  const cron = CRONS.decode({
    apiVersion: "example.com/v1",
    kind: "Cron",
    metadata: { name: "c" },
    spec: { schedule: "* * * * *", jobTemplate: template },
  });
  // The embedded metadata keeps name, namespace, labels, annotations and
  // finalizers only (controller-gen's generateEmbeddedObjectMeta).
  assert.deepEqual(cron.spec?.jobTemplate.metadata, { labels: { app: "x" } });
  const container = cron.spec?.jobTemplate.spec?.template.spec?.containers[0];
  // A port's protocol has a real default; the container's name is a key.
  assert.deepEqual(container?.ports, [{ containerPort: 80, protocol: "TCP" }]);
});

Deno.test("api schemas: a bad embedded template is refused with its field", () => {
  const bad = (containers: unknown): string[] =>
    causes(() =>
      CRONS.decode({
        apiVersion: "example.com/v1",
        kind: "Cron",
        metadata: { name: "c" },
        spec: {
          schedule: "* * * * *",
          jobTemplate: { spec: { template: { spec: { containers } } } },
        },
      })
    );
  const field = "spec.jobTemplate.spec.template.spec.containers";
  assert.deepEqual(bad("busybox").map((c) => c.split(":")[0]), [field]);
  assert.deepEqual(bad([{ image: "busybox" }]).map((c) => c.split(":")[0]), [
    `${field}[0].name`,
  ]);
  assert.deepEqual(bad([{ name: "a", image: "x" }]), []);
});

Deno.test("api schemas: the CRD holds the embedded schema with its list markers", () => {
  const crd = CRONS.crd() as {
    spec: { versions: { schema: { openAPIV3Schema: unknown } }[] };
  };
  const text = JSON.stringify(crd.spec.versions[0]?.schema.openAPIV3Schema);
  assert.match(text, /"x-kubernetes-list-map-keys":\["name"\]/);
  assert.doesNotMatch(text, /"description"/);
  // A pod template schema stands alone too.
  assert.equal(POD_TEMPLATE_SPEC.type, "object");
});

// Never called: the embedded field is typed as the generated type.
async function typed(client: Client): Promise<void> {
  const cron = await client.resource(CRONS).namespace("n").get("c");
  const isJob: Equal<
    ObjectOf<typeof CRONS>["spec"],
    undefined | {
      schedule: string;
      jobTemplate: JobTemplateSpec;
    }
  > = true;
  const image: string | undefined = cron.spec?.jobTemplate.spec?.template.spec
    ?.containers[0]?.image;
  // @ts-expect-error the template's containers are a list
  void cron.spec?.jobTemplate.spec?.template.spec?.containers.name;
  void [isJob, image];
}
type Equal<A, B> = (<X>() => X extends A ? 1 : 2) extends
  (<X>() => X extends B ? 1 : 2) ? true : false;

Deno.test("api schemas: the typed read compiles", () => {
  assert.equal(typeof typed, "function");
});

Deno.test("api schemas: every generated schema is structural as a CRD field", async () => {
  // defineResource refuses what the API server refuses (a list-map key
  // neither required nor defaulted, a list type on a string, …).
  const { count, definitions } = await everySchema();
  assert.ok(count > 600, `only ${count} schemas`);
  assert.ok(definitions.length > 1);
});
