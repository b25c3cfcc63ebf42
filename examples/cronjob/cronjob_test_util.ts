// What the CronJob tests share: a fake API server that serves the CronJob
// from its generated CRD and batch/v1 Jobs (the fake does not serve Jobs
// by default: they are registered here), and sample objects.
import { Client, controllerRef } from "../../apiclient/mod.ts";
import { type Job, JOBS, type JobStatus } from "../../api/batch/v1/mod.ts";
import { Controller } from "../../controller/mod.ts";
import { FakeApiServer } from "../../testing/mod.ts";
import { cronJobController } from "./controller.ts";
import { CRONJOB, type CronJob } from "./cronjob.ts";

/** The namespace of the tests' objects. */
export const NS = "default";

/** The tutorial's job template: one container, restarted on failure. */
export const TEMPLATE = {
  spec: {
    template: {
      spec: {
        containers: [{ name: "test-container", image: "test-image" }],
        restartPolicy: "OnFailure",
      },
    },
  },
};

/** A fake that serves CronJobs (from the CRD) and Jobs (built in). */
export async function fake(): Promise<FakeApiServer> {
  const server = new FakeApiServer();
  const admin = new Client(server.url, { fetch: server.fetch });
  await admin.create(
    "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
    CRONJOB.crd(),
  );
  return server;
}

/** A client of the fake. */
export function clientOf(server: FakeApiServer): Client {
  return new Client(server.url, { fetch: server.fetch });
}

/** The CronJob controller over the fake; counts its reconcile passes. */
export function controllerOf(
  server: FakeApiServer,
  passes: { count: number } = { count: 0 },
): Controller<CronJob> {
  const options = cronJobController();
  const reconcile = options.reconcile;
  return new Controller(clientOf(server), {
    ...options,
    reconcile: (context) => {
      passes.count++;
      return reconcile(context);
    },
  });
}

/** Creates a CronJob with the tutorial's template. */
export async function createCronJob(
  server: FakeApiServer,
  name: string,
  spec: Partial<CronJob["spec"]>,
): Promise<CronJob> {
  return await clientOf(server).resource(CRONJOB).namespace(NS).create({
    apiVersion: CRONJOB.apiVersion,
    kind: CRONJOB.kind,
    metadata: { name },
    spec: { schedule: "* * * * *", jobTemplate: TEMPLATE, ...spec },
  });
}

/** The CronJob as the fake holds it. */
export async function cronJobNamed(
  server: FakeApiServer,
  name: string,
): Promise<CronJob> {
  return await clientOf(server).resource(CRONJOB).namespace(NS).get(name);
}

/** The names of the Jobs in the namespace, sorted. */
export async function jobNames(server: FakeApiServer): Promise<string[]> {
  const { items } = await clientOf(server).resource(JOBS).namespace(NS).list();
  return items.map((job) => job.metadata.name!).sort();
}

/**
 * Creates a Job that the CronJob controls, as its controller would (or as
 * the tutorial's test does), and then its status, as the job controller
 * would.
 */
export async function createOwnedJob(
  server: FakeApiServer,
  owner: CronJob,
  name: string,
  status: JobStatus = {},
): Promise<Job> {
  const jobs = clientOf(server).resource(JOBS).namespace(NS);
  const made = await jobs.create({
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name, ownerReferences: [controllerRef(owner, CRONJOB)] },
    spec: TEMPLATE.spec,
  });
  return await jobs.status.replace({ ...made, status });
}

/** A Job's status once it ended (`Complete` or `Failed`), started at `at`. */
export function ended(type: "Complete" | "Failed", at: string): JobStatus {
  return {
    startTime: at,
    conditions: [{
      type,
      status: "True",
      lastTransitionTime: at,
      reason: type,
      message: "",
    }],
  };
}
