// The built-in schemas of api/*/schemas.ts embedded in a CRD, against the
// real API server (issue 43): the server takes the CRD (they are structural
// as it judges), and it validates, prunes and defaults an embedded template
// as defineResource's decode does (the fake's validation).
import assert from "node:assert/strict";
import { ApiError } from "../../apiclient/mod.ts";
import {
  CRON_JOB_SPEC,
  JOB_TEMPLATE_SPEC,
} from "../../api/batch/v1/schemas.ts";
import {
  DEPLOYMENT_SPEC,
  STATEFUL_SET_SPEC,
} from "../../api/apps/v1/schemas.ts";
import {
  PERSISTENT_VOLUME_CLAIM_SPEC,
  POD_TEMPLATE_SPEC,
  SERVICE_SPEC,
} from "../../api/core/v1/schemas.ts";
import { INGRESS_SPEC } from "../../api/networking/v1/schemas.ts";
import { defineResource, SchemaError } from "../../resource/mod.ts";
import { everySchema } from "../../api/_schemas_test_util.ts";
import { eventually } from "./_eventually.ts";
import { suite } from "./_plane.ts";

const CRONS = defineResource({
  group: "api.example.com",
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
          podTemplate: POD_TEMPLATE_SPEC,
          cronJob: CRON_JOB_SPEC,
          deployment: DEPLOYMENT_SPEC,
          statefulSet: STATEFUL_SET_SPEC,
          service: SERVICE_SPEC,
          claim: PERSISTENT_VOLUME_CLAIM_SPEC,
          ingress: INGRESS_SPEC,
        },
      },
    },
  },
});

const CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

function cron(namespace: string, name: string, containers: unknown): unknown {
  return {
    apiVersion: CRONS.apiVersion,
    kind: CRONS.kind,
    metadata: { namespace, name },
    spec: {
      schedule: "* * * * *",
      jobTemplate: {
        metadata: { labels: { app: "x" }, uid: "pruned", generation: 3 },
        spec: { template: { spec: { restartPolicy: "Never", containers } } },
      },
      service: { ports: [{ port: 80, targetPort: "http" }] },
      claim: { resources: { requests: { storage: "1Gi" } } },
    },
  };
}

suite("api: built-in schemas embedded in a CRD", [
  [
    "the server takes the CRD and treats an embedded template as decode does",
    async ({ plane, namespace }) => {
      const admin = plane.client();
      await admin.create(CRD_PATH, CRONS.crd());
      await eventually("the CRD to be established", async () => {
        const crd = await admin.get<
          { status?: { conditions?: { type: string; status: string }[] } }
        >(`${CRD_PATH}/crons.api.example.com`);
        return crd.status?.conditions?.some((c) =>
          c.type === "Established" && c.status === "True"
        );
      });
      const crons = admin.resource(CRONS).namespace(namespace);
      const good = cron(namespace, "good", [
        { name: "run", image: "busybox", ports: [{ containerPort: 80 }] },
      ]);
      const created = await eventually(
        "a Cron to be created",
        () => crons.create(good as never),
      );
      // Pruned (the embedded metadata's uid and generation), defaulted (a
      // port's protocol) alike.
      assert.deepEqual(created.spec, CRONS.decode(good).spec);
      assert.deepEqual(created.spec?.jobTemplate.metadata, {
        labels: { app: "x" },
      });

      const bad = cron(namespace, "bad", [{ image: "busybox" }]);
      const refused = await crons.create(bad as never).then(
        () => undefined,
        (error: unknown) => error,
      );
      assert.ok(refused instanceof ApiError, String(refused));
      assert.equal(refused.status, 422);
      const field = "spec.jobTemplate.spec.template.spec.containers[0].name";
      assert.deepEqual(
        refused.statusObject?.details?.causes?.map((c) => [c.field, c.reason]),
        [[field, "FieldValueRequired"]],
      );
      assert.throws(() => CRONS.decode(bad), (error: unknown) => {
        assert.ok(error instanceof SchemaError);
        assert.deepEqual(error.causes.map((c) => [c.field, c.reason]), [[
          field,
          "FieldValueRequired",
        ]]);
        return true;
      });
    },
  ],
  [
    "the server takes every generated schema as a CRD field",
    async ({ plane }) => {
      const admin = plane.client();
      const { count, definitions } = await everySchema("every.example.com");
      assert.ok(count > 600, `only ${count} schemas`);
      for (const definition of definitions) {
        await admin.create(CRD_PATH, definition.crd());
      }
    },
  ],
]);
