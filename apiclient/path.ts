/** Names one object or collection of the API, for {@linkcode apiPath}. */
export interface ApiPathOptions {
  /** The API group; empty or absent for the core group (`/api/v1`). */
  group?: string | undefined;
  /** The group's version, such as `v1`. */
  version: string;
  /** The resource's plural name, such as `configmaps`. */
  resource: string;
  /** The namespace; empty or absent for all namespaces or a cluster-scoped kind. */
  namespace?: string | undefined;
  /** The object's name; absent for the collection. */
  name?: string | undefined;
  /** A subresource of the object, such as `status`. */
  subresource?: string | undefined;
}

/**
 * Builds the API path of a collection or an object.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { apiPath } from "@liken/kubernetes/apiclient";
 *
 * assert.equal(
 *   apiPath({ version: "v1", resource: "configmaps", namespace: "demo", name: "a" }),
 *   "/api/v1/namespaces/demo/configmaps/a",
 * );
 * assert.equal(
 *   apiPath({ group: "coordination.k8s.io", version: "v1", resource: "leases" }),
 *   "/apis/coordination.k8s.io/v1/leases",
 * );
 * ```
 *
 * @param options The group, version, resource, and optionally namespace, name
 * and subresource.
 * @returns The path, without the server.
 */
export function apiPath(options: ApiPathOptions): string {
  const { group, version, resource, namespace, name, subresource } = options;
  let path = group ? `/apis/${group}/${version}` : `/api/${version}`;
  if (namespace) path += `/namespaces/${encodeURIComponent(namespace)}`;
  path += `/${resource}`;
  if (name !== undefined) {
    if (name === "") throw new TypeError("An object path needs a name");
    path += `/${encodeURIComponent(name)}`;
    if (subresource) path += `/${subresource}`;
  } else if (subresource) {
    throw new TypeError("A subresource needs an object name");
  }
  return path;
}
