/**
 * How the fake API server names, stamps and answers objects: store keys,
 * `apiVersion`, timestamps as the API server writes them, JSON answers.
 *
 * @module
 */
import type { RegisteredResource } from "../types.ts";

/** The headers of every JSON answer. */
export const JSON_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "application/json",
};

export { isObject } from "../../_internal/json.ts";

/** `v1` or `group/version`, as an object of the resource names its version. */
export function apiVersionOf(resource: RegisteredResource): string {
  return resource.group === ""
    ? resource.version
    : `${resource.group}/${resource.version}`;
}

/** The store's key of a resource's collection: `group/resource`. */
export function resourceKey(resource: RegisteredResource): string {
  return `${resource.group}/${resource.resource}`;
}

/**
 * The store's key of one object: `namespace/name` for a namespaced
 * resource, `name` for a cluster-scoped one.
 */
export function storeKey(
  resource: RegisteredResource,
  namespace: string | undefined,
  name: string,
): string {
  return resource.namespaced ? `${namespace ?? ""}/${name}` : name;
}

/** A JSON answer. */
export function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: JSON_HEADERS });
}
