// Values filed by an object's group, resource, namespace and name: nested
// maps, so a lookup by ref hashes the ref's own strings and builds none. The
// memo's records and its lines of sends both use them.
import type { ObjectRef, Resource } from "../apiclient/resource.ts";

/** One namespace's values of one resource (`""`: cluster-scoped), by name. */
export type Names<V> = Map<string, V>;

/** Values by group (`""`: core), resource, namespace and name. */
export class ByObject<V> {
  #groups = new Map<string, Map<string, Map<string, Names<V>>>>();

  /** The value of one object. */
  get(ref: ObjectRef): V | undefined {
    return this.#groups.get(ref.group ?? "")?.get(ref.resource)
      ?.get(ref.namespace ?? "")?.get(ref.name);
  }

  /** The values of one namespace of a resource, made when absent. */
  names(resource: Resource, namespace: string): Names<V> {
    const group = resource.group ?? "";
    let resources = this.#groups.get(group);
    if (resources === undefined) {
      this.#groups.set(group, resources = new Map());
    }
    let namespaces = resources.get(resource.resource);
    if (namespaces === undefined) {
      resources.set(resource.resource, namespaces = new Map());
    }
    let names = namespaces.get(namespace);
    if (names === undefined) namespaces.set(namespace, names = new Map());
    return names;
  }

  /**
   * The values of a resource by namespace: all of them, or those of the
   * resource's own namespace when it has one.
   */
  *of(resource: Resource): Iterable<[string, Names<V>]> {
    const namespaces = this.#groups.get(resource.group ?? "")?.get(
      resource.resource,
    );
    if (namespaces === undefined) return;
    if (resource.namespace) {
      const names = namespaces.get(resource.namespace);
      if (names !== undefined) yield [resource.namespace, names];
      return;
    }
    yield* namespaces;
  }

  /**
   * Drops one object's value, and the maps it leaves empty.
   *
   * @returns Whether there was one.
   */
  delete(ref: ObjectRef): boolean {
    const group = ref.group ?? "";
    const namespace = ref.namespace ?? "";
    const resources = this.#groups.get(group);
    const namespaces = resources?.get(ref.resource);
    const names = namespaces?.get(namespace);
    if (names === undefined || !names.delete(ref.name)) return false;
    if (names.size > 0) return true;
    namespaces!.delete(namespace);
    if (namespaces!.size > 0) return true;
    resources!.delete(ref.resource);
    if (resources!.size === 0) this.#groups.delete(group);
    return true;
  }
}

/** The store key of an object: `namespace/name`, or `name`. */
export function keyOf(namespace: string, name: string): string {
  return namespace === "" ? name : `${namespace}/${name}`;
}

/** The namespace and name of a store key. */
export function split(key: string): [string, string] {
  const slash = key.indexOf("/");
  return slash === -1 ? ["", key] : [
    key.slice(0, slash),
    key.slice(slash + 1),
  ];
}
