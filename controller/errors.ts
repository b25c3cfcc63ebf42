// The failures a controller logs as errors about one key or object.
import { objectKey, type ObjectRef } from "../apiclient/resource.ts";
import { describe } from "../_internal/errors.ts";
import { collectionName } from "../_internal/names.ts";
import type { Source } from "../informer/source.ts";

/**
 * A reconcile failed; the key runs again after its backoff. The reconcile's
 * error is the `cause`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ReconcileError } from "@liken/kubernetes/controller";
 *
 * const error = new ReconcileError("greeting", "default/a", new Error("boom"));
 * assert.equal(error.message, "Reconciling default/a (greeting) failed: boom");
 * ```
 */
export class ReconcileError extends Error {
  /** The controller's name. */
  readonly controller: string;
  /** The key whose reconcile failed. */
  readonly key: string;

  /**
   * Makes the error.
   *
   * @param controller The controller's name.
   * @param key The key.
   * @param cause The reconcile's error.
   */
  constructor(controller: string, key: string, cause: unknown) {
    super(`Reconciling ${key} (${controller}) failed: ${describe(cause)}`, {
      cause,
    });
    this.name = "ReconcileError";
    this.controller = controller;
    this.key = key;
  }
}

/**
 * A reconcile was still running when another copy of the operator may have
 * taken the Lease (one Lease duration after this copy's last accepted
 * renewal): its side effects may overlap the new leader's. Its signal
 * aborted when the write guard first refused; a reconcile that honours it
 * ends well before this.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LeaseOutlivedError } from "@liken/kubernetes/controller";
 *
 * const error = new LeaseOutlivedError("greeting", "default/a", Date.parse("2030-01-01T00:00:30Z"));
 * assert.equal(
 *   error.message,
 *   "Reconciling default/a (greeting) outlived the Lease: another copy may lead since 2030-01-01T00:00:30.000Z",
 * );
 * ```
 */
export class LeaseOutlivedError extends Error {
  /** The controller's name. */
  readonly controller: string;
  /** The key whose reconcile outlived the Lease. */
  readonly key: string;
  /** When another copy may lead, in milliseconds since the epoch. */
  readonly since: number;

  /**
   * Makes the error.
   *
   * @param controller The controller's name.
   * @param key The key.
   * @param since When another copy may lead (ms since the epoch).
   */
  constructor(controller: string, key: string, since: number) {
    super(
      `Reconciling ${key} (${controller}) outlived the Lease: another copy may lead since ${
        new Date(since).toISOString()
      }`,
    );
    this.name = "LeaseOutlivedError";
    this.controller = controller;
    this.key = key;
    this.since = since;
  }
}

/** Options of {@linkcode WatchMapError}. */
export interface WatchMapErrorOptions {
  /** The watched collection (the `watches[].source`). */
  source: Source;
  /** The object `map` was called for. */
  ref: ObjectRef;
  /** What `map` threw. */
  cause: unknown;
}

/**
 * A `watches[].map` threw: the change of that object woke no primary key
 * (the next change of it, or a resync, may). The map's error is the `cause`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { WatchMapError } from "@liken/kubernetes/controller";
 *
 * const secrets = { version: "v1", resource: "secrets", namespace: "default" };
 * const error = new WatchMapError("greeting", {
 *   source: secrets,
 *   ref: { ...secrets, name: "tls" },
 *   cause: new Error("no owner label"),
 * });
 * assert.equal(
 *   error.message,
 *   "Mapping default/tls of default/secrets to greeting keys failed: no owner label",
 * );
 * ```
 */
export class WatchMapError extends Error {
  /** The controller's name. */
  readonly controller: string;
  /** The watched collection. */
  readonly source: Source;
  /** The collection's name, such as `default/secrets`. */
  readonly collection: string;
  /** The object `map` was called for. */
  readonly ref: ObjectRef;

  /**
   * Makes the error.
   *
   * @param controller The controller's name.
   * @param options The collection, the object, and what `map` threw.
   */
  constructor(controller: string, options: WatchMapErrorOptions) {
    const { source, ref, cause } = options;
    const collection = collectionName(source);
    super(
      `Mapping ${
        objectKey(ref)
      } of ${collection} to ${controller} keys failed: ${describe(cause)}`,
      { cause },
    );
    this.name = "WatchMapError";
    this.controller = controller;
    this.source = { ...source };
    this.collection = collection;
    this.ref = { ...ref };
  }
}

/**
 * A server-side apply of a child with `force` off met fields another field
 * manager owns (the API server's 409 whose `details.causes[].reason` is
 * `FieldManagerConflict`). No retry fixes it: take the fields (`force`),
 * stop stating them, or have the other manager let them go. The API
 * server's `ConflictError` is the `cause`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ApplyConflictError } from "@liken/kubernetes/controller";
 *
 * const ref = { version: "v1", resource: "configmaps", namespace: "default", name: "web" };
 * const error = new ApplyConflictError("greeting", { ref, fields: [".data.k"], cause: new Error("409") });
 * assert.equal(
 *   error.message,
 *   "Applying default/web of configmaps (greeting) met fields another manager owns: .data.k",
 * );
 * ```
 */
export class ApplyConflictError extends Error {
  /** The controller's name (the field manager). */
  readonly controller: string;
  /** The child. */
  readonly ref: ObjectRef;
  /** The contested fields, as the API server names them (`.data.k`). */
  readonly fields: readonly string[];

  /**
   * Makes the error.
   *
   * @param controller The controller's name.
   * @param options The child, the contested fields, and the API error.
   */
  constructor(controller: string, options: ApplyConflictErrorOptions) {
    const { ref, fields, cause } = options;
    super(
      `Applying ${
        objectKey(ref)
      } of ${ref.resource} (${controller}) met fields another manager owns: ${
        fields.length === 0 ? "(unnamed)" : fields.join(", ")
      }`,
      { cause },
    );
    this.name = "ApplyConflictError";
    this.controller = controller;
    this.ref = { ...ref };
    this.fields = [...fields];
  }
}

/** Options of {@linkcode ApplyConflictError}. */
export interface ApplyConflictErrorOptions {
  /** The child. */
  ref: ObjectRef;
  /** The contested fields. */
  fields: readonly string[];
  /** The API server's error. */
  cause: unknown;
}
