// The failures a collection logs as errors: one class per path, each
// naming the collection (and the object, where there is one), with the
// original error as `cause`.
import { objectKey, type ObjectRef } from "../apiclient/resource.ts";
import { describe } from "../_internal/errors.ts";
import { collectionName } from "../_internal/names.ts";
import type { Source } from "./source.ts";

/** Options of {@linkcode CollectionError}. */
export interface CollectionErrorOptions {
  /** The object the failure is about, when there is one. */
  ref?: ObjectRef | undefined;
  /** The original error. */
  cause?: unknown;
  /** The message. Default: names the collection and the cause. */
  message?: string | undefined;
}

/**
 * A failure of one watched collection, as its logger's error line has it. Each path
 * has its own subclass ({@linkcode ListError}, {@linkcode WatchError},
 * {@linkcode DecodeError}, {@linkcode EventHandlerError},
 * {@linkcode ObjectRefusedError}); this class itself stands for a failure
 * none of them describes. The original error is the `cause`.
 *
 * @example Tell the collection's failures apart
 * ```ts
 * import assert from "node:assert/strict";
 * import { CollectionError, WatchError } from "@liken/kubernetes/informer";
 *
 * const error: unknown = new WatchError(
 *   { version: "v1", resource: "configmaps", namespace: "default" },
 *   { cause: new Error("connection reset") },
 * );
 * assert.ok(error instanceof CollectionError);
 * assert.equal(error.collection, "default/configmaps");
 * assert.equal(error.message, "Watching default/configmaps failed: connection reset");
 * ```
 */
export class CollectionError extends Error {
  /** The collection (and its selectors). */
  readonly source: Source;
  /** The collection's name, such as `default/configmaps [app=web]`. */
  readonly collection: string;
  /** The object the failure is about, when there is one. */
  readonly ref: ObjectRef | undefined;

  /**
   * Makes the error.
   *
   * @param source The collection.
   * @param options The object, the original error, and the message.
   */
  constructor(source: Source, options: CollectionErrorOptions = {}) {
    const collection = collectionName(source);
    const { ref, cause } = options;
    super(
      options.message ??
        `The watch of ${collection} failed: ${describe(cause)}`,
      { cause },
    );
    this.name = "CollectionError";
    this.source = { ...source };
    this.collection = collection;
    this.ref = ref === undefined ? undefined : { ...ref };
  }
}

/** Options of {@linkcode ListError}. */
export interface ListErrorOptions {
  /** The original error, such as the API server's `ApiError`. */
  cause: unknown;
  /** Whether the read was a streaming list (a watch that sends every object first). */
  streaming?: boolean | undefined;
}

/**
 * Reading the whole collection failed: a paginated list, or a streaming list
 * (refused, or cut before its last object). The collection tries again
 * after its backoff; `listFailed` hears the paginated ones too.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ListError } from "@liken/kubernetes/informer";
 *
 * const error = new ListError({ version: "v1", resource: "secrets" }, {
 *   cause: new Error("503"),
 * });
 * assert.equal(error.message, "Listing secrets failed: 503");
 * assert.equal(error.streaming, false);
 * ```
 */
export class ListError extends CollectionError {
  /** Whether the read was a streaming list. */
  readonly streaming: boolean;

  /**
   * Makes the error.
   *
   * @param source The collection.
   * @param options The original error, and whether the list streamed.
   */
  constructor(source: Source, options: ListErrorOptions) {
    const { cause } = options;
    super(source, {
      cause,
      message: `Listing ${collectionName(source)} failed: ${describe(cause)}`,
    });
    this.name = "ListError";
    this.streaming = options.streaming === true;
  }
}

/**
 * A watch of the collection was refused, broke, or ended with an ERROR
 * event; the store keeps answering (unless the refusal was a 401 or 403, or
 * `unreadyOnWatchError` is set) and the watch resumes after its backoff. A
 * silent watch abandoned by the heartbeat has a `WatchIdleError` as `cause`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { WatchError } from "@liken/kubernetes/informer";
 *
 * const error = new WatchError({ version: "v1", resource: "pods", labelSelector: "app=web" }, {
 *   cause: new Error("connection reset"),
 * });
 * assert.equal(error.message, "Watching pods [app=web] failed: connection reset");
 * ```
 */
export class WatchError extends CollectionError {
  /**
   * Makes the error.
   *
   * @param source The collection.
   * @param options The original error.
   */
  constructor(source: Source, options: { cause: unknown }) {
    const { cause } = options;
    super(source, {
      cause,
      message: `Watching ${collectionName(source)} failed: ${describe(cause)}`,
    });
    this.name = "WatchError";
  }
}

