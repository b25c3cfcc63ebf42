// A reconcile pass of the CronJob example over 1,000 CronJobs with 10 Jobs
// each, on the in-memory fake: the example's own pass, a pass that only
// reads each CronJob's Jobs (context.children), and one that reads
// nothing; the difference of the last two is the children read's cost per
// pass. Each bench checks the fake's request log: no list request of Jobs
// or CronJobs after the first sync, whatever the number of passes.
import { controllerRef } from "../../apiclient/mod.ts";
import { type Job, JOBS } from "../../api/batch/v1/mod.ts";
import { Controller, type ReconcileContext } from "../../controller/mod.ts";
import { cronJobController } from "./controller.ts";
import { CRONJOB, type CronJob, SCHEDULED_AT } from "./cronjob.ts";
import { clientOf, ended, fake, NS, TEMPLATE } from "./cronjob_test_util.ts";

const CRONJOBS = 1_000;
const JOBS_EACH = 10;
const GROUP = `a reconcile pass over ${CRONJOBS} CronJobs x ${JOBS_EACH} Jobs`;

const server = await fake();
const client = clientOf(server);
const cronJobs = client.resource(CRONJOB).namespace(NS);
const jobs = client.resource(JOBS).namespace(NS);
// Every Job ran a minute ago and completed; the yearly schedule has no run
// due, so a pass makes no Job and, once the status is written, no write.
const ran = new Date(Date.now() - 60_000).toISOString().replace(/\.\d+Z$/, "Z");
for (let i = 0; i < CRONJOBS; i++) {
  const owner = await cronJobs.create({
    apiVersion: CRONJOB.apiVersion,
    kind: CRONJOB.kind,
    metadata: { name: `cron-${i}` },
    spec: { schedule: "0 0 1 1 *", jobTemplate: TEMPLATE },
  });
  for (let j = 0; j < JOBS_EACH; j++) {
    const job: Job = await jobs.create({
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: {
        name: `cron-${i}-${j}`,
        annotations: { [SCHEDULED_AT]: ran },
        ownerReferences: [controllerRef(owner, CRONJOB)],
      },
      spec: TEMPLATE.spec,
    });
    await jobs.status.replace({ ...job, status: ended("Complete", ran) });
  }
}

type Mode = "example" | "children" | "nothing";
let mode: Mode = "example";
const example = cronJobController();
const controller = new Controller(client, {
  ...example,
  reconcile: async (context: ReconcileContext<CronJob>) => {
    if (mode === "example") return await example.reconcile(context);
    if (mode === "children") {
      const children = await context.children<Job>(JOBS);
      if (children.length !== JOBS_EACH) {
        throw new Error(`Read ${children.length} Jobs`);
      }
    }
  },
});
await controller.idle(); // the first pass writes each status

/** Lists of Jobs or CronJobs the fake has answered (not watches). */
function lists(): number {
  return server.requests.filter((r) =>
    r.method === "GET" && /\/(jobs|cronjobs)$/.test(r.path) &&
    r.query.get("watch") !== "true"
  ).length;
}
const synced = lists();

for (
  const [name, pass] of [
    ["the example's pass (status unchanged: no write)", "example"],
    ["a pass that reads each CronJob's Jobs (context.children)", "children"],
    ["a pass that reads nothing", "nothing"],
  ] as const
) {
  Deno.bench({
    name,
    group: GROUP,
    baseline: pass === "nothing",
    n: 10,
    async fn(): Promise<void> {
      mode = pass;
      const before = server.requests.length;
      controller.reconcileAll();
      await controller.idle();
      if (lists() !== synced) throw new Error("A pass sent a list request");
      const sent = server.requests.slice(before).map((r) =>
        `${r.method} ${r.path}`
      );
      if (sent.length) {
        throw new Error(`A pass sent ${sent.length}: ${sent.slice(0, 3)}`);
      }
    },
  });
}

// Not a measure: stops what the benches ran on, after the last one (the
// watches' timers would otherwise keep the process alive).
Deno.bench({
  name: "stop the controller and the server",
  group: "teardown (not a measure)",
  n: 1,
  warmup: 0,
  async fn(): Promise<void> {
    await controller.stop();
    await server.stop();
  },
});
