/**
 * Admission webhooks: {@linkcode validating} and {@linkcode mutating}.
 *
 * @module
 */
import { type Logger, loggerOf } from "../_internal/log.ts";
import type { KubeObject } from "../apiclient/types.ts";
import { Denied, HandlerError, ReviewError } from "./errors.ts";
import { base64, diff } from "./_json_patch.ts";
import { copy, objectField, requestOf } from "./_review.ts";
import { isObject } from "../_internal/json.ts";
import type {
  AdmissionRequest,
  AdmissionResponse,
  AdmissionReview,
  ReviewContext,
  Webhook,
} from "./types.ts";

/** What {@linkcode validating} and {@linkcode mutating} take beside the handler. */
export interface AdmissionOptions {
  /** Names the webhook in errors (the server passes its path). Default `admission`. */
  name?: string | undefined;
  /**
   * Hears what a handler threw (other than {@linkcode Denied}), as a
   * {@linkcode HandlerError} on an error line. Default: the server's
   * logger, else `console.error`.
   */
  logger?: Logger | undefined;
}

/**
 * Checks an object: return to allow, throw {@linkcode Denied} to deny.
 *
 * @typeParam T The object's type.
 */
export type ValidatingHandler<T extends KubeObject> = (
  request: AdmissionRequest<T>,
  context: ReviewContext,
) => void | Promise<void>;

/**
 * Changes an object: return the changed object (or change
 * `request.object` in place and return nothing); throw
 * {@linkcode Denied} to deny.
 *
 * @typeParam T The object's type.
 */
export type MutatingHandler<T extends KubeObject> = (
  request: AdmissionRequest<T>,
  context: ReviewContext,
) => T | void | undefined | Promise<T | void | undefined>;

const OPERATIONS = ["CREATE", "UPDATE", "DELETE", "CONNECT"];

/**
 * A validating admission webhook. The handler sees the typed request
 * (`object`, `oldObject` on UPDATE and DELETE, `dryRun`) and allows by
 * returning, denies by throwing {@linkcode Denied}; `context.warn` adds a
 * warning the client sees.
 *
 * A handler that throws anything else denies the request too
 * (`allowed: false`, code 500, its message) and the error is logged: the
 * API server's `failurePolicy: Ignore` does **not** let such a request
 * through, since it covers only failures to call the webhook
 * (controller-runtime answers the same way). Catch in the handler to allow
 * on your own errors.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Denied, validating } from "@liken/kubernetes/webhook";
 *
 * const webhook = validating<{ metadata: { name?: string }; spec?: { message?: string } }>(
 *   ({ object }, { warn }) => {
 *     if (!object?.spec?.message) throw new Denied("spec.message must not be empty");
 *     if (object.spec.message.length > 10) warn("spec.message is long");
 *   },
 * );
 * const review = await webhook.review({
 *   apiVersion: "admission.k8s.io/v1",
 *   kind: "AdmissionReview",
 *   request: {
 *     uid: "u1",
 *     kind: { group: "demo.liken.dev", version: "v1", kind: "Greeting" },
 *     resource: { group: "demo.liken.dev", version: "v1", resource: "greetings" },
 *     operation: "CREATE",
 *     userInfo: {},
 *     object: { metadata: { name: "g" }, spec: { message: "hello, world" } },
 *   },
 * });
 * assert.deepEqual(review.response, {
 *   uid: "u1",
 *   allowed: true,
 *   warnings: ["spec.message is long"],
 * });
 * ```
 *
 * @typeParam T The object's type.
 * @param handler Checks the request.
 * @param options The name and the logger.
 * @returns The webhook, to route in a `WebhookServer`.
 */
export function validating<T extends KubeObject = KubeObject>(
  handler: ValidatingHandler<T>,
  options: AdmissionOptions = {},
): Webhook<AdmissionReview> {
  return admissionWebhook<T>(async (request, context) => {
    await handler(request, context);
    return undefined;
  }, options);
}

