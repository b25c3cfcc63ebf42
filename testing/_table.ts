/**
 * Server-side Tables: what the API server answers a `get`, `list` or `watch`
 * that asks for `application/json;as=Table;v=v1;g=meta.k8s.io`, as
 * `kubectl get` does. The columns and cells follow the API server's printers
 * for the built-in kinds, the default convertor (NAME, CREATED AT) for
 * CustomResourceDefinitions, and the custom resource convertor (NAME, then
 * the declared printer columns, else AGE) for everything else.
 *
 * @module
 */
import type { KubeObject, ObjectMeta, WatchEvent } from "../apiclient/types.ts";
import type { PrinterColumn, RegisteredResource } from "./_registry.ts";
import { badRequest } from "./_status.ts";

/** What a Table row carries as its object (`?includeObject=`). */
export type IncludeObject = "None" | "Metadata" | "Object";

/** One column of a Table (`metav1.TableColumnDefinition`). */
export interface TableColumnDefinition {
  /** Human-readable name, such as `Name`. */
  name: string;
  /** OpenAPI type of the cells, such as `string`. */
  type: string;
  /** OpenAPI format, such as `name`; `""` when none. */
  format: string;
  /** What the column shows. */
  description: string;
  /** 0: always shown; higher: only with `-o wide`. */
  priority: number;
}

/** One condition of a row (`metav1.TableRowCondition`). */
export interface TableRowCondition {
  /** Only `Completed` exists. */
  type: string;
  /** `True`, `False` or `Unknown`. */
  status: string;
  /** Machine-readable reason. */
  reason?: string;
  /** Human-readable message. */
  message?: string;
}

/** One row of a Table (`metav1.TableRow`). */
export interface TableRow {
  /** One cell per column: a string, number, boolean or `null`. */
  cells: unknown[];
  /** Row conditions, such as a completed Pod's. */
  conditions?: TableRowCondition[];
  /** The object, its metadata, or `null`, per `includeObject`. */
  object: unknown;
}

/** A Table (`meta.k8s.io/v1` Table). */
export interface Table {
  /** Always `Table`. */
  kind: "Table";
  /** `meta.k8s.io/v1` or `meta.k8s.io/v1beta1`. */
  apiVersion: string;
  /** resourceVersion, and for lists continue and remainingItemCount. */
  metadata: Record<string, unknown>;
  /** The columns; `null` on watch events after the first. */
  columnDefinitions: TableColumnDefinition[] | null;
  /** One row per object. */
  rows: TableRow[];
}

/** The Table group/versions the server converts to. */
const TABLE_VERSIONS = ["v1", "v1beta1"];

/**
 * The Table apiVersion an `Accept` header asks for, or `undefined` when the
 * first clause the fake can answer is plain JSON (or nothing matches: the
 * fake then answers JSON as it always did). Clauses are tried by `q`, then
 * in order, as the API server's negotiation does.
 */
export function negotiateTable(accept: string | null): string | undefined {
  if (!accept) return undefined;
  const clauses = accept.split(",").map((clause, index) => {
    const [type = "", ...rest] = clause.split(";").map((p) => p.trim());
    const params = new Map<string, string>();
    for (const param of rest) {
      const eq = param.indexOf("=");
      if (eq < 0) continue;
      params.set(
        param.slice(0, eq).trim().toLowerCase(),
        param.slice(eq + 1).trim().replace(/^"(.*)"$/, "$1"),
      );
    }
    const q = Number(params.get("q") ?? "1");
    return {
      type: type.toLowerCase(),
      params,
      q: Number.isNaN(q) ? 0 : q,
      index,
    };
  }).sort((a, b) => b.q - a.q || a.index - b.index);
  for (const { type, params, q } of clauses) {
    if (q <= 0) continue;
    const json = type === "application/json" || type === "application/*" ||
      type === "*/*";
    if (!json) continue;
    const as = params.get("as");
    if (as === undefined) return undefined;
    const version = params.get("v") ?? "";
    if (
      as === "Table" && params.get("g") === "meta.k8s.io" &&
      TABLE_VERSIONS.includes(version)
    ) {
      return `meta.k8s.io/${version}`;
    }
    // Another conversion (PartialObjectMetadata...): the fake has none; try
    // the next clause.
  }
  return undefined;
}

