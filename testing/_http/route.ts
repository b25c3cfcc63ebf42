/**
 * Routing: which resource, namespace, object and subresource an API path
 * names, as the API server's request-info resolver reads a path.
 *
 * @module
 */
import { objectPath, type ObjectRef } from "../../apiclient/resource.ts";
import { storeKey } from "../_store/objects.ts";
import type { RegisteredResource } from "../types.ts";

/** What a path names. */
export interface Route {
  /** The resource. */
  resource: RegisteredResource;
  /** The namespace; absent for every namespace, or cluster scope. */
  namespace: string | undefined;
  /** The object's name; absent for the collection. */
  name: string | undefined;
  /** The subresource, such as `status`. */
  subresource: string | undefined;
}

/** One object a test names by path or by {@linkcode ObjectRef}. */
export interface Target {
  /** The resource. */
  resource: RegisteredResource;
  /** The namespace; absent for a cluster-scoped object. */
  namespace: string | undefined;
  /** The object's name. */
  name: string;
  /** The store key. */
  key: string;
}

/** The served resource of a group, version and plural name. */
export function findResource(
  resources: readonly RegisteredResource[],
  group: string,
  version: string,
  plural: string,
): RegisteredResource | undefined {
  return resources.find((r) =>
    r.group === group && r.version === version && r.resource === plural
  );
}

/** What a path names, or `undefined` when it names no served resource. */
export function parseRoute(
  resources: readonly RegisteredResource[],
  path: string,
): Route | undefined {
  const parts = path.split("/").slice(1).map((p) => decodeURIComponent(p));
  if (parts[parts.length - 1] === "") parts.pop();
  let group: string;
  let version: string;
  let rest: string[];
  if (parts[0] === "api" && parts.length >= 2) {
    group = "";
    version = parts[1]!;
    rest = parts.slice(2);
  } else if (parts[0] === "apis" && parts.length >= 3) {
    group = parts[1]!;
    version = parts[2]!;
    rest = parts.slice(3);
  } else return undefined;
  let namespace: string | undefined;
  if (
    rest[0] === "namespaces" && rest.length >= 3 &&
    findResource(resources, group, version, rest[2]!)?.namespaced
  ) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  if (rest.length === 0 || rest.length > 3) return undefined;
  const resource = findResource(resources, group, version, rest[0]!);
  if (!resource) return undefined;
  const name = rest[1];
  if (resource.namespaced && namespace === undefined && name !== undefined) {
    return undefined;
  }
  return { resource, namespace, name, subresource: rest[2] };
}

/**
 * The path of an object a test names by path or by reference; a reference's
 * path comes from `objectPath`.
 */
export function pathOf(object: string | ObjectRef): string {
  return typeof object === "string" ? object : objectPath(object);
}

/**
 * The object a path or reference names.
 *
 * @throws {TypeError} When it names no object of a served resource.
 */
export function objectTarget(
  resources: readonly RegisteredResource[],
  object: string | ObjectRef,
): Target {
  const path = pathOf(object);
  const route = parseRoute(resources, path);
  if (!route || route.name === undefined || route.subresource) {
    throw new TypeError(`Not the path of an object: ${path}`);
  }
  return {
    resource: route.resource,
    namespace: route.namespace,
    name: route.name,
    key: storeKey(route.resource, route.namespace, route.name),
  };
}
