/**
 * Schema pieces that most custom resources repeat, to place in a
 * `defineResource` schema rather than write again.
 *
 * @module
 */

import type { Schema } from "./schema.ts";

/**
 * The schema of a `status.conditions` list as the conditions module (and
 * `context.status()`) writes it: `metav1.Condition` items, a map list keyed
 * by `type` (`x-kubernetes-list-type: map`, `x-kubernetes-list-map-keys:
 * [type]`, as kubebuilder emits for `+listType=map` and
 * `+listMapKey=type`), so each type appears once and server-side apply
 * merges conditions by type. Its objects type as `Condition` of
 * `@liken/kubernetes/conditions`, with `lastTransitionTime` required.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { Condition } from "@liken/kubernetes/conditions";
 * import { CONDITIONS_SCHEMA, defineResource, SchemaError } from "@liken/kubernetes/resource";
 *
 * const GADGETS = defineResource({
 *   group: "example.com",
 *   version: "v1",
 *   kind: "Gadget",
 *   plural: "gadgets",
 *   scope: "Namespaced",
 *   status: true,
 *   schema: {
 *     type: "object",
 *     properties: {
 *       status: { type: "object", properties: { conditions: CONDITIONS_SCHEMA } },
 *     },
 *   },
 * });
 * const ready = { type: "Ready", status: "True", reason: "Up", message: "", lastTransitionTime: "2030-01-01T00:00:00Z" } as const;
 * const gadget = GADGETS.decode({ metadata: { name: "g" }, status: { conditions: [ready] } });
 * const conditions: Condition[] | undefined = gadget.status?.conditions;
 * assert.equal(conditions?.[0]?.status, "True");
 * assert.throws(
 *   () => GADGETS.decode({ metadata: { name: "g" }, status: { conditions: [ready, ready] } }),
 *   SchemaError,
 * );
 * ```
 */
export const CONDITIONS_SCHEMA = {
  type: "array",
  "x-kubernetes-list-type": "map",
  "x-kubernetes-list-map-keys": ["type"],
  items: {
    type: "object",
    required: ["type", "status", "reason", "message", "lastTransitionTime"],
    properties: {
      type: { type: "string" },
      status: { type: "string", enum: ["True", "False", "Unknown"] },
      observedGeneration: { type: "integer", format: "int64" },
      reason: { type: "string" },
      message: { type: "string" },
      lastTransitionTime: { type: "string", format: "date-time" },
    },
  },
} as const satisfies Schema;

/**
 * The schema of a reference to another object (core/v1 `ObjectReference`,
 * `ObjectReference` of `@liken/kubernetes/apiclient`): `kind` and `name`
 * required, the other fields optional strings, and atomic
 * (`x-kubernetes-map-type: atomic`, as kubebuilder emits for the core
 * type), so server-side apply replaces a reference whole rather than
 * merging two.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ObjectReference } from "@liken/kubernetes/apiclient";
 * import { defineResource, OBJECT_REFERENCE_SCHEMA } from "@liken/kubernetes/resource";
 *
 * const BACKUPS = defineResource({
 *   group: "example.com",
 *   version: "v1",
 *   kind: "Backup",
 *   plural: "backups",
 *   scope: "Namespaced",
 *   schema: {
 *     type: "object",
 *     properties: {
 *       spec: { type: "object", properties: { source: OBJECT_REFERENCE_SCHEMA } },
 *     },
 *   },
 * });
 * const backup = BACKUPS.decode({
 *   metadata: { name: "b" },
 *   spec: { source: { kind: "PersistentVolumeClaim", name: "data", extra: 1 } },
 * });
 * const source: ObjectReference | undefined = backup.spec?.source;
 * assert.deepEqual(source, { kind: "PersistentVolumeClaim", name: "data" });
 * ```
 */
export const OBJECT_REFERENCE_SCHEMA = {
  type: "object",
  "x-kubernetes-map-type": "atomic",
  required: ["kind", "name"],
  properties: {
    apiVersion: { type: "string" },
    kind: { type: "string" },
    namespace: { type: "string" },
    name: { type: "string" },
    uid: { type: "string" },
    resourceVersion: { type: "string" },
    fieldPath: { type: "string" },
  },
} as const satisfies Schema;
