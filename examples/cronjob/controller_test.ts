// The CronJob example on the in-memory fake and fake time: the tutorial's
// envtest test, then each policy, the starting deadline, suspend, the
// history limits, and reads of the Jobs from the cache.
import assert from "node:assert/strict";
import { installFakeTime } from "../../testing/mod.ts";
import { find } from "../../conditions/mod.ts";
import { SCHEDULED_AT } from "./cronjob.ts";
import {
  createCronJob,
  createOwnedJob,
  cronJobNamed,
  ended,
  fake,
  jobNames,
  NS,
} from "./cronjob_test_util.ts";
import { controllerOf } from "./cronjob_test_util.ts";
import { clientOf } from "./cronjob_test_util.ts";
import { CRONJOB } from "./cronjob.ts";

const MINUTE = 60_000;
/** Half a minute past midnight: the first `* * * * *` run is 30 s away. */
const T0 = Date.parse("2030-01-01T00:00:30Z");
const unix = (iso: string): number => Date.parse(iso) / 1000;

Deno.test("the tutorial's test: an owned Job with active pods shows in status.active and Available", async () => {
  using time = installFakeTime({ now: T0 });
  await using server = await fake();
  await createCronJob(server, "test-cronjob", { schedule: "1 * * * *" });
  await using controller = controllerOf(server);
  await time.settle();
  await controller.idle();
  let cronJob = await cronJobNamed(server, "test-cronjob");
  assert.ok(cronJob.status?.conditions?.length, "conditions initialised");
  assert.equal(cronJob.status?.active, undefined);
  // Consistently no active Job (and none made) for the next 10 s.
  await time.tick(10_000);
  await controller.idle();
  cronJob = await cronJobNamed(server, "test-cronjob");
  assert.equal(cronJob.status?.active, undefined);
  assert.deepEqual(await jobNames(server), []);

  await createOwnedJob(server, cronJob, "test-job", { active: 2 });
  await time.settle();
  await controller.idle();
  cronJob = await cronJobNamed(server, "test-cronjob");
  assert.deepEqual(cronJob.status?.active?.map((ref) => ref.name), [
    "test-job",
  ]);
  const available = find(cronJob.status?.conditions ?? [], "Available");
  assert.equal(available?.status, "True");
  assert.equal(available?.reason, "JobsActive");
});

Deno.test("a Job is made at its scheduled time, annotated, and the next run is requeued", async () => {
  using time = installFakeTime({ now: T0 });
  await using server = await fake();
  await createCronJob(server, "tick", {});
  await using controller = controllerOf(server);
  await time.settle();
  await controller.idle();
  assert.deepEqual(await jobNames(server), []);
  await time.tick(30_000); // 00:01:00
  await controller.idle();
  const name = `tick-${unix("2030-01-01T00:01:00Z")}`;
  assert.deepEqual(await jobNames(server), [name]);
  const job = server.object(`/apis/batch/v1/namespaces/${NS}/jobs/${name}`);
  assert.equal(
    job?.metadata.annotations?.[SCHEDULED_AT],
    "2030-01-01T00:01:00Z",
  );
  assert.equal(job?.metadata.ownerReferences?.[0]?.kind, "CronJob");
  const cronJob = await cronJobNamed(server, "tick");
  assert.equal(cronJob.status?.lastScheduleTime, "2030-01-01T00:01:00Z");
  assert.deepEqual(cronJob.status?.active?.map((ref) => ref.name), [name]);
});

for (
  const [policy, expected] of [
    ["Allow", ["p-00:01", "p-00:02"]],
    ["Forbid", ["p-00:01"]],
    ["Replace", ["p-00:02"]],
  ] as const
) {
  Deno.test(`concurrencyPolicy ${policy} with a Job still running at the next run`, async () => {
    using time = installFakeTime({ now: T0 });
    await using server = await fake();
    await createCronJob(server, "p", { concurrencyPolicy: policy });
    await using controller = controllerOf(server);
    await time.settle();
    await time.tick(30_000); // 00:01: the first Job (nothing ends it)
    await controller.idle();
    await time.tick(MINUTE); // 00:02
    await controller.idle();
    await time.settle();
    const names = expected.map((n) =>
      `p-${unix(`2030-01-01T${n.slice(2)}:00Z`)}`
    );
    assert.deepEqual(await jobNames(server), names);
    const cronJob = await cronJobNamed(server, "p");
    assert.deepEqual(cronJob.status?.active?.map((r) => r.name), names);
  });
}

Deno.test("the starting deadline: runs missed longer ago than it are not made", async () => {
  using time = installFakeTime({ now: Date.parse("2030-01-01T00:00:00Z") });
  await using server = await fake();
  const every5 = "*/5 * * * *";
  await createCronJob(server, "late", {
    schedule: every5,
    startingDeadlineSeconds: 60,
  });
  await createCronJob(server, "any", { schedule: every5 });
  await time.tick(12 * MINUTE); // the controller is down: 00:05, 00:10 missed
  await using controller = controllerOf(server);
  await time.settle();
  await controller.idle();
  // Without a deadline the latest missed run (00:10) is made late; with
  // one of 60 s, neither missed run is.
  assert.deepEqual(await jobNames(server), [
    `any-${unix("2030-01-01T00:10:00Z")}`,
  ]);
  // Skipped quietly: a run earlier than the deadline is not even missed.
  const late = await cronJobNamed(server, "late");
  assert.equal(find(late.status?.conditions ?? [], "Degraded"), undefined);
  await time.tick(3 * MINUTE); // 00:15
  await controller.idle();
  assert.deepEqual(await jobNames(server), [
    `any-${unix("2030-01-01T00:10:00Z")}`,
    `any-${unix("2030-01-01T00:15:00Z")}`,
    `late-${unix("2030-01-01T00:15:00Z")}`,
  ]);
});

