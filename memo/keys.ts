import type { KubeObject, ObjectMeta } from "../apiclient/types.ts";

/**
 * The key a store holds an object under, and the memo records it under:
 * `namespace/name` for a namespaced object, `name` for a cluster-scoped one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { key } from "@liken/kubernetes/memo";
 *
 * assert.equal(key({ metadata: { namespace: "default", name: "web" } }), "default/web");
 * assert.equal(key({ name: "node-1" }), "node-1");
 * ```
 *
 * @param object An object, or just its metadata.
 * @returns The store key.
 */
export function key(object: KubeObject | ObjectMeta): string {
  const meta: ObjectMeta = "metadata" in object && object.metadata !== undefined
    ? (object as KubeObject).metadata
    : object as ObjectMeta;
  const name = meta.name ?? "";
  return meta.namespace ? `${meta.namespace}/${name}` : name;
}

/**
 * Turns a function that answers an object's API path from its namespace and
 * name into one that answers it from a store key. A pass that must read an
 * object again from the API server often has only the key. A key with no
 * `/` names a cluster-scoped object, and `path` receives `""` as its
 * namespace.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { apiPath } from "@liken/kubernetes/apiclient";
 * import { pathOfKey } from "@liken/kubernetes/memo";
 *
 * const configMap = pathOfKey((namespace, name) =>
 *   apiPath({ version: "v1", resource: "configmaps", namespace, name })
 * );
 * assert.equal(configMap("default/web"), "/api/v1/namespaces/default/configmaps/web");
 * ```
 *
 * @param path Answers the path of one object by namespace and name.
 * @returns A function that answers the path of the object a key names.
 */
export function pathOfKey(
  path: (namespace: string, name: string) => string,
): (key: string) => string {
  return (key: string): string => {
    const slash = key.indexOf("/");
    return slash === -1
      ? path("", key)
      : path(key.slice(0, slash), key.slice(slash + 1));
  };
}
