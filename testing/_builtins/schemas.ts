/**
 * The schemas of the common built-in kinds (core/v1, apps/v1, batch/v1),
 * from the generated `api/` modules, to find the unknown fields of a
 * request as the API server's strict decoding does (`fieldValidation`).
 *
 * @module
 */
import type { Schema } from "../../_internal/schema/types.ts";
import * as apps from "../../api/apps/v1/schemas.ts";
import * as batch from "../../api/batch/v1/schemas.ts";
import * as core from "../../api/core/v1/schemas.ts";
import type { RegisteredResource } from "../types.ts";

const MODULES: Record<string, Record<string, unknown>> = {
  "v1": core,
  "apps/v1": apps,
  "batch/v1": batch,
};

/** `ConfigMap` → `CONFIG_MAP`, as the generated constants are named. */
function constantName(kind: string): string {
  return kind.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase();
}

const CACHE = new Map<string, Schema | undefined>();

/**
 * The schema of a built-in kind's objects, its top-level `metadata` left
 * open (the generated schemas cut it to what a CRD embeds), or
 * `undefined` for a kind without one here.
 */
export function builtInSchema(
  resource: RegisteredResource,
): Schema | undefined {
  const groupVersion = resource.group === ""
    ? resource.version
    : `${resource.group}/${resource.version}`;
  const key = `${groupVersion}/${resource.kind}`;
  if (CACHE.has(key)) return CACHE.get(key);
  const found = MODULES[groupVersion]?.[constantName(resource.kind)] as
    | Schema
    | undefined;
  const schema = found === undefined ? undefined : {
    ...found,
    properties: {
      ...found.properties,
      metadata: {
        type: "object",
        "x-kubernetes-preserve-unknown-fields": true,
      },
    },
  } as Schema;
  CACHE.set(key, schema);
  return schema;
}
