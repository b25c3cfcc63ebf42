// The API server's structural-schema rules for a CRD's `openAPIV3Schema`
// (apiextensions-apiserver `apis/apiextensions/validation` and
// `apiserver/schema`): a schema breaking one is refused with these reasons.

import type { Cause, Schema } from "./types.ts";
import { forbidden, invalid, required, shown } from "./messages.ts";
import { applyDefaults, copy, prune } from "./prune.ts";
import { regExp, validate } from "./validate.ts";

/** The keywords of `Schema`. */
const KEYWORDS = new Set([
  "type",
  "format",
  "description",
  "properties",
  "required",
  "items",
  "additionalProperties",
  "enum",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "pattern",
  "minItems",
  "maxItems",
  "minProperties",
  "maxProperties",
  "nullable",
  "default",
  "example",
  "x-kubernetes-preserve-unknown-fields",
  "x-kubernetes-int-or-string",
  "x-kubernetes-embedded-resource",
  "x-kubernetes-list-type",
  "x-kubernetes-list-map-keys",
  "x-kubernetes-map-type",
  "x-kubernetes-validations",
]);

/** Keywords the API server refuses in a structural schema, with its reason. */
const UNSUPPORTED: Record<string, string> = {
  "$ref": "$ref is not supported",
  "definitions": "definitions is not supported",
  "dependencies": "dependencies is not supported",
  "additionalItems": "additionalItems is not supported",
  "patternProperties": "patternProperties is not supported",
  "id": "id is not supported",
  "$schema": "$schema is not supported",
};

/** Keywords the API server takes that this module does not evaluate yet. */
const NOT_YET = ["allOf", "anyOf", "oneOf", "not"];

const TYPES = ["object", "array", "string", "integer", "number", "boolean"];

type Level = "root" | "field" | "item";

/**
 * The causes that make the schema not structural, appended to `out`; also
 * the keywords `defineResource` does not evaluate yet.
 *
 * @param schema The node.
 * @param path Its path in the CRD.
 * @param level Where it is.
 * @param out Where the causes go.
 */
export function structural(
  schema: Schema,
  path: string,
  level: Level,
  out: Cause[],
): void {
  check(schema, path, { level, out, lenient: false });
}

/**
 * The causes that make a CRD's schema not structural, as the API server
 * refuses it: the keywords `defineResource` does not evaluate yet
 * (`allOf`, `anyOf`, `oneOf`, `not`) pass.
 *
 * @param schema The `openAPIV3Schema`.
 * @param path Its path in the CRD, such as `spec.versions[1].schema.openAPIV3Schema`.
 * @returns The causes; empty when the schema is structural.
 */
export function servedStructural(schema: Schema, path: string): Cause[] {
  const out: Cause[] = [];
  check(schema, path, { level: "root", out, lenient: true });
  if (out.length === 0) defaultRules(schema, path, out);
  return out;
}

/** Where a node is, where causes go, and whether unevaluated keywords pass. */
interface Walk {
  level: Level;
  out: Cause[];
  lenient: boolean;
}

function check(schema: Schema, path: string, walk: Walk): void {
  const { level, out } = walk;
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    out.push(invalid(path, schema, "must be a schema object"));
    return;
  }
  const node = schema as Record<string, unknown>;
  for (const key of Object.keys(node)) {
    if (Object.hasOwn(UNSUPPORTED, key)) {
      out.push(forbidden(`${path}.${key}`, UNSUPPORTED[key]!));
    } else if (key === "uniqueItems") {
      if (node[key] === true) {
        out.push(
          forbidden(
            `${path}.uniqueItems`,
            "uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
          ),
        );
      }
    } else if (NOT_YET.includes(key)) {
      if (walk.lenient) continue;
      out.push(
        forbidden(
          `${path}.${key}`,
          `${key} is not supported by defineResource yet`,
        ),
      );
    } else if (!KEYWORDS.has(key)) {
      out.push(
        forbidden(`${path}.${key}`, "is not a keyword of JSONSchemaProps"),
      );
    }
  }
  typeRules(schema, path, level, out);
  if (Array.isArray(node.items)) {
    out.push(
      forbidden(
        `${path}.items`,
        "items must be a schema object and not an array",
      ),
    );
  } else if (schema.items !== undefined) {
    check(schema.items, `${path}.items`, { ...walk, level: "item" });
  } else if (schema.type === "array") {
    out.push(required(`${path}.items`, "must be specified"));
  }
  const more = node.additionalProperties;
  if (more !== undefined && schema.properties !== undefined) {
    out.push(
      forbidden(
        `${path}.additionalProperties`,
        "additionalProperties and properties are mutual exclusive",
      ),
    );
  } else if (more === false) {
    out.push(
      forbidden(
        `${path}.additionalProperties`,
        "additionalProperties cannot be set to false",
      ),
    );
  } else if (typeof more === "object" && more !== null) {
    check(more as Schema, `${path}.additionalProperties`, {
      ...walk,
      level: "field",
    });
  }
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    check(property, `${path}.properties[${name}]`, {
      ...walk,
      level: "field",
    });
  }
  if (level === "root") metadataRules(schema, path, out);
  if (schema.pattern !== undefined) {
    try {
      regExp(schema.pattern);
    } catch {
      out.push(
        invalid(
          `${path}.pattern`,
          schema.pattern,
          "must be a valid regular expression",
        ),
      );
    }
  }
}

