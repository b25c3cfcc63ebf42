// Validation of a (pruned, defaulted) value against a structural schema, in
// the order and wording of the API server's validator (kube-openapi's fork
// of go-openapi's `validate`, mapped to field errors by apiextensions).

import type { Cause, Schema } from "./types.ts";
import { numberFormat, stringFormat } from "./formats.ts";
import {
  child,
  duplicate,
  inBody,
  invalid,
  notSupported,
  required,
  tooLong,
  tooMany,
  typeInvalid,
  typeName,
} from "./messages.ts";
import { own } from "../own.ts";
import { isObject, jsonEqual } from "../json.ts";

export { isObject, jsonEqual };

/** Whether the value is of the schema's type (`type` absent: any). */
function typeMatches(schema: Schema, value: unknown): boolean {
  if (schema["x-kubernetes-int-or-string"]) {
    return typeof value === "string" ||
      (typeof value === "number" && Number.isInteger(value));
  }
  switch (schema.type) {
    case undefined:
      return true;
    case "object":
      return isObject(value);
    case "array":
      return Array.isArray(value);
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "number":
      return typeof value === "number";
    case "string":
      return typeof value === "string";
    case "boolean":
      return typeof value === "boolean";
    default:
      return false;
  }
}

/**
 * The value an update replaces at the same place, when there is one: the
 * old object's field of the same name, or its list-map item of the same
 * keys (items of other lists do not correlate).
 */
export interface Old {
  /** The old value. */
  readonly value: unknown;
}

/**
 * The causes of a value's mismatches with a schema node and everything
 * below it, appended to `out`. With `old` (an update), a value equal to
 * the old one it replaces is not checked, nor anything below it: the API
 * server's validation ratcheting, so a schema tightened after an object
 * was written does not refuse an update that keeps its old values.
 *
 * @param schema The node.
 * @param value The value (never `undefined`).
 * @param path The value's field path (`""` for the root).
 * @param out Where the causes go.
 * @param old The value it replaces, on an update.
 */
export function validate(
  schema: Schema,
  value: unknown,
  path: string,
  out: Cause[],
  old?: Old,
): void {
  if (
    old !== undefined && old !== UNCORRELATED && jsonEqual(old.value, value)
  ) {
    return;
  }
  if (value === null) {
    if (
      schema.nullable || schema.type === undefined &&
        !schema["x-kubernetes-int-or-string"]
    ) return;
    out.push(typeInvalid(path, "null", schema.type ?? "integer or string"));
    return;
  }
  if (!typeMatches(schema, value)) {
    const expected = schema["x-kubernetes-int-or-string"]
      ? "integer or string"
      : schema.type!;
    out.push(typeInvalid(path, typeName(value), expected));
    return;
  }
  if (
    schema.enum !== undefined && !schema.enum.some((v) => jsonEqual(v, value))
  ) {
    out.push(notSupported(path, value, schema.enum));
  }
  if (typeof value === "number") number(schema, value, path, out);
  else if (typeof value === "string") string(schema, value, path, out);
  else if (Array.isArray(value)) array(schema, value, path, out, old);
  else if (isObject(value)) object(schema, value, path, out, old);
}

/**
 * What an update's value below a changed one has when nothing correlates
 * with it: checked in full, and still part of an update (its duplicates
 * are found apart, {@linkcode listTypeCauses}).
 */
const UNCORRELATED: Old = { value: undefined };

/** The old value of a child: `undefined` on a create, else correlated or not. */
function below(old: Old | undefined, found: Old | undefined): Old | undefined {
  return old === undefined ? undefined : found ?? UNCORRELATED;
}

/** The old field `name` of an old object, when it has one. */
export function oldField(old: Old | undefined, name: string): Old | undefined {
  if (old === undefined || !isObject(old.value)) return undefined;
  const value = own(old.value, name);
  return value === undefined ? undefined : { value };
}

/**
 * The old items of a list-map by the canonical text of their keys, to
 * correlate the new items with ({@linkcode oldItem}); `undefined` for
 * other lists, whose items do not correlate.
 */