// ------------------------------------------------------------------ columns

const NAME_DOC =
  "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
const CREATED_DOC =
  "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

function column(
  name: string,
  description: string,
  options: { type?: string; format?: string; priority?: number } = {},
): TableColumnDefinition {
  return {
    name,
    type: options.type ?? "string",
    format: options.format ?? "",
    description,
    priority: options.priority ?? 0,
  };
}

const NAME = column("Name", NAME_DOC, { format: "name" });
const AGE = column("Age", CREATED_DOC);

// deno-lint-ignore no-explicit-any
type Json = any;

/** How one kind becomes rows: its columns and the cells of one object. */
interface Printer {
  columns: readonly TableColumnDefinition[];
  cells(object: Json, now: number): unknown[];
  conditions?(object: Json): TableRowCondition[] | undefined;
}

const CONFIG_MAP: Printer = {
  columns: [
    NAME,
    column(
      "Data",
      "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.",
    ),
    AGE,
  ],
  cells: (o, now) => [
    name(o),
    count(o.data) + count(o.binaryData),
    age(o.metadata?.creationTimestamp, now),
  ],
};

const SECRET: Printer = {
  columns: [
    NAME,
    column(
      "Type",
      "Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types",
    ),
    column(
      "Data",
      "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4",
    ),
    AGE,
  ],
  cells: (o, now) => [
    name(o),
    // The API server defaults an absent type to Opaque on create.
    str(o.type) || "Opaque",
    count(o.data),
    age(o.metadata?.creationTimestamp, now),
  ],
};

const NAMESPACE: Printer = {
  columns: [NAME, column("Status", "The status of the namespace"), AGE],
  cells: (o, now) => [
    name(o),
    str(o.status?.phase),
    age(o.metadata?.creationTimestamp, now),
  ],
};

const POD: Printer = {
  columns: [
    NAME,
    column(
      "Ready",
      "The aggregate readiness state of this pod for accepting traffic.",
    ),
    column("Status", "The aggregate status of the containers in this pod."),
    column(
      "Restarts",
      "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.",
    ),
    AGE,
    column(
      "IP",
      "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.",
      { priority: 1 },
    ),
    column(
      "Node",
      "NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for preemption by the scheduler.",
      { priority: 1 },
    ),
    column(
      "Nominated Node",
      "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods.",
      { priority: 1 },
    ),
    column(
      "Readiness Gates",
      'If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its containers are ready AND all conditions specified in the readiness gates have status equal to "True" More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates',
      { priority: 1 },
    ),
  ],
  cells: podCells,
  conditions: (o) => {
    const phase = o.status?.phase;
    if (phase === "Succeeded") {
      return [{
        type: "Completed",
        status: "True",
        reason: "Succeeded",
        message: "The pod has completed successfully.",
      }];
    }
    if (phase === "Failed") {
      return [{
        type: "Completed",
        status: "True",
        reason: "Failed",
        message: "The pod failed.",
      }];
    }
    return undefined;
  },
};

const SERVICE: Printer = {
  columns: [
    NAME,
    column(
      "Type",
      "type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and LoadBalancer.",
    ),
    column(
      "Cluster-IP",
      "clusterIP is the IP address of the service and is usually assigned randomly.",
    ),
    column(
      "External-IP",
      "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.",
    ),
    column(
      "Port(s)",
      "The list of ports that are exposed by this service. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies",
    ),
    AGE,
    column(
      "Selector",
      "Route service traffic to pods with label keys and values matching this selector.",
      { priority: 1 },
    ),
  ],
  cells: serviceCells,
};

