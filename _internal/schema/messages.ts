// The API server's wording for what is wrong with a value: field errors as
// k8s.io/apimachinery's `field.Error` prints them, with the details
// kube-openapi's validator (a fork of go-openapi's) writes.

import type { Cause } from "./types.ts";

/** The JSON type of a value, as the validator names it in a type error. */
export function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") {
    return Number.isInteger(value) ? "integer" : "number";
  }
  return typeof value === "object" ? "object" : typeof value;
}

/** A value as `field.Error` prints it: strings quoted, numbers bare. */
export function shown(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean") {
    return String(value);
  }
  if (value === null || value === undefined) return "null";
  return JSON.stringify(value);
}

/** `field.Invalid`: `Invalid value: <value>: <detail>`. */
export function invalid(field: string, value: unknown, detail: string): Cause {
  return {
    field,
    reason: "FieldValueInvalid",
    message: `Invalid value: ${shown(value)}: ${detail}`,
  };
}

/** `field.TypeInvalid`, for a wrong type or format. */
export function typeInvalid(
  field: string,
  shownValue: string,
  expected: string,
): Cause {
  const value = JSON.stringify(shownValue);
  return {
    field,
    reason: "FieldValueTypeInvalid",
    message: `Invalid value: ${value}: ${
      inBody(field)
    } must be of type ${expected}: ${value}`,
  };
}

/** `field.Required`: `Required value`, with a detail when there is one. */
export function required(field: string, detail = ""): Cause {
  return {
    field,
    reason: "FieldValueRequired",
    message: detail === "" ? "Required value" : `Required value: ${detail}`,
  };
}

/** `field.Forbidden`: `Forbidden: <detail>`. */
export function forbidden(field: string, detail: string): Cause {
  return {
    field,
    reason: "FieldValueForbidden",
    message: `Forbidden: ${detail}`,
  };
}

/** `field.NotSupported`: the value and the quoted values allowed. */
export function notSupported(
  field: string,
  value: unknown,
  allowed: readonly unknown[],
): Cause {
  const values = allowed.map((v) =>
    JSON.stringify(typeof v === "string" ? v : shown(v))
  );
  return {
    field,
    reason: "FieldValueNotSupported",
    message: `Unsupported value: ${shown(value)}: supported values: ${
      values.join(", ")
    }`,
  };
}

/** `field.TooMany`: `Too many: <n>: must have at most <max> items`. */
export function tooMany(field: string, actual: number, max: number): Cause {
  return {
    field,
    reason: "FieldValueTooMany",
    message: `Too many: ${actual}: must have at most ${max} items`,
  };
}

/** `field.TooLong`: `Too long: may not be more than <max> bytes`. */
export function tooLong(field: string, max: number): Cause {
  return {
    field,
    reason: "FieldValueTooLong",
    message: `Too long: may not be more than ${max} bytes`,
  };
}

/** `field.Duplicate`: `Duplicate value: <value>`. */
export function duplicate(field: string, value: unknown): Cause {
  return {
    field,
    reason: "FieldValueDuplicate",
    message: `Duplicate value: ${shown(value)}`,
  };
}

/** The subject of a validator message: `spec.size in body`. */
export function inBody(field: string): string {
  return `${field} in body`;
}

/** The path of a property below `parent` (the validator's dotted form). */
export function child(parent: string, name: string): string {
  return parent === "" ? name : `${parent}.${name}`;
}
