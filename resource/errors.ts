/**
 * The errors of the `resource` module: an object that does not match its
 * schema ({@linkcode SchemaError}) and a schema the API server would refuse
 * ({@linkcode StructuralSchemaError}).
 *
 * @module
 */

import type { Cause } from "../_internal/schema/types.ts";

export type { Cause };

/** `field: message` for one cause; `[a, b]` for several, as the API server joins them. */
function joined(causes: readonly Cause[]): string {
  const parts = causes.map((cause) => `${cause.field}: ${cause.message}`);
  return parts.length === 1 ? parts[0]! : `[${parts.join(", ")}]`;
}

/**
 * An object that does not match the schema of its definition, as the API
 * server's 422 `Invalid` answer states it: `causes` are the entries of its
 * `details.causes`, in the same wording, and the message is the Status
 * message (`Gadget.example.com "bad" is invalid: spec.size: Required
 * value`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { defineResource, SchemaError } from "@liken/kubernetes/resource";
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
 *       spec: { type: "object", properties: { size: { type: "integer", minimum: 1 } } },
 *     },
 *   },
 * });
 * try {
 *   GADGETS.decode({ metadata: { name: "bad" }, spec: { size: 0 } });
 *   assert.fail("decoded");
 * } catch (error) {
 *   assert.ok(error instanceof SchemaError);
 *   assert.deepEqual(error.causes, [{
 *     field: "spec.size",
 *     reason: "FieldValueInvalid",
 *     message: "Invalid value: 0: spec.size in body should be greater than or equal to 1",
 *   }]);
 * }
 * ```
 */
export class SchemaError extends Error {
  /** What is wrong, one entry per field. */
  readonly causes: readonly Cause[];
  /** The kind of the object, such as `Gadget`. */
  readonly kind: string;
  /** The API group of the object. */
  readonly group: string;
  /** The object's name, when it has one. */
  readonly objectName: string | undefined;

  /**
   * Makes the error.
   *
   * @param kind The kind.
   * @param group The API group.
   * @param objectName The object's name.
   * @param causes What is wrong (at least one).
   */
  constructor(
    kind: string,
    group: string,
    objectName: string | undefined,
    causes: readonly Cause[],
  ) {
    super(
      `${kind}.${group} ${JSON.stringify(objectName ?? "")} is invalid: ${
        joined(causes)
      }`,
    );
    this.name = "SchemaError";
    this.kind = kind;
    this.group = group;
    this.objectName = objectName;
    this.causes = causes;
  }
}

/**
 * A schema the API server would refuse in a CustomResourceDefinition (not
 * structural, or with a default that does not validate): `causes` name each
 * keyword by its path in the CRD
 * (`spec.versions[0].schema.openAPIV3Schema.properties[spec].type`) with the
 * API server's reason.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { defineResource, StructuralSchemaError } from "@liken/kubernetes/resource";
 *
 * assert.throws(
 *   () =>
 *     defineResource({
 *       group: "example.com",
 *       version: "v1",
 *       kind: "Gadget",
 *       plural: "gadgets",
 *       scope: "Namespaced",
 *       schema: { type: "object", properties: { spec: {} } },
 *     }),
 *   StructuralSchemaError,
 * );
 * ```
 */
export class StructuralSchemaError extends Error {
  /** What is wrong, one entry per keyword. */
  readonly causes: readonly Cause[];
  /** The name of the CustomResourceDefinition, such as `gadgets.example.com`. */
  readonly definition: string;

  /**
   * Makes the error.
   *
   * @param definition The CRD's name.
   * @param causes What is wrong (at least one).
   */
  constructor(definition: string, causes: readonly Cause[]) {
    super(
      `CustomResourceDefinition.apiextensions.k8s.io ${
        JSON.stringify(definition)
      } is invalid: ${joined(causes)}`,
    );
    this.name = "StructuralSchemaError";
    this.definition = definition;
    this.causes = causes;
  }
}
