// A bounded HTTP(S) server shared by the webhook server, the probe server
// and the fake served over the network.
//
// The public port is a `Deno.listen` TCP listener with its own accept loop
// (a cap on connections, backoff on EMFILE). TLS is ended by `node:tls`, not
// by a TLS `Deno.serve`, for two reasons measured on Deno 2.9:
// - an accepted TLS socket of `Deno.serve` has no TCP_NODELAY, so an answer
//   over about 1.1 KB waits 44 ms for the client's delayed ACK on a kept-alive
//   connection; here every socket has it (a 4 KB answer: 44 ms → 0.3 ms);
// - `node:tls` changes its certificate in place (`setSecureContext`).
// Each connection's plain bytes go to a plain-HTTP `Deno.serve` on a
// loopback port (HTTP/1.1 or HTTP/2 by preface), which parses HTTP. The
// backend sees each connection's loopback port, so the front knows which
// connection has a request in flight and applies its deadlines by phase.

import { Duplex } from "node:stream";
import * as tls from "node:tls";
import { MAX_TIMER, sleep } from "./sleep.ts";

/** A certificate chain and its key, PEM. */
export interface KeyPair {
  cert: string;
  key: string;
}

/** The bounds of a server; every time is in ms, `Infinity` for none. */
export interface ServerLimits {
  /** Open connections at most; beyond it the oldest idle one is closed. */
  maxConnections: number;
  /** From accept to a finished TLS handshake. */
  handshakeTimeout: number;
  /** From a new connection, or the first byte of a later request, to its headers. */
  headersTimeout: number;
  /** A kept-alive connection with nothing in flight and nothing sent. */
  idleTimeout: number;
  /** How long `close()` lets the requests in flight finish. */
  stopTimeout: number;
}

/** Where and what a {@linkcode BoundedServer} serves. */
export interface ServerOptions extends ServerLimits {
  hostname: string;
  port: number;
  /** TLS with this pair, else plain HTTP. */
  pair?: KeyPair | undefined;
  /** Starts a backend; tests give one whose `finished` rejects. */
  serve?: typeof Deno.serve | undefined;
}

/** The first and the longest wait of the accept loop after a failure. */
export const ACCEPT_BACKOFF = { floor: 5, cap: 1_000 } as const;

interface Connection {
  raw: Deno.TcpConn;
  /** The TLS side, once made. */
  tls: tls.TLSSocket | undefined;
  upstream: Deno.TcpConn | undefined;
  /** Requests the backend is answering for it. */
  requests: number;
  /** When it was accepted. */
  opened: number;
  /** When bytes last moved, either way. */
  active: number;
  /** When the current headers deadline started, or -1 when none runs. */
  headersFrom: number;
  secure: boolean;
  /** HTTP/2 by ALPN: bytes between requests may be PINGs, not headers. */
  h2: boolean;
  timer: ReturnType<typeof setTimeout> | undefined;
  closed: Promise<void>;
  close: () => void;
}

interface Backend {
  server: Deno.HttpServer<Deno.NetAddr>;
  finished: Promise<void>;
}

/** Throws when the pair does not load (rustls checks that they match). */
function checkPair(pair: KeyPair): void {
  Deno.listenTls({
    hostname: "127.0.0.1",
    port: 0,
    cert: pair.cert,
    key: pair.key,
  }).close();
}

async function writeAll(conn: Deno.Conn, chunk: Uint8Array): Promise<void> {
  let at = 0;
  while (at < chunk.byteLength) at += await conn.write(chunk.subarray(at));
}

// A Deno connection as a Node stream, for node:tls to wrap.
function duplexOf(conn: Deno.TcpConn, onRead: () => void): Duplex {
  const buffer = new Uint8Array(64 * 1024);
  return new Duplex({
    read(): void {
      conn.read(buffer).then((n) => {
        if (n !== null) onRead();
        this.push(n === null ? null : buffer.slice(0, n));
      }, (error) => this.destroy(error));
    },
    write(chunk: Uint8Array, _encoding, callback): void {
      writeAll(conn, chunk).then(() => callback(), callback);
    },
    final(callback): void {
      conn.closeWrite().then(() => callback(), () => callback());
    },
    destroy(error, callback): void {
      try {
        conn.close();
      } catch { /* closed */ }
      callback(error);
    },
  });
}

/** A listener with a connection cap, deadlines and a restartable backend. */
export class BoundedServer {
  readonly port: number;
  readonly hostname: string;
  #limits: ServerLimits;
  #serveBackend: typeof Deno.serve;
  #listener: Deno.Listener<Deno.TcpConn, Deno.NetAddr>;
  #context: tls.SecureContext | undefined;
  #handler: (request: Request) => Promise<Response>;
  #onError: (error: unknown) => void;
  #backend: Backend;
  #conns = new Set<Connection>();
  #byPort = new Map<number, Connection>();
  #closing = false;
  #stopping = new AbortController();
  #closed: Promise<void> | undefined;
  #accepting: Promise<void>;
  #wake: () => void = () => {};

