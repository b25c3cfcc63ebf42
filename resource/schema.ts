/**
 * The OpenAPI v3 schema of a custom resource, as an `apiextensions.k8s.io/v1`
 * CustomResourceDefinition holds it (`JSONSchemaProps`), and the TypeScript
 * type it describes, inferred at the type level.
 *
 * @module
 */

import type { KubeObject } from "../apiclient/mod.ts";
import type { VersionOptions } from "./definition.ts";

export type {
  KubeObject,
  ObjectMeta,
  OwnerReference,
} from "../apiclient/mod.ts";

/** A JSON value, as a default or an enum member holds it. */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | readonly JsonValue[]
  | { readonly [key: string]: JsonValue };

/**
 * One node of a structural OpenAPI v3 schema: the keywords
 * `defineResource` supports (see the table in the module doc). Keywords the
 * API server refuses in a structural schema (`$ref`, `definitions`,
 * `patternProperties`, …) are not part of this type, and
 * `defineResource` refuses them at run time with the API server's reason.
 *
 * @example
 * ```ts
 * import type { Schema } from "@liken/kubernetes/resource";
 *
 * const size = { type: "integer", minimum: 1, default: 1 } as const satisfies Schema;
 * void size;
 * ```
 */
export interface Schema {
  /** The JSON type; required except beside `x-kubernetes-int-or-string` or `x-kubernetes-preserve-unknown-fields`. */
  readonly type?:
    | "object"
    | "array"
    | "string"
    | "integer"
    | "number"
    | "boolean";
  /** A format: `int32`, `int64`, `date-time`, `date` and others are checked. */
  readonly format?: string;
  /** A short description, carried into the CRD (`kubectl explain`). */
  readonly description?: string;
  /** The fields of an object. */
  readonly properties?: { readonly [name: string]: Schema };
  /** The fields that must be present. */
  readonly required?: readonly string[];
  /** The schema of every item of an array (one schema, not a list). */
  readonly items?: Schema;
  /** The schema of every value of a map (`true`: any value, kept as is). */
  readonly additionalProperties?: Schema | true;
  /** The values allowed. */
  readonly enum?: readonly JsonValue[];
  /** The smallest number allowed. */
  readonly minimum?: number;
  /** The largest number allowed. */
  readonly maximum?: number;
  /** Whether `minimum` itself is refused. */
  readonly exclusiveMinimum?: boolean;
  /** Whether `maximum` itself is refused. */
  readonly exclusiveMaximum?: boolean;
  /** A number the value must be a multiple of. */
  readonly multipleOf?: number;
  /** The fewest characters of a string. */
  readonly minLength?: number;
  /** The most characters of a string. */
  readonly maxLength?: number;
  /** A regular expression a string must match (unanchored, as in OpenAPI). */
  readonly pattern?: string;
  /** The fewest items of an array. */
  readonly minItems?: number;
  /** The most items of an array. */
  readonly maxItems?: number;
  /** The fewest fields of an object. */
  readonly minProperties?: number;
  /** The most fields of an object. */
  readonly maxProperties?: number;
  /** Whether `null` is a value (else a `null` field is pruned). */
  readonly nullable?: boolean;
  /** The value set when the field is absent (and its parent present). */
  readonly default?: JsonValue;
  /** An example value, carried into the CRD. */
  readonly example?: JsonValue;
  /** Keep fields the schema does not name, instead of pruning them. */
  readonly "x-kubernetes-preserve-unknown-fields"?: true;
  /** The value is an integer or a string (an `IntOrString`). */
  readonly "x-kubernetes-int-or-string"?: true;
  /** The value is a whole object with `apiVersion`, `kind` and `metadata`. */
  readonly "x-kubernetes-embedded-resource"?: boolean;
  /** How server-side apply merges the list: `atomic`, `set` or `map`. */
  readonly "x-kubernetes-list-type"?: "atomic" | "set" | "map";
  /** The keys of a `map` list. */
  readonly "x-kubernetes-list-map-keys"?: readonly string[];
  /** How server-side apply merges the object: `granular` or `atomic`. */
  readonly "x-kubernetes-map-type"?: "granular" | "atomic";
  /**
   * CEL validation rules, written into the CRD for the API server to
   * enforce. Neither `decode` nor the fake API server evaluates them (no
   * CEL evaluator in Deno): a value that breaks a rule passes both.
   */
  readonly "x-kubernetes-validations"?: readonly ValidationRule[];
}

