/**
 * Deleting objects: one object (with preconditions and finalizers, as the
 * API server answers), or a collection.
 *
 * @module
 */
import { rfc3339 } from "../../_internal/time.ts";
import type {
  KubeObject,
  Status,
  StatusDetails,
} from "../../apiclient/types.ts";
import { clone } from "./patch.ts";
import {
  invalid,
  methodNotAllowed,
  notFound,
  preconditionFailed,
} from "./status.ts";
import {
  apiVersionOf,
  isObject,
  json,
  resourceKey,
  storeKey,
} from "../_store/objects.ts";
import { selectorOf } from "./reads.ts";
import {
  admitDelete,
  isNamespaces,
  markTerminating,
  terminating,
} from "../_admission/namespaces.ts";
import type { Route } from "../_http/route.ts";
import type { ServerState } from "../_store/state.ts";
import { view, webhookConverted } from "../_http/served.ts";
import { awaitConversions } from "../_crds/conversion_round.ts";
import type { RegisteredResource } from "../types.ts";

/** The preconditions a delete can carry, as its conflict message names them. */
const PRECONDITIONS = [
  ["uid", "UID"],
  ["resourceVersion", "ResourceVersion"],
] as const;

/**
 * DELETE of an object: preconditions, finalizers (which only mark it), and
 * the Namespace's contents with it.
 */
export function deleteObject(
  state: ServerState,
  route: Route,
  name: string,
  body: unknown,
  query: URLSearchParams = new URLSearchParams(),
): Response {
  const { resource, namespace } = route;
  if (route.subresource) throw methodNotAllowed();
  const rkey = resourceKey(resource);
  const key = storeKey(resource, namespace, name);
  const existing = state.store.peek(rkey, key);
  if (!existing) throw notFound(resource, name);
  if (webhookConverted(resource)) {
    // kube-apiserver decodes the object three times to delete it (the
    // registry's read, the storage's current state, the deleted object),
    // each through the conversion webhook.
    for (let i = 0; i < 3; i++) view(resource, existing);
    awaitConversions();
  }
  const preconditions = isObject(body) && isObject(body.preconditions)
    ? body.preconditions
    : {};
  for (const [field, label] of PRECONDITIONS) {
    const wanted = preconditions[field];
    const held = existing.metadata[field];
    if (typeof wanted === "string" && wanted !== held) {
      throw preconditionFailed(resource, name, label, wanted, held);
    }
  }
  const policy = propagationOf(body, query);
  if (isNamespaces(resource) && state.namespaceLifecycle) admitDelete(name);
  state.admission?.validate(resource, undefined, view(resource, existing));
  // The API server reads dryRun from the DeleteOptions body too (as
  // controller-runtime sends it), not only from the query.
  const bodyDryRun = isObject(body) && Array.isArray(body.dryRun)
    ? body.dryRun
    : [];
  if (query.get("dryRun") === "All" || bodyDryRun.includes("All")) {
    // Nothing is removed or marked: the answer says what would happen.
    if ((existing.metadata.finalizers ?? []).length > 0) {
      const marked = clone(existing);
      marked.metadata.deletionTimestamp ??= rfc3339();
      (marked.metadata as Record<string, unknown>)
        .deletionGracePeriodSeconds ??= 0;
      return json(view(resource, marked));
    }
    return json(deleted(resource, name, existing));
  }
  if (
    isNamespaces(resource) && terminating({
      ...existing,
      metadata: { ...existing.metadata, deletionTimestamp: "now" },
    })
  ) {
    // The namespace controller empties it, then it goes.
    return json(
      view(resource, markTerminating(state, resource, key, existing)),
    );
  }
  const answer = removeStored(state, resource, key, existing, policy);
  // Finalizers hold the object: it is only marked for deletion.
  if (state.store.peek(rkey, key)) return json(view(resource, answer));
  const last = answer;
  if (isNamespaces(resource)) {
    // One without the namespace controller's finalizer (stored directly,
    // by put()) goes at once: its contents with it.
    for (const held of state.resources.filter((r) => r.namespaced)) {
      for (const [inner] of state.store.all(resourceKey(held))) {
        if (inner.startsWith(`${name}/`)) {
          state.store.delete(resourceKey(held), inner);
        }
      }
    }
  }
  if (resource.group === "" && resource.resource === "pods") {
    return json(view(resource, last));
  }
  return json(deleted(resource, name, existing));
}

