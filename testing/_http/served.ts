/**
 * What the fake knows of a resource it serves from a
 * CustomResourceDefinition: the version's schema and the storage version.
 * Kept beside the (frozen, public) resource objects, keyed by them.
 *
 * @module
 */
import type { Schema } from "../../resource/schema.ts";
import type { KubeObject } from "../../apiclient/types.ts";
import { apiVersionOf } from "../_store/objects.ts";
import { pruneWith } from "../../_internal/schema/decode.ts";
import type { RegisteredResource } from "../types.ts";
import type { WebhookConversion } from "../_crds/conversion_config.ts";
import {
  listReadError,
  ReadConversionError,
  readConverted,
  writeConverted,
} from "../_crds/conversion_round.ts";

/** One served version of a CustomResourceDefinition. */
export interface ServedVersion {
  /** The definition's name, `<plural>.<group>`. */
  definition: string;
  /** The version's `openAPIV3Schema`; absent when it declares none. */
  schema: Schema | undefined;
  /** `group/version` of the storage version, as stored objects carry it. */
  storage: string;
  /** The storage version's `openAPIV3Schema`; absent when it declares none. */
  storageSchema?: Schema | undefined;
  /** The version's `scale` subresource; absent when it has none. */
  scale?: ScaleSubresource | undefined;
  /** The dotted paths a field selector may name beside `metadata.name` and `metadata.namespace`. */
  selectableFields: readonly string[];
  /** The `Warning` of a deprecated version; absent when it is not. */
  warning?: string | undefined;
  /** The definition's conversion webhook; absent for `conversion: None`. */
  webhook?: WebhookConversion | undefined;
}

/** A version's `subresources.scale`. */
export interface ScaleSubresource {
  /** The JSONPath of the desired replicas, such as `.spec.replicas`. */
  specReplicasPath: string;
  /** The JSONPath of the observed replicas, such as `.status.replicas`. */
  statusReplicasPath: string;
  /** The JSONPath of the label selector in its string form. */
  labelSelectorPath?: string | undefined;
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
 * changes `apiVersion` alone), and pruned by the schema of the version
 * read, as the API server's converter does. Other objects pass as they
 * are.
 */
export function view<T extends KubeObject | undefined>(
  resource: RegisteredResource,
  object: T,
): T {
  const served = object === undefined ? undefined : SERVED.get(resource);
  if (served === undefined) return object;
  const apiVersion = apiVersionOf(resource);
  if (object!.apiVersion === apiVersion) return object;
  if (served.webhook !== undefined) {
    return converted(
      readConverted(object!, apiVersion, resource),
      served.schema,
    ) as T;
  }
  return converted({ ...object!, apiVersion }, served.schema);
}

/**
 * The objects of a list as a read of `resource` answers them; with a
 * conversion webhook, every object is tried and those that fail make the
 * list fail as the API server's does (500 `StorageReadError`).
 */
export function viewAll<T extends KubeObject>(
  resource: RegisteredResource,
  objects: T[],
): T[] {
  const failed: ReadConversionError[] = [];
  const out: T[] = [];
  for (const object of objects) {
    try {
      out.push(view(resource, object));
    } catch (error) {
      if (!(error instanceof ReadConversionError)) throw error;
      failed.push(error);
    }
  }
  if (failed.length > 0) {
    throw listReadError(failed, {
      ...resource,
      plural: `${resource.resource}.${resource.group}`,
    });
  }
  return out;
}

/** Whether reads and writes of `resource` go through a conversion webhook. */
export function webhookConverted(resource: RegisteredResource): boolean {
  const served = SERVED.get(resource);
  return served?.webhook !== undefined &&
    served.storage !== apiVersionOf(resource);
}

/**
 * The object as it is stored: in the storage version of its definition,
 * pruned by that version's schema (a field only the written version
 * has is not stored).
 */
export function stored<T extends KubeObject>(
  resource: RegisteredResource,
  object: T,
): T {
  const served = SERVED.get(resource);
  if (served === undefined || object.apiVersion === served.storage) {
    return object;
  }
  if (served.webhook !== undefined) {
    return writeConverted(
      object,
      served.storage,
      apiVersionOf(resource),
      (written) => converted(written as T, served.storageSchema),
    ) as T;
  }
  return converted(
    { ...object, apiVersion: served.storage },
    served.storageSchema,
  );
}

function converted<T extends KubeObject>(
  object: T,
  schema: Schema | undefined,
): T {
  if (schema === undefined) return object;
  return pruneWith(schema, object as unknown as Record<string, unknown>)
    .object as unknown as T;
}