/**
 * One CEL validation rule of `x-kubernetes-validations`, enforced by the
 * API server (not by `decode`, nor by the fake API server).
 *
 * @example
 * ```ts
 * import type { Schema } from "@liken/kubernetes/resource";
 *
 * const spec = {
 *   type: "object",
 *   properties: { min: { type: "integer" }, max: { type: "integer" } },
 *   "x-kubernetes-validations": [{ rule: "self.min <= self.max", message: "min above max" }],
 * } as const satisfies Schema;
 * void spec;
 * ```
 */
export interface ValidationRule {
  /** The CEL expression, over `self` (and `oldSelf` on an update). */
  readonly rule: string;
  /** The message of a refusal. Default: the API server's, naming the rule. */
  readonly message?: string;
  /** A CEL expression giving the message instead. */
  readonly messageExpression?: string;
  /** The refusal's reason: `FieldValueInvalid` (default), `FieldValueForbidden`, `FieldValueRequired` or `FieldValueDuplicate`. */
  readonly reason?:
    | "FieldValueInvalid"
    | "FieldValueForbidden"
    | "FieldValueRequired"
    | "FieldValueDuplicate";
  /** The field the refusal names, a JSONPath below the node, such as `.max`. */
  readonly fieldPath?: string;
  /** Whether the rule runs on a create too, with `oldSelf` unset. */
  readonly optionalOldSelf?: boolean;
}

/** The schema of the whole object: an `object` whose fields are `spec`, `status` and any others. */
export interface ObjectSchema extends Schema {
  /** Always `object`. */
  readonly type: "object";
}

/** `null` when the node is `nullable`, else `never`. */
export type InferNull<S> = S extends { readonly nullable: true } ? null : never;

/** The names a node lists in `required`. */
export type RequiredNames<S> = S extends
  { readonly required: readonly (infer R)[] } ? R & string
  : never;

/** The same type, flattened for reading. */
export type Simplify<T> = { [K in keyof T]: T[K] } & unknown;

/** The fields of `properties`; those named in `required` are not optional. */
export type InferProperties<P, R extends string> = Simplify<
  & { -readonly [K in keyof P & R]-?: Infer<P[K]> }
  & { -readonly [K in Exclude<keyof P, R>]?: Infer<P[K]> }
>;

/** The type of an `object` node: its properties, a record of `additionalProperties`, or a record of anything. */
export type InferObject<S> = S extends
  { readonly properties: infer P extends Record<string, unknown> }
  ? S extends { readonly "x-kubernetes-preserve-unknown-fields": true }
    ? InferProperties<P, RequiredNames<S>> & Record<string, unknown>
  : InferProperties<P, RequiredNames<S>>
  : S extends { readonly additionalProperties: infer A }
    ? A extends true ? Record<string, unknown> : Record<string, Infer<A>>
  : S extends { readonly "x-kubernetes-preserve-unknown-fields": true }
    ? Record<string, unknown>
  : Record<string, never>;

/** The type of a node before `nullable`. */
export type InferBase<S> = S extends
  { readonly "x-kubernetes-int-or-string": true } ? number | string
  : S extends { readonly enum: readonly (infer E)[] } ? Mutable<E>
  : S extends { readonly type: "string" } ? string
  : S extends { readonly type: "integer" | "number" } ? number
  : S extends { readonly type: "boolean" } ? boolean
  : S extends { readonly type: "array"; readonly items: infer I } ? Infer<I>[]
  : S extends { readonly type: "array" } ? unknown[]
  : S extends { readonly type: "object" } ? InferObject<S>
  : unknown;

/** A readonly tuple made mutable (enum members). */
export type Mutable<T> = T extends readonly unknown[]
  ? { -readonly [K in keyof T]: T[K] }
  : T;

