/**
 * The resources the fake API server knows, shared by its router, its store
 * and its discovery documents.
 *
 * @module
 */

import type { PrinterColumn } from "../../resource/crd.ts";
import type { RegisteredResource, ResourceRegistration } from "../types.ts";
import { type DiscoveredResource, RESOURCE_LISTS } from "../_builtins/data.ts";

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

/**
 * The built-in resources whose objects carry `metadata.generation`, by
 * `group/resource`: recorded from kube-apiserver 1.37 (a minimal create of
 * each, `builtin-defaults` and `builtin-cluster-defaults`), plus
 * `replicationcontrollers`, `validatingadmissionpolicybindings` and
 * `resourceslices`, whose strategies set it as their siblings' do, and the
 * mutating admission policies and bindings (`mutating-admission-policies`).
 */
const GENERATION: ReadonlySet<string> = new Set([
  "/pods",
  "/replicationcontrollers",
  "apps/deployments",
  "apps/statefulsets",
  "apps/daemonsets",
  "apps/replicasets",
  "batch/jobs",
  "batch/cronjobs",
  "autoscaling/horizontalpodautoscalers",
  "policy/poddisruptionbudgets",
  "networking.k8s.io/ingresses",
  "networking.k8s.io/ingressclasses",
  "networking.k8s.io/networkpolicies",
  "scheduling.k8s.io/priorityclasses",
  "flowcontrol.apiserver.k8s.io/flowschemas",
  "flowcontrol.apiserver.k8s.io/prioritylevelconfigurations",
  "admissionregistration.k8s.io/validatingadmissionpolicies",
  "admissionregistration.k8s.io/validatingadmissionpolicybindings",
  "admissionregistration.k8s.io/mutatingadmissionpolicies",
  "admissionregistration.k8s.io/mutatingadmissionpolicybindings",
  "admissionregistration.k8s.io/validatingwebhookconfigurations",
  "admissionregistration.k8s.io/mutatingwebhookconfigurations",
  "apiextensions.k8s.io/customresourcedefinitions",
  "resource.k8s.io/deviceclasses",
  "resource.k8s.io/resourceslices",
]);

/** The recorded discovery entries of each built-in resource (itself and its subresources). */
const DISCOVERED = new WeakMap<
  RegisteredResource,
  readonly DiscoveredResource[]
>();

/** The built-in resources of one group-version, from its recorded list. */
function builtIns(groupVersion: string): RegisteredResource[] {
  const [group, version] = groupVersion.includes("/")
    ? groupVersion.split("/") as [string, string]
    : ["", groupVersion];
  const entries = RESOURCE_LISTS[groupVersion]!;
  const out: RegisteredResource[] = [];
  for (const entry of entries) {
    if (entry.name.includes("/")) continue;
    const own = entries.filter((e) =>
      e === entry || e.name.startsWith(`${entry.name}/`)
    );
    const resource: RegisteredResource = {
      group,
      version,
      resource: entry.name,
      kind: entry.kind,
      listKind: `${entry.kind}List`,
      namespaced: entry.namespaced,
      statusSubresource: own.some((e) => e.name === `${entry.name}/status`),
      generation: GENERATION.has(`${group}/${entry.name}`),
      verbs: Object.freeze([...entry.verbs]),
    };
    if (entry.shortNames) {
      resource.shortNames = Object.freeze([...entry.shortNames]);
    }
    Object.freeze(resource);
    DISCOVERED.set(resource, own);
    out.push(resource);
  }
  return out;
}

/**
 * The resources a new fake server serves before any `register()` call:
 * every resource of the recorded discovery of kube-apiserver 1.37 (a
 * default server: no alpha or beta versions).
 */
export const BUILT_IN_RESOURCES: readonly RegisteredResource[] = Object.freeze(
  Object.keys(RESOURCE_LISTS).flatMap(builtIns),
);

/**
 * The discovery entries of a built-in resource as recorded (its own and
 * its subresources'), or `undefined` for a registered one.
 */
export function discovered(
  resource: RegisteredResource,
): readonly DiscoveredResource[] | undefined {
  return DISCOVERED.get(resource);
}

/** The built-in resource of `group`, `version` and `resource`, if any. */
export function builtIn(
  group: string,
  version: string,
  resource: string,
): RegisteredResource | undefined {
  return BUILT_IN_RESOURCES.find((r) =>
    r.group === group && r.version === version && r.resource === resource
  );
}

/** Whether the built-in `resource` has the subresource `name` (`scale`, `eviction`, ...). */
export function hasSubresource(
  resource: RegisteredResource,
  name: string,
): boolean {
  return DISCOVERED.get(resource)?.some((e) =>
    e.name === `${resource.resource}/${name}`
  ) ?? false;
}

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
