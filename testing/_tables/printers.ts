/**
 * Printers: the columns of each built-in kind, as the API server's printers
 * declare them, the default convertor (NAME, CREATED AT) for
 * CustomResourceDefinitions, and the custom resource convertor (NAME, then
 * the declared printer columns, else AGE) for everything else.
 *
 * @module
 */
import { rfc3339 } from "../../_internal/time.ts";
import type { PrinterColumn } from "../../resource/crd.ts";
import type { RegisteredResource } from "../types.ts";
import type {
  TableColumnDefinition,
  TableRowCondition,
} from "./table_types.ts";
import { evaluate, parsePath } from "./jsonpath.ts";
import { workloadPrinters } from "./printers_workloads.ts";
import {
  age,
  cell,
  count,
  eventCells,
  type Json,
  name,
  podCells,
  serviceCells,
  str,
} from "./cells.ts";

const NAME_DOC =
  "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
const CREATED_DOC =
  "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

function column(
  name: string,
  description: string,
  options: {
    type?: string | undefined;
    format?: string | undefined;
    priority?: number | undefined;
  } = {},
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

/** How one kind becomes rows: its columns and the cells of one object. */
export interface Printer {
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
  ...workloadPrinters(column, NAME, AGE),
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

/** The printer of a resource: built-in, or a custom resource's columns. */
export function printerFor(resource: RegisteredResource): Printer {
  const builtIn = BUILT_IN[`${resource.group}/${resource.resource}`];
  if (builtIn) return builtIn;
  const columns = resource.printerColumns?.length
    ? resource.printerColumns
    : DEFAULT_PRINTER_COLUMNS;
  return customPrinter(columns);
}
