import type { Status } from "./types.ts";
import { boundedWait, statedRetryAfter } from "./_retry_after.ts";
import { describe } from "../_internal/errors.ts";

/** Options for {@linkcode ApiError}. */
export interface ApiErrorOptions {
  /** The HTTP method of the request. */
  method: string;
  /** The API path of the request (without the server). */
  path: string;
  /** The HTTP status, or 0 when no answer came. */
  status: number;
  /** The server's `Status` object, when the body was one. */
  statusObject?: Status | undefined;
  /** The start of the server's text, when the body was not a `Status`. */
  text?: string | undefined;
  /** The error that caused this one. */
  cause?: unknown;
}

/**
 * A request the API server answered with a status outside 2xx.
 *
 * It carries the server's `Status` object when the body was one, else the
 * first 2 KiB of the body's text. Its message never holds the bearer token.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ApiError } from "@liken/kubernetes/apiclient";
 *
 * const error = new ApiError("forbidden", { method: "GET", path: "/api/v1/pods", status: 403 });
 * assert.equal(error.status, 403);
 * ```
 */
export class ApiError extends Error {
  /** The HTTP status of the answer, or 0 when no answer came. */
  readonly status: number;
  /** The server's reason, such as `Forbidden`, when it sent a `Status`. */
  readonly reason: string | undefined;
  /** The server's `Status` object, when the body was one. */
  readonly statusObject: Status | undefined;
  /** The start of the answer's text (at most 2 KiB, trailing space trimmed). */
  readonly text: string | undefined;
  /** The HTTP method of the request. */
  readonly method: string;
  /** The API path of the request. */
  readonly path: string;

  /**
   * Makes an error from what the server answered.
   *
   * @param message The error's message.
   * @param options The request and the answer.
   */
  constructor(message: string, options: ApiErrorOptions) {
    super(message, { cause: options.cause });
    this.name = "ApiError";
    this.status = options.status;
    this.statusObject = options.statusObject;
    const reason = options.statusObject?.reason;
    this.reason = typeof reason === "string" ? reason : undefined;
    this.text = options.text;
    this.method = options.method;
    this.path = options.path;
  }
}

/**
 * A 404: the object does not exist. A normal state, which the caller handles by
 * creating the object, or by treating it as gone.
 *
 * A 404 whose body is not a `Status` (the API server's plain "404 page not
 * found": nothing serves the path) on a custom resource's path adds to its
 * message which CustomResourceDefinition may be missing, such as
 * `widgets.example.com`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { NotFoundError, isStale } from "@liken/kubernetes/apiclient";
 *
 * assert.ok(isStale(new NotFoundError("gone", { method: "GET", path: "/x", status: 404 })));
 * ```
 */
export class NotFoundError extends ApiError {
  /**
   * Makes a 404 error.
   *
   * @param message The error's message.
   * @param options The request and the answer.
   */
  constructor(message: string, options: ApiErrorOptions) {
    super(message, options);
    this.name = "NotFoundError";
  }
}

/**
 * A 409: something else wrote the object first (or it already exists). A
 * normal state under optimistic concurrency: read again and retry.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ConflictError, isStale } from "@liken/kubernetes/apiclient";
 *
 * assert.ok(isStale(new ConflictError("conflict", { method: "PUT", path: "/x", status: 409 })));
 * ```
 */
export class ConflictError extends ApiError {
  /**
   * Makes a 409 error.
   *
   * @param message The error's message.
   * @param options The request and the answer.
   */
  constructor(message: string, options: ApiErrorOptions) {
    super(message, options);
    this.name = "ConflictError";
  }
}

/**
 * A 429 that lasted longer than the client waits (10 s of waits in all), or
 * past the end of the client's wait signal. A caller that must not give up asks
 * again later, waiting at least {@linkcode ThrottledError.retryAfterSeconds}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ThrottledError, retryAfterSeconds } from "@liken/kubernetes/apiclient";
 *
 * const error = new ThrottledError("busy", { method: "GET", path: "/x", status: 429 }, 3);
 * assert.equal(retryAfterSeconds(error), 3);
 * ```
 */
