// The webhook server's answers without the socket: for tests on fake time,
// where real sockets and fake timers do not mix.
import { type Logger, loggerOf } from "../_internal/log.ts";
import { answer, MAX_REVIEW_TIMEOUT, text } from "./_http.ts";
import type { Webhook } from "./types.ts";
import { MAX_REVIEW_BYTES } from "./_defaults.ts";

/** Options of {@linkcode webhookFetch}. */
export interface WebhookFetchOptions {
  /**
   * Receives the errors of handlers without their own logger (as
   * `HandlerError`s) and of the answers. Default: `console.error`.
   */
  logger?: Logger | undefined;
  /** The largest review body, in bytes; beyond it 413. Default 7 MiB. */
  maxBodyBytes?: number | undefined;
}

/**
 * Answers webhook requests in memory exactly as {@linkcode WebhookServer}
 * answers them over HTTPS (routing by path, 404 for an unknown one, the
 * bounded body, the `?timeout=` deadline on the global clock, 400 for a
 * malformed review), without a socket or a certificate: pass it as the
 * fake API server's `webhookFetch` to test webhooks on fake time.
 *
 * @example The fake API server calls the webhooks in memory
 * ```ts
 * import assert from "node:assert/strict";
 * import { mutating, webhookFetch } from "@liken/kubernetes/webhook";
 *
 * const fetch = webhookFetch({
 *   "/default": mutating(({ object }) => {
 *     if (object) object.metadata.labels = { defaulted: "yes" };
 *   }),
 * });
 * const response = await fetch(
 *   new Request("https://hooks.example.svc/default?timeout=10s", {
 *     method: "POST",
 *     headers: { "content-type": "application/json" },
 *     body: JSON.stringify({
 *       apiVersion: "admission.k8s.io/v1",
 *       kind: "AdmissionReview",
 *       request: {
 *         uid: "1",
 *         kind: { group: "", version: "v1", kind: "ConfigMap" },
 *         resource: { group: "", version: "v1", resource: "configmaps" },
 *         operation: "CREATE",
 *         userInfo: {},
 *         object: { metadata: { name: "a" } },
 *       },
 *     }),
 *   }),
 * );
 * const review = await response.json();
 * assert.equal(review.response.patchType, "JSONPatch");
 * ```
 *
 * @param webhooks The webhooks, by path, as the server takes them.
 * @param options The body limit and where handler errors go.
 * @returns A `fetch` that answers like the server.
 */
export function webhookFetch(
  webhooks: Readonly<Record<string, Webhook>>,
  options: WebhookFetchOptions = {},
): (request: Request) => Promise<Response> {
  const routes = new Map(Object.entries(webhooks));
  const limit = options.maxBodyBytes ?? MAX_REVIEW_BYTES;
  const logger = loggerOf(options.logger);
  return async (request: Request): Promise<Response> => {
    const webhook = routes.get(new URL(request.url).pathname);
    if (webhook === undefined) {
      await request.body?.cancel().catch(() => {});
      return text(404, "not found\n");
    }
    try {
      return await answer(webhook, request, {
        limit,
        reviewTimeout: MAX_REVIEW_TIMEOUT,
        logger,
      });
    } catch (error) {
      logger.error(error, "Answering a review failed");
      return text(500, "internal error\n");
    }
  };
}
