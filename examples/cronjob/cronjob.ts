/**
 * The `CronJob` of the kubebuilder book's tutorial
 * (`batch.tutorial.kubebuilder.io/v1`, its `api/v1/cronjob_types.go`),
 * defined once: its type, its `Resource` and its CRD. The job template is
 * the built-in `JobTemplateSpec` schema, so the API server checks a
 * CronJob's template as a CRD made by controller-gen has it checked.
 *
 * @module
 */
import { JOB_TEMPLATE_SPEC } from "../../api/batch/v1/schemas.ts";
import {
  CONDITIONS_SCHEMA,
  defineResource,
  OBJECT_REFERENCE_SCHEMA,
  type ObjectOf,
} from "../../resource/mod.ts";

/** The annotation that holds the run a Job was made for (RFC 3339). */
export const SCHEDULED_AT = "batch.tutorial.kubebuilder.io/scheduled-at";

/** The `CronJob` custom resource, defined once. */
export const CRONJOB = defineResource({
  group: "batch.tutorial.kubebuilder.io",
  version: "v1",
  kind: "CronJob",
  plural: "cronjobs",
  scope: "Namespaced",
  status: true,
  schema: {
    type: "object",
    required: ["spec"],
    properties: {
      spec: {
        type: "object",
        required: ["schedule", "jobTemplate"],
        properties: {
          // In cron format (five fields, or a descriptor such as @hourly).
          schedule: { type: "string", minLength: 0 },
          // A run not started this many seconds after its time is missed.
          startingDeadlineSeconds: {
            type: "integer",
            format: "int64",
            minimum: 0,
          },
          // Allow runs side by side, Forbid a run while one is active, or
          // Replace the active ones.
          concurrencyPolicy: {
            type: "string",
            enum: ["Allow", "Forbid", "Replace"],
            default: "Allow",
          },
          // Stops further runs; runs already started go on.
          suspend: { type: "boolean" },
          jobTemplate: JOB_TEMPLATE_SPEC,
          // How many finished Jobs to keep; absent keeps them all.
          successfulJobsHistoryLimit: {
            type: "integer",
            format: "int32",
            minimum: 0,
          },
          failedJobsHistoryLimit: {
            type: "integer",
            format: "int32",
            minimum: 0,
          },
        },
      },
      status: {
        type: "object",
        properties: {
          // The running Jobs.
          active: {
            type: "array",
            "x-kubernetes-list-type": "atomic",
            minItems: 1,
            maxItems: 10,
            items: OBJECT_REFERENCE_SCHEMA,
          },
          // The newest run a Job was made for.
          lastScheduleTime: { type: "string", format: "date-time" },
          // Available, Progressing and Degraded.
          conditions: CONDITIONS_SCHEMA,
        },
      },
    },
  },
});

/** A `CronJob` object, as the definition decodes it. */
export type CronJob = ObjectOf<typeof CRONJOB>;
