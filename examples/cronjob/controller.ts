/**
 * The CronJob controller of the kubebuilder book's tutorial (its
 * `internal/controller/cronjob_controller.go`), ported: it reads its Jobs
 * from the controller's cache, writes `status.active`,
 * `status.lastScheduleTime` and the Available/Progressing/Degraded
 * conditions, prunes finished Jobs beyond the history limits, and makes
 * the Job of the latest missed run of the cron schedule (within the
 * starting deadline, unless suspended, as the concurrency policy allows),
 * then asks to run again at the next run.
 *
 * @module
 */
import { Cron } from "croner";
import type { ObjectRef, ObjectReference } from "../../apiclient/mod.ts";
import { type Job, JOBS } from "../../api/batch/v1/mod.ts";
import type { Condition } from "../../conditions/mod.ts";
import type {
  Action,
  ControllerOptions,
  ReconcileContext,
} from "../../controller/mod.ts";
import { CRONJOB, type CronJob, SCHEDULED_AT } from "./cronjob.ts";

/** More missed runs than this and the controller gives up, as Go's does. */
export const MAX_MISSED = 100;

/**
 * The controller's options (its RBAC rules come from them too).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cronJobController } from "./controller.ts";
 *
 * assert.equal(cronJobController().name, "cronjob");
 * ```
 *
 * @returns The options: CronJobs, the Jobs they own, and an Event recorder.
 */
export function cronJobController(): ControllerOptions<CronJob> {
  // Events: each condition that transitions, Warning when `BAD` says so.
  const wiring = { events: {} };
  return { name: "cronjob", for: CRONJOB, owns: [JOBS], wiring, reconcile };
}

const BAD = { bad: { Available: "False", Degraded: "True" } } as const;

/** Makes the world match one CronJob. */
async function reconcile(context: ReconcileContext<CronJob>): Promise<Action> {
  const cronJob = context.object;
  if (cronJob === undefined) return; // deleted: the collector takes its Jobs
  const { spec } = cronJob;
  // 1. The Jobs, sorted out by how they ended, and the newest run.
  const jobs = await context.children<Job>(JOBS);
  const active: Job[] = [];
  const successful: Job[] = [];
  const failed: Job[] = [];
  let mostRecent: number | undefined;
  for (const job of jobs) {
    const end = finished(job);
    (end === "Failed" ? failed : end === "Complete" ? successful : active)
      .push(job);
    const at = Date.parse(job.metadata.annotations?.[SCHEDULED_AT] ?? "");
    if (!Number.isNaN(at)) mostRecent = Math.max(mostRecent ?? at, at);
  }

  // 2. The status, rebuilt from the Jobs on every pass.
  const conditions: Condition[] = [];
  if (!cronJob.status?.conditions?.length) {
    conditions.push(
      condition(
        "Progressing",
        "Unknown",
        "Reconciling",
        "Starting reconciliation",
      ),
    );
  }
  if (spec.suspend) {
    conditions.push(
      condition("Available", "False", "Suspended", "CronJob is suspended"),
    );
  } else if (failed.length > 0) {
    const message = `${failed.length} job(s) have failed`;
    conditions.push(
      condition("Degraded", "True", "JobsFailed", message),
      condition("Available", "False", "JobsFailed", message),
    );
  } else if (active.length > 0) {
    const n = active.length;
    conditions.push(
      condition(
        "Progressing",
        "True",
        "JobsActive",
        `${n} job(s) are currently active`,
      ),
      condition(
        "Available",
        "True",
        "JobsActive",
        `CronJob is progressing with ${n} active job(s)`,
      ),
    );
  } else {
    conditions.push(
      condition(
        "Available",
        "True",
        "AllJobsCompleted",
        "All jobs have completed successfully",
      ),
      condition(
        "Progressing",
        "False",
        "NoJobsActive",
        "No jobs are currently active",
      ),
    );
  }
  await context.status({
    active: active.length > 0 ? active.map(reference) : null,
    lastScheduleTime: mostRecent === undefined ? null : time(mostRecent),
    conditions,
  }, BAD);

  // 3. History beyond the limits goes, oldest first (best effort).
  await prune(context, failed, spec.failedJobsHistoryLimit);
  await prune(context, successful, spec.successfulJobsHistoryLimit);

  // 4. Suspended: no new run.
  if (spec.suspend) return;

  // 5. The latest missed run and the next one.
  const now = Date.now();
  let runs: { missed?: number | undefined; next?: number | undefined };
  try {
    runs = schedule(cronJob, mostRecent, now);
  } catch (error) {
    const message = `Failed to parse schedule: ${(error as Error).message}`;
    await degraded(context, "InvalidSchedule", message);
    return; // until the CronJob changes
  }
  const then: Action = runs.next === undefined
    ? undefined
    : { requeueAfter: runs.next - now };
  if (runs.missed === undefined) return then;

  // 6. A run: not too late, not blocked by the concurrency policy.
  const deadline = spec.startingDeadlineSeconds;
  if (deadline !== undefined && runs.missed + deadline * 1000 < now) {
    const message = `Missed starting deadline for run at ${time(runs.missed)}`;
    await degraded(context, "MissedSchedule", message);
    return then;
  }
  if (spec.concurrencyPolicy === "Forbid" && active.length > 0) return then;
  if (spec.concurrencyPolicy === "Replace") {
    for (const job of active) await context.deleteChild(refOf(job));
  }
  const job = jobFor(cronJob, runs.missed);
  try {
    await context.apply(job);
  } catch (error) {
    const message = `Failed to create job: ${(error as Error).message}`;
    await degraded(context, "JobCreationFailed", message);
    throw error;
  }
  const made = `Created job ${job.metadata.name}`;
  await context.status({
    conditions: [condition("Progressing", "True", "JobCreated", made)],
  }, BAD);

  // 7. Again at the next run (or sooner, when a Job or the CronJob changes).
  return then;
}

