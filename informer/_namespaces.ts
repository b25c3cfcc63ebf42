// Namespace sets: a source over several namespaces, checked, normalized,
// and split into one source per namespace.
import { collectionName } from "../_internal/names.ts";
import type { Source } from "./source.ts";

/**
 * The source with its namespace set checked, duplicates dropped and sorted;
 * a source without a set comes back as it is (copied). Throws a
 * `TypeError` for a set together with `namespace`, an empty set, an empty
 * name in it, or a set on a cluster-scoped resource.
 */
export function normalized(source: Source): Source {
  const { namespaces, ...rest } = source;
  if (namespaces === undefined) return { ...rest };
  const name = collectionName(rest);
  if (!Array.isArray(namespaces)) {
    throw new TypeError(`The namespaces of ${name} must be an array of names`);
  }
  if (source.namespace) {
    throw new TypeError(
      `A source of ${name} names both a namespace and a set of namespaces; give one`,
    );
  }
  if (source.namespaced === false) {
    throw new TypeError(
      `${source.resource} is cluster-scoped: a set of namespaces cannot select its objects`,
    );
  }
  if (namespaces.length === 0) {
    throw new TypeError(
      `The set of namespaces of ${name} is empty; leave it out to watch every namespace`,
    );
  }
  for (const namespace of namespaces) {
    if (typeof namespace !== "string" || namespace === "") {
      throw new TypeError(
        `The set of namespaces of ${name} holds an empty name`,
      );
    }
  }
  const set = [...new Set(namespaces)].sort();
  return { ...rest, namespace: undefined, namespaces: set };
}

/** One source per namespace of the set, or the source alone without one. */
export function members(source: Source): Source[] {
  const { namespaces, ...rest } = source;
  if (namespaces === undefined) return [source];
  return namespaces.map((namespace) => ({ ...rest, namespace }));
}

/** Names a collection, its namespace set included, such as `{a,b}/configmaps`. */
export function setName(source: Source): string {
  const { namespaces, ...rest } = source;
  const name = collectionName(rest);
  if (namespaces === undefined) return name;
  return `{${namespaces.join(",")}}/${name}`;
}

/**
 * Whether a namespace is one the source covers: any namespace for a source
 * of every namespace (or a cluster-scoped one), its own namespace, or one of
 * its set.
 */
export function coversNamespace(
  source: Source,
  namespace: string | undefined,
): boolean {
  if (source.namespaces !== undefined) {
    return namespace !== undefined && source.namespaces.includes(namespace);
  }
  if (!source.namespace) return true;
  return (namespace ?? "") === source.namespace;
}
