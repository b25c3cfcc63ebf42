/**
 * Admission and conversion webhooks, served over HTTPS, as
 * controller-runtime's `pkg/webhook` serves them:
 *
 * - {@linkcode validating} and {@linkcode mutating} answer
 *   `AdmissionReview`s (admission.k8s.io/v1) with typed objects (the old
 *   one on UPDATE and DELETE), `dryRun`, warnings, and for a mutating
 *   handler the JSON Patch computed from the object it returns;
 *   {@linkcode Denied} denies with a message;
 * - {@linkcode conversion} answers `ConversionReview`s
 *   (apiextensions.k8s.io/v1) between the versions of a `defineResource`
 *   definition;
 * - {@linkcode WebhookServer} serves them by path on `Deno.serve` with TLS
 *   from files it reloads when the kubelet swaps the Secret, a bounded
 *   body, the API server's `?timeout=` as the deadline, `/healthz`,
 *   `/readyz` and controller-runtime's webhook metrics;
 * - {@linkcode webhookFetch} answers the same requests in memory, for the
 *   fake API server's `webhookFetch` in tests on fake time;
 * - {@linkcode generateCertificates} makes a self-signed CA and a serving
 *   certificate for development (WebCrypto, no OpenSSL), and
 *   {@linkcode writeCertificates} writes them as cert-manager's Secret
 *   lays them out, for the server's `certFile` and `keyFile`.
 *
 * A handler that throws (other than {@linkcode Denied}) denies the request
 * and is logged as an error: `failurePolicy: Ignore` does not let such a
 * request through, since it covers only failures to call the webhook.
 *
 * @example A validating and a defaulting webhook
 * ```ts
 * import assert from "node:assert/strict";
 * import { testCerts } from "@liken/kubernetes/testing";
 * import { Denied, mutating, validating, WebhookServer } from "@liken/kubernetes/webhook";
 *
 * type Greeting = { metadata: { name?: string }; spec: { message?: string } };
 * await using server = new WebhookServer({
 *   hostname: "127.0.0.1",
 *   port: 0,
 *   cert: testCerts.serverCert,
 *   key: testCerts.serverKey,
 *   webhooks: {
 *     "/default": mutating<Greeting>(({ object }) => {
 *       if (object && !object.spec.message) object.spec.message = "hello";
 *     }),
 *     "/validate": validating<Greeting>(({ object }) => {
 *       if (object?.spec.message === "") throw new Denied("the message is empty");
 *     }),
 *   },
 * });
 * using client = Deno.createHttpClient({ caCerts: [testCerts.caCert] });
 * const health = await fetch(`https://127.0.0.1:${server.port}/healthz`, { client });
 * assert.equal(await health.text(), "ok\n");
 * ```
 *
 * @module
 */
export * from "./types.ts";
export * from "./errors.ts";
export * from "./admission.ts";
export * from "./conversion.ts";
export * from "./server.ts";
export * from "./fetch.ts";
export * from "./certificates.ts";
