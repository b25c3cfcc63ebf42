/**
 * How the library names things on the API server: a {@linkcode Resource}
 * (which collection) and an {@linkcode ObjectRef} (which object). Every API
 * path and store key is derived from them, so a caller never passes a path
 * and a key that must agree.
 *
 * @module
 */

import type { KubeObject, ObjectMeta } from "./types.ts";

/**
 * Which collection: a resource of one API group and version, in one
 * namespace or across all of them (or cluster-scoped).
 *
 * @example
 * ```ts
 * import type { Resource } from "@liken/kubernetes/apiclient";
 *
 * const configMaps: Resource = { version: "v1", resource: "configmaps", namespace: "demo" };
 * const leases: Resource = { group: "coordination.k8s.io", version: "v1", resource: "leases" };
 * void configMaps, leases;
 * ```
 *
 * @typeParam T The kind of the collection's objects, which
 *   `client.resource(r)` infers; default `KubeObject`.
 */
export interface Resource<T extends KubeObject = KubeObject> {
  /** The API group; empty or absent for the core group (`/api/v1`). */
  group?: string | undefined;
  /** The group's version, such as `v1`. */
  version: string;
  /** The resource's plural name, such as `configmaps`. */
  resource: string;
  /**
   * The namespace; empty or absent for every namespace, or for a
   * cluster-scoped kind.
   */
  namespace?: string | undefined;
  /**
   * Whether the kind lives in namespaces (`true`, as ConfigMaps) or is
   * cluster-scoped (`false`, as Nodes), as discovery states it. Default:
   * unknown. A `ResourceClient` refuses a namespace for `false`, and a name
   * without a namespace for `true`; paths do not depend on it.
   */
  namespaced?: boolean | undefined;
  /**
   * Type only, never set: the kind of the collection's objects, so that
   * `client.resource(r)` answers a handle of that kind (as the built-in
   * `Resource`s of `@liken/kubernetes/api` declare it).
   */
  readonly "~object"?: T | undefined;
}

/**
 * Which object: a {@linkcode Resource} plus the object's name. The namespace
 * is the object's own (absent for a cluster-scoped object).
 *
 * @example
 * ```ts
 * import { type ObjectRef, objectPath } from "@liken/kubernetes/apiclient";
 *
 * const web: ObjectRef = { version: "v1", resource: "configmaps", namespace: "demo", name: "web" };
 * console.log(objectPath(web)); // /api/v1/namespaces/demo/configmaps/web
 * ```
 */
export interface ObjectRef extends Resource {
  /** The object's name. */
  name: string;
}

/**
 * The API path of a collection, with its namespace encoded.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { collectionPath } from "@liken/kubernetes/apiclient";
 *
 * assert.equal(
 *   collectionPath({ version: "v1", resource: "configmaps", namespace: "demo" }),
 *   "/api/v1/namespaces/demo/configmaps",
 * );
 * assert.equal(
 *   collectionPath({ group: "coordination.k8s.io", version: "v1", resource: "leases" }),
 *   "/apis/coordination.k8s.io/v1/leases",
 * );
 * ```
 *
 * @param resource The collection.
 * @returns The path, without the server.
 */
export function collectionPath(resource: Resource): string {
  const { group, version, namespace } = resource;
  let path = group ? `/apis/${group}/${version}` : `/api/${version}`;
  if (namespace) path += `/namespaces/${encodeURIComponent(namespace)}`;
  return `${path}/${resource.resource}`;
}

/**
 * The API path of one object, or of one of its subresources, with the
 * namespace and the name encoded.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { objectPath } from "@liken/kubernetes/apiclient";
 *
 * const web = { version: "v1", resource: "configmaps", namespace: "demo", name: "web" };
 * assert.equal(objectPath(web), "/api/v1/namespaces/demo/configmaps/web");
 * assert.equal(
 *   objectPath({ group: "apps", version: "v1", resource: "deployments", namespace: "demo", name: "web" }, "status"),
 *   "/apis/apps/v1/namespaces/demo/deployments/web/status",
 * );
 * ```
 *
 * @param ref The object.
 * @param subresource A subresource, such as `status` or `scale`.
 * @returns The path, without the server.
 * @throws {TypeError} When the name is empty.
 */