export function oldItems(
  schema: Schema,
  old: Old | undefined,
): Map<string, unknown> | undefined {
  if (
    old === undefined || !Array.isArray(old.value) ||
    schema["x-kubernetes-list-type"] !== "map"
  ) return undefined;
  const keys = schema["x-kubernetes-list-map-keys"] ?? [];
  const out = new Map<string, unknown>();
  for (const item of old.value) {
    if (isObject(item)) out.set(mapKey(keys, item), item);
  }
  return out;
}

/** The old item with the keys of `item`, from {@linkcode oldItems}. */
export function oldItem(
  schema: Schema,
  olds: Map<string, unknown> | undefined,
  item: unknown,
): Old | undefined {
  if (olds === undefined || !isObject(item)) return undefined;
  const value = olds.get(
    mapKey(schema["x-kubernetes-list-map-keys"] ?? [], item),
  );
  return value === undefined ? undefined : { value };
}

function mapKey(
  keys: readonly string[],
  item: Record<string, unknown>,
): string {
  return canonical(
    Object.fromEntries(keys.map((k) => [k, own(item, k) ?? null])),
  );
}

function number(
  schema: Schema,
  value: number,
  path: string,
  out: Cause[],
): void {
  if (schema.format !== undefined && !numberFormat(schema.format, value)) {
    out.push(typeInvalid(path, String(value), schema.format));
  }
  const { minimum, maximum, multipleOf } = schema;
  if (minimum !== undefined) {
    if (schema.exclusiveMinimum ? value <= minimum : value < minimum) {
      const than = schema.exclusiveMinimum ? "" : " or equal to";
      out.push(
        invalid(
          path,
          value,
          `${inBody(path)} should be greater than${than} ${minimum}`,
        ),
      );
    }
  }
  if (maximum !== undefined) {
    if (schema.exclusiveMaximum ? value >= maximum : value > maximum) {
      const than = schema.exclusiveMaximum ? "" : " or equal to";
      out.push(
        invalid(
          path,
          value,
          `${inBody(path)} should be less than${than} ${maximum}`,
        ),
      );
    }
  }
  if (multipleOf !== undefined && !Number.isInteger(value / multipleOf)) {
    out.push(
      invalid(
        path,
        value,
        `${inBody(path)} should be a multiple of ${multipleOf}`,
      ),
    );
  }
}

function string(
  schema: Schema,
  value: string,
  path: string,
  out: Cause[],
): void {
  if (schema.format !== undefined && !stringFormat(schema.format, value)) {
    out.push(typeInvalid(path, value, schema.format));
  }
  // Lengths count characters (code points), as go-openapi does.
  const length = [...value].length;
  if (schema.maxLength !== undefined && length > schema.maxLength) {
    out.push(tooLong(path, schema.maxLength));
  }
  if (schema.minLength !== undefined && length < schema.minLength) {
    out.push(
      invalid(
        path,
        value,
        `${inBody(path)} should be at least ${schema.minLength} chars long`,
      ),
    );
  }
  if (schema.pattern !== undefined && !regExp(schema.pattern).test(value)) {
    out.push(
      invalid(path, value, `${inBody(path)} should match '${schema.pattern}'`),
    );
  }
}

const PATTERNS = new Map<string, RegExp>();

/** The compiled pattern (compiled once per pattern). */
export function regExp(pattern: string): RegExp {
  let compiled = PATTERNS.get(pattern);
  if (compiled === undefined) {
    compiled = new RegExp(pattern, "u");
    PATTERNS.set(pattern, compiled);
  }
  return compiled;
}

function array(
  schema: Schema,
  value: unknown[],
  path: string,
  out: Cause[],
  old: Old | undefined,
): void {
  if (schema.maxItems !== undefined && value.length > schema.maxItems) {
    out.push(tooMany(path, value.length, schema.maxItems));
  }
  if (schema.minItems !== undefined && value.length < schema.minItems) {
    out.push(
      invalid(
        path,
        value,
        `${inBody(path)} should have at least ${schema.minItems} items`,
      ),
    );
  }
  if (schema.items !== undefined) {
    const olds = oldItems(schema, old);
    value.forEach((item, i) =>
      validate(
        schema.items!,
        item,
        `${path}[${i}]`,
        out,
        below(old, oldItem(schema, olds, item)),
      )
    );
  }
  // On an update, duplicates are found apart ({@linkcode listTypeCauses}).
  if (old === undefined) listType(schema, value, path, out);
}

