/**
 * {@linkcode WebhookServer}: admission and conversion webhooks over HTTPS.
 *
 * @module
 */

import { stopOnAbort } from "../_internal/signals.ts";
import { MAX_TIMER } from "../_internal/sleep.ts";
import { type Logger, loggerOf } from "../_internal/log.ts";
import { BoundedServer, type KeyPair } from "../_internal/_server.ts";
import { readPair, readPairSync, watchPair } from "./_certs.ts";
import { answer, MAX_REVIEW_TIMEOUT, text } from "./_http.ts";
import { type WebhookMetrics, webhookMetrics } from "./_metrics.ts";
import type { MetricsRegistry, Webhook } from "./types.ts";
import { MAX_REVIEW_BYTES, WEBHOOK_PORT } from "./_defaults.ts";

/** What {@linkcode WebhookServer} takes. */
export interface WebhookServerOptions {
  /**
   * Receives the server's lines (field `server`: `webhooks`): where it
   * listens, certificate reloads, and the errors of connections, answers
   * and handlers without their own logger. Default: errors to
   * `console.error`.
   */
  logger?: Logger | undefined;
  /** The webhooks, by path, such as `{ "/validate-greetings": validating(…) }`. */
  webhooks: Readonly<Record<string, Webhook>>;
  /**
   * The certificate file (PEM, the chain), such as
   * `/tmp/k8s-webhook-server/serving-certs/tls.crt`; reloaded when it
   * changes. Or give `cert` and `key` as text (never reloaded).
   */
  certFile?: string | undefined;
  /** The private key file (PEM) of `certFile`. */
  keyFile?: string | undefined;
  /** The certificate (PEM), instead of `certFile`. */
  cert?: string | undefined;
  /** The private key (PEM), instead of `keyFile`. */
  key?: string | undefined;
  /** The address. Default `0.0.0.0`; tests use `127.0.0.1`. */
  hostname?: string | undefined;
  /** The port. Default 9443; `0` picks one. */
  port?: number | undefined;
  /** The largest review body, in bytes; beyond it 413. Default 7 MiB. */
  maxBodyBytes?: number | undefined;
  /**
   * How often the certificate files are read again beside watching their
   * directory, in ms; 0 for never. Default 10 000 (controller-runtime's
   * certwatcher polls every 10 s too).
   */
  pollInterval?: number | undefined;
  /**
   * The most open connections. Default 128 (about three descriptors each,
   * so 384 of a 1,024 limit). When full, the connection idle longest is
   * closed for a new one; only with every connection busy (reviews are
   * capped by `maxReviews`, so an attacker cannot make them all busy) is
   * the new one closed at once, which kube-apiserver treats as the webhook
   * failing (its `failurePolicy`).
   */
  maxConnections?: number | undefined;
  /**
   * The most reviews in flight. Default 16. Beyond it, or beyond
   * `maxBytesInFlight`, a review is answered at once `429 Too Many
   * Requests` with `Retry-After: 1`: kube-apiserver's webhook client
   * (client-go's REST client) waits that second and sends it again, up to
   * 10 times within the webhook's timeout, then applies the webhook's
   * `failurePolicy`.
   */
  maxReviews?: number | undefined;
  /**
   * The most body bytes of the reviews in flight, by their
   * `Content-Length` (a body without one counts as `maxBodyBytes`); one
   * review is always let in. Default `maxBodyBytes` (7 MiB). Parsing
   * multiplies a body's size in memory: a 7 MiB body of 2.4 M empty arrays
   * measured about 250 MB of heap for a validating review and 400 MB for a
   * mutating one (which copies the object to diff it), and 3 to 8 s of
   * CPU; a real object (at most 1.5 MB in etcd) costs far less. So the
   * default admits one maximal review at a time, or many ordinary ones.
   */
  maxBytesInFlight?: number | undefined;
  /**
   * The longest deadline of a review, in ms, counted from its arrival (so
   * it cuts a stalled body too): the `?timeout=` kube-apiserver appends,
   * at most this, and this when it is missing. Default 30 000, the longest
   * webhook timeout kube-apiserver allows.
   */
  reviewTimeout?: number | undefined;
  /** From accept to a finished TLS handshake, in ms. Default 10 000. */
  handshakeTimeout?: number | undefined;
  /**
   * From a new connection, or the first byte of a later request, to that
   * request's headers, in ms. Default 10 000.
   */
  headersTimeout?: number | undefined;
  /**
   * How long a kept-alive connection may stay silent with nothing in
   * flight, in ms. Default 120 000: longer than the 90 s kube-apiserver's
   * client keeps an idle connection, so the client closes first.
   */
  idleTimeout?: number | undefined;
  /**
   * How long `stop()` lets the reviews in flight finish before it closes
   * their connections, in ms. Default 5 000.
   */
  stopTimeout?: number | undefined;
  /**
   * Where `controller_runtime_webhook_requests_total{webhook,code}`,
   * `controller_runtime_webhook_latency_seconds{webhook}` and
   * `controller_runtime_webhook_requests_in_flight{webhook}` go (the
   * `registry` of a `Metrics`). Default none.
   */
  registry?: MetricsRegistry | undefined;
  /** Aborting it stops the server as `stop()` does. */
  signal?: AbortSignal | undefined;
}

