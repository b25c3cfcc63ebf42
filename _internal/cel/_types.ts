/**
 * CEL types of the engine and the API server's mapping of a structural
 * OpenAPI schema to them (k8s.io/apiserver/pkg/cel/common/schemas.go), with
 * the conversion of a JSON value to the engine's values
 * (k8s.io/apiserver/pkg/cel/common/values.go).
 *
 * @module
 */

import type { Schema } from "../schema/types.ts";

/**
 * A CEL type, as the engine declares a variable.
 *
 * - the scalars: `int`, `uint`, `double`, `string`, `bool`, `bytes`,
 *   `null_type`, `timestamp`, `duration`, and `dyn` (any value);
 * - `{ list }`: a list of the element type; `set` and `map` lists of the
 *   schema compare as the API server compares them only where noted;
 * - `{ map }`: a map from strings to the value type;
 * - `{ object }`: an object with named fields (`has(self.x)` tests
 *   presence, a missing field reads as `no such key: x`).
 */
export type CelType =
  | "int"
  | "uint"
  | "double"
  | "string"
  | "bool"
  | "bytes"
  | "null_type"
  | "timestamp"
  | "duration"
  | "dyn"
  | { readonly list: CelType }
  | { readonly map: CelType }
  | { readonly object: { readonly [field: string]: CelType } };

/**
 * The CEL type the API server gives a node of a structural schema.
 *
 * - `integer` is `int`, `number` is `double`, `boolean` is `bool`;
 * - a `string` is `string`, or `bytes` (format `byte`), `duration`
 *   (format `duration`), `timestamp` (formats `date` and `date-time`);
 * - `x-kubernetes-int-or-string` and `x-kubernetes-preserve-unknown-fields`
 *   (without properties) are `dyn`;
 * - an `array` is a list of its items' type, whatever its list type;
 * - an `object` with `additionalProperties` is a map; with `properties`
 *   an object of those fields; `x-kubernetes-embedded-resource` adds
 *   `apiVersion`, `kind` and `metadata` (only `name` and `generateName`).
 */
export function schemaType(schema: Schema): CelType {
  if (schema["x-kubernetes-int-or-string"]) return "dyn";
  switch (schema.type) {
    case "integer":
      return "int";
    case "number":
      return "double";
    case "boolean":
      return "bool";
    case "string":
      switch (schema.format) {
        case "byte":
          return "bytes";
        case "duration":
          return "duration";
        case "date":
        case "date-time":
          return "timestamp";
      }
      return "string";
    case "array":
      return { list: schema.items ? schemaType(schema.items) : "dyn" };
    case "object": {
      const extra = schema.additionalProperties;
      if (extra !== undefined && !schema.properties) {
        return { map: extra === true ? "dyn" : schemaType(extra) };
      }
      if (
        schema["x-kubernetes-preserve-unknown-fields"] && !schema.properties &&
        !schema["x-kubernetes-embedded-resource"]
      ) {
        return "dyn";
      }
      const fields: Record<string, CelType> = {};
      if (schema["x-kubernetes-embedded-resource"]) {
        fields.apiVersion = "string";
        fields.kind = "string";
        fields.metadata = {
          object: { name: "string", generateName: "string" },
        };
      }
      for (const [name, child] of Object.entries(schema.properties ?? {})) {
        fields[name] = schemaType(child);
      }
      return { object: fields };
    }
    default:
      return "dyn";
  }
}

/** The type's name in CEL's notation, as an error names it. */
export function typeName(type: CelType): string {
  if (typeof type === "string") {
    if (type === "timestamp") return "google.protobuf.Timestamp";
    if (type === "duration") return "google.protobuf.Duration";
    return type;
  }
  if ("list" in type) return `list(${typeName(type.list)})`;
  if ("map" in type) return `map(string, ${typeName(type.map)})`;
  return "object";
}