Deno.test("more than 100 missed runs: Degraded, and no Job", async () => {
  using time = installFakeTime({ now: T0 });
  await using server = await fake();
  await createCronJob(server, "wedged", {});
  await time.tick(102 * MINUTE);
  await using controller = controllerOf(server);
  await time.settle();
  await controller.idle();
  assert.deepEqual(await jobNames(server), []);
  const cronJob = await cronJobNamed(server, "wedged");
  const degraded = find(cronJob.status?.conditions ?? [], "Degraded");
  assert.equal(degraded?.status, "True");
  assert.equal(degraded?.reason, "InvalidSchedule");
  assert.match(degraded?.message ?? "", /Too many missed start times/);
});

Deno.test("a bad schedule: Degraded InvalidSchedule, no Job", async () => {
  using time = installFakeTime({ now: T0 });
  await using server = await fake();
  await createCronJob(server, "bad", { schedule: "every minute" });
  await using controller = controllerOf(server);
  await time.settle();
  await controller.idle();
  await time.tick(2 * MINUTE);
  await controller.idle();
  assert.deepEqual(await jobNames(server), []);
  const cronJob = await cronJobNamed(server, "bad");
  const degraded = find(cronJob.status?.conditions ?? [], "Degraded");
  assert.equal(degraded?.reason, "InvalidSchedule");
  // Each transition posts an Event in the condition's words: Warning for
  // Degraded=True, Normal for Available=True (bad only when False).
  await controller.stop(); // writes the queued Events
  const events = server.eventsAbout({ kind: "CronJob", name: "bad" });
  const typeOf = (reason: string): string | undefined =>
    events.find((e) => e.reason === reason)?.type;
  assert.equal(typeOf("InvalidSchedule"), "Warning");
  assert.equal(typeOf("AllJobsCompleted"), "Normal");
});

Deno.test("suspend: no run while suspended; resumed, the latest missed run is made", async () => {
  using time = installFakeTime({ now: T0 });
  await using server = await fake();
  await createCronJob(server, "s", { suspend: true });
  await using controller = controllerOf(server);
  await time.settle();
  await time.tick(3 * MINUTE); // 00:03:30
  await controller.idle();
  assert.deepEqual(await jobNames(server), []);
  let cronJob = await cronJobNamed(server, "s");
  const available = find(cronJob.status?.conditions ?? [], "Available");
  assert.equal(available?.reason, "Suspended");
  assert.equal(available?.status, "False");
  await clientOf(server).resource(CRONJOB).namespace(NS).replace({
    ...cronJob,
    spec: { ...cronJob.spec, suspend: false },
  });
  await time.settle();
  await controller.idle();
  assert.deepEqual(await jobNames(server), [
    `s-${unix("2030-01-01T00:03:00Z")}`,
  ]);
  cronJob = await cronJobNamed(server, "s");
  assert.equal(cronJob.status?.lastScheduleTime, "2030-01-01T00:03:00Z");
});

Deno.test("history limits: the oldest finished Jobs beyond each limit are deleted", async () => {
  using time = installFakeTime({ now: T0 });
  await using server = await fake();
  const owner = await createCronJob(server, "h", {
    suspend: true, // pruning goes on while suspended; no new run muddles it
    successfulJobsHistoryLimit: 1,
    failedJobsHistoryLimit: 1,
  });
  const at = (m: number): string => `2029-12-31T23:0${m}:00Z`;
  await createOwnedJob(server, owner, "ok-2", ended("Complete", at(2)));
  await createOwnedJob(server, owner, "ok-1", ended("Complete", at(1)));
  await createOwnedJob(server, owner, "ok-3", ended("Complete", at(3)));
  await createOwnedJob(server, owner, "failed-5", ended("Failed", at(5)));
  await createOwnedJob(server, owner, "failed-4", ended("Failed", at(4)));
  await createOwnedJob(server, owner, "running", { active: 1 });
  await using controller = controllerOf(server);
  await time.settle();
  await controller.idle();
  await time.settle();
  assert.deepEqual(await jobNames(server), ["failed-5", "ok-3", "running"]);
});

Deno.test("a reconcile pass reads its Jobs from the cache: no list request after sync", async () => {
  using time = installFakeTime({ now: T0 });
  await using server = await fake();
  for (const name of ["a", "b", "c"]) {
    const owner = await createCronJob(server, name, {});
    await createOwnedJob(
      server,
      owner,
      `${name}-old`,
      ended("Complete", "2029-12-31T00:00:00Z"),
    );
  }
  const passes = { count: 0 };
  await using controller = controllerOf(server, passes);
  await time.settle();
  await controller.idle();
  assert.ok(controller.synced());
  const lists = (): number =>
    server.requests.filter((r) =>
      r.method === "GET" && /\/(jobs|cronjobs)$/.test(r.path) &&
      r.query.get("watch") !== "true"
    ).length;
  const before = lists();
  const passesBefore = passes.count;
  // Passes of every kind: requeued at the run (a Job made), reconciled
  // again by the Job's events, and all at once by hand.
  for (let i = 0; i < 3; i++) {
    await time.tick(MINUTE);
    await controller.idle();
    controller.reconcileAll();
    await controller.idle();
  }
  assert.ok(passes.count - passesBefore >= 18, `${passes.count} passes`);
  assert.equal(lists(), before, "no list request after sync");
  // The passes did read the Jobs: each CronJob's status names its 3 runs.
  const cronJob = await cronJobNamed(server, "a");
  assert.equal(cronJob.status?.active?.length, 3);
});