const EVENT: Printer = {
  columns: [
    column(
      "Last Seen",
      "The time at which the most recent occurrence of this event was recorded.",
    ),
    column(
      "Type",
      "Type of this event (Normal, Warning), new types could be added in the future",
    ),
    column(
      "Reason",
      "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
    ),
    column(
      "Object",
      "regarding contains the object this Event is about. In most cases it's an Object reporting controller implements, e.g. ReplicaSetController implements ReplicaSets and this event is emitted because it acts on some changes in a ReplicaSet object.",
    ),
    column(
      "Subobject",
      "If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2].",
      { priority: 1 },
    ),
    column(
      "Source",
      "The component reporting this event. Should be a short machine understandable string.",
      { priority: 1 },
    ),
    column(
      "Message",
      "A human-readable description of the status of this operation.",
    ),
    column(
      "First Seen",
      "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)",
      { priority: 1 },
    ),
    column("Count", "The number of times this event has occurred.", {
      priority: 1,
    }),
    column("Name", NAME_DOC, { priority: 1, format: "name" }),
  ],
  cells: eventCells,
};

const LEASE: Printer = {
  columns: [
    NAME,
    column(
      "Holder",
      "holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field.",
    ),
    AGE,
  ],
  cells: (o, now) => [
    name(o),
    str(o.spec?.holderIdentity),
    age(o.metadata?.creationTimestamp, now),
  ],
};

/** The API server's default convertor, as CustomResourceDefinitions use. */
const DEFAULT: Printer = {
  columns: [NAME, column("Created At", CREATED_DOC, { type: "date" })],
  cells: (o) => {
    const at = Date.parse(str(o.metadata?.creationTimestamp));
    return [
      name(o),
      Number.isNaN(at) ? "0001-01-01T00:00:00Z" : rfc3339(at),
    ];
  },
};

const BUILT_IN: Readonly<Record<string, Printer>> = {
  "/configmaps": CONFIG_MAP,
  "/secrets": SECRET,
  "/namespaces": NAMESPACE,
  "/pods": POD,
  "/services": SERVICE,
  "/events": EVENT,
  "coordination.k8s.io/leases": LEASE,
  "apiextensions.k8s.io/customresourcedefinitions": DEFAULT,
};

/** A CustomResourceDefinition without printer columns gets this one. */
const DEFAULT_PRINTER_COLUMNS: readonly PrinterColumn[] = [
  { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
];

/** The custom resource convertor: NAME, then each printer column. */
function customPrinter(columns: readonly PrinterColumn[]): Printer {
  const paths = columns.map((c) => parsePath(c.jsonPath));
  return {
    columns: [
      NAME,
      ...columns.map((c) =>
        column(
          c.name,
          c.description ||
            `Custom resource definition column (in JSONPath format): ${c.jsonPath}`,
          { type: c.type, format: c.format ?? "", priority: c.priority ?? 0 },
        )
      ),
    ],
    cells: (o, now) => [
      name(o),
      ...columns.map((c, i) => {
        const path = paths[i];
        if (path === undefined) return null;
        const found = evaluate(path, o);
        return found.length === 0 ? null : cell(c.type, found[0], now);
      }),
    ],
  };
}

function printerFor(resource: RegisteredResource): Printer {
  const builtIn = BUILT_IN[`${resource.group}/${resource.resource}`];
  if (builtIn) return builtIn;
  const columns = resource.printerColumns?.length
    ? resource.printerColumns
    : DEFAULT_PRINTER_COLUMNS;
  return customPrinter(columns);
}

// --------------------------------------------------------------------- cells

function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function name(object: Json): string {
  return str(object?.metadata?.name);
}

function count(map: unknown): number {
  return typeof map === "object" && map !== null ? Object.keys(map).length : 0;
}

function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/**
 * A duration with two or three significant figures, as the API server's
 * `duration.HumanDuration` writes it.
 */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${days}d` : `${days}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) {
    const d = days % 365;
    return d === 0 ? `${years}y` : `${years}y${d}d`;
  }
  return `${years}y`;
}

/** The age of a timestamp, or `<unknown>` when it is absent. */
function age(timestamp: unknown, now: number): string {
  const at = typeof timestamp === "string" ? Date.parse(timestamp) : NaN;
  if (Number.isNaN(at) || at <= Date.UTC(1, 0, 1)) return "<unknown>";
  return humanDuration(now - at);
}

// deno-lint-ignore no-explicit-any
function list(value: unknown): any[] {
  return Array.isArray(value) ? value : [];
}

