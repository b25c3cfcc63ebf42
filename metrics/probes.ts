/**
 * The {@linkcode ProbeServer}: `/healthz`, `/readyz` and `/metrics` on
 * `Deno.serve`, for the kubelet's probes and Prometheus's scrapes.
 *
 * @module
 */

import { type Logger, loggerOf } from "../_internal/log.ts";
import { stopOnAbort } from "../_internal/signals.ts";
import { BoundedServer } from "../_internal/_server.ts";
import { reportText } from "./_checks.ts";
import type { Metrics } from "./metrics.ts";
import { CONTENT_TYPE, PROBE_HOSTNAME, PROBE_PORT } from "./_defaults.ts";

/**
 * Options of {@linkcode ProbeServer}.
 *
 * @example The shutdown signal closes the server
 * ```ts
 * import assert from "node:assert/strict";
 * import { Metrics, ProbeServer, type ProbeServerOptions } from "@liken/kubernetes/metrics";
 *
 * const shutdown = new AbortController(); // aborted on SIGTERM, say
 * const options: ProbeServerOptions = {
 *   hostname: "127.0.0.1",
 *   port: 0,
 *   signal: shutdown.signal,
 * };
 * const probes = new ProbeServer(new Metrics(), options);
 * shutdown.abort();
 * await probes.done; // closed, as after stop()
 * await assert.rejects(fetch(`http://127.0.0.1:${probes.port}/healthz`), TypeError);
 * ```
 */
export interface ProbeServerOptions {
  /**
   * Receives the server's lines (field `server`: `probes`): where it
   * listens, and the errors of its connections. Default: errors to
   * `console.error`.
   */
  logger?: Logger | undefined;
  /**
   * The address to listen on. Default `0.0.0.0`
   * (`0.0.0.0`); tests use `127.0.0.1`.
   */
  hostname?: string | undefined;
  /**
   * The port. Default 8080; `0` picks a free one
   * (see {@linkcode ProbeServer.port}).
   */
  port?: number | undefined;
  /**
   * The most open connections. Default 32 (the kubelet and a few
   * scrapers need a handful). When full, the connection idle longest is
   * closed for a new one, so idle connections never lock the kubelet out.
   */
  maxConnections?: number | undefined;
  /**
   * From a new connection, or the first byte of a later request, to that
   * request's headers, in ms. Default 10 000.
   */
  headersTimeout?: number | undefined;
  /**
   * How long a kept-alive connection may stay silent, in ms. Default
   * 120 000.
   */
  idleTimeout?: number | undefined;
  /**
   * How long `stop()` lets the requests in flight finish before it closes
   * their connections, in ms. Default 5 000.
   */
  stopTimeout?: number | undefined;
  /**
   * Aborting it stops the probe server as `stop()` does: the requests in
   * flight are answered, then the server closes and
   * {@linkcode ProbeServer.done} settles. Already aborted, the server closes
   * at once. Default: none.
   */
  signal?: AbortSignal | undefined;
}

/**
 * Serves an operator's probes and metrics over HTTP, as controller-runtime's
 * manager does:
 *
 * - `GET /healthz` (liveness): 200 while every health check passes, else
 *   503. The kubelet restarts a container that fails it.
 * - `GET /readyz` (readiness): 200 while every readiness check passes
 *   (every wired collection synced; a standby copy is ready), else 503.
 * - `GET /metrics`: the registry in the Prometheus text format 0.0.4.
 *
 * The check bodies list each check (`[+]name ok`, `[-]name failed: why`).
 * `HEAD` works as `GET`; other methods get 405, other paths 404. It holds
 * at most `maxConnections` connections (the one idle longest makes room)
 * and closes those that send no headers within `headersTimeout` or stay
 * idle beyond `idleTimeout`, so a pod flooding it with idle connections
 * cannot make the kubelet's probes fail. The constructor starts
 * listening; needs `--allow-net=<hostname>:<port>` (`0.0.0.0:8080` by
 * default) and `127.0.0.1` (the loopback port that parses HTTP).
 *
 * @example Probes over loopback
 * ```ts
 * import assert from "node:assert/strict";
 * import { Metrics, ProbeServer } from "@liken/kubernetes/metrics";
 *
 * const metrics = new Metrics();
 * let ready = false;
 * metrics.readyCheck("warm", () => {
 *   if (!ready) throw new Error("still warming up");
 * });
 * await using probes = new ProbeServer(metrics, { hostname: "127.0.0.1", port: 0 });
 * const base = `http://127.0.0.1:${probes.port}`;
 * let response = await fetch(`${base}/readyz`);
 * assert.equal(response.status, 503);
 * assert.match(await response.text(), /\[-\]warm failed: still warming up/);
 * ready = true;
 * response = await fetch(`${base}/readyz`);
 * assert.equal(response.status, 200);
 * await response.body?.cancel();
 * ```
 */