  /**
   * Listens on `options.hostname:options.port`.
   *
   * @throws When the pair does not load or the port is taken.
   */
  constructor(
    options: ServerOptions,
    handler: (request: Request) => Promise<Response>,
    onError: (error: unknown) => void,
  ) {
    for (
      const name of [
        "maxConnections",
        "handshakeTimeout",
        "headersTimeout",
        "idleTimeout",
        "stopTimeout",
      ] as const
    ) {
      const value = options[name];
      if (!(value > 0)) {
        throw new RangeError(`${name} must be above 0, got ${value}`);
      }
    }
    this.#limits = options;
    this.#serveBackend = options.serve ?? Deno.serve;
    this.#handler = handler;
    this.#onError = onError;
    if (options.pair !== undefined) {
      checkPair(options.pair);
      this.#context = tls.createSecureContext(options.pair);
    }
    this.#listener = Deno.listen({
      hostname: options.hostname,
      port: options.port,
      transport: "tcp",
    });
    this.port = this.#listener.addr.port;
    this.hostname = this.#listener.addr.hostname;
    this.#backend = this.#start();
    this.#accepting = this.#accept();
  }

  /** Serves `pair` to new connections (throws, keeping the old, when bad). */
  setPair(pair: KeyPair): void {
    checkPair(pair);
    this.#context = tls.createSecureContext(pair);
  }

  /** Open connections. */
  connections(): number {
    return this.#conns.size;
  }

  /**
   * Stops accepting, closes every connection with nothing in flight at
   * once and the others when their requests end or `stopTimeout` passes.
   */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      this.#closing = true;
      this.#stopping.abort();
      try {
        this.#listener.close();
      } catch { /* closed */ }
      this.#wake();
      await this.#accepting;
      for (const conn of this.#conns) if (conn.requests === 0) conn.close();
      // The backend's graceful shutdown closes each upstream once its
      // requests are answered; the pipe then closes the client's side.
      const shutdown = this.#backend.server.shutdown().catch(() => {});
      const all = [...this.#conns].map((c) => c.closed);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const bound = this.#limits.stopTimeout;
      await Promise.race([
        Promise.all(all),
        new Promise((resolve) => {
          if (Number.isFinite(bound)) {
            timer = setTimeout(resolve, Math.min(bound, MAX_TIMER));
          }
        }),
      ]);
      clearTimeout(timer);
      for (const conn of this.#conns) conn.close();
      await Promise.all(all);
      await shutdown;
      await this.#backend.finished;
    })();
    return this.#closed;
  }

  #start(): Backend {
    const server = this.#serveBackend({
      hostname: "127.0.0.1",
      port: 0,
      onListen: () => {},
      onError: (error) => {
        this.#onError(error);
        return new Response("internal error\n", { status: 500 });
      },
    }, (request, info) => this.#serve(request, info.remoteAddr.port));
    const backend: Backend = {
      server,
      finished: server.finished.catch(async (error) => {
        // A backend that ends (its descriptors ran out, say) is replaced,
        // retried with backoff while descriptors stay short; the
        // connections it had are gone with it.
        if (this.#closing) return;
        this.#onError(error);
        let delay: number = ACCEPT_BACKOFF.floor;
        while (this.#backend === backend && !this.#closing) {
          try {
            this.#backend = this.#start();
          } catch {
            await sleep(delay, this.#stopping.signal);
            delay = Math.min(delay * 2, ACCEPT_BACKOFF.cap);
          }
        }
      }),
    };
    return backend;
  }

  async #serve(request: Request, port: number): Promise<Response> {
    const conn = this.#byPort.get(port);
    if (conn === undefined) return await this.#handler(request);
    conn.requests++;
    conn.headersFrom = -1;
    this.#arm(conn);
    try {
      return await this.#handler(request);
    } finally {
      conn.requests--;
      conn.active = Date.now();
      this.#arm(conn);
    }
  }

  async #accept(): Promise<void> {
    let delay = 0;
    for (;;) {
      let raw: Deno.TcpConn;
      try {
        raw = await this.#listener.accept();
      } catch (error) {
        if (this.#closing || error instanceof Deno.errors.BadResource) return;
        // EMFILE and the like pass: wait (doubling, as Go's http.Server
        // does) and try again; report the first of a run only.
        if (delay === 0) this.#onError(error);
        delay = Math.min(
          Math.max(delay * 2, ACCEPT_BACKOFF.floor),
          ACCEPT_BACKOFF.cap,
        );
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, delay);
          this.#wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        continue;
      }
      delay = 0;
      try {
        this.#open(raw);
      } catch {
        // A socket reset before it was set up (setNoDelay throws): drop it.
        try {
          raw.close();
        } catch { /* closed */ }
      }
    }
  }

  #open(raw: Deno.TcpConn): void {
    if (this.#conns.size >= this.#limits.maxConnections) {
      // Full: the connection idle longest makes room, else the new one goes.
      let oldest: Connection | undefined;
      for (const conn of this.#conns) {
        if (conn.requests > 0) continue;
        if (oldest === undefined || conn.active < oldest.active) oldest = conn;
      }
      if (oldest === undefined) {
        try {
          raw.close();
        } catch { /* closed */ }
        return;
      }
      oldest.close();
    }
    raw.setNoDelay(true);
    let settle!: () => void;
    let done = false;
    const conn: Connection = {
      raw,
      tls: undefined,
      upstream: undefined,
      requests: 0,
      opened: Date.now(),
      active: Date.now(),
      headersFrom: -1,
      secure: this.#context === undefined,
      h2: false,
      timer: undefined,
      closed: new Promise<void>((resolve) => (settle = resolve)),
      close: () => {
        if (done) return;
        done = true;
        clearTimeout(conn.timer);
        this.#conns.delete(conn);
        conn.tls?.destroy();
        for (const c of [raw, conn.upstream]) {
          try {
            c?.close();
          } catch { /* closed */ }
        }
        if (conn.upstream !== undefined) {
          this.#byPort.delete(conn.upstream.localAddr.port);
        }
        settle();
      },
    };
    this.#conns.add(conn);
    this.#arm(conn);
    if (this.#context === undefined) {
      void this.#pipe(conn);
      return;
    }
    const socket = new tls.TLSSocket(
      duplexOf(raw, () => this.#received(conn)),
      {
        isServer: true,
        secureContext: this.#context,
        ALPNProtocols: ["h2", "http/1.1"],
      },
    );
    conn.tls = socket;
    socket.on("error", conn.close);
    socket.on("close", conn.close);
    socket.once("secure", () => {
      conn.secure = true;
      conn.h2 = socket.alpnProtocol === "h2";
      void this.#pipe(conn);
    });
  }

  // Bytes came from the client. Over HTTP/1.1 they start the next
  // request's headers deadline; over HTTP/2 a kept-alive client's PINGs
  // (Go's, every 30 s idle, as kube-apiserver's) only keep it active: such
  // a connection stays evictable by the cap while nothing is in flight.
  #received(conn: Connection): void {
    conn.active = Date.now();
    if (conn.h2) return;
    if (conn.secure && conn.requests === 0 && conn.headersFrom < 0) {
      conn.headersFrom = conn.active;
      this.#arm(conn);
    }
  }

  // Sets the one timer of a connection for the deadline of its phase:
  // the handshake; the headers of the first request (from the handshake) or
  // of a later one (from its first byte); idle keep-alive (from the last
  // byte); none while a request is in flight (the handler bounds it).
  #arm(conn: Connection): void {
    clearTimeout(conn.timer);
    conn.timer = undefined;
    if (conn.requests > 0 || !this.#conns.has(conn)) return;
    const due = this.#due(conn);
    if (!Number.isFinite(due)) return; // No such deadline.
    conn.timer = setTimeout(() => {
      conn.timer = undefined;
      if (conn.requests > 0) return;
      // Bytes may have moved since: the deadline is read again.
      if (Date.now() >= this.#due(conn)) conn.close();
      else this.#arm(conn);
    }, Math.min(Math.max(0, due - Date.now()), MAX_TIMER));
  }

  #due(conn: Connection): number {
    const limits = this.#limits;
    if (!conn.secure) return conn.opened + limits.handshakeTimeout;
    if (conn.headersFrom >= 0) return conn.headersFrom + limits.headersTimeout;
    return conn.active + limits.idleTimeout;
  }

  async #pipe(conn: Connection): Promise<void> {
    let upstream: Deno.TcpConn;
    try {
      upstream = await Deno.connect({
        hostname: "127.0.0.1",
        port: this.#backend.server.addr.port,
      });
    } catch {
      conn.close(); // The backend is restarting: the client retries.
      return;
    }
    if (!this.#conns.has(conn)) {
      upstream.close();
      return;
    }
    upstream.setNoDelay(true);
    conn.upstream = upstream;
    this.#byPort.set(upstream.localAddr.port, conn);
    // A new connection must send its first headers in time.
    conn.headersFrom = Date.now();
    this.#arm(conn);
    const socket = conn.tls;
    const up = socket === undefined
      ? this.#copy(conn.raw, upstream, () => this.#received(conn))
      : new Promise<void>((resolve) => {
        socket.on("data", (chunk: Uint8Array) => {
          socket.pause();
          writeAll(upstream, chunk).then(() => socket.resume(), resolve);
        });
        socket.on("end", resolve);
        socket.on("close", resolve);
      });
    const down = socket === undefined
      ? this.#copy(upstream, conn.raw, () => (conn.active = Date.now()))
      : this.#copy(upstream, socket, () => (conn.active = Date.now()));
    await Promise.race([up, down]).catch(() => {});
    conn.close();
  }

  async #copy(
    from: Deno.TcpConn,
    to: Deno.TcpConn | tls.TLSSocket,
    moved: () => void,
  ): Promise<void> {
    const buffer = new Uint8Array(64 * 1024);
    for (;;) {
      const n = await from.read(buffer);
      if (n === null) return;
      moved();
      if (to instanceof tls.TLSSocket) {
        const chunk = buffer.slice(0, n);
        await new Promise<void>((resolve, reject) =>
          to.write(chunk, (error) => error ? reject(error) : resolve())
        );
      } else await writeAll(to, buffer.subarray(0, n));
    }
  }
}
