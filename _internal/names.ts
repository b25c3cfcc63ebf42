/**
 * How the library names a watched collection in messages and metric labels.
 *
 * @module
 */

import type { Resource } from "../apiclient/resource.ts";

/** A collection and the part of it a watch follows. */
export interface Watched extends Resource {
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
export function collectionName(source: Watched): string {
  let name = source.resource;
  if (source.group) name += `.${source.group}`;
  if (source.namespace) name = `${source.namespace}/${name}`;
  if (source.fieldSelector) name += ` (${source.fieldSelector})`;
  if (source.labelSelector) name += ` [${source.labelSelector}]`;
  return name;
}
