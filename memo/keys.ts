import type { KubeObject, ObjectMeta } from "../apiclient/types.ts";
import { objectKey } from "../apiclient/resource.ts";

/**
 * Builds the cache key of an object: `namespace/name`, or just `name` when
 * the object has no namespace. The memo and the informer's store use the
 * same keys, so a key from one can be looked up in the other.
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
  return objectKey(object);
}

/**
 * Adapts a `(namespace, name) => path` function to take a cache key
 * instead. Code that walks keys (for instance the keys from
 * `Versions.unheld`) has no object to build a path from,
 * only the key. The key is split at its first `/`; a key without one is a
 * cluster-scoped name, for which `path` gets `""` as the namespace.
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
 * @returns A function from a cache key to that object's API path.
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
