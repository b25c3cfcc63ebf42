// The client's connection pool, replaced when its connection is presumed
// dead. Deno's fetch speaks HTTP/2 to the API server, so one pool holds one
// TCP connection that carries every request and watch of the client. When
// that connection goes silent without closing (a black-holed path, a NAT or
// load balancer that dropped its state), the pool keeps choosing it:
// measured on this machine against kube-apiserver through a fault proxy,
// 30 requests in 90 s all timed out on the dead connection and none opened
// a new one. Deno's fetch has no HTTP/2 PING health check (client-go's
// ReadIdleTimeout and PingTimeout), so the client does what the kubelet
// does on a failed heartbeat: it drops the pool after a request timed out
// with no answer or a watch fell silent, and the next request dials anew.

/**
 * The shortest time between two replacements: short caller limits on a slow
 * server must not dial a connection per request (the kubelet's forced closes
 * on repeated heartbeat failures loaded the API servers of 5,000 nodes until
 * kubernetes#107781 and #108107 spaced and softened them). A pool already
 * replaced is replaced again only when a request sent on the new one fails.
 */
export const MIN_REPLACE_INTERVAL = 5_000;

/** Set on a watch stream's options: called when its idle limit ends it. */
export const ON_IDLE: unique symbol = Symbol("onIdle");

/** Replaces the `Deno.HttpClient` a client sends through. */
export class Pool {
  #make: () => Deno.HttpClient;
  #current: Deno.HttpClient;
  #closed = false;
  #replacedAt = -Infinity;
  /** How many times the pool was replaced. */
  replaced = 0;

  constructor(make: () => Deno.HttpClient) {
    this.#make = make;
    this.#current = make();
  }

  /** The `Deno.HttpClient` the next request sends through. */
  get current(): Deno.HttpClient {
    return this.#current;
  }

  /**
   * Replaces the pool when `used` (the one a failed request went through)
   * is still the current one (several requests stuck on one dead connection
   * replace it once) and the last replacement is at least
   * {@linkcode MIN_REPLACE_INTERVAL} old. Requests in flight on the old pool go on (closing a
   * `Deno.HttpClient` ends none of them); its connections close when their
   * last request ends or their peer closes them.
   */
  replace(used: Deno.HttpClient | undefined): void {
    if (this.#closed || used === undefined || used !== this.#current) return;
    const now = Date.now();
    if (now - this.#replacedAt < MIN_REPLACE_INTERVAL) return;
    let fresh: Deno.HttpClient;
    try {
      fresh = this.#make();
    } catch {
      // It was made once with the same settings; keep the old one rather
      // than fail every later request.
      return;
    }
    this.#current = fresh;
    this.#replacedAt = now;
    this.replaced++;
    used.close();
  }

  /** Closes the current pool; no later one is made. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#current.close();
  }
}