/**
 * Serves webhooks over HTTPS (HTTP/2 or HTTP/1.1), routed by path, as
 * controller-runtime's webhook server does:
 *
 * - `POST <path>` with an `AdmissionReview` or `ConversionReview` (JSON,
 *   at most `maxBodyBytes`, else 413); a malformed review, or one of the
 *   wrong kind or apiVersion, is answered 400 with the reason; the review's
 *   deadline is the `?timeout=10s` the API server appends, at most
 *   `reviewTimeout` (30 s), counted from the request's arrival (the
 *   handler's `signal` ends then; the 504 follows a second later when the
 *   deadline was the API server's, so its own timer speaks first). More than `maxReviews` at once,
 *   or more than `maxBytesInFlight` of bodies, get 429.
 * - `GET /healthz`, `GET /readyz`: 200 while serving (503 on `/readyz`
 *   once stopping); other paths 404.
 * - The certificate and key files are read again when their directory
 *   changes (the kubelet swaps a mounted Secret by replacing its `..data`
 *   symlink) and every `pollInterval`. New connections get the new
 *   pair; open ones keep theirs, so no request fails. A pair that does not
 *   load (a key that does not match) is logged as an error and the old
 *   one kept.
 * - Bounded against a hostile pod: at most `maxConnections` connections
 *   (the one idle longest makes room), deadlines on the TLS handshake, the
 *   headers, the body (the review's deadline) and idle keep-alive, an
 *   accept loop that backs off when descriptors run out, and a `stop()`
 *   that closes every connection within `stopTimeout`. TLS sockets have
 *   TCP_NODELAY, so answers over 1.1 KB do not wait 44 ms for a delayed
 *   ACK. TLS is ended by `node:tls`, which passes plain HTTP to a
 *   `Deno.serve` on a loopback port.
 *
 * It runs on every replica, not only the leader. Needs `--allow-net` for
 * the address and for `127.0.0.1` (the loopback listener), `--allow-read`
 * for the files.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { testCerts } from "@liken/kubernetes/testing";
 * import { validating, WebhookServer } from "@liken/kubernetes/webhook";
 *
 * await using server = new WebhookServer({
 *   hostname: "127.0.0.1",
 *   port: 0,
 *   cert: testCerts.serverCert,
 *   key: testCerts.serverKey,
 *   webhooks: { "/validate": validating(() => {}) },
 * });
 * using client = Deno.createHttpClient({ caCerts: [testCerts.caCert] });
 * const response = await fetch(`https://127.0.0.1:${server.port}/validate?timeout=10s`, {
 *   client,
 *   method: "POST",
 *   headers: { "content-type": "application/json" },
 *   body: JSON.stringify({
 *     apiVersion: "admission.k8s.io/v1",
 *     kind: "AdmissionReview",
 *     request: {
 *       uid: "u1",
 *       kind: { group: "", version: "v1", kind: "ConfigMap" },
 *       resource: { group: "", version: "v1", resource: "configmaps" },
 *       operation: "CREATE",
 *       userInfo: {},
 *       object: { metadata: { name: "a" } },
 *     },
 *   }),
 * });
 * assert.deepEqual((await response.json()).response, { uid: "u1", allowed: true });
 * ```
 */
