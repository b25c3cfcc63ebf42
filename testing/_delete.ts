/**
 * Deleting objects: one object (with preconditions and finalizers, as the
 * API server answers), or a collection.
 *
 * @module
 */
import type { KubeObject, Status, StatusDetails } from "../apiclient/types.ts";
import { clone } from "./_patch.ts";
import { conflict, methodNotAllowed, notFound } from "./_status.ts";
import {
  apiVersionOf,
  isObject,
  json,
  resourceKey,
  storeKey,
  timestamp,
} from "./_objects.ts";
import { selectorOf } from "./_reads.ts";
import type { Route } from "./_route.ts";
import type { ServerState } from "./_state.ts";
import type { RegisteredResource } from "./types.ts";

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
): Response {
  const { resource, namespace } = route;
  if (route.subresource) throw methodNotAllowed();
  const rkey = resourceKey(resource);
  const key = storeKey(resource, namespace, name);
  const existing = state.store.peek(rkey, key);
  if (!existing) throw notFound(resource, name);
  const preconditions = isObject(body) && isObject(body.preconditions)
    ? body.preconditions
    : {};
  for (const [field, label] of PRECONDITIONS) {
    const wanted = preconditions[field];
    const held = existing.metadata[field];
    if (typeof wanted === "string" && wanted !== held) {
      throw conflict(
        resource,
        name,
        `Precondition failed: ${label} in precondition: ${wanted}, ${label} in object meta: ${held}`,
      );
    }
  }
  if ((existing.metadata.finalizers ?? []).length > 0) {
    // Finalizers hold the object: it is only marked for deletion.
    if (existing.metadata.deletionTimestamp) return json(existing);
    const marked = clone(existing);
    marked.metadata.deletionTimestamp = timestamp();
    (marked.metadata as Record<string, unknown>).deletionGracePeriodSeconds = 0;
    marked.metadata.generation = (marked.metadata.generation ?? 1) + 1;
    return json(state.store.write(rkey, key, marked));
  }
  const last = state.store.delete(rkey, key)!;
  if (resource.group === "" && resource.resource === "namespaces") {
    // The namespace controller deletes what the namespace held.
    for (const held of state.resources.filter((r) => r.namespaced)) {
      for (const [inner] of state.store.all(resourceKey(held))) {
        if (inner.startsWith(`${name}/`)) {
          state.store.delete(resourceKey(held), inner);
        }
      }
    }
  }
  if (resource.group === "" && resource.resource === "pods") {
    return json(last);
  }
  const details: StatusDetails = { name };
  if (resource.group !== "") details.group = resource.group;
  details.kind = resource.resource;
  details.uid = existing.metadata.uid!;
  const success: Status = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Success",
    details,
  };
  return json(success);
}

/** DELETE of a collection: every object the selectors match. */
export function deleteCollection(
  state: ServerState,
  resource: RegisteredResource,
  namespace: string | undefined,
  query: URLSearchParams,
): Response {
  const selected = selectorOf(query);
  const rkey = resourceKey(resource);
  const prefix = namespace === undefined ? undefined : `${namespace}/`;
  const deleted: KubeObject[] = [];
  for (const [key, object] of state.store.all(rkey)) {
    if (prefix !== undefined && !key.startsWith(prefix)) continue;
    if (!selected(object)) continue;
    const last = state.store.delete(rkey, key);
    if (last) deleted.push(last);
  }
  return json({
    kind: resource.listKind,
    apiVersion: apiVersionOf(resource),
    metadata: { resourceVersion: String(state.store.rv) },
    items: deleted,
  });
}
