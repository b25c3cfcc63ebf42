/**
 * The resources the fake API server knows, shared by its router, its store
 * and its discovery documents.
 *
 * @module
 */

import type { PrinterColumn } from "../resource/crd.ts";
import type { RegisteredResource, ResourceRegistration } from "./types.ts";

/** The resource types, declared in `types.ts`. */
export type { PrinterColumn, RegisteredResource };

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
    generation: false,
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
    generation: false,
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
    generation: false,
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
    generation: true,
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
    generation: false,
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
    generation: false,
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
    generation: false,
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
    generation: true,
    shortNames: ["crd", "crds"],
    verbs: ALL_VERBS,
  },
  ...["Validating", "Mutating"].map((kind) => ({
    group: "admissionregistration.k8s.io",
    version: "v1",
    resource: `${kind.toLowerCase()}webhookconfigurations`,
    kind: `${kind}WebhookConfiguration`,
    listKind: `${kind}WebhookConfigurationList`,
    namespaced: false,
    statusSubresource: false,
    generation: true,
    verbs: ALL_VERBS,
  })),
].map((r) => Object.freeze(r)));

/** The resource a definition declares, with its defaults filled in. */
export function registeredResource(
  definition: ResourceRegistration,
): RegisteredResource {
  const resource: RegisteredResource = {
    group: definition.group ?? "",
    version: definition.version,
    resource: definition.resource,
    kind: definition.kind,
    listKind: definition.listKind ?? `${definition.kind}List`,
    namespaced: definition.namespaced ?? true,
    statusSubresource: definition.statusSubresource ?? false,
    // Custom resources always carry one.
    generation: true,
    verbs: ALL_VERBS,
  };
  if (definition.shortNames) resource.shortNames = definition.shortNames;
  if (definition.listTypes) {
    resource.listTypes = Object.freeze(Object.fromEntries(
      Object.entries(definition.listTypes).map(([path, type]) => [
        path,
        typeof type === "string" ? type : Object.freeze([...type]),
      ]),
    ));
  }
  if (definition.printerColumns) {
    resource.printerColumns = Object.freeze(
      definition.printerColumns.map((c) => Object.freeze({ ...c })),
    );
  }
  return resource;
}
