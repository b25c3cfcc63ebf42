// The OpenAPI v3 schema as the generator reads it, and the names of its
// definitions: shared by generate.ts (types) and schemas.ts (CRD schemas).

/** A `x-kubernetes-group-version-kind` entry. */
export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** An OpenAPI v3 schema, as far as the generator reads it. */
export interface Schema {
  description?: string;
  type?: string;
  format?: string;
  $ref?: string;
  allOf?: Schema[];
  oneOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  required?: string[];
  default?: unknown;
  enum?: unknown[];
  "x-kubernetes-group-version-kind"?: GroupVersionKind[];
  "x-kubernetes-list-map-keys"?: string[];
  "x-kubernetes-list-type"?: string;
  "x-kubernetes-map-type"?: string;
  "x-kubernetes-int-or-string"?: boolean;
  "x-kubernetes-preserve-unknown-fields"?: boolean;
}

/** The last dotted part of a definition name. */
export function shortName(name: string): string {
  return name.slice(name.lastIndexOf(".") + 1);
}

/** The definition a schema refers to (`$ref`, or one `allOf`). */
export function refName(schema: Schema): string | undefined {
  const ref = schema.$ref ??
    (schema.allOf?.length === 1 ? schema.allOf[0]!.$ref : undefined);
  return ref?.slice(ref.lastIndexOf("/") + 1);
}
