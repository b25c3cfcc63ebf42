/**
 * How the library names a watched collection in messages and metric labels.
 *
 * @module
 */

/** A collection and the part of it a watch follows. */
export interface Named {
  /** The API group; absent or empty for the core group. */
  group?: string | undefined;
  /** The resource's plural name, such as `configmaps`. */
  resource: string;
  /** The namespace; absent for all namespaces or a cluster-scoped resource. */
  namespace?: string | undefined;
  /** A label selector, such as `app=web`. */
  labelSelector?: string | undefined;
  /** A field selector, such as `metadata.name=web`. */
  fieldSelector?: string | undefined;
}

/**
 * Names a watched collection, such as `default/configmaps [app=web]` or
 * `greetings.demo.liken.dev (metadata.name=a)`.
 *
 * @param source The collection and its selectors.
 * @returns The name.
 */
export function collectionName(source: Named): string {
  let name = source.resource;
  if (source.group) name += `.${source.group}`;
  if (source.namespace) name = `${source.namespace}/${name}`;
  if (source.fieldSelector) name += ` (${source.fieldSelector})`;
  if (source.labelSelector) name += ` [${source.labelSelector}]`;
  return name;
}
