/**
 * The Table columns and cells of the workload kinds (Deployments,
 * ReplicaSets, StatefulSets, DaemonSets, Jobs, CronJobs), as the API
 * server's printers declare them (recorded in `builtin-tables`).
 *
 * @module
 */
import type { TableColumnDefinition } from "./table_types.ts";
import { age, type Json, list, name, str } from "./cells.ts";
import { selectorText } from "../_verbs/scale.ts";

/** A column, as `_tables/printers.ts` makes them. */
type Column = (
  name: string,
  description: string,
  options?: { type?: string; format?: string; priority?: number },
) => TableColumnDefinition;

/** How one kind becomes rows (the shape of `_tables/printers.ts`'s `Printer`). */
export interface WorkloadPrinter {
  columns: readonly TableColumnDefinition[];
  cells(object: Json, now: number): unknown[];
}

function containers(template: Json): [string, string] {
  const all = list(template?.spec?.containers);
  return [
    all.map((c: Json) => str(c?.name)).join(","),
    all.map((c: Json) => str(c?.image)).join(","),
  ];
}

function selector(value: unknown): string {
  if (value === undefined || value === null) return "<none>";
  const text = selectorText(value as Record<string, unknown>);
  return text === "" ? "<none>" : text;
}

function n(value: unknown): number {
  return typeof value === "number" ? value : 0;
}

/** The Job's status word, from its conditions. */
function jobStatus(job: Json): string {
  const conditions = list(job?.status?.conditions);
  const holds = (type: string) =>
    conditions.some((c: Json) => c?.type === type && c?.status === "True");
  if (holds("Complete")) return "Complete";
  if (holds("Failed")) return "Failed";
  if (holds("Suspended")) return "Suspended";
  if (holds("FailureTarget")) return "FailureTarget";
  if (holds("SuccessCriteriaMet")) return "SuccessCriteriaMet";
  return "Running";
}