/** The Status of a deletion that removed the object at once. */
function deleted(
  resource: RegisteredResource,
  name: string,
  existing: KubeObject,
): Status {
  const details: StatusDetails = { name };
  if (resource.group !== "") details.group = resource.group;
  details.kind = resource.resource;
  details.uid = existing.metadata.uid!;
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Success",
    details,
  };
}

/** DELETE of a collection: every object the selectors match. */
export function deleteCollection(
  state: ServerState,
  resource: RegisteredResource,
  namespace: string | undefined,
  query: URLSearchParams,
  body: unknown = undefined,
): Response {
  const selected = selectorOf(query, resource);
  const policy = propagationOf(body, query);
  const rkey = resourceKey(resource);
  const prefix = namespace === undefined ? undefined : `${namespace}/`;
  const deleted: KubeObject[] = [];
  for (const [key, object] of state.store.all(rkey)) {
    if (prefix !== undefined && !key.startsWith(prefix)) continue;
    if (!selected(object)) continue;
    deleted.push(removeStored(state, resource, key, object, policy));
  }
  return json({
    kind: resource.listKind,
    apiVersion: apiVersionOf(resource),
    metadata: { resourceVersion: String(state.store.rv) },
    items: deleted.map((object) => view(resource, object)),
  });
}

/** How a delete treats the object's dependents. */
export type Propagation = "Orphan" | "Foreground" | "Background";

/** The finalizer a Foreground delete adds; the owner goes after its blocking dependents. */
export const FOREGROUND = "foregroundDeletion";
/** The finalizer an Orphan delete adds; the owner goes once dependents let go of it. */
export const ORPHAN = "orphan";

/**
 * The propagation a delete asks for, in its DeleteOptions body or its query
 * (`propagationPolicy`, or the older `orphanDependents`); Background when
 * it names none, as for most kinds.
 */
export function propagationOf(
  body: unknown,
  query: URLSearchParams,
): Propagation {
  const options = isObject(body) ? body : {};
  const policy = options.propagationPolicy ?? query.get("propagationPolicy");
  const orphan = options.orphanDependents ?? query.get("orphanDependents");
  if (policy !== undefined && policy !== null) {
    if (
      policy === "Orphan" || policy === "Foreground" || policy === "Background"
    ) {
      if (orphan !== undefined && orphan !== null) {
        throw invalid("DeleteOptions", "", [{
          field: "propagationPolicy",
          reason: "FieldValueInvalid",
          message:
            `Invalid value: "${policy}": orphanDependents and deletionPropagation cannot be both set`,
        }], "meta.k8s.io");
      }
      return policy;
    }
    throw invalid("DeleteOptions", "", [{
      field: "propagationPolicy",
      reason: "FieldValueNotSupported",
      message: `Unsupported value: "${
        String(policy)
      }": supported values: "Foreground", "Background", "Orphan", "nil"`,
    }], "meta.k8s.io");
  }
  if (orphan === true || orphan === "true") return "Orphan";
  return "Background";
}

/**
 * Deletes a stored object as a DELETE does: with finalizers (its own, or
 * the one its propagation adds) it is only marked, with `deletionTimestamp`;
 * else it goes. Answers the marked object or the last copy.
 */
export function removeStored(
  state: ServerState,
  resource: RegisteredResource,
  key: string,
  existing: KubeObject,
  policy: Propagation,
): KubeObject {
  const rkey = resourceKey(resource);
  const finalizers = [...(existing.metadata.finalizers ?? [])];
  const wanted = policy === "Foreground"
    ? FOREGROUND
    : policy === "Orphan"
    ? ORPHAN
    : undefined;
  const adds = wanted !== undefined && !finalizers.includes(wanted);
  if (finalizers.length === 0 && !adds) {
    return state.store.delete(rkey, key)!;
  }
  if (existing.metadata.deletionTimestamp && !adds) return existing;
  const marked = clone(existing);
  if (adds) marked.metadata.finalizers = [...finalizers, wanted!];
  if (!marked.metadata.deletionTimestamp) {
    marked.metadata.deletionTimestamp = rfc3339();
    (marked.metadata as Record<string, unknown>).deletionGracePeriodSeconds = 0;
    if (resource.generation) {
      marked.metadata.generation = (marked.metadata.generation ?? 1) + 1;
    }
  }
  return state.store.write(rkey, key, marked);
}