/** `Complete` or `Failed` once the Job has ended, else `undefined`. */
function finished(job: Job): string | undefined {
  return job.status?.conditions?.find((c) =>
    (c.type === "Complete" || c.type === "Failed") && c.status === "True"
  )?.type;
}

/**
 * The latest run missed since the newest Job's run (or the CronJob's
 * creation), no earlier than the starting deadline, and the run after
 * `now`; a throw for a bad schedule or too many missed runs.
 */
function schedule(
  cronJob: CronJob,
  lastScheduled: number | undefined,
  now: number,
): { missed?: number | undefined; next?: number | undefined } {
  const { schedule, startingDeadlineSeconds: deadline } = cronJob.spec;
  const cron = new Cron(schedule, { utcOffset: 0 }); // UTC, as in a container
  const after = (at: number): number | undefined =>
    cron.nextRun(new Date(at))?.getTime();
  let earliest = lastScheduled ??
    Date.parse(cronJob.metadata.creationTimestamp ?? "");
  if (deadline !== undefined) {
    earliest = Math.max(earliest, now - deadline * 1000);
  }
  if (earliest > now) return { next: after(now) };
  let missed: number | undefined;
  let starts = 0;
  for (let t = after(earliest); t !== undefined && t <= now; t = after(t)) {
    missed = t;
    // A wrong clock could mean decades of runs: stop rather than list them.
    if (++starts > MAX_MISSED) {
      throw new Error(
        `Too many missed start times (> ${MAX_MISSED}). Set or decrease .spec.startingDeadlineSeconds or check clock skew.`,
      );
    }
  }
  return { missed, next: after(now) };
}

/** The Job of one run: the template, named and annotated by the run. */
function jobFor(cronJob: CronJob, run: number): Job {
  const template = cronJob.spec.jobTemplate;
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: {
      // One name per run, so a run is never made twice.
      name: `${cronJob.metadata.name}-${Math.floor(run / 1000)}`,
      namespace: cronJob.metadata.namespace!,
      labels: { ...template.metadata?.labels },
      annotations: {
        ...template.metadata?.annotations,
        [SCHEDULED_AT]: time(run),
      },
    },
    spec: template.spec!,
  };
}

/** Deletes the oldest finished Jobs beyond `limit`, if there is one. */
async function prune(
  context: ReconcileContext<CronJob>,
  jobs: Job[],
  limit: number | undefined,
): Promise<void> {
  if (limit === undefined) return;
  const started = (job: Job): number =>
    job.status?.startTime ? Date.parse(job.status.startTime) : -Infinity;
  jobs.sort((a, b) => started(a) - started(b) || 0); // NaN: both unstarted
  for (const job of jobs.slice(0, Math.max(0, jobs.length - limit))) {
    await context.deleteChild(refOf(job)).catch(() => false);
  }
}

/** Sets `Degraded=True` with a reason; the rest of the status stays. */
async function degraded(
  context: ReconcileContext<CronJob>,
  reason: string,
  message: string,
): Promise<void> {
  await context.status({
    conditions: [condition("Degraded", "True", reason, message)],
  }, BAD);
}

function condition(
  type: string,
  status: Condition["status"],
  reason: string,
  message: string,
): Condition {
  return { type, status, reason, message };
}

/** A status reference to a Job, as `ref.GetReference` makes it. */
function reference(job: Job): ObjectReference {
  const { name = "", namespace, uid, resourceVersion } = job.metadata;
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    name,
    namespace,
    uid,
    resourceVersion,
  };
}

function refOf(job: Job): ObjectRef {
  const { namespace = "", name = "" } = job.metadata;
  return { ...JOBS, namespace, name };
}

/** RFC 3339 to the second, as a `metav1.Time`. */
function time(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");
}