/** The printers of the workload kinds, by `group/resource`. */
export function workloadPrinters(
  column: Column,
  NAME: TableColumnDefinition,
  AGE: TableColumnDefinition,
): Record<string, WorkloadPrinter> {
  const DEPLOYMENT_COLUMNS: readonly TableColumnDefinition[] = [
    NAME,
    column(
      "Ready",
      "Number of the pod with ready state",
    ),
    column(
      "Up-to-date",
      "Total number of non-terminating pods targeted by this deployment that have the desired template spec.",
    ),
    column(
      "Available",
      "Total number of available non-terminating pods (ready for at least minReadySeconds) targeted by this deployment.",
    ),
    AGE,
    column(
      "Containers",
      "Names of each container in the template.",
      { priority: 1 },
    ),
    column(
      "Images",
      "Images referenced by each container in the template.",
      { priority: 1 },
    ),
    column(
      "Selector",
      "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment. It must match the pod template's labels.",
      { priority: 1 },
    ),
  ];

  const REPLICA_SET_COLUMNS: readonly TableColumnDefinition[] = [
    NAME,
    column(
      "Desired",
      "Replicas is the number of desired pods. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicaset",
      { type: "integer" },
    ),
    column(
      "Current",
      "Replicas is the most recently observed number of non-terminating pods. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicaset",
      { type: "integer" },
    ),
    column(
      "Ready",
      "The number of non-terminating pods targeted by this ReplicaSet with a Ready Condition.",
      { type: "integer" },
    ),
    AGE,
    column(
      "Containers",
      "Names of each container in the template.",
      { priority: 1 },
    ),
    column(
      "Images",
      "Images referenced by each container in the template.",
      { priority: 1 },
    ),
    column(
      "Selector",
      "Selector is a label query over pods that should match the replica count. Label keys and values that must match in order to be controlled by this replica set. It must match the pod template's labels. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
      { priority: 1 },
    ),
  ];

  const STATEFUL_SET_COLUMNS: readonly TableColumnDefinition[] = [
    NAME,
    column(
      "Ready",
      "Number of the pod with ready state",
    ),
    AGE,
    column(
      "Containers",
      "Names of each container in the template.",
      { priority: 1 },
    ),
    column(
      "Images",
      "Images referenced by each container in the template.",
      { priority: 1 },
    ),
  ];

  const DAEMON_SET_COLUMNS: readonly TableColumnDefinition[] = [
    NAME,
    column(
      "Desired",
      "The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod). More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/",
      { type: "integer" },
    ),
    column(
      "Current",
      "The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod. More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/",
      { type: "integer" },
    ),
    column(
      "Ready",
      "numberReady is the number of nodes that should be running the daemon pod and have one or more of the daemon pod running with a Ready Condition.",
      { type: "integer" },
    ),
    column(
      "Up-to-date",
      "The total number of nodes that are running updated daemon pod",
      { type: "integer" },
    ),
    column(
      "Available",
      "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)",
      { type: "integer" },
    ),
    column(
      "Node Selector",
      "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node's labels for the pod to be scheduled on that node. More info: https://kubernetes.io/docs/concepts/configuration/assign-pod-node/",
    ),
    AGE,
    column(
      "Containers",
      "Names of each container in the template.",
      { priority: 1 },
    ),
    column(
      "Images",
      "Images referenced by each container in the template.",
      { priority: 1 },
    ),
    column(
      "Selector",
      "A label query over pods that are managed by the daemon set. Must match in order to be controlled. It must match the pod template's labels. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
      { priority: 1 },
    ),
  ];

  const JOB_COLUMNS: readonly TableColumnDefinition[] = [
    NAME,
    column(
      "Status",
      "Status of the job.",
    ),
    column(
      "Completions",
      "The number of pods which reached phase Succeeded. The value increases monotonically for a given spec. However, it may decrease in reaction to scale down of elastic indexed jobs.",
    ),
    column(
      "Duration",
      "Time required to complete the job.",
    ),
    AGE,
    column(
      "Containers",
      "Names of each container in the template.",
      { priority: 1 },
    ),
    column(
      "Images",
      "Images referenced by each container in the template.",
      { priority: 1 },
    ),
    column(
      "Selector",
      "A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
      { priority: 1 },
    ),
  ];

  const CRON_JOB_COLUMNS: readonly TableColumnDefinition[] = [
    NAME,
    column(
      "Schedule",
      "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.",
    ),
    column(
      "Timezone",
      "The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not specified, this will default to the time zone of the kube-controller-manager process. The set of valid time zone names and the time zone offset is loaded from the system-wide time zone database by the API server during CronJob validation and the controller manager during execution. If no system-wide time zone database can be found a bundled version of the database is used instead. If the time zone name becomes invalid during the lifetime of a CronJob or due to a change in host configuration, the controller will stop creating new new Jobs and will create a system event with the reason UnknownTimeZone. More information can be found in https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/#time-zones",
    ),
    column(
      "Suspend",
      "This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.  Defaults to false.",
      { type: "boolean" },
    ),
    column(
      "Active",
      "A list of pointers to currently running jobs.",
      { type: "integer" },
    ),
    column(
      "Last Schedule",
      "Information when was the last time the job was successfully scheduled.",
    ),
    AGE,
    column(
      "Containers",
      "Names of each container in the template.",
      { priority: 1 },
    ),
    column(
      "Images",
      "Images referenced by each container in the template.",
      { priority: 1 },
    ),
    column(
      "Selector",
      "A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
      { priority: 1 },
    ),
  ];

  return {
    "apps/deployments": {
      columns: DEPLOYMENT_COLUMNS,
      cells: (o, now) => [
        name(o),
        `${n(o.status?.readyReplicas)}/${n(o.spec?.replicas)}`,
        n(o.status?.updatedReplicas),
        n(o.status?.availableReplicas),
        age(o.metadata?.creationTimestamp, now),
        ...containers(o.spec?.template),
        selector(o.spec?.selector),
      ],
    },
    "apps/replicasets": {
      columns: REPLICA_SET_COLUMNS,
      cells: (o, now) => [
        name(o),
        n(o.spec?.replicas),
        n(o.status?.replicas),
        n(o.status?.readyReplicas),
        age(o.metadata?.creationTimestamp, now),
        ...containers(o.spec?.template),
        selector(o.spec?.selector),
      ],
    },
    "apps/statefulsets": {
      columns: STATEFUL_SET_COLUMNS,
      cells: (o, now) => [
        name(o),
        `${n(o.status?.readyReplicas)}/${n(o.spec?.replicas)}`,
        age(o.metadata?.creationTimestamp, now),
        ...containers(o.spec?.template),
      ],
    },
    "apps/daemonsets": {
      columns: DAEMON_SET_COLUMNS,
      cells: (o, now) => [
        name(o),
        n(o.status?.desiredNumberScheduled),
        n(o.status?.currentNumberScheduled),
        n(o.status?.numberReady),
        n(o.status?.updatedNumberScheduled),
        n(o.status?.numberAvailable),
        selector(o.spec?.template?.spec?.nodeSelector),
        age(o.metadata?.creationTimestamp, now),
        ...containers(o.spec?.template),
        selector(o.spec?.selector),
      ],
    },
    "batch/jobs": {
      columns: JOB_COLUMNS,
      cells: (o, now) => {
        const start = Date.parse(str(o.status?.startTime));
        const end = Date.parse(str(o.status?.completionTime));
        const duration = Number.isNaN(start)
          ? ""
          : age(o.status?.startTime, Number.isNaN(end) ? now : end);
        const completions = o.spec?.completions;
        return [
          name(o),
          jobStatus(o),
          typeof completions === "number"
            ? `${n(o.status?.succeeded)}/${completions}`
            : `${n(o.status?.succeeded)}/1 of ${n(o.spec?.parallelism)}`,
          duration,
          age(o.metadata?.creationTimestamp, now),
          ...containers(o.spec?.template),
          selector(o.spec?.selector),
        ];
      },
    },
    "batch/cronjobs": {
      columns: CRON_JOB_COLUMNS,
      cells: (o, now) => [
        name(o),
        str(o.spec?.schedule),
        str(o.spec?.timeZone) || "<none>",
        o.spec?.suspend === true ? "True" : "False",
        list(o.status?.active).length,
        o.status?.lastScheduleTime
          ? age(o.status.lastScheduleTime, now)
          : "<none>",
        age(o.metadata?.creationTimestamp, now),
        ...containers(o.spec?.jobTemplate?.spec?.template),
        selector(o.spec?.jobTemplate?.spec?.selector),
      ],
    },
  };
}
