// Decoding an object against a structural schema as the API server's
// custom-resource decoder and validator do, in their order: prune unknown
// fields, set defaults, then validate. Shared by `ResourceDefinition.decode`
// and the fake API server (`@liken/kubernetes/testing`), which serves custom
// resources from CustomResourceDefinitions.

import type { Cause, Schema } from "./types.ts";
import { applyDefaults, prune } from "./prune.ts";
import { listTypeCauses, validate } from "./validate.ts";

/** What decoding an object gives: the copy, what was pruned, what is wrong. */
export interface Decoded {
  /** The pruned, defaulted copy. */
  object: Record<string, unknown>;
  /** The path of each field pruned, such as `spec.extra`, in order. */
  unknown: string[];
  /** What does not validate; empty when the object is valid. */
  causes: Cause[];
}

/**
 * Prunes a copy of an object, as the API server reads a server-side apply
 * configuration (whose fields are not defaulted).
 *
 * @param schema The schema of the whole object.
 * @param value The object.
 * @returns The pruned copy and the pruned paths.
 */
export function pruneWith(
  schema: Schema,
  value: Record<string, unknown>,
): { object: Record<string, unknown>; unknown: string[] } {
  const object = structuredClone(value);
  const unknown: string[] = [];
  prune(object, schema, true, "", unknown);
  return { object, unknown };
}

/**
 * Prunes, defaults and validates a copy of an object (the value itself is
 * not changed).
 *
 * @param schema The schema of the whole object.
 * @param value The object.
 * @param old The object an update replaces: values it keeps are not
 *   checked (validation ratcheting).
 * @returns The copy, the pruned paths and the causes.
 */
export function decodeWith(
  schema: Schema,
  value: Record<string, unknown>,
  old?: Record<string, unknown>,
): Decoded {
  const { object, unknown } = pruneWith(schema, value);
  applyDefaults(object, schema);
  const causes: Cause[] = [];
  validate(
    schema,
    object,
    "",
    causes,
    old === undefined ? undefined : { value: old },
  );
  if (old !== undefined) {
    // The API server checks list duplicates apart from ratcheting: all of
    // the new object's, unless the old object has some.
    const before = listTypeCauses(schema, old, "");
    if (before.length === 0) causes.push(...listTypeCauses(schema, object, ""));
  }
  return { object, unknown, causes };
}
