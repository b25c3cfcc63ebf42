// Pruning and defaulting as the API server applies them to a custom
// resource with a structural schema (apiextensions-apiserver's
// `pruning.PruneWithOptions` and `structuraldefaulting.Default`, with
// `PruneNonNullableNullsWithoutDefaults`).

import type { Schema } from "./types.ts";
import { isObject } from "./validate.ts";
import { own, setOwn } from "../own.ts";

/** The fields of ObjectMeta; metadata keeps only these. */
const OBJECT_META = new Set([
  "name",
  "generateName",
  "namespace",
  "selfLink",
  "uid",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "labels",
  "annotations",
  "ownerReferences",
  "finalizers",
  "managedFields",
]);

/**
 * Drops, in place, every field the schema does not name (unless a node
 * keeps unknown fields); keeps `apiVersion`, `kind` and `metadata` at the
 * root of a resource (the object, or an embedded resource), with `metadata`
 * cut to ObjectMeta's fields.
 *
 * @param value The value.
 * @param schema Its schema node.
 * @param root Whether the value is a resource's root.
 * @param path The value's field path, for `unknown`.
 * @param unknown Receives the path of each field dropped.
 */
export function prune(
  value: unknown,
  schema: Schema,
  root: boolean,
  path: string,
  unknown: string[],
): void {
  if (Array.isArray(value)) {
    if (schema.items !== undefined) {
      const items = schema.items;
      value.forEach((item, i) =>
        prune(
          item,
          items,
          items["x-kubernetes-embedded-resource"] === true,
          `${path}[${i}]`,
          unknown,
        )
      );
    }
    return;
  }
  if (!isObject(value)) return;
  const properties = schema.properties ?? {};
  const more = schema.additionalProperties;
  const keep = schema["x-kubernetes-preserve-unknown-fields"] === true;
  for (const name of Object.keys(value)) {
    const at = path === "" ? name : `${path}.${name}`;
    if (root && (name === "apiVersion" || name === "kind")) continue;
    if (root && name === "metadata") {
      // ObjectMeta prunes by its own fields: a schema may only restrict
      // `name` and `generateName` (controller-gen writes `{type: object}`),
      // which is validation, never pruning.
      trimMeta(value[name], at, unknown);
      continue;
    }
    const node = Object.hasOwn(properties, name)
      ? properties[name]
      : more === true
      ? undefined
      : more;
    if (node !== undefined) {
      prune(
        value[name],
        node,
        node["x-kubernetes-embedded-resource"] === true,
        at,
        unknown,
      );
    } else if (!keep && more !== true) {
      delete value[name];
      unknown.push(at);
    }
  }
}

function trimMeta(meta: unknown, path: string, unknown: string[]): void {
  if (!isObject(meta)) return;
  for (const name of Object.keys(meta)) {
    if (!OBJECT_META.has(name)) {
      delete meta[name];
      unknown.push(`${path}.${name}`);
    }
  }
}

/** A deep copy of a JSON value. */
export function copy<T>(value: T): T {
  return value === undefined ? value : structuredClone(value);
}

/**
 * Sets, in place, the default of every absent field whose parent is
 * present (a `null` counts as absent for a field that is not `nullable`),
 * then the defaults inside; drops every other `null` of a field that is not
 * `nullable`.
 *
 * @param value The value.
 * @param schema Its schema node.
 */
export function applyDefaults(value: unknown, schema: Schema): void {
  if (Array.isArray(value)) {
    if (schema.items !== undefined) {
      for (const item of value) applyDefaults(item, schema.items);
    }
    return;
  }
  if (!isObject(value)) return;
  const properties = schema.properties ?? {};
  for (const [name, node] of Object.entries(properties)) {
    // Own keys only: a field named `constructor` is absent when not set, and
    // a default of `__proto__` is a field, not the prototype.
    const field = own(value, name);
    const absent = field === undefined || (field === null && !node.nullable);
    if (absent && node.default !== undefined) {
      setOwn(value, name, copy(node.default));
    } else if (field === null && !node.nullable) delete value[name];
  }
  const more = schema.additionalProperties;
  for (const name of Object.keys(value)) {
    const node = Object.hasOwn(properties, name)
      ? properties[name]
      : more === true
      ? undefined
      : more;
    if (node === undefined) continue;
    if (
      value[name] === null && !node.nullable && !Object.hasOwn(properties, name)
    ) {
      if (node.default !== undefined) setOwn(value, name, copy(node.default));
      else delete value[name];
    }
    applyDefaults(value[name], node);
  }
}