/**
 * The TypeScript type of a value a schema node accepts: from `type`,
 * `properties` and `required` (required fields are not optional), `items`,
 * `enum` (a union of literals), `additionalProperties` (a record),
 * `nullable` (`| null`), `x-kubernetes-int-or-string` (`number | string`)
 * and `x-kubernetes-preserve-unknown-fields` (`unknown`, or a record beside
 * `properties`).
 *
 * @example
 * ```ts
 * import type { Infer } from "@liken/kubernetes/resource";
 *
 * const spec = {
 *   type: "object",
 *   required: ["size"],
 *   properties: {
 *     size: { type: "integer" },
 *     color: { type: "string", enum: ["red", "blue"] },
 *   },
 * } as const;
 * const value: Infer<typeof spec> = { size: 2, color: "red" };
 * void value;
 * ```
 *
 * @typeParam S The schema, as `typeof` an `as const` object.
 */
export type Infer<S> = InferBase<S> | InferNull<S>;

/**
 * The object type a definition describes: `apiVersion`, `kind` and
 * `metadata` (ObjectMeta) plus the fields its schema infers (`spec`,
 * `status`, …).
 *
 * @example
 * ```ts
 * import { defineResource, type ObjectOf } from "@liken/kubernetes/resource";
 *
 * const GADGETS = defineResource({
 *   group: "example.com",
 *   version: "v1",
 *   kind: "Gadget",
 *   plural: "gadgets",
 *   scope: "Namespaced",
 *   schema: {
 *     type: "object",
 *     properties: {
 *       spec: { type: "object", properties: { size: { type: "integer" } } },
 *     },
 *   },
 * });
 * type Gadget = ObjectOf<typeof GADGETS>;
 * const gadget: Gadget = { metadata: { name: "g" }, spec: { size: 2 } };
 * void gadget;
 * ```
 *
 * @example Another version of a definition of several
 * ```ts
 * import { defineResource, type ObjectOf } from "@liken/kubernetes/resource";
 *
 * const spec = (field: string) => ({
 *   type: "object",
 *   properties: { spec: { type: "object", properties: { [field]: { type: "integer" } } } },
 * } as const);
 * const GADGETS = defineResource({
 *   group: "example.com",
 *   kind: "Gadget",
 *   plural: "gadgets",
 *   scope: "Namespaced",
 *   versions: [
 *     { name: "v1", storage: true, schema: spec("size") },
 *     { name: "v1beta1", schema: spec("count") },
 *   ],
 * });
 * const old: ObjectOf<typeof GADGETS, "v1beta1"> = { metadata: {}, spec: { count: 1 } };
 * void old;
 * ```
 *
 * @typeParam D The definition (`typeof` what `defineResource` answered).
 * @typeParam V A version of the definition; default the one it is the
 *   `Resource` of.
 */
export type ObjectOf<
  D extends { readonly schema: ObjectSchema },
  V extends VersionOf<D> = never,
> = Simplify<
  & KubeObject
  & InferTopLevel<[V] extends [never] ? D["schema"] : SchemaAt<D, V>>
>;

/** The version names of a definition. */
export type VersionOf<D> = D extends { readonly schemas: infer M }
  ? keyof M & string
  : never;

/** The schema of version `V` of a definition. */
export type SchemaAt<D, V> = D extends { readonly schemas: infer M }
  ? V extends keyof M ? M[V] : never
  : never;

/** The top-level fields of the whole object but `apiVersion`, `kind` and `metadata`. */
export type InferTopLevel<S> = S extends
  { readonly properties: infer P extends Record<string, unknown> }
  ? InferProperties<
    Omit<P, "apiVersion" | "kind" | "metadata">,
    RequiredNames<S>
  >
  : unknown;

/** The schema of each version, by name. */
export type SchemasOf<V extends readonly VersionOptions[]> = {
  readonly [E in V[number] as E["name"]]: E["schema"];
};

/** The name of the storage version of `versions`. */
export type StorageVersionOf<V extends readonly VersionOptions[]> =
  V[number] extends infer E
    ? E extends
      { readonly name: infer N extends string; readonly storage: true } ? N
    : never
    : never;

/** The schema of version `N` of `versions`. */
export type SchemaIn<V extends readonly VersionOptions[], N extends string> =
  V[number] extends infer E
    ? E extends
      { readonly name: N; readonly schema: infer S extends ObjectSchema } ? S
    : never
    : never;
