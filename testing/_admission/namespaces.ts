/**
 * Namespaces as kube-apiserver and its namespace controller treat them: the
 * NamespaceLifecycle admission plugin (no new content in a namespace that is
 * absent or terminating; `default`, `kube-system` and `kube-public` are
 * never deleted) and a deletion in two steps (the Namespace is marked
 * Terminating; the controller removes its contents, writes its conditions,
 * drops the `kubernetes` finalizer, and then it goes).
 *
 * @module
 */
import { rfc3339 } from "../../_internal/time.ts";
import type { KubeObject } from "../../apiclient/types.ts";
import { clone } from "../_verbs/patch.ts";
import { failure, StatusError } from "../_verbs/status.ts";
import { resourceKey, storeKey } from "../_store/objects.ts";
import { diffSets, Schema } from "../_apply/fields.ts";
import { managedFields, recordUpdate } from "../_apply/managed.ts";
import type { ServerState } from "../_store/state.ts";
import type { RegisteredResource } from "../types.ts";

/** The namespaces NamespaceLifecycle never lets go. */
const IMMORTAL = new Set(["default", "kube-system", "kube-public"]);

/** The finalizer the namespace controller owns. */
const KUBERNETES = "kubernetes";

/** Who writes the conditions: the controller manager, as in a cluster. */
const CONTROLLER = "kube-controller-manager";

/** Whether `resource` is core/v1 Namespaces. */
export function isNamespaces(resource: RegisteredResource): boolean {
  return resource.group === "" && resource.resource === "namespaces";
}

function namespacesOf(state: ServerState): RegisteredResource {
  return state.resources.find(isNamespaces)!;
}

/** The namespace `name`, if stored. */
function namespaceNamed(
  state: ServerState,
  name: string,
): KubeObject | undefined {
  const namespaces = namespacesOf(state);
  return state.store.peek(
    resourceKey(namespaces),
    storeKey(namespaces, undefined, name),
  );
}

/**
 * NamespaceLifecycle on a create of `resource`'s `name` in `namespace`: 404
 * when it does not exist (the system namespaces always do when `lax`), 403
 * while it terminates.
 */
export function admitCreate(
  state: ServerState,
  resource: RegisteredResource,
  namespace: string,
  name: string,
  lax: boolean,
): void {
  const held = namespaceNamed(state, namespace);
  if (!held) {
    if (lax && (IMMORTAL.has(namespace) || namespace === "kube-node-lease")) {
      return;
    }
    throw new StatusError(failure(
      404,
      "NotFound",
      `namespaces "${namespace}" not found`,
      { name: namespace, kind: "namespaces" },
    ));
  }
  if (!held.metadata.deletionTimestamp) return;
  throw new StatusError(failure(
    403,
    "Forbidden",
    `${resource.resource} "${name}" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
    {
      name,
      ...(resource.group ? { group: resource.group } : {}),
      kind: resource.resource,
      causes: [{
        reason: "NamespaceTerminating",
        message: `namespace ${namespace} is being terminated`,
        field: "metadata.namespace",
      }],
    },
  ));
}

/** NamespaceLifecycle on a delete: the system namespaces stay (403). */
export function admitDelete(name: string): void {
  if (!IMMORTAL.has(name)) return;
  throw new StatusError(failure(
    403,
    "Forbidden",
    `namespaces "${name}" is forbidden: this namespace may not be deleted`,
    { name, kind: "namespaces" },
  ));
}

/** Whether the namespace controller still has work on `namespace`. */
export function terminating(namespace: KubeObject): boolean {
  const spec = (namespace as { spec?: { finalizers?: string[] } }).spec;
  return namespace.metadata.deletionTimestamp !== undefined &&
    (spec?.finalizers ?? []).includes(KUBERNETES);
}

/**
 * The delete of a Namespace the controller must empty first: it is marked
 * Terminating and stays.
 */
export function markTerminating(
  state: ServerState,
  resource: RegisteredResource,
  key: string,
  existing: KubeObject,
): KubeObject {
  if (existing.metadata.deletionTimestamp) return existing;
  const marked = clone(existing) as KubeObject & { status?: unknown };
  marked.metadata.deletionTimestamp = rfc3339();
  marked.status = {
    ...(marked.status as Record<string, unknown> | undefined),
    phase: "Terminating",
  };
  return state.store.write(resourceKey(resource), key, marked);
}

const DONE_CONDITIONS: readonly [string, string, string][] = [
  [
    "NamespaceDeletionDiscoveryFailure",
    "ResourcesDiscovered",
    "All resources successfully discovered",
  ],
  [
    "NamespaceDeletionGroupVersionParsingFailure",
    "ParsedGroupVersions",
    "All legacy kube types successfully parsed",
  ],
  [
    "NamespaceDeletionContentFailure",
    "ContentDeleted",
    "All content successfully deleted, may be waiting on finalization",
  ],
  [
    "NamespaceContentRemaining",
    "ContentRemoved",
    "All content successfully removed",
  ],
  [
    "NamespaceFinalizersRemaining",
    "ContentHasNoFinalizers",
    "All content-preserving finalizers finished",
  ],
];

/**
 * One pass of the namespace controller over every terminating Namespace:
 * its contents are deleted (`remove`, which honours their finalizers);
 * once none is left, its conditions are written, the `kubernetes`
 * finalizer goes, and the Namespace with it unless other finalizers hold it.
 */
export function finishNamespaces(
  state: ServerState,
  remove: (
    resource: RegisteredResource,
    key: string,
    object: KubeObject,
  ) => void,
): void {
  const namespaces = namespacesOf(state);
  const rkey = resourceKey(namespaces);
  for (const [key, namespace] of state.store.all(rkey)) {
    if (!terminating(namespace)) continue;
    const name = namespace.metadata.name!;
    let left = 0;
    for (const held of state.resources.filter((r) => r.namespaced)) {
      for (const [inner, object] of state.store.all(resourceKey(held))) {
        if (!inner.startsWith(`${name}/`)) continue;
        if (!object.metadata.deletionTimestamp) remove(held, inner, object);
        if (state.store.peek(resourceKey(held), inner)) left++;
      }
    }
    // Content held by finalizers: the next change to it comes back here.
    if (left > 0) continue;
    const now = rfc3339();
    const next = clone(namespace) as KubeObject & {
      spec?: { finalizers?: string[] };
      status?: Record<string, unknown>;
    };
    next.status = {
      ...next.status,
      conditions: DONE_CONDITIONS.map(([type, reason, message]) => ({
        type,
        status: "False",
        lastTransitionTime: now,
        reason,
        message,
      })),
    };
    const uid = next.metadata.uid!;
    const owners = recordUpdate(
      state.owners.get(uid) ?? [],
      { manager: CONTROLLER, apiVersion: "v1", subresource: "status" },
      diffSets(namespace, next, new Schema(namespaces), true),
    );
    state.owners.set(uid, owners);
    if (state.managedFields) {
      next.metadata.managedFields = managedFields(owners);
    }
    // The status write, then the finalize call (spec.finalizers is owned
    // by no one).
    state.store.write(rkey, key, next);
    const finalized = clone(next);
    finalized.spec = {
      ...finalized.spec,
      finalizers: (finalized.spec?.finalizers ?? []).filter((f) =>
        f !== KUBERNETES
      ),
    };
    if (finalized.spec.finalizers!.length === 0) {
      delete finalized.spec.finalizers;
    }
    state.store.write(rkey, key, finalized);
    if ((finalized.metadata.finalizers ?? []).length === 0) {
      state.store.delete(rkey, key);
    }
  }
}
