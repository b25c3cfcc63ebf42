/**
 * The hand-written shapes the generated modules of `api/` share: the
 * {@linkcode BuiltinResource} of a built-in kind and {@linkcode Keyed}, an
 * apply configuration's list item with its list-map keys required.
 *
 * @module
 */

import type { Resource } from "../apiclient/resource.ts";
import type { KubeObject } from "../apiclient/types.ts";
import type { Schema } from "../_internal/schema/types.ts";

/**
 * A built-in kind's collection, as discovery describes it: a `Resource`
 * that carries its object type, so `client.resource(DEPLOYMENTS)` answers a
 * handle of `Deployment`s.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEPLOYMENTS } from "@liken/kubernetes/api/apps/v1";
 *
 * assert.equal(DEPLOYMENTS.apiVersion, "apps/v1");
 * assert.equal(DEPLOYMENTS.namespaced, true);
 * assert.ok(DEPLOYMENTS.subresources.includes("scale"));
 * ```
 *
 * @typeParam T The kind's object type.
 */
export interface BuiltinResource<T extends KubeObject> extends Resource<T> {
  /** The API group; empty for the core group (`/api/v1`). */
  readonly group: string;
  /** The group's version, such as `v1`. */
  readonly version: string;
  /** The resource's plural name, such as `deployments`. */
  readonly resource: string;
  /** The kind of its objects, such as `Deployment`. */
  readonly kind: string;
  /** `group/version` (`version` alone for the core group): the objects' `apiVersion`. */
  readonly apiVersion: string;
  /** Whether the kind lives in namespaces. */
  readonly namespaced: boolean;
  /** The subresources the server offers, such as `status` and `scale`. */
  readonly subresources: readonly string[];
  /** The verbs the server allows on the collection, as discovery lists them. */
  readonly verbs: readonly string[];
}

/**
 * An apply configuration's list item with its list-map keys required: a
 * server-side apply merges list items by those keys, so an item without
 * them is refused.
 *
 * @example
 * ```ts
 * import type { Keyed } from "@liken/kubernetes/api";
 *
 * type Port = { containerPort?: number; name?: string };
 * const port: Keyed<Port, "containerPort"> = { containerPort: 80 };
 * void port;
 * ```
 *
 * @typeParam T The item's apply configuration.
 * @typeParam K The list-map keys.
 */
export type Keyed<T, K extends keyof T> =
  & T
  & { [P in K]-?: Exclude<T[P], undefined> };

/**
 * A built-in type's schema as a CustomResourceDefinition embeds it (from a
 * module's `schemas.ts`, such as `@liken/kubernetes/api/batch/v1/schemas`),
 * typed by the object type it describes: `defineResource` infers that type
 * for the field that holds it.
 *
 * @example
 * ```ts
 * import type { BuiltinSchema } from "@liken/kubernetes/api";
 * import type { JobTemplateSpec } from "@liken/kubernetes/api/batch/v1";
 * import { JOB_TEMPLATE_SPEC } from "@liken/kubernetes/api/batch/v1/schemas";
 *
 * const schema: BuiltinSchema<JobTemplateSpec> = JOB_TEMPLATE_SPEC;
 * void schema;
 * ```
 *
 * @typeParam T The type the schema describes.
 */
export type BuiltinSchema<T> = Schema & {
  /** Type only, never set: the type the schema describes. */
  readonly "~type"?: T;
};