function podCells(pod: Json, now: number): unknown[] {
  const spec = pod.spec ?? {};
  const status = pod.status ?? {};
  const conditions = list(status.conditions);
  let restarts = 0;
  let restartableRestarts = 0;
  let total = list(spec.containers).length;
  let ready = 0;
  let lastRestart = 0;
  let lastRestartableRestart = 0;
  const phase = str(status.phase);
  let reason = str(status.reason) || phase;
  for (const condition of conditions) {
    if (
      condition?.type === "PodScheduled" &&
      condition?.reason === "SchedulingGated"
    ) reason = "SchedulingGated";
  }
  const initSpecs = new Map<string, Json>();
  const restartable = (name: string) =>
    initSpecs.get(name)?.restartPolicy === "Always";
  for (const init of list(spec.initContainers)) {
    initSpecs.set(init?.name, init);
    if (init?.restartPolicy === "Always") total++;
  }
  const finishedAt = (c: Json): number => {
    const at = Date.parse(str(c?.lastState?.terminated?.finishedAt));
    return Number.isNaN(at) ? 0 : at;
  };
  let initializing = false;
  const inits = list(status.initContainerStatuses);
  for (let i = 0; i < inits.length; i++) {
    const c = inits[i];
    restarts += c?.restartCount ?? 0;
    if (c?.lastState?.terminated) {
      lastRestart = Math.max(lastRestart, finishedAt(c));
    }
    if (restartable(c?.name)) {
      restartableRestarts += c?.restartCount ?? 0;
      if (c?.lastState?.terminated) {
        lastRestartableRestart = Math.max(
          lastRestartableRestart,
          finishedAt(c),
        );
      }
    }
    const terminated = c?.state?.terminated;
    const waiting = c?.state?.waiting;
    if (terminated && (terminated.exitCode ?? 0) === 0) continue;
    if (restartable(c?.name) && c?.started === true) {
      if (c?.ready) ready++;
      continue;
    }
    if (terminated) {
      reason = terminated.reason
        ? `Init:${terminated.reason}`
        : terminated.signal
        ? `Init:Signal:${terminated.signal}`
        : `Init:ExitCode:${terminated.exitCode ?? 0}`;
    } else if (waiting?.reason && waiting.reason !== "PodInitializing") {
      reason = `Init:${waiting.reason}`;
    } else {
      reason = `Init:${i}/${list(spec.initContainers).length}`;
    }
    initializing = true;
    break;
  }
  const initialized = conditions.some((c) =>
    c?.type === "Initialized" && c?.status === "True"
  );
  if (!initializing || initialized) {
    restarts = restartableRestarts;
    lastRestart = lastRestartableRestart;
    let running = false;
    const containers = list(status.containerStatuses);
    for (let i = containers.length - 1; i >= 0; i--) {
      const c = containers[i];
      restarts += c?.restartCount ?? 0;
      if (c?.lastState?.terminated) {
        lastRestart = Math.max(lastRestart, finishedAt(c));
      }
      const waiting = c?.state?.waiting;
      const terminated = c?.state?.terminated;
      if (waiting?.reason) reason = waiting.reason;
      else if (terminated?.reason) reason = terminated.reason;
      else if (terminated) {
        reason = terminated.signal
          ? `Signal:${terminated.signal}`
          : `ExitCode:${terminated.exitCode ?? 0}`;
      } else if (c?.ready && c?.state?.running) {
        running = true;
        ready++;
      }
    }
    if (reason === "Completed" && running) {
      reason = conditions.some((c) =>
          c?.type === "Ready" && c?.status === "True"
        )
        ? "Running"
        : "NotReady";
    }
  }
  if (pod.metadata?.deletionTimestamp && status.reason === "NodeLost") {
    reason = "Unknown";
  } else if (
    pod.metadata?.deletionTimestamp && phase !== "Succeeded" &&
    phase !== "Failed"
  ) {
    reason = "Terminating";
  }
  const restartText = restarts !== 0 && lastRestart > 0
    ? `${restarts} (${humanDuration(now - lastRestart)} ago)`
    : String(restarts);
  const gates = list(spec.readinessGates);
  let readinessGates = "<none>";
  if (gates.length > 0) {
    let met = 0;
    for (const gate of gates) {
      const condition = conditions.find((c) => c?.type === gate?.conditionType);
      if (condition?.status === "True") met++;
    }
    readinessGates = `${met}/${gates.length}`;
  }
  return [
    name(pod),
    `${ready}/${total}`,
    reason,
    restartText,
    age(pod.metadata?.creationTimestamp, now),
    str(list(status.podIPs)[0]?.ip) || "<none>",
    str(spec.nodeName) || "<none>",
    str(status.nominatedNodeName) || "<none>",
    readinessGates,
  ];
}