export class ThrottledError extends ApiError {
  /**
   * The seconds the server asked the client to wait, or 0 when it stated
   * none; at most 60 s. A 429 that states no wait is often a refusal time alone does not
   * end (an eviction a PodDisruptionBudget refuses), so the caller decides.
   */
  readonly retryAfterSeconds: number;

  /**
   * Makes a 429 error.
   *
   * @param message The error's message.
   * @param options The request and the answer.
   * @param retryAfterSeconds The wait the server stated, or 0 (a larger one
   * than 60 s is taken as that; one that is
   * not a positive number as 0).
   */
  constructor(
    message: string,
    options: ApiErrorOptions,
    retryAfterSeconds: number,
  ) {
    super(message, options);
    this.name = "ThrottledError";
    this.retryAfterSeconds = boundedWait(retryAfterSeconds);
  }
}

/**
 * A write the client's write guard refused: nothing was sent. The guard's own
 * error is the `cause` (for an election, a `NotLeadingError`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { WriteRefusedError } from "@liken/kubernetes/apiclient";
 *
 * const error = new WriteRefusedError("PUT", "/x", new Error("Not leading"));
 * assert.match(error.message, /PUT \/x not sent: Not leading/);
 * ```
 */
export class WriteRefusedError extends Error {
  /** The HTTP method of the refused request. */
  readonly method: string;
  /** The API path of the refused request. */
  readonly path: string;

  /**
   * Makes a refusal.
   *
   * @param method The HTTP method of the refused request.
   * @param path The API path of the refused request.
   * @param cause The guard's error.
   */
  constructor(method: string, path: string, cause: unknown) {
    const reason = describe(cause);
    super(`${method} ${path} not sent: ${reason}`, { cause });
    this.name = "WriteRefusedError";
    this.method = method;
    this.path = path;
  }
}

/**
 * An answer the client could not decode: a 2xx body that is not JSON, or a
 * watch line that is malformed or cut short.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MalformedResponseError } from "@liken/kubernetes/apiclient";
 *
 * const error = new MalformedResponseError("Malformed JSON", { method: "GET", path: "/x" });
 * assert.equal(error.path, "/x");
 * ```
 */
export class MalformedResponseError extends Error {
  /** The HTTP method of the request. */
  readonly method: string;
  /** The API path of the request. */
  readonly path: string;

  /**
   * Makes a decode error.
   *
   * @param message What was wrong.
   * @param options The request, and the parse error as `cause`.
   */
  constructor(
    message: string,
    options: { method: string; path: string; cause?: unknown },
  ) {
    super(`${options.method} ${options.path}: ${message}`, {
      cause: options.cause,
    });
    this.name = "MalformedResponseError";
    this.method = options.method;
    this.path = options.path;
  }
}

/**
 * A watch that stayed silent longer than its idle limit, so the connection is
 * presumed dead (a failed machine sends no FIN and no RST).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { WatchIdleError } from "@liken/kubernetes/apiclient";
 *
 * assert.match(new WatchIdleError("/api/v1/pods", 5000).message, /silent for 5000 ms/);
 * ```
 */
export class WatchIdleError extends Error {
  /** The API path of the watch. */
  readonly path: string;
  /** The idle limit that passed, in milliseconds. */
  readonly idleTimeout: number;

  /**
   * Makes an idle error.
   *
   * @param path The API path of the watch.
   * @param idleTimeout The idle limit in milliseconds.
   */
  constructor(path: string, idleTimeout: number) {
    super(`Watch ${path} was silent for ${idleTimeout} ms; presumed dead`);
    this.name = "WatchIdleError";
    this.path = path;
    this.idleTimeout = idleTimeout;
  }
}

/**
 * A request that did not finish within the client's request timeout (dial to
 * last byte).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RequestTimeoutError } from "@liken/kubernetes/apiclient";
 *
 * assert.match(new RequestTimeoutError("GET", "/x", 30000).message, /30000 ms/);
 * ```
 */
export class RequestTimeoutError extends Error {
  /** The HTTP method of the request. */
  readonly method: string;
  /** The API path of the request. */
  readonly path: string;

