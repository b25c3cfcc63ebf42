/**
 * The OpenAPI v3 schema of a custom resource, as an `apiextensions.k8s.io/v1`
 * CustomResourceDefinition holds it (`JSONSchemaProps`), and the TypeScript
 * type it describes, inferred at the type level.
 *
 * @module
 */

import type { KubeObject } from "../apiclient/mod.ts";

export type {
  KubeObject,
  ObjectMeta,
  OwnerReference,
} from "../apiclient/mod.ts";

export type {
  JsonValue,
  ObjectSchema,
  Schema,
  ValidationRule,
} from "../_internal/schema/types.ts";
import type { ObjectSchema } from "../_internal/schema/types.ts";

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
export type Infer<S> = [Declared<S>] extends [never]
  ? InferBase<S> | InferNull<S>
  : Declared<S>;

/**
 * The type a built-in schema declares (a `BuiltinSchema<T>` of
 * `@liken/kubernetes/api/<group>/<version>/schemas`, such as
 * `JOB_TEMPLATE_SPEC`), else `never`: an embedded built-in type is typed as
 * the generated type, not inferred from its large schema.
 *
 * @typeParam S The schema.
 */
export type Declared<S> = S extends { readonly "~type"?: infer T }
  ? unknown extends T ? never : Exclude<T, undefined>
  : never;

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