/**
 * A mutating admission webhook. The handler returns the changed object
 * (or changes `request.object` in place); the library answers the RFC 6902
 * JSON Patch from the object as sent to the changed one
 * (`patchType: "JSONPatch"`, base64 `patch`), or no patch when nothing
 * changed. Denials, warnings and thrown errors work as in
 * {@linkcode validating}. On DELETE there is no object to change.
 *
 * @example A default message
 * ```ts
 * import assert from "node:assert/strict";
 * import { mutating } from "@liken/kubernetes/webhook";
 *
 * type Greeting = { metadata: { name?: string }; spec: { message?: string } };
 * const webhook = mutating<Greeting>(({ object }) => {
 *   if (object && !object.spec.message) {
 *     return { ...object, spec: { ...object.spec, message: "hello" } };
 *   }
 * });
 * const review = await webhook.review({
 *   apiVersion: "admission.k8s.io/v1",
 *   kind: "AdmissionReview",
 *   request: {
 *     uid: "u2",
 *     kind: { group: "demo.liken.dev", version: "v1", kind: "Greeting" },
 *     resource: { group: "demo.liken.dev", version: "v1", resource: "greetings" },
 *     operation: "CREATE",
 *     userInfo: {},
 *     object: { metadata: { name: "g" }, spec: {} },
 *   },
 * });
 * const response = review.response!;
 * assert.equal(response.patchType, "JSONPatch");
 * assert.deepEqual(JSON.parse(atob(response.patch ?? "")), [
 *   { op: "add", path: "/spec/message", value: "hello" },
 * ]);
 * ```
 *
 * @typeParam T The object's type.
 * @param handler Changes the object.
 * @param options The name and the logger.
 * @returns The webhook, to route in a `WebhookServer`.
 */
export function mutating<T extends KubeObject = KubeObject>(
  handler: MutatingHandler<T>,
  options: AdmissionOptions = {},
): Webhook<AdmissionReview> {
  return admissionWebhook<T>(async (request, context) => {
    const sent = copy(request.object);
    const returned = await handler(request, context);
    const changed = returned ?? request.object;
    if (sent === undefined || sent === null) return undefined;
    if (!isObject(changed)) {
      throw new TypeError("The mutating handler returned no object");
    }
    const operations = diff(sent, JSON.parse(JSON.stringify(changed)));
    return operations.length === 0 ? undefined : operations;
  }, options);
}

function admissionWebhook<T extends KubeObject>(
  run: (
    request: AdmissionRequest<T>,
    context: ReviewContext,
  ) => Promise<unknown[] | undefined>,
  options: AdmissionOptions,
): Webhook<AdmissionReview> {
  const name = options.name ?? "admission";
  return {
    type: "admission",
    async review(body, reviewOptions = {}): Promise<AdmissionReview> {
      const request = readRequest<T>(body);
      const warnings: string[] = [];
      const context: ReviewContext = {
        signal: reviewOptions.signal ?? new AbortController().signal,
        warn(text: string): void {
          warnings.push(String(text));
        },
      };
      let response: AdmissionResponse;
      try {
        const patch = await run(request, context);
        response = { uid: request.uid, allowed: true };
        if (patch !== undefined) {
          response.patchType = "JSONPatch";
          response.patch = base64(JSON.stringify(patch));
        }
      } catch (error) {
        const denied = error instanceof Denied;
        if (!denied) {
          try {
            if (!context.signal.aborted) {
              loggerOf(options.logger ?? reviewOptions.logger, {
                webhook: name,
              }).error(
                new HandlerError(name, request.uid, error),
                "Webhook handler failed",
              );
            }
          } catch { /* a failing sink must not fail the answer */ }
        }
        const message = error instanceof Error ? error.message : String(error);
        response = {
          uid: request.uid,
          allowed: false,
          status: denied
            ? {
              code: error.code,
              reason: error.reason,
              message,
              metadata: {},
            }
            : { code: 500, message, metadata: {} },
        };
      }
      if (warnings.length > 0) response.warnings = warnings;
      return {
        apiVersion: "admission.k8s.io/v1",
        kind: "AdmissionReview",
        response,
      };
    },
  };
}

/** Checks an AdmissionReview and returns its request, objects copied. */
function readRequest<T extends KubeObject>(body: unknown): AdmissionRequest<T> {
  const request = requestOf(body, "admission.k8s.io/v1", "AdmissionReview");
  const operation = request.operation;
  if (typeof operation !== "string" || !OPERATIONS.includes(operation)) {
    throw new ReviewError(
      `The request's operation ${
        JSON.stringify(operation ?? null)
      } is not one of CREATE, UPDATE, DELETE, CONNECT`,
    );
  }
  objectField(request, "kind", false);
  objectField(request, "resource", false);
  objectField(
    request,
    "object",
    operation === "DELETE" || operation === "CONNECT",
  );
  objectField(request, "oldObject", operation !== "UPDATE");
  for (const field of ["object", "oldObject"]) {
    const value = request[field];
    if (
      isObject(value) && value.metadata !== undefined &&
      !isObject(value.metadata)
    ) {
      throw new ReviewError(`The request's ${field}.metadata is not an object`);
    }
  }
  // The parsed body is this review's alone: no copy of a request that can
  // be megabytes (a mutating handler's diff copies the object it needs).
  const out = request as unknown as AdmissionRequest<T>;
  out.userInfo ??= {};
  for (const field of ["object", "oldObject"] as const) {
    const value = out[field];
    if (isObject(value) && value.metadata === undefined) {
      (value as KubeObject).metadata = {};
    }
  }
  return out;
}
