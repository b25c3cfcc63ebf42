/**
 * What the fake knows of a resource it serves from a
 * CustomResourceDefinition: the version's schema and the storage version.
 * Kept beside the (frozen, public) resource objects, keyed by them.
 *
 * @module
 */
import type { Schema } from "../resource/schema.ts";
import type { KubeObject } from "../apiclient/types.ts";
import { apiVersionOf } from "./_objects.ts";
import type { RegisteredResource } from "./types.ts";

/** One served version of a CustomResourceDefinition. */
export interface ServedVersion {
  /** The definition's name, `<plural>.<group>`. */
  definition: string;
  /** The version's `openAPIV3Schema`; absent when it declares none. */
  schema: Schema | undefined;
  /** `group/version` of the storage version, as stored objects carry it. */
  storage: string;
}

const SERVED = new WeakMap<RegisteredResource, ServedVersion>();

/** Notes that `resource` is served from a CustomResourceDefinition. */
export function noteServed(
  resource: RegisteredResource,
  version: ServedVersion,
): void {
  SERVED.set(resource, version);
}

/** The definition's version of a resource, or `undefined` when none serves it. */
export function servedVersion(
  resource: RegisteredResource,
): ServedVersion | undefined {
  return SERVED.get(resource);
}

/**
 * The object as a read of `resource` answers it: a custom resource of
 * several versions is stored in one and read in any (`conversion: None`
 * changes `apiVersion` alone). Other objects pass as they are.
 */
export function view<T extends KubeObject | undefined>(
  resource: RegisteredResource,
  object: T,
): T {
  if (object === undefined || !SERVED.has(resource)) return object;
  const apiVersion = apiVersionOf(resource);
  return object.apiVersion === apiVersion ? object : { ...object, apiVersion };
}

/** The object as it is stored: in the storage version of its definition. */
export function stored<T extends KubeObject>(
  resource: RegisteredResource,
  object: T,
): T {
  const served = SERVED.get(resource);
  if (served === undefined || object.apiVersion === served.storage) {
    return object;
  }
  return { ...object, apiVersion: served.storage };
}
