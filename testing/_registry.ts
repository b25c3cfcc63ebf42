/**
 * The resources the fake API server knows, shared by its router, its store
 * and its discovery documents.
 *
 * @module
 */

/**
 * One column a resource adds to the Table the server answers `kubectl get`
 * with, as a CustomResourceDefinition's `additionalPrinterColumns` declares it.
 */
export interface PrinterColumn {
  /** The column's name, such as `Size`; kubectl prints it upper-cased. */
  name: string;
  /**
   * The OpenAPI type of the cell: `string`, `integer`, `number`, `boolean`,
   * or `date` (a timestamp, answered as an age such as `5m`).
   */
  type: string;
  /** A simple JSONPath into the object, such as `.spec.size`. */
  jsonPath: string;
  /** What the column shows. Default: a description naming the path. */
  description?: string;
  /** 0 (default) shows the column always; higher only with `-o wide`. */
  priority?: number;
  /** An OpenAPI format for the cell, such as `name`. Default none. */
  format?: string;
}

/** One resource the fake API server serves (one entry of discovery). */
export interface RegisteredResource {
  /** API group; `""` for the core group (`/api/v1`). */
  group: string;
  /** API version, such as `v1`. */
  version: string;
  /** Plural resource name used in paths, such as `configmaps`. */
  resource: string;
  /** Kind of one object, such as `ConfigMap`. */
  kind: string;
  /** Kind of a list of objects, such as `ConfigMapList`. */
  listKind: string;
  /** Whether objects live in a namespace. */
  namespaced: boolean;
  /** Whether the resource has a `/status` subresource. */
  statusSubresource: boolean;
  /** Short names kubectl accepts, such as `cm`. */
  shortNames?: readonly string[];
  /** The verbs the resource supports, as discovery lists them. */
  verbs: readonly string[];
  /**
   * The columns `kubectl get` shows after NAME, for a resource without
   * built-in columns; absent: one AGE column, as for a custom resource
   * whose definition declares none.
   */
  printerColumns?: readonly PrinterColumn[];
}

/** The verbs every resource of the fake supports. */
export const ALL_VERBS: readonly string[] = Object.freeze([
  "create",
  "delete",
  "deletecollection",
  "get",
  "list",
  "patch",
  "update",
  "watch",
]);

/** The resources a new fake server serves before any `register()` call. */
export const BUILT_IN_RESOURCES: readonly RegisteredResource[] = Object.freeze([
  {
    group: "",
    version: "v1",
    resource: "namespaces",
    kind: "Namespace",
    listKind: "NamespaceList",
    namespaced: false,
    statusSubresource: true,
    shortNames: ["ns"],
    verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
  },
  {
    group: "",
    version: "v1",
    resource: "configmaps",
    kind: "ConfigMap",
    listKind: "ConfigMapList",
    namespaced: true,
    statusSubresource: false,
    shortNames: ["cm"],
    verbs: ALL_VERBS,
  },
  {
    group: "",
    version: "v1",
    resource: "secrets",
    kind: "Secret",
    listKind: "SecretList",
    namespaced: true,
    statusSubresource: false,
    verbs: ALL_VERBS,
  },
  {
    group: "",
    version: "v1",
    resource: "pods",
    kind: "Pod",
    listKind: "PodList",
    namespaced: true,
    statusSubresource: true,
    shortNames: ["po"],
    verbs: ALL_VERBS,
  },
  {
    group: "",
    version: "v1",
    resource: "services",
    kind: "Service",
    listKind: "ServiceList",
    namespaced: true,
    statusSubresource: true,
    shortNames: ["svc"],
    verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
  },
  {
    group: "",
    version: "v1",
    resource: "events",
    kind: "Event",
    listKind: "EventList",
    namespaced: true,
    statusSubresource: false,
    shortNames: ["ev"],
    verbs: ALL_VERBS,
  },
  {
    group: "coordination.k8s.io",
    version: "v1",
    resource: "leases",
    kind: "Lease",
    listKind: "LeaseList",
    namespaced: true,
    statusSubresource: false,
    verbs: ALL_VERBS,
  },
  {
    group: "apiextensions.k8s.io",
    version: "v1",
    resource: "customresourcedefinitions",
    kind: "CustomResourceDefinition",
    listKind: "CustomResourceDefinitionList",
    namespaced: false,
    statusSubresource: true,
    shortNames: ["crd", "crds"],
    verbs: ALL_VERBS,
  },
].map((r) => Object.freeze(r)));
