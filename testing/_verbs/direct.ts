/**
 * Direct writes: a test storing an object as another client would, with no
 * checks, so that it gets a resourceVersion and watches see it.
 *
 * @module
 */
import { rfc3339 } from "../../_internal/time.ts";
import type { ObjectRef } from "../../apiclient/resource.ts";
import type { KubeObject } from "../../apiclient/types.ts";
import { clone } from "./patch.ts";
import { apiVersionOf, resourceKey } from "../_store/objects.ts";
import { objectTarget } from "../_http/route.ts";
import type { ServerState } from "../_store/state.ts";

/**
 * Stores `value` as the object a path or reference names: `apiVersion`,
 * `kind`, name and namespace come from it; uid, creationTimestamp and
 * generation are kept from the stored object, else made.
 *
 * @returns A copy of the stored object.
 */
export function putObject<T extends KubeObject>(
  state: ServerState,
  object: string | ObjectRef,
  value: T,
): T {
  const { resource, key, namespace, name } = objectTarget(
    state.resources,
    object,
  );
  const existing = state.store.peek(resourceKey(resource), key);
  const next = clone(value) as KubeObject;
  next.apiVersion = apiVersionOf(resource);
  next.kind = resource.kind;
  next.metadata = { ...next.metadata, name };
  if (resource.namespaced) next.metadata.namespace = namespace!;
  else delete next.metadata.namespace;
  next.metadata.uid ??= existing?.metadata.uid ?? crypto.randomUUID();
  next.metadata.creationTimestamp ??= existing?.metadata.creationTimestamp ??
    rfc3339();
  if (resource.generation) {
    next.metadata.generation ??= existing?.metadata.generation ?? 1;
  } else delete next.metadata.generation;
  if (!existing) state.noteCreated(next.metadata.uid);
  return clone(state.store.write(resourceKey(resource), key, next)) as T;
}