/**
 * A copy of an object failed the collection's `transform` or `decode`: the
 * store holds the object without a value (handlers do not see the copy,
 * reads skip it), so an edit is never dropped without a word.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DecodeError } from "@liken/kubernetes/informer";
 *
 * const configMaps = { version: "v1", resource: "configmaps" };
 * const error = new DecodeError(configMaps, {
 *   ref: { ...configMaps, namespace: "default", name: "web" },
 *   cause: new Error("no data"),
 * });
 * assert.equal(error.message, "Decoding default/web of configmaps failed: no data");
 * ```
 */
export class DecodeError extends CollectionError {
  /** The object whose copy did not decode. */
  declare readonly ref: ObjectRef;

  /**
   * Makes the error.
   *
   * @param source The collection.
   * @param options The object, and what `decode` or `transform` threw.
   */
  constructor(source: Source, options: { ref: ObjectRef; cause: unknown }) {
    const { ref, cause } = options;
    super(source, {
      ref,
      cause,
      message: `Decoding ${objectKey(ref)} of ${
        collectionName(source)
      } failed: ${describe(cause)}`,
    });
    this.name = "DecodeError";
  }
}

/** Options of {@linkcode EventHandlerError}. */
export interface EventHandlerErrorOptions {
  /**
   * The option that threw, as it is spelt: `handler.add`, `handler.update`,
   * `handler.delete`, `synced`, `reopened`, `recovered`, `relisted`,
   * `listFailed`, `absent`, or `indexers.<name>`.
   */
  call: string;
  /** The object it was called for, when there is one. */
  ref?: ObjectRef | undefined;
  /** What it threw or rejected with. */
  cause: unknown;
}

/**
 * A function the caller gave the collection threw or rejected: a handler
 * call, a callback, or an indexer. The watch goes on.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { EventHandlerError } from "@liken/kubernetes/informer";
 *
 * const configMaps = { version: "v1", resource: "configmaps" };
 * const error = new EventHandlerError(configMaps, {
 *   call: "handler.add",
 *   ref: { ...configMaps, namespace: "default", name: "web" },
 *   cause: new Error("boom"),
 * });
 * assert.equal(error.message, "Calling handler.add of configmaps for default/web failed: boom");
 * ```
 */
export class EventHandlerError extends CollectionError {
  /** The option that threw (see {@linkcode EventHandlerErrorOptions.call}). */
  readonly call: string;

  /**
   * Makes the error.
   *
   * @param source The collection.
   * @param options The call, the object, and what it threw.
   */
  constructor(source: Source, options: EventHandlerErrorOptions) {
    const { call, ref, cause } = options;
    const about = ref === undefined ? "" : ` for ${objectKey(ref)}`;
    super(source, {
      ref,
      cause,
      message: `Calling ${call} of ${collectionName(source)}${about} failed: ${
        describe(cause)
      }`,
    });
    this.name = "EventHandlerError";
    this.call = call;
  }
}

/** Options of {@linkcode ObjectRefusedError}. */
export interface ObjectRefusedErrorOptions {
  /** Why the object cannot be held, such as `it has no metadata`. */
  reason: string;
  /** The object's `kind`, when it names one. */
  kind?: string | undefined;
}

/**
 * An object the API server sent cannot be held in a store: it is not an
 * object, or has no non-empty string `metadata.name` (or a namespace that is
 * not a string). It is dropped, since its key would stand for no object;
 * there is no `ref`, since it names none.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ObjectRefusedError } from "@liken/kubernetes/informer";
 *
 * const error = new ObjectRefusedError({ version: "v1", resource: "configmaps" }, {
 *   reason: "it has no metadata",
 *   kind: "ConfigMap",
 * });
 * assert.equal(error.message, "Refused a ConfigMap of configmaps: it has no metadata");
 * ```
 */
export class ObjectRefusedError extends CollectionError {
  /** Why the object cannot be held. */
  readonly reason: string;
  /** The object's `kind`, when it names one. */
  readonly kind: string | undefined;

  /**
   * Makes the error.
   *
   * @param source The collection.
   * @param options Why, and the object's kind.
   */
  constructor(source: Source, options: ObjectRefusedErrorOptions) {
    const { reason, kind } = options;
    const what = kind === undefined
      ? "an object"
      : `${/^[aeiou]/i.test(kind) ? "an" : "a"} ${kind}`;
    super(source, {
      message: `Refused ${what} of ${collectionName(source)}: ${reason}`,
    });
    this.name = "ObjectRefusedError";
    this.reason = reason;
    this.kind = kind;
  }
}
