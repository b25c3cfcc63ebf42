/**
 * The errors of the webhook module.
 *
 * @module
 */

/**
 * A review the webhook cannot read: not JSON, not an object, the wrong
 * `apiVersion` or `kind`, or a request without a uid. The server answers
 * it with HTTP 400 and the message.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ReviewError, validating } from "@liken/kubernetes/webhook";
 *
 * const webhook = validating(() => {});
 * await assert.rejects(
 *   webhook.review({ apiVersion: "v1", kind: "ConfigMap" }),
 *   (error) => error instanceof ReviewError && error.status === 400,
 * );
 * ```
 */
export class ReviewError extends Error {
  /** The HTTP status the server answers with. */
  readonly status: number;

  /**
   * Makes the error.
   *
   * @param message What is wrong with the review.
   * @param options The HTTP status (default 400).
   */
  constructor(
    message: string,
    options: { status?: number | undefined } = {},
  ) {
    super(message);
    this.name = "ReviewError";
    this.status = options.status ?? 400;
  }
}

/**
 * Thrown by an admission handler to deny the request with a message: the
 * response is `allowed: false` with `status.code` (default 403, reason
 * `Forbidden`), and the API server tells the client
 * `admission webhook "<name>" denied the request: <message>`. Unlike any
 * other error a handler throws, a denial is not logged as an error.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Denied, validating } from "@liken/kubernetes/webhook";
 *
 * const webhook = validating(() => {
 *   throw new Denied("spec.message must not be empty");
 * });
 * const review = await webhook.review({
 *   apiVersion: "admission.k8s.io/v1",
 *   kind: "AdmissionReview",
 *   request: {
 *     uid: "u1",
 *     kind: { group: "", version: "v1", kind: "ConfigMap" },
 *     resource: { group: "", version: "v1", resource: "configmaps" },
 *     operation: "CREATE",
 *     userInfo: {},
 *     object: { metadata: { name: "a" } },
 *   },
 * });
 * assert.equal(review.response?.uid, "u1");
 * assert.deepEqual(review.response?.status, {
 *   code: 403,
 *   reason: "Forbidden",
 *   message: "spec.message must not be empty",
 *   metadata: {},
 * });
 * ```
 */
export class Denied extends Error {
  /** The HTTP status code of the denial (400–599). */
  readonly code: number;
  /** The machine-readable reason. */
  readonly reason: string;

  /**
   * Makes the denial.
   *
   * @param message Why, as the client reads it.
   * @param options The code (default 403) and reason (default `Forbidden`).
   */
  constructor(
    message: string,
    options: {
      code?: number | undefined;
      reason?: string | undefined;
    } = {},
  ) {
    super(message);
    this.name = "Denied";
    this.code = options.code ?? 403;
    this.reason = options.reason ?? "Forbidden";
  }
}

/**
 * An admission or conversion handler threw (other than
 * {@linkcode Denied}): logged as an error, with the error as `cause`.
 * The request is denied (`allowed: false`, code 500) — even under
 * `failurePolicy: Ignore`, which covers only failures to call the webhook.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HandlerError } from "@liken/kubernetes/webhook";
 *
 * const error = new HandlerError("/validate", "u1", new Error("boom"));
 * assert.equal(error.message, "The webhook /validate failed on request u1: boom");
 * ```
 */
export class HandlerError extends Error {
  /** The webhook's path (or name). */
  readonly webhook: string;
  /** The request's uid. */
  readonly uid: string;

  /**
   * Makes the error.
   *
   * @param webhook The webhook's path.
   * @param uid The request's uid.
   * @param cause What the handler threw.
   */
  constructor(webhook: string, uid: string, cause: unknown) {
    super(
      `The webhook ${webhook} failed on request ${uid}: ${
        cause instanceof Error ? cause.message : String(cause)
      }`,
      { cause },
    );
    this.name = "HandlerError";
    this.webhook = webhook;
    this.uid = uid;
  }
}
