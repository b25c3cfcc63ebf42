// The CronJob example (examples/cronjob/) against a real kube-apiserver
// with the real garbage collector and job controller: the CRD's embedded
// JobTemplateSpec schema refuses a bad template as the fake does, and the
// example makes a Job at its scheduled time (a cron minute: up to 60 s of
// wall time) that the collector deletes with its CronJob. With no kubelet
// the job controller's Pods stay Pending, so Jobs never finish: the
// history limits are tested on the fake only.
import assert from "node:assert/strict";
import { ApiError, type Client } from "../../apiclient/mod.ts";
import { JOBS } from "../../api/batch/v1/mod.ts";
import { Controller } from "../../controller/mod.ts";
import { cronJobController } from "../../examples/cronjob/controller.ts";
import {
  CRONJOB,
  type CronJob,
  SCHEDULED_AT,
} from "../../examples/cronjob/cronjob.ts";
import { TEMPLATE } from "../../examples/cronjob/cronjob_test_util.ts";
import { clientOf, fake } from "../../examples/cronjob/cronjob_test_util.ts";
import { RealControlPlane } from "../real_control_plane.ts";
import { MODE, unmetIn } from "./_plane.ts";
import { runnable } from "../../tools/needs.ts";
import { eventually } from "./_eventually.ts";
import { testLogger } from "../../_internal/_log_test_util.ts";

const NAME = "cronjob example";
/** The control plane's defaults, and the job controller. */
const CONTROLLERS = "garbage-collector-controller,namespace-controller," +
  "serviceaccount-controller,serviceaccount-token-controller,job-controller";

/** The status code and message of a create, or `undefined` when it lands. */
async function refusal(
  client: Client,
  namespace: string,
  object: CronJob,
): Promise<{ status: number; message: string } | undefined> {
  try {
    await client.resource(CRONJOB).namespace(namespace).create(object);
    return undefined;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { status: error.status, message: error.message };
  }
}

function cronJob(name: string, spec: Partial<CronJob["spec"]>): CronJob {
  return {
    apiVersion: CRONJOB.apiVersion,
    kind: CRONJOB.kind,
    metadata: { name },
    spec: { schedule: "* * * * *", jobTemplate: TEMPLATE, ...spec },
  };
}

// The job controller and the garbage collector: not in envtest.
const unmet = unmetIn(MODE, { controllers: true });
if (runnable(`real-server suite "${NAME}"`, unmet)) {
  Deno.test({
    name: `${NAME} (real kube-apiserver)`,
    // A real server runs real time: the steps wait on real timers.
    sanitizeOps: false,
    sanitizeResources: false,
    async fn(t): Promise<void> {
      await using plane = await RealControlPlane.start({
        controllers: CONTROLLERS,
      });
      const admin = plane.client();
      const namespace = `cronjob-${crypto.randomUUID().slice(0, 6)}`;
      await admin.create("/api/v1/namespaces", {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: namespace },
      });
      await admin.create(
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
        CRONJOB.crd(),
      );
      const crd =
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/cronjobs.${CRONJOB.group}`;
      await eventually("the CRD established", async () => {
        const { status } = await admin.get<
          { status?: { conditions?: { type: string; status: string }[] } }
        >(crd);
        return status?.conditions?.some((c) =>
          c.type === "Established" && c.status === "True"
        );
      });

      await t.step(
        "the job template is checked by the real server and the fake alike",
        async () => {
          await using server = await fake();
          const fakeClient = clientOf(server);
          const noName = structuredClone(TEMPLATE) as typeof TEMPLATE;
          delete (noName.spec.template.spec.containers[0] as { name?: string })
            .name;
          const bad = cronJob("bad", { jobTemplate: noName });
          const real = await refusal(admin, namespace, bad);
          const faked = await refusal(fakeClient, "default", bad);
          assert.equal(real?.status, 422, real?.message);
          assert.equal(faked?.status, 422, faked?.message);
          const field =
            "spec.jobTemplate.spec.template.spec.containers[0].name";
          for (const answer of [real, faked]) {
            assert.ok(answer?.message.includes(field), answer?.message);
          }
          // And a good one lands on both.
          const good = cronJob("good", { suspend: true });
          assert.equal(await refusal(admin, namespace, good), undefined);
          assert.equal(await refusal(fakeClient, "default", good), undefined);
          await admin.resource(CRONJOB).namespace(namespace).delete("good");
        },
      );

      await t.step(
        "a Job at its scheduled time, collected with its CronJob",
        async () => {
          const errors: string[] = [];
          await using controller = new Controller(admin, {
            ...cronJobController(),
            logger: testLogger({
              onError: (error) => void errors.push(String(error)),
            }),
          });
          const made = await admin.resource(CRONJOB).namespace(namespace)
            .create(
              cronJob("minutely", {}),
            );
          const jobs = admin.resource(JOBS).namespace(namespace);
          const job = await eventually("the Job of the next run", async () => {
            const { items } = await jobs.list();
            return items.find((j) => j.metadata.name?.startsWith("minutely-"));
          }, 90_000);
          // Made for a whole minute after the CronJob, and at that time (a
          // few seconds' margin for the requeue and the request).
          const run = Date.parse(
            job.metadata.annotations?.[SCHEDULED_AT] ?? "",
          );
          assert.equal(job.metadata.name, `minutely-${run / 1000}`);
          assert.equal(run % 60_000, 0);
          assert.ok(run >= Date.parse(made.metadata.creationTimestamp!));
          const created = Date.parse(job.metadata.creationTimestamp!);
          assert.ok(
            created >= run && created - run < 10_000,
            `${created - run}`,
          );
          assert.deepEqual(
            job.metadata.ownerReferences?.map((o) => [o.kind, o.uid]),
            [["CronJob", made.metadata.uid]],
          );
          // The real job controller made its Pod, which stays Pending (no
          // scheduler, no kubelet): the Job is active and never ends.
          await eventually("the job controller's Pod", async () => {
            const held = await jobs.get(job.metadata.name!);
            return held.status?.active === 1;
          });
          // The CronJob's status names it, as the example writes it.
          await eventually("status.active", async () => {
            const held = await admin.resource(CRONJOB).namespace(namespace)
              .get("minutely");
            return held.status?.active?.some((r) =>
              r.name === job.metadata.name
            );
          });
          await controller.stop();
          assert.deepEqual(errors, []);
          await admin.resource(CRONJOB).namespace(namespace).delete("minutely");
          await eventually(
            "the garbage collector",
            () =>
              jobs.get(job.metadata.name!).then(
                () => false,
                (e: unknown) => e instanceof ApiError && e.status === 404,
              ),
            90_000,
          );
        },
      );
    },
  });
}