export class WebhookServer implements AsyncDisposable {
  /** The port it listens on. */
  readonly port: number;
  /** The address it listens on. */
  readonly hostname: string;
  /** Settles when the server has stopped. Never rejects. */
  readonly done: Promise<void>;
  #front: BoundedServer;
  #pair: KeyPair;
  #webhooks: Map<string, Webhook>;
  #limit: number;
  #reviewTimeout: number;
  #maxReviews: number;
  #maxBytes: number;
  #reviews = 0;
  #bytes = 0;
  #metrics: WebhookMetrics | undefined;
  #stopped = new AbortController();
  #stopping: Promise<void> | undefined;
  #watching: Promise<void> = Promise.resolve();
  #reloads = 0;
  #logger: Logger;
  #unlink = (): void => {};
  #settle!: () => void;

  /**
   * Starts listening.
   *
   * @param options The webhooks, the certificate and the address.
   * @throws {TypeError} When neither files nor text give a certificate.
   * @throws {Deno.errors.NotFound} When a file is missing.
   */
  constructor(options: WebhookServerOptions) {
    const logger = loggerOf(options.logger, { server: "webhooks" });
    this.#logger = logger;
    this.#webhooks = new Map(Object.entries(options.webhooks));
    this.#limit = options.maxBodyBytes ?? MAX_REVIEW_BYTES;
    this.#reviewTimeout = options.reviewTimeout ?? MAX_REVIEW_TIMEOUT;
    this.#maxReviews = options.maxReviews ?? 16;
    this.#maxBytes = options.maxBytesInFlight ?? this.#limit;
    for (
      const [name, value] of [
        ["maxReviews", this.#maxReviews],
        ["maxBytesInFlight", this.#maxBytes],
        ["reviewTimeout", this.#reviewTimeout],
      ] as const
    ) {
      if (!(value > 0) || (name === "reviewTimeout" && value > MAX_TIMER)) {
        throw new RangeError(`${name} must be above 0, got ${value}`);
      }
    }
    this.#metrics = options.registry === undefined
      ? undefined
      : webhookMetrics(options.registry);
    const { certFile, keyFile } = options;
    const files = certFile !== undefined && keyFile !== undefined;
    if (files) this.#pair = readPairSync(certFile, keyFile);
    else if (options.cert !== undefined && options.key !== undefined) {
      this.#pair = { cert: options.cert, key: options.key };
    } else {
      throw new TypeError(
        "The webhook server needs certFile and keyFile, or cert and key",
      );
    }
    const port = options.port ?? WEBHOOK_PORT;
    if (!Number.isInteger(port) || port < 0 || port > 65_535) {
      throw new RangeError(`Not a port: ${port}`);
    }
    this.#front = new BoundedServer(
      {
        hostname: options.hostname ?? "0.0.0.0",
        port,
        pair: this.#pair,
        maxConnections: options.maxConnections ?? 128,
        handshakeTimeout: options.handshakeTimeout ?? 10_000,
        headersTimeout: options.headersTimeout ?? 10_000,
        idleTimeout: options.idleTimeout ?? 120_000,
        stopTimeout: options.stopTimeout ?? 5_000,
      },
      (request) => this.#handle(request),
      (error) => logger.error(error, "Serving a request failed"),
    );
    this.port = this.#front.port;
    this.hostname = this.#front.hostname;
    this.done = new Promise<void>((resolve) => (this.#settle = resolve));
    logger.info("Serving webhooks", {
      address: `${this.hostname}:${this.port}`,
    });
    if (files) {
      this.#watching = watchPair([certFile, keyFile], {
        pollInterval: options.pollInterval ?? 10_000,
        signal: this.#stopped.signal,
        changed: () => this.#reload(certFile, keyFile),
        onError: (error) =>
          logger.error(error, "Watching the certificate failed"),
      });
    }
    this.#unlink = stopOnAbort(options.signal, () => void this.stop());
  }

  /**
   * How many times a changed certificate was loaded.
   *
   * @returns The count.
   */
  reloads(): number {
    return this.#reloads;
  }

  /**
   * Stops: no new connections; closes idle ones; answers the requests in
   * flight for at most `stopTimeout`; then closes every connection.
   * Safe to call more than once.
   *
   * @returns Settles with {@linkcode WebhookServer.done}.
   */
  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      this.#unlink();
      this.#stopped.abort();
      await this.#watching;
      await this.#front.close();
      this.#settle();
    })();
    return this.#stopping;
  }

  /** Stops the server (for `await using`). */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }

  async #reload(certFile: string, keyFile: string): Promise<void> {
    // A read that races a swap can pair the old certificate with the new
    // key: read again, and report only a pair that stays broken.
    let failure: unknown;
    for (let attempt = 0; attempt < 3; attempt++) {
      let pair: KeyPair;
      try {
        pair = await readPair(certFile, keyFile);
      } catch {
        return; // Mid-swap: the next event or poll reads it again.
      }
      if (pair.cert === this.#pair.cert && pair.key === this.#pair.key) return;
      if (this.#stopped.signal.aborted) return;
      try {
        this.#front.setPair(pair);
      } catch (error) {
        failure = error;
        if (attempt === 2) {
          this.#pair = pair; // Not again until the files change.
        }
        continue;
      }
      this.#pair = pair;
      this.#reloads++;
      this.#logger.info("Loaded the certificate", { file: certFile });
      return;
    }
    this.#logger.error(
      new Error(`The new certificate of ${certFile} did not load`, {
        cause: failure,
      }),
      "Reloading the certificate failed",
    );
  }

  async #handle(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname;
    if (path === "/healthz" || path === "/readyz") {
      await request.body?.cancel().catch(() => {});
      const ready = path === "/healthz" || !this.#stopped.signal.aborted;
      return text(ready ? 200 : 503, ready ? "ok\n" : "stopping\n");
    }
    const webhook = this.#webhooks.get(path);
    if (webhook === undefined) {
      await request.body?.cancel().catch(() => {});
      return text(404, "not found\n");
    }
    const declared = Number(request.headers.get("content-length") ?? NaN);
    const cost = Number.isFinite(declared) && declared >= 0
      ? Math.min(declared, this.#limit)
      : this.#limit;
    const full = this.#reviews >= this.#maxReviews ||
      (this.#reviews > 0 && this.#bytes + cost > this.#maxBytes);
    if (full) {
      await request.body?.cancel().catch(() => {});
      return text(429, "too many reviews in flight\n", { "retry-after": "1" });
    }
    this.#reviews++;
    this.#bytes += cost;
    const metrics = this.#metrics;
    const started = performance.now();
    metrics?.inFlight.inc({ webhook: path });
    let status = 500;
    try {
      const response = await answer(webhook, request, {
        limit: this.#limit,
        reviewTimeout: this.#reviewTimeout,
        logger: this.#logger,
      });
      status = response.status;
      return response;
    } catch (error) {
      this.#logger.error(error, "Answering a review failed");
      return text(500, "internal error\n");
    } finally {
      this.#reviews--;
      this.#bytes -= cost;
      metrics?.inFlight.dec({ webhook: path });
      metrics?.requests.inc({ webhook: path, code: String(status) });
      metrics?.latency.observe(
        { webhook: path },
        (performance.now() - started) / 1000,
      );
    }
  }
}
