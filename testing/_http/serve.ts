/**
 * Serving the fake over the network: a `Deno.serve` listener per
 * `serve()` call, on 127.0.0.1, HTTP or HTTPS with the test certificate,
 * that stops listening while the fake is down and keeps its port.
 *
 * @module
 */
import { BoundedServer } from "../../_internal/_server.ts";
import { defaultMessage, failure, statusResponse } from "../_verbs/status.ts";
import { resetError } from "./transport.ts";
import { testCerts } from "../certs.ts";
import type { ServedApiServer, ServeOptions } from "../types.ts";

interface Listener {
  tls: boolean;
  port: number;
  server: { close(): Promise<void> } | undefined;
  stopping: Promise<void>[];
  /** The signal of every request it serves; aborted when it stops. */
  stop: AbortController;
}

/** The network servers of one fake. */
export class Listeners {
  #listeners: Listener[] = [];
  #handle: (request: Request) => Promise<Response>;
  #isDown: () => boolean;

  /** Servers that answer with `handle`, or 503 while `isDown()`. */
  constructor(
    handle: (request: Request) => Promise<Response>,
    isDown: () => boolean,
  ) {
    this.#handle = handle;
    this.#isDown = isDown;
  }

  /** Starts a server on a free port (not listening while down). */
  serve(options: ServeOptions): ServedApiServer {
    const listener: Listener = {
      tls: options.tls ?? false,
      port: 0,
      server: undefined,
      stopping: [],
      stop: new AbortController(),
    };
    this.#listen(listener);
    if (this.#isDown()) this.#stopListening(listener);
    this.#listeners.push(listener);
    const scheme = listener.tls ? "https" : "http";
    const stop = async (): Promise<void> => {
      this.#listeners = this.#listeners.filter((l) => l !== listener);
      this.#stopListening(listener);
      await Promise.all(listener.stopping);
    };
    return {
      url: `${scheme}://127.0.0.1:${listener.port}`,
      caCert: listener.tls ? testCerts.caCert : undefined,
      port: listener.port,
      stop,
      [Symbol.asyncDispose]: stop,
    };
  }

  /** Stops listening on every port, keeping the ports for `up()`. */
  down(): void {
    for (const listener of this.#listeners) this.#stopListening(listener);
  }

  /** Listens again on every port. */
  up(): void {
    for (const listener of this.#listeners) this.#listen(listener);
  }

  /** Stops every server and waits for their open responses to end. */
  async stop(): Promise<void> {
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const listener of listeners) this.#stopListening(listener);
    await Promise.all(listeners.flatMap((l) => l.stopping));
  }

  #listen(listener: Listener): void {
    listener.stop = new AbortController();
    const base = {
      hostname: "127.0.0.1",
      port: listener.port,
      onListen(): void {},
      onError: (error: unknown) =>
        statusResponse(
          failure(500, "InternalError", `Internal error occurred: ${error}`),
        ),
    };
    const handler = (request: Request): Promise<Response> | Response => {
      if (this.#isDown()) {
        return statusResponse(
          failure(503, "ServiceUnavailable", defaultMessage(503)),
        );
      }
      // Deno.serve's request.signal also aborts when a response completes
      // (and warns when read), so the handler gets the listener's signal
      // instead: stopping the listener ends its open watches, which would
      // otherwise hold shutdown() forever. A client that goes away cancels
      // the response body.
      const init: RequestInit & { duplex?: string } = {
        method: request.method,
        headers: request.headers,
        body: request.body,
        signal: listener.stop.signal,
      };
      if (request.body) init.duplex = "half";
      return this.#handle(new Request(request.url, init));
    };
    if (listener.tls) {
      // A TLS Deno.serve stalls every answer over 1.1 KB by 44 ms on a
      // kept-alive connection (no TCP_NODELAY); the bounded server ends
      // TLS with it. No limits: the fake serves tests, under fake time too.
      const server = new BoundedServer({
        hostname: "127.0.0.1",
        port: listener.port,
        pair: { cert: testCerts.serverCert, key: testCerts.serverKey },
        maxConnections: Infinity,
        handshakeTimeout: Infinity,
        headersTimeout: Infinity,
        idleTimeout: Infinity,
        stopTimeout: Infinity,
      }, async (request) => {
        try {
          return await handler(request);
        } catch (error) {
          return base.onError(error);
        }
      }, () => {});
      listener.server = server;
      listener.port = server.port;
      return;
    }
    const server = Deno.serve(base, handler);
    listener.server = {
      close: () => server.shutdown().then(() => server.finished),
    };
    listener.port = server.addr.port;
  }

  #stopListening(listener: Listener): void {
    const server = listener.server;
    if (!server) return;
    listener.server = undefined;
    listener.stop.abort(resetError());
    // shutdown() closes the listening socket at once; the promise waits for
    // the open responses, which down() and stop() end.
    listener.stopping.push(server.close());
  }
}
