// The listening side of the webhook server. Deno.serve cannot change its
// certificate, so the public port is a plain TCP listener that passes each
// connection's bytes to the current TLS backend (a Deno.serve on a
// loopback port). A new certificate starts a new backend; new connections
// go to it. The old one answers each request on the connections it has with
// `connection: close`, and shuts down once the last of them has closed (or
// after `drainTimeout`), so no request meets a connection closed under it.

/** The pair a backend serves. */
export interface KeyPair {
  cert: string;
  key: string;
}

interface Backend {
  server: Deno.HttpServer<Deno.NetAddr>;
  draining: boolean;
  /** Connections passed to it and still open. */
  conns: number;
  /** Called when a draining backend's last connection closes. */
  onIdle: () => void;
}

async function copyBytes(from: Deno.Conn, to: Deno.Conn): Promise<void> {
  const buffer = new Uint8Array(64 * 1024);
  for (;;) {
    const n = await from.read(buffer);
    if (n === null) return;
    let at = 0;
    while (at < n) at += await to.write(buffer.subarray(at, n));
  }
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch { /* already closed */ }
}

/** A TCP front with swappable TLS backends. */
export class Front {
  readonly port: number;
  readonly hostname: string;
  #listener: Deno.Listener<Deno.TcpConn, Deno.NetAddr>;
  #handler: (request: Request) => Promise<Response>;
  #onError: (error: unknown) => void;
  #backend: Backend;
  #old = new Set<Promise<void>>();
  #conns = new Set<Deno.Conn>();
  #pipes = new Set<Promise<void>>();
  #accepting: Promise<void>;
  #closed = false;
  #drainTimeout: number;

  /** Listens, serving `pair` (throws when the pair is not valid). */
  constructor(
    options: { hostname: string; port: number; drainTimeout: number },
    pair: KeyPair,
    handler: (request: Request) => Promise<Response>,
    onError: (error: unknown) => void,
  ) {
    this.#handler = handler;
    this.#onError = onError;
    this.#drainTimeout = options.drainTimeout;
    this.#backend = this.#start(pair);
    try {
      this.#listener = Deno.listen({
        hostname: options.hostname,
        port: options.port,
        transport: "tcp",
      });
    } catch (error) {
      void this.#backend.server.shutdown();
      throw error;
    }
    this.port = this.#listener.addr.port;
    this.hostname = this.#listener.addr.hostname;
    this.#accepting = this.#accept();
  }

  /** Serves `pair` from now on (throws, keeping the old one, when it is not valid). */
  swap(pair: KeyPair): void {
    const next = this.#start(pair);
    const old = this.#backend;
    this.#backend = next;
    const drained = this.#drain(old);
    this.#old.add(drained);
    void drained.finally(() => this.#old.delete(drained));
  }

  /** Stops accepting, drains the backends, then closes every connection. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#listener.close();
    } catch { /* closed */ }
    await this.#accepting;
    this.#backend.draining = true;
    const old = [...this.#old];
    await this.#backend.server.shutdown().catch(this.#onError);
    for (const conn of this.#conns) closeQuietly(conn);
    await Promise.all(this.#pipes);
    await Promise.all(old);
  }

  // Waits for the backend's connections to close (at most drainTimeout),
  // then shuts it down gracefully.
  async #drain(backend: Backend): Promise<void> {
    backend.draining = true;
    if (backend.conns > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await new Promise<void>((resolve) => {
        backend.onIdle = resolve;
        timer = setTimeout(resolve, this.#drainTimeout);
      });
      clearTimeout(timer);
    }
    await backend.server.shutdown().catch(this.#onError);
  }

  #start(pair: KeyPair): Backend {
    const backend = {
      draining: false,
      conns: 0,
      onIdle: () => {},
    } as unknown as Backend;
    backend.server = Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      cert: pair.cert,
      key: pair.key,
      onListen: () => {},
      onError: (error) => {
        this.#onError(error);
        return new Response("internal error\n", { status: 500 });
      },
    }, async (request) => {
      const response = await this.#handler(request);
      // A draining backend closes each connection after its answer, so
      // the client opens the next one on the new backend.
      if (backend.draining) response.headers.set("connection", "close");
      return response;
    });
    return backend;
  }

  async #accept(): Promise<void> {
    for (;;) {
      let conn: Deno.TcpConn;
      try {
        conn = await this.#listener.accept();
      } catch (error) {
        if (this.#closed) return;
        if (error instanceof Deno.errors.BadResource) return;
        this.#onError(error);
        continue;
      }
      const pipe = this.#pipe(conn);
      this.#pipes.add(pipe);
      void pipe.finally(() => this.#pipes.delete(pipe));
    }
  }

  async #pipe(conn: Deno.TcpConn): Promise<void> {
    this.#conns.add(conn);
    let upstream: Deno.TcpConn | undefined;
    const backend = this.#backend;
    backend.conns++;
    try {
      upstream = await Deno.connect({
        hostname: "127.0.0.1",
        port: backend.server.addr.port,
      });
      this.#conns.add(upstream);
      const a = copyBytes(conn, upstream);
      const b = copyBytes(upstream, conn);
      await Promise.race([a, b]).catch(() => {});
      closeQuietly(conn);
      closeQuietly(upstream);
      await Promise.allSettled([a, b]);
    } catch (error) {
      if (!this.#closed) this.#onError(error);
    } finally {
      if (--backend.conns === 0 && backend.draining) backend.onIdle();
      closeQuietly(conn);
      this.#conns.delete(conn);
      if (upstream !== undefined) {
        closeQuietly(upstream);
        this.#conns.delete(upstream);
      }
    }
  }
}
