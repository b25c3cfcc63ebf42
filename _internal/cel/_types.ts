/**
 * CEL types of the engine and the API server's mapping of a structural
 * OpenAPI schema to them (k8s.io/apiserver/pkg/cel/common/schemas.go), with
 * its escaping of field names (k8s.io/apiserver/pkg/cel/escaping.go).
 *
 * @module
 */

import type { Schema } from "../schema/types.ts";

/**
 * A CEL type, as the engine declares a variable.
 *
 * - the scalars: `int`, `uint`, `double`, `string`, `bool`, `bytes`,
 *   `null_type`, `timestamp`, `duration`, and `dyn` (any value);
 * - `authorizer`: the authorizer library's `authorizer` (its value a
 *   `CelAuthorizer`);
 * - `{ list }`: a list of the element type; a `set` list compares
 *   regardless of order, a `map` list by its items' keys (as the API
 *   server compares them), when the list is a field of an object;
 * - `{ map }`: a map from strings to the value type;
 * - `{ optional }`: an optional value of the type (`oldSelf` of a rule
 *   with `optionalOldSelf`): a value left out, or `null`, is
 *   `optional.none()`;
 * - `{ object }`: an object with named fields (`has(self.x)` tests
 *   presence, a missing field reads as `no such key: x`). A field's name
 *   is the API server's escaped name of the JSON property (`foo-bar` is
 *   `foo__dash__bar`, `namespace` is `__namespace__`).
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
  | "authorizer"
  | {
    readonly list: CelType;
    readonly listType?: "atomic" | "set" | "map";
    readonly mapKeys?: readonly string[];
  }
  | { readonly map: CelType }
  | { readonly object: { readonly [field: string]: CelType } }
  | { readonly optional: CelType };

/** Options of {@linkcode schemaType}. */
export interface SchemaTypeOptions {
  /**
   * Whether the schema is a resource's root (a CRD version's schema): it
   * then has `apiVersion`, `kind` and `metadata` (only `name` and
   * `generateName`), as an embedded resource does.
   */
  readonly resourceRoot?: boolean;
}

/**
 * The CEL type the API server gives a node of a structural schema
 * (`SchemaDeclType`), the type of `self` and `oldSelf`.
 *
 * - `integer` is `int`, `number` is `double`, `boolean` is `bool`;
 * - a `string` is `string`, or `bytes` (format `byte`), `duration`
 *   (format `duration`), `timestamp` (formats `date` and `date-time`);
 * - `x-kubernetes-int-or-string` is `dyn`;
 * - an `array` is a list of its items' type, with its list type;
 * - an `object` with `additionalProperties` is a map; else an object of
 *   its `properties` (with `x-kubernetes-preserve-unknown-fields`, the
 *   unknown fields are not visible); `x-kubernetes-embedded-resource`
 *   (and a resource's root) adds `apiVersion`, `kind` and `metadata` (only
 *   `name` and `generateName`);
 * - a node without a type (`x-kubernetes-preserve-unknown-fields` alone)
 *   has none: its field is left out of its object (as the API server
 *   leaves it); at the top it is `dyn`.
 */
export function schemaType(
  schema: Schema,
  options: SchemaTypeOptions = {},
): CelType {
  return declType(schema, options.resourceRoot ?? false) ?? "dyn";
}

const STRING: Schema = { type: "string" };

/** The schema of a resource root as the API server types it (`WithTypeAndObjectMeta`). */
export function withTypeAndObjectMeta(schema: Schema): Schema {
  const properties = schema.properties ?? {};
  const metadata = properties.metadata?.properties;
  if (
    properties.kind?.type === "string" &&
    properties.apiVersion?.type === "string" &&
    properties.metadata?.type === "object" &&
    metadata?.name?.type === "string" &&
    metadata?.generateName?.type === "string"
  ) {
    return schema;
  }
  return {
    ...schema,
    properties: {
      ...properties,
      kind: STRING,
      apiVersion: STRING,
      metadata: {
        type: "object",
        properties: { name: STRING, generateName: STRING },
      },
    },
  };
}

function declType(node: Schema, root: boolean): CelType | undefined {
  if (node["x-kubernetes-int-or-string"]) return "dyn";
  const schema = root ? withTypeAndObjectMeta(node) : node;
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
    case "array": {
      if (!schema.items) return undefined;
      const items = declType(
        schema.items,
        schema.items["x-kubernetes-embedded-resource"] ?? false,
      );
      if (!items) return undefined;
      const listType = schema["x-kubernetes-list-type"];
      const keys = schema["x-kubernetes-list-map-keys"];
      return {
        list: items,
        ...(listType ? { listType } : {}),
        ...(listType === "map" && keys ? { mapKeys: keys } : {}),
      };
    }
    case "object": {
      const extra = schema.additionalProperties;
      if (extra !== undefined && extra !== true) {
        const values = declType(
          extra,
          extra["x-kubernetes-embedded-resource"] ?? false,
        );
        return values ? { map: values } : undefined;
      }
      const fields: Record<string, CelType> = {};
      for (const [name, child] of Object.entries(schema.properties ?? {})) {
        const type = declType(
          child,
          child["x-kubernetes-embedded-resource"] ?? false,
        );
        const escaped = escapeField(name);
        if (type && escaped !== undefined) fields[escaped] = type;
      }
      return { object: fields };
    }
    default:
      return undefined;
  }
}

const RESERVED = new Set([
  "true",
  "false",
  "null",
  "in",
  "as",
  "break",
  "const",
  "continue",
  "else",
  "for",
  "function",
  "if",
  "import",
  "let",
  "loop",
  "package",
  "namespace",
  "return",
  "var",
  "void",
  "while",
]);

/**
 * The API server's CEL name of a property (`Escape`): a reserved word is
 * `__word__`, and `__`, `.`, `-`, `/` become `__underscores__`, `__dot__`,
 * `__dash__`, `__slash__`; a name it cannot escape (another character, a
 * leading digit) is `undefined`: the field is not visible.
 */
export function escapeField(name: string): string | undefined {
  if (name === "" || /^[0-9]/.test(name)) return undefined;
  if (RESERVED.has(name)) return `__${name}__`;
  if (!/^[A-Za-z0-9_./-]+$/.test(name)) return undefined;
  return name.replace(/__|[-./]/g, (part) => ESCAPES[part]!);
}

const ESCAPES: Record<string, string> = {
  "__": "__underscores__",
  ".": "__dot__",
  "-": "__dash__",
  "/": "__slash__",
};

const UNESCAPES: Record<string, string> = {
  "__underscores__": "__",
  "__dot__": ".",
  "__dash__": "-",
  "__slash__": "/",
};

/** The property name of an escaped CEL field name. */
export function unescapeField(field: string): string {
  const keyword = /^__(\w+)__$/.exec(field);
  if (keyword && RESERVED.has(keyword[1]!)) return keyword[1]!;
  return field.replace(
    /__(underscores|dot|dash|slash)__/g,
    (part) => UNESCAPES[part]!,
  );
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
  if ("optional" in type) return `optional_type(${typeName(type.optional)})`;
  return "object";
}