/**
 * The duplicates of every `set` and `map` list in a value (what
 * {@linkcode validate} finds of them, alone): on an update the API server
 * checks them apart from ratcheting, only when the old object has none.
 */
export function listTypeCauses(
  schema: Schema,
  value: unknown,
  path: string,
): Cause[] {
  const out: Cause[] = [];
  const walk = (node: Schema, at: unknown, where: string): void => {
    if (Array.isArray(at)) {
      listType(node, at, where, out);
      if (node.items !== undefined) {
        at.forEach((item, i) => walk(node.items!, item, `${where}[${i}]`));
      }
    } else if (isObject(at)) {
      const properties = node.properties ?? {};
      const more = node.additionalProperties;
      for (const name of Object.keys(at).sort()) {
        const field = own(at, name);
        const child_ = Object.hasOwn(properties, name)
          ? properties[name]
          : more !== undefined && more !== true
          ? more
          : undefined;
        if (child_ !== undefined && field !== undefined) {
          walk(child_, field, child(where, name));
        }
      }
    }
  };
  walk(schema, value, path);
  return out;
}

/** `set` items are unique; `map` items are unique by their keys. */
function listType(
  schema: Schema,
  value: unknown[],
  path: string,
  out: Cause[],
): void {
  const type = schema["x-kubernetes-list-type"];
  // Seen items by their canonical text: linear, where comparing each item
  // with all before it took 18 s for 20,000 items.
  if (type === "set") {
    const seen = new Set<string>();
    value.forEach((item, i) => {
      const text = canonical(item);
      if (seen.has(text)) out.push(duplicate(`${path}[${i}]`, item));
      else seen.add(text);
    });
  } else if (type === "map") {
    const keys = schema["x-kubernetes-list-map-keys"] ?? [];
    const seen = new Set<string>();
    value.forEach((item, i) => {
      if (!isObject(item)) return;
      const key = Object.fromEntries(
        keys.map((k) => [k, own(item, k) ?? null]),
      );
      const text = canonical(key);
      if (seen.has(text)) out.push(duplicate(`${path}[${i}]`, key));
      else seen.add(text);
    });
  }
}

/**
 * A JSON value's text with object keys sorted: two values have the same
 * text exactly when {@linkcode jsonEqual} says they are equal.
 */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (isObject(value)) {
    return `{${
      Object.keys(value).sort().map((k) =>
        `${JSON.stringify(k)}:${canonical(value[k])}`
      ).join(",")
    }}`;
  }
  return JSON.stringify(value) ?? "null";
}

function object(
  schema: Schema,
  value: Record<string, unknown>,
  path: string,
  out: Cause[],
  old: Old | undefined,
): void {
  const count = Object.keys(value).length;
  if (schema.maxProperties !== undefined && count > schema.maxProperties) {
    out.push(tooMany(path, count, schema.maxProperties));
  }
  if (schema.minProperties !== undefined && count < schema.minProperties) {
    out.push(
      invalid(
        path,
        value,
        `${
          inBody(path)
        } should have at least ${schema.minProperties} properties`,
      ),
    );
  }
  // Own keys only: a field named `constructor` or `__proto__` is checked
  // like any other, never read from the prototype.
  for (const name of schema.required ?? []) {
    if (own(value, name) === undefined) out.push(required(child(path, name)));
  }
  const properties = schema.properties ?? {};
  for (const name of Object.keys(properties).sort()) {
    const field = own(value, name);
    if (field !== undefined) {
      validate(
        properties[name]!,
        field,
        child(path, name),
        out,
        below(old, oldField(old, name)),
      );
    }
  }
  const more = schema.additionalProperties;
  if (more !== undefined && more !== true) {
    for (const name of Object.keys(value).sort()) {
      if (!Object.hasOwn(properties, name)) {
        validate(
          more,
          value[name],
          child(path, name),
          out,
          below(old, oldField(old, name)),
        );
      }
    }
  }
}