function serviceCells(service: Json, now: number): unknown[] {
  const spec = service.spec ?? {};
  // The API server defaults type to ClusterIP and each protocol to TCP.
  const type = str(spec.type) || "ClusterIP";
  const clusterIP = str(list(spec.clusterIPs)[0]) || str(spec.clusterIP) ||
    "<none>";
  const externalIPs = list(spec.externalIPs).map(String);
  let external: string;
  switch (type) {
    case "ClusterIP":
    case "NodePort":
      external = externalIPs.length > 0 ? externalIPs.join(",") : "<none>";
      break;
    case "LoadBalancer": {
      const ingress = [
        ...new Set(
          list(service.status?.loadBalancer?.ingress)
            .map((i) => str(i?.ip) || str(i?.hostname))
            .filter((i) => i !== ""),
        ),
      ].sort();
      const all = [...ingress, ...externalIPs];
      external = all.length > 0 ? all.join(",") : "<pending>";
      break;
    }
    case "ExternalName":
      external = str(spec.externalName);
      break;
    default:
      external = "<unknown>";
  }
  const ports = list(spec.ports).map((p) => {
    const protocol = str(p?.protocol) || "TCP";
    return p?.nodePort > 0
      ? `${p.port}:${p.nodePort}/${protocol}`
      : `${p?.port ?? 0}/${protocol}`;
  }).join(",");
  return [
    name(service),
    type,
    clusterIP,
    external,
    ports || "<none>",
    age(service.metadata?.creationTimestamp, now),
    formatLabels(spec.selector),
  ];
}

