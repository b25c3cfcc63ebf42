/**
 * The types of a structural OpenAPI v3 schema and of one thing wrong with
 * an object, shared by the `resource` module and the fake API server.
 *
 * @module
 */

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
   * enforce. The fake API server enforces them too; `decode` evaluates
   * them only when given the definition's `validationRules()`.
   */
  readonly "x-kubernetes-validations"?: readonly ValidationRule[];
}

/**
 * One CEL validation rule of `x-kubernetes-validations`, enforced by the
 * API server and the fake API server (and by `decode` where asked).
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

/**
 * One thing wrong, shaped as an entry of the API server's
 * `Status.details.causes`.
 */
export interface Cause {
  /** The field, such as `spec.size` or `spec.tags[1]`. */
  field: string;
  /**
   * The API server's reason: `FieldValueInvalid`, `FieldValueTypeInvalid`,
   * `FieldValueRequired`, `FieldValueNotSupported`, `FieldValueTooMany`,
   * `FieldValueTooLong`, `FieldValueDuplicate` or `FieldValueForbidden`.
   */
  reason: string;
  /** What is wrong, worded as the API server words it. */
  message: string;
}