  /**
   * Makes a timeout error.
   *
   * @param method The HTTP method.
   * @param path The API path.
   * @param timeout The limit that passed, in milliseconds.
   */
  constructor(method: string, path: string, timeout: number) {
    super(`${method} ${path} did not finish within ${timeout} ms`);
    this.name = "RequestTimeoutError";
    this.method = method;
    this.path = path;
  }
}

/**
 * The pod's in-cluster configuration is missing or wrong, so
 * {@linkcode Client.inCluster} cannot make a client: the process runs outside
 * a cluster (`KUBERNETES_SERVICE_HOST` or `KUBERNETES_SERVICE_PORT` unset), or
 * the ServiceAccount's CA or token file is missing or holds no usable
 * certificate. The message names the file or variable that was wrong and
 * never carries the token; the underlying error, if any, is the `cause`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client, InClusterConfigError } from "@liken/kubernetes/apiclient";
 *
 * await assert.rejects(
 *   Client.inCluster({ serviceAccountDir: "/nowhere", server: "https://127.0.0.1:6443" }),
 *   InClusterConfigError,
 * );
 * ```
 */
export class InClusterConfigError extends Error {
  /**
   * Makes an in-cluster configuration error.
   *
   * @param message What was wrong, naming the file or variable.
   * @param options The underlying error as `cause`.
   */
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = "InClusterConfigError";
  }
}

/**
 * Whether a write failed because its copy is not the server's copy: another
 * writer changed the object (409) or deleted it (404); reading again and
 * retrying fixes it. A server-side apply's field-manager conflict is a 409
 * too but is not stale: no retry fixes it (see
 * {@linkcode isFieldManagerConflict}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ConflictError, isStale } from "@liken/kubernetes/apiclient";
 *
 * assert.equal(isStale(new Error("other")), false);
 * const stale = new ConflictError("modified", { method: "PUT", path: "/x", status: 409 });
 * assert.equal(isStale(stale), true);
 * const owned = new ConflictError("owned", {
 *   method: "PATCH",
 *   path: "/x",
 *   status: 409,
 *   statusObject: {
 *     kind: "Status",
 *     apiVersion: "v1",
 *     status: "Failure",
 *     reason: "Conflict",
 *     code: 409,
 *     details: { causes: [{ reason: "FieldManagerConflict", field: ".data.k" }] },
 *   },
 * });
 * assert.equal(isStale(owned), false);
 * ```
 *
 * @param error Any error.
 * @returns Whether it is a {@linkcode NotFoundError}, or a
 * {@linkcode ConflictError} that is not a field-manager conflict.
 */
export function isStale(error: unknown): boolean {
  if (error instanceof NotFoundError) return true;
  return error instanceof ConflictError && !isFieldManagerConflict(error);
}

/**
 * Whether a server-side apply was refused because other field managers own
 * fields it sets (`details.causes[].reason` is `FieldManagerConflict`). No
 * retry fixes it: apply with `force`, or give the fields up.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isFieldManagerConflict } from "@liken/kubernetes/apiclient";
 *
 * assert.equal(isFieldManagerConflict(new Error("other")), false);
 * ```
 *
 * @param error Any error.
 * @returns Whether it is such a conflict.
 */
export function isFieldManagerConflict(error: unknown): boolean {
  return error instanceof ConflictError &&
    (error.statusObject?.details?.causes ?? []).some((cause) =>
      cause.reason === "FieldManagerConflict"
    );
}

/**
 * The seconds the server asked the caller to wait before it tries again, or
 * 0: a 429's wait ({@linkcode ThrottledError.retryAfterSeconds}), else the
 * `details.retryAfterSeconds` of any other answer's Status (client-go's
 * `SuggestsClientDelay` reads it the same way, such as a 503 or a 504 that
 * asks for one), else 0. Never more than 60 s.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { retryAfterSeconds } from "@liken/kubernetes/apiclient";
 *
 * assert.equal(retryAfterSeconds(new Error("x")), 0);
 * ```
 *
 * @param error Any error.
 * @returns The stated wait in seconds, or 0.
 */
export function retryAfterSeconds(error: unknown): number {
  if (error instanceof ThrottledError) return error.retryAfterSeconds;
  return error instanceof ApiError ? statedRetryAfter(error.statusObject) : 0;
}