export class ProbeServer implements AsyncDisposable {
  /**
   * Settles when the server has closed (by {@linkcode ProbeServer.stop},
   * `await using` or the signal). Never rejects.
   */
  readonly done: Promise<void>;
  /** The port the server listens on (the one picked for port `0`). */
  readonly port: number;
  /** The address the server listens on. */
  readonly hostname: string;
  #server: BoundedServer;
  #metrics: Metrics;
  #stopping: Promise<void> | undefined;
  #settle: () => void;
  #unlink: () => void = () => {};

  /**
   * Starts listening.
   *
   * @param metrics What the endpoints answer.
   * @param options The address, port, signal and logger.
   * @throws {Deno.errors.AddrInUse} When the port is taken.
   * @throws {Deno.errors.NotCapable} Without `--allow-net` for the address.
   */
  constructor(metrics: Metrics, options: ProbeServerOptions = {}) {
    this.#metrics = metrics;
    const logger = loggerOf(options.logger, { server: "probes" });
    const port = options.port ?? PROBE_PORT;
    if (!Number.isInteger(port) || port < 0 || port > 65_535) {
      throw new RangeError(`Not a port: ${port}`);
    }
    this.#server = new BoundedServer(
      {
        hostname: options.hostname ?? PROBE_HOSTNAME,
        port,
        maxConnections: options.maxConnections ?? 32,
        handshakeTimeout: Infinity, // Plain HTTP: no handshake.
        headersTimeout: options.headersTimeout ?? 10_000,
        idleTimeout: options.idleTimeout ?? 120_000,
        stopTimeout: options.stopTimeout ?? 5_000,
      },
      (request) => this.#handle(request),
      (error) => logger.error(error, "Serving a request failed"),
    );
    this.port = this.#server.port;
    this.hostname = this.#server.hostname;
    logger.info("Serving /healthz, /readyz and /metrics", {
      address: `${this.hostname}:${this.port}`,
    });
    let settle!: () => void;
    this.done = new Promise<void>((resolve) => (settle = resolve));
    this.#settle = settle;
    this.#unlink = stopOnAbort(options.signal, () => void this.stop());
  }

  /**
   * Closes the server: no new connections, idle ones closed at once, the
   * requests in flight answered for at most `stopTimeout`, then every
   * connection closed. Safe to call more than once.
   *
   * @returns Settles with {@linkcode ProbeServer.done}.
   */
  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      this.#unlink();
      await this.#server.close();
      this.#settle();
    })();
    return this.#stopping;
  }

  /** Stops the server (for `await using`). */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }

  async #handle(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname;
    const endpoint = path === "/healthz" || path === "/readyz" ||
      path === "/metrics";
    if (!endpoint) return text(404, "not found\n");
    if (request.method !== "GET" && request.method !== "HEAD") {
      return text(405, "method not allowed\n", { allow: "GET, HEAD" });
    }
    if (path === "/metrics") {
      return new Response(this.#metrics.render(), {
        headers: { "content-type": CONTENT_TYPE },
      });
    }
    const health = path === "/healthz";
    const report = health
      ? await this.#metrics.health()
      : await this.#metrics.readiness();
    return text(
      report.ok ? 200 : 503,
      reportText(health ? "healthz" : "readyz", report),
    );
  }
}

function text(
  status: number,
  body: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(body, {
    status,
    headers: {
      "content-type": "text/plain; charset=utf-8",
      "x-content-type-options": "nosniff",
      ...headers,
    },
  });
}