export function objectPath(ref: ObjectRef, subresource?: string): string {
  if (typeof ref.name !== "string" || ref.name === "") {
    throw new TypeError("An object path needs a name");
  }
  const path = `${collectionPath(ref)}/${encodeURIComponent(ref.name)}`;
  return subresource ? `${path}/${subresource}` : path;
}

/**
 * The store key of an object: `namespace/name`, or `name` when it has no
 * namespace. The memo and the informer's store use the same keys, as
 * client-go's `MetaNamespaceKeyFunc` does.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { objectKey } from "@liken/kubernetes/apiclient";
 *
 * assert.equal(objectKey({ metadata: { namespace: "default", name: "web" } }), "default/web");
 * assert.equal(objectKey({ version: "v1", resource: "nodes", name: "node-1" }), "node-1");
 * ```
 *
 * @param object An object, its metadata, or an {@linkcode ObjectRef}.
 * @returns The store key.
 */
export function objectKey(
  object: KubeObject | ObjectMeta | ObjectRef,
): string {
  const meta: ObjectMeta = "metadata" in object && object.metadata !== undefined
    ? (object as KubeObject).metadata
    : object as ObjectMeta;
  const name = meta.name ?? "";
  return meta.namespace ? `${meta.namespace}/${name}` : name;
}

/**
 * The {@linkcode ObjectRef} of an object of a collection, named by its store
 * key (as the memo and the store list them) or by the object itself. A key
 * without a `/` names a cluster-scoped object.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { objectRef } from "@liken/kubernetes/apiclient";
 *
 * const configMaps = { version: "v1", resource: "configmaps" };
 * assert.deepEqual(objectRef(configMaps, "demo/web"), {
 *   version: "v1", resource: "configmaps", namespace: "demo", name: "web",
 * });
 * assert.deepEqual(objectRef(configMaps, { metadata: { namespace: "demo", name: "web" } }),
 *   objectRef(configMaps, "demo/web"));
 * ```
 *
 * @param resource The collection the object belongs to.
 * @param object The store key, or the object.
 * @returns The object's {@linkcode ObjectRef}; its namespace is the key's or the object's.
 */
export function objectRef(
  resource: Resource,
  object: string | KubeObject,
): ObjectRef {
  const key = typeof object === "string" ? object : objectKey(object);
  const slash = key.indexOf("/");
  const ref: ObjectRef = {
    version: resource.version,
    resource: resource.resource,
    name: slash === -1 ? key : key.slice(slash + 1),
  };
  if (resource.group) ref.group = resource.group;
  if (slash !== -1) ref.namespace = key.slice(0, slash);
  return ref;
}

/**
 * Where a client bound with `Client.withMemo` notes its writes: the
 * `Versions` memo of `@liken/kubernetes/memo` is one. `send` runs one
 * request of the object in its turn (after the object's earlier requests
 * through the memo) and notes the resourceVersion it answers (`""`:
 * unknown).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { Memo, ObjectRef } from "@liken/kubernetes/apiclient";
 *
 * const notes: string[] = [];
 * const memo: Memo = {
 *   send: async (ref: ObjectRef, request: () => Promise<string>) => {
 *     notes.push(`${ref.name}@${await request()}`);
 *   },
 * };
 * await memo.send({ version: "v1", resource: "configmaps", name: "a" }, async () => "7");
 * assert.deepEqual(notes, ["a@7"]);
 * ```
 */
export interface Memo {
  /**
   * Sends `request` in the object's turn and notes the version it answers.
   *
   * @param ref The object the request writes.
   * @param request Sends the request and answers the copy's resourceVersion.
   * @param options A signal that ends the wait for the object's turn.
   * @returns Settles once the answer is noted; rejects with the request's
   *   error.
   */
  send(
    ref: ObjectRef,
    request: () => Promise<string>,
    options?: { signal?: AbortSignal | undefined },
  ): Promise<void>;
}