/** `labels.FormatLabels`: sorted `k=v` pairs, or `<none>`. */
function formatLabels(labels: unknown): string {
  if (typeof labels !== "object" || labels === null) return "<none>";
  const pairs = Object.entries(labels as Record<string, unknown>)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`);
  return pairs.length > 0 ? pairs.join(",") : "<none>";
}

function eventCells(event: Json, now: number): unknown[] {
  let first = age(event.firstTimestamp, now);
  if (!event.firstTimestamp) first = age(event.eventTime, now);
  let last = event.lastTimestamp ? age(event.lastTimestamp, now) : first;
  let count = typeof event.count === "number" ? event.count : 0;
  if (event.series) {
    last = age(event.series.lastObservedTime, now);
    count = event.series.count ?? 0;
  } else if (count === 0) {
    // Singleton events of the events.k8s.io API set no count.
    count = 1;
  }
  const involved = event.involvedObject ?? {};
  const kind = str(involved.kind).toLowerCase();
  const target = involved.name ? `${kind}/${involved.name}` : kind;
  const component = str(event.source?.component) ||
    str(event.reportingComponent);
  const instance = str(event.source?.host) || str(event.reportingInstance);
  return [
    last,
    str(event.type),
    str(event.reason),
    target,
    str(involved.fieldPath),
    instance ? `${component}, ${instance}` : component,
    str(event.message).trim(),
    first,
    count,
    name(event),
  ];
}

/** A custom column's cell, as the API server's CRD convertor makes it. */
function cell(type: string, value: unknown, now: number): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case "string":
      if (typeof value === "string") return value;
      if (typeof value === "object") return JSON.stringify(value);
      return String(value);
    case "integer":
      return typeof value === "number" ? Math.trunc(value) : null;
    case "number":
      return typeof value === "number" ? value : null;
    case "boolean":
      return typeof value === "boolean" ? value : null;
    case "date": {
      if (typeof value !== "string") return null;
      const at = Date.parse(value);
      return Number.isNaN(at) ? "<invalid>" : humanDuration(now - at);
    }
    default:
      return null;
  }
}

// ----------------------------------------------------------------- JSONPath

type Step =
  | { kind: "field"; name: string }
  | { kind: "index"; index: number }
  | { kind: "all" }
  | { kind: "filter"; path: Step[]; op?: string; value?: unknown };

/**
 * Parses the simple JSONPath printer columns use: `.a.b`, `.a\.b` (a dot in
 * a key), `['a.b']`, `[0]`, `[-1]`, `[*]`, and filters such as
 * `[?(@.type=="Ready")]`. Answers `undefined` for anything else, as the API
 * server answers an empty cell for a path it cannot read.
 */
function parsePath(text: string): Step[] | undefined {
  let path = text.trim();
  if (path.startsWith("{") && path.endsWith("}")) path = path.slice(1, -1);
  if (path.startsWith("$")) path = path.slice(1);
  if (path.startsWith("@")) path = path.slice(1);
  const steps: Step[] = [];
  let i = 0;
  while (i < path.length) {
    const ch = path[i];
    if (ch === ".") {
      i++;
      let name = "";
      while (i < path.length && path[i] !== "." && path[i] !== "[") {
        if (path[i] === "\\" && i + 1 < path.length) i++;
        name += path[i];
        i++;
      }
      if (name === "") return undefined;
      steps.push(name === "*" ? { kind: "all" } : { kind: "field", name });
    } else if (ch === "[") {
      const end = closing(path, i);
      if (end < 0) return undefined;
      const inner = path.slice(i + 1, end).trim();
      i = end + 1;
      if (inner === "*") steps.push({ kind: "all" });
      else if (/^-?\d+$/.test(inner)) {
        steps.push({ kind: "index", index: Number(inner) });
      } else if (/^'.*'$|^".*"$/.test(inner)) {
        steps.push({ kind: "field", name: inner.slice(1, -1) });
      } else if (inner.startsWith("?(") && inner.endsWith(")")) {
        const filter = parseFilter(inner.slice(2, -1));
        if (!filter) return undefined;
        steps.push(filter);
      } else return undefined;
    } else return undefined;
  }
  return steps;
}

function closing(path: string, open: number): number {
  let quote: string | undefined;
  for (let i = open + 1; i < path.length; i++) {
    const ch = path[i];
    if (quote) {
      if (ch === quote) quote = undefined;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === "]") return i;
  }
  return -1;
}

function parseFilter(text: string): Step | undefined {
  const match = /^\s*(@[^=!<>\s]*)\s*(?:(==|!=|<=|>=|<|>)\s*(.+?))?\s*$/.exec(
    text,
  );
  if (!match) return undefined;
  const path = parsePath(match[1]!);
  if (!path) return undefined;
  if (match[2] === undefined) return { kind: "filter", path };
  const literal = match[3]!;
  let value: unknown;
  if (/^'.*'$|^".*"$/.test(literal)) value = literal.slice(1, -1);
  else if (literal === "true" || literal === "false") {
    value = literal === "true";
  } else if (literal === "nil" || literal === "null") value = null;
  else if (!Number.isNaN(Number(literal))) value = Number(literal);
  else return undefined;
  return { kind: "filter", path, op: match[2], value };
}

function evaluate(steps: readonly Step[], root: unknown): unknown[] {
  let current: unknown[] = [root];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const value of current) {
      if (step.kind === "field") {
        if (isRecord(value) && step.name in value) next.push(value[step.name]);
      } else if (step.kind === "index") {
        if (!Array.isArray(value)) continue;
        const at = step.index < 0 ? value.length + step.index : step.index;
        if (at >= 0 && at < value.length) next.push(value[at]);
      } else if (step.kind === "all") {
        if (Array.isArray(value)) next.push(...value);
        else if (isRecord(value)) next.push(...Object.values(value));
      } else {
        const items = Array.isArray(value)
          ? value
          : isRecord(value)
          ? Object.values(value)
          : [];
        for (const item of items) {
          const found = evaluate(step.path, item);
          if (step.op === undefined) {
            if (found.length > 0) next.push(item);
          } else if (
            found.length > 0 && compare(found[0], step.op, step.value)
          ) next.push(item);
        }
      }
    }
    current = next;
  }
  return current;
}

function compare(left: unknown, op: string, right: unknown): boolean {
  switch (op) {
    case "==":
      return left === right;
    case "!=":
      return left !== right;
  }
  if (typeof left !== "number" || typeof right !== "number") return false;
  switch (op) {
    case "<":
      return left < right;
    case ">":
      return left > right;
    case "<=":
      return left <= right;
    default:
      return left >= right;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// ------------------------------------------------------------------ encoder

/**
 * Turns the answers of one request into Tables for one resource: a list, an
 * object, or each event of a watch (where only the first carries the
 * column definitions, as the API server's watch encoder does).
 */
export class TableEncoder {
  /** The Table's apiVersion, `meta.k8s.io/v1` or `meta.k8s.io/v1beta1`. */
  readonly apiVersion: string;
  /** What each row carries as its object. */
  readonly includeObject: IncludeObject;
  #printer: Printer;
  #headers = true;

  /** An encoder for `resource`, answering Tables of `apiVersion`. */
  constructor(
    resource: RegisteredResource,
    options: { apiVersion: string; includeObject?: IncludeObject },
  ) {
    this.apiVersion = options.apiVersion;
    this.includeObject = options.includeObject ?? "Metadata";
    this.#printer = printerFor(resource);
  }

  /**
   * The encoder a request asks for by its `Accept` header and
   * `includeObject` query parameter, or `undefined` for plain JSON.
   * Throws the API server's 400 for an unknown `includeObject`.
   */
  static negotiate(
    resource: RegisteredResource,
    request: { accept: string | null; query: URLSearchParams },
  ): TableEncoder | undefined {
    const apiVersion = negotiateTable(request.accept);
    if (apiVersion === undefined) return undefined;
    const include = request.query.get("includeObject") ?? "";
    if (!["", "None", "Metadata", "Object"].includes(include)) {
      throw badRequest(
        `Unable to convert to Table as requested: includeObject: Invalid value: "${include}": must be 'Metadata', 'Object', 'None', or empty`,
      );
    }
    return new TableEncoder(resource, {
      apiVersion,
      includeObject: (include || "Metadata") as IncludeObject,
    });
  }

  /** The Table of a list: one row per item, the list's metadata. */
  list(
    list: { metadata?: Record<string, unknown>; items: KubeObject[] },
  ): Table {
    const metadata: Record<string, unknown> = {};
    for (const key of ["resourceVersion", "continue", "remainingItemCount"]) {
      if (list.metadata?.[key] !== undefined) {
        metadata[key] = list.metadata[key];
      }
    }
    return this.#table(metadata, list.items);
  }

  /** The Table of one object: one row, the object's resourceVersion. */
  object(object: KubeObject): Table {
    const metadata: Record<string, unknown> = {};
    const rv = object.metadata?.resourceVersion;
    if (rv) metadata.resourceVersion = rv;
    return this.#table(metadata, [object]);
  }

  /**
   * A watch event with its object as a one-row Table; a Status (an ERROR
   * event) passes unchanged. Only the first event carries the columns.
   */
  event(event: WatchEvent): { type: string; object: unknown } {
    const object = event.object as KubeObject;
    const status = object?.kind === "Status" && object.apiVersion === "v1";
    const out = status
      ? event
      : { type: event.type, object: this.object(object) };
    this.#headers = false;
    return out;
  }

  #table(metadata: Record<string, unknown>, objects: KubeObject[]): Table {
    const now = Date.now();
    const rows = objects.map((object) => {
      const row: TableRow = {
        cells: this.#printer.cells(object, now),
        object: this.#rowObject(object),
      };
      const conditions = this.#printer.conditions?.(object);
      if (conditions) {
        return { cells: row.cells, conditions, object: row.object };
      }
      return row;
    });
    return {
      kind: "Table",
      apiVersion: this.apiVersion,
      metadata,
      columnDefinitions: this.#headers ? [...this.#printer.columns] : null,
      rows,
    };
  }

  #rowObject(object: KubeObject): unknown {
    switch (this.includeObject) {
      case "None":
        return null;
      case "Object":
        return object;
      default:
        return {
          kind: "PartialObjectMetadata",
          apiVersion: this.apiVersion,
          metadata: object.metadata ?? ({} as ObjectMeta),
        };
    }
  }
}