function typeRules(
  schema: Schema,
  path: string,
  level: Level,
  out: Cause[],
): void {
  const type = schema.type as string | undefined;
  if (type === "null") {
    out.push(
      forbidden(
        `${path}.type`,
        "type cannot be set to null, use nullable as an alternative",
      ),
    );
  } else if (type !== undefined && !TYPES.includes(type)) {
    out.push({
      field: `${path}.type`,
      reason: "FieldValueNotSupported",
      message: `Unsupported value: ${shown(type)}: supported values: ${
        TYPES.map((t) => JSON.stringify(t)).join(", ")
      }`,
    });
  }
  const exempt = schema["x-kubernetes-int-or-string"] === true ||
    schema["x-kubernetes-preserve-unknown-fields"] === true;
  if (type === undefined && !exempt) {
    const where = level === "root"
      ? "at the root"
      : level === "item"
      ? "for specified array items"
      : "for specified object fields";
    out.push(required(`${path}.type`, `must not be empty ${where}`));
  }
  if (level === "root" && type !== undefined && type !== "object") {
    out.push(invalid(`${path}.type`, type, "must be object at the root"));
  }
  if ((schema["x-kubernetes-preserve-unknown-fields"] as unknown) === false) {
    out.push(
      invalid(
        `${path}.x-kubernetes-preserve-unknown-fields`,
        false,
        "must be true or undefined",
      ),
    );
  }
  if (schema["x-kubernetes-embedded-resource"] === true && type !== "object") {
    out.push(
      invalid(
        `${path}.type`,
        type ?? "",
        "must be object if x-kubernetes-embedded-resource is true",
      ),
    );
  }
  const listType = schema["x-kubernetes-list-type"];
  const keys = schema["x-kubernetes-list-map-keys"];
  if (listType === "map" && (keys === undefined || keys.length === 0)) {
    out.push(
      required(
        `${path}.x-kubernetes-list-map-keys`,
        "must not be empty if x-kubernetes-list-type is map",
      ),
    );
  }
  if (keys !== undefined && keys.length > 0 && listType !== "map") {
    out.push(
      invalid(
        `${path}.x-kubernetes-list-type`,
        listType ?? "",
        "must be map if x-kubernetes-list-map-keys is non-empty",
      ),
    );
  }
  if (listType !== undefined && type !== "array") {
    out.push(
      invalid(
        `${path}.type`,
        type ?? "",
        "must be array if x-kubernetes-list-type is specified",
      ),
    );
  }
  // Items merge by their keys, so every item has them: each key is
  // required or defaulted (the API server's rule; an embedded
  // imagePullSecrets list found it).
  const items = schema.items;
  if (listType === "map" && keys !== undefined && items?.properties) {
    for (const key of keys) {
      const property = items.properties[key];
      if (
        property !== undefined && property.default === undefined &&
        !(items.required ?? []).includes(key)
      ) {
        out.push(
          required(
            `${path}.items.properties[${key}].default`,
            "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
          ),
        );
      }
    }
  }
}

/** At the root, `metadata` may only name `name` and `generateName`. */
function metadataRules(schema: Schema, path: string, out: Cause[]): void {
  const metadata = schema.properties?.metadata;
  if (metadata === undefined) return;
  const { type, properties, ...rest } = metadata;
  const names = Object.keys(properties ?? {});
  const onlyNames = names.every((n) => n === "name" || n === "generateName") &&
    Object.values(properties ?? {}).every((p) => p.type === "string");
  if (type !== "object" || Object.keys(rest).length > 0 || !onlyNames) {
    out.push(
      forbidden(
        `${path}.properties[metadata]`,
        "must not specify anything other than name and generateName, but metadata is implicitly specified",
      ),
    );
  }
}

/**
 * The causes that make a default of the schema (or below it) refused: one
 * the schema would prune, or one that does not validate once pruned and
 * defaulted, as the API server checks defaults. Run on a structural schema.
 *
 * @param schema The node.
 * @param path Its path in the CRD.
 * @param out Where the causes go.
 */
export function defaultRules(schema: Schema, path: string, out: Cause[]): void {
  if (schema.default !== undefined) {
    const value = copy(schema.default) as unknown;
    const unknown: string[] = [];
    prune(
      value,
      schema,
      schema["x-kubernetes-embedded-resource"] === true,
      "",
      unknown,
    );
    if (unknown.length > 0) {
      out.push(
        invalid(
          `${path}.default`,
          schema.default,
          `must not have unknown fields: ${unknown.join(", ")}`,
        ),
      );
    } else {
      applyDefaults(value, schema);
      validate(schema, value, `${path}.default`, out);
    }
  }
  if (schema.items !== undefined) {
    defaultRules(schema.items, `${path}.items`, out);
  }
  const more = schema.additionalProperties;
  if (more !== undefined && more !== true) {
    defaultRules(more, `${path}.additionalProperties`, out);
  }
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    defaultRules(property, `${path}.properties[${name}]`, out);
  }
}
