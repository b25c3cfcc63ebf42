/**
 * A TCP fault proxy on loopback, between a client of the library and the
 * real kube-apiserver (TLS passes through untouched: the server's
 * certificate names 127.0.0.1). Written here rather than pinning toxiproxy
 * or similar: no Go or container at test time, faults per connection and
 * per direction, and its random draws come from a seed.
 *
 * Faults: latency and jitter per chunk (order kept), a bandwidth limit, a
 * stall (bytes held, the connection open: silent at the TCP level), a reset
 * (both sockets closed at once, buffered bytes dropped; the kernel sends a
 * FIN, or an RST when unread data remains: Deno has no SO_LINGER), a hang
 * (new connections are accepted and never answered) and refusals (the
 * listener closes: connect fails with ECONNREFUSED).
 *
 * @module
 */

import { sleep } from "../../_internal/sleep.ts";
import { seeded } from "../../_internal/_chaos_test_util.ts";

/** Faults of one direction of a connection. */
export interface PipeFaults {
  /** Added to each chunk, in ms. */
  latency: number;
  /** Up to this many more ms per chunk, drawn from the seed. */
  jitter: number;
  /** Bytes per second; `Infinity` for none. */
  bandwidth: number;
  /** Bytes are held (the connection stays open) until unstalled. */
  stalled: boolean;
}

/** Which way bytes flow: `up` client → server, `down` server → client. */
export type Direction = "up" | "down";

const CLEAR: PipeFaults = {
  latency: 0,
  jitter: 0,
  bandwidth: Infinity,
  stalled: false,
};

class Pipe {
  faults: PipeFaults = { ...CLEAR };
  bytes = 0;
  #wake: (() => void) | undefined;
  #last = 0;

  constructor(
    readonly from: Deno.Conn,
    readonly to: Deno.Conn,
    readonly random: () => number,
    readonly signal: AbortSignal,
  ) {}

  set(faults: Partial<PipeFaults>): void {
    this.faults = { ...this.faults, ...faults };
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /** Copies until either side ends; half-closes `to` on EOF. */
  async run(): Promise<void> {
    const queue: { chunk: Uint8Array; due: number }[] = [];
    let ended = false;
    let more: (() => void) | undefined;
    const reader = (async () => {
      const buffer = new Uint8Array(16 * 1024);
      try {
        for (;;) {
          const n = await this.from.read(buffer);
          if (n === null) break;
          const { latency, jitter } = this.faults;
          // Order is kept: a chunk never leaves before the one ahead.
          const due = Math.max(
            this.#last,
            Date.now() + latency + jitter * this.random(),
          );
          this.#last = due;
          queue.push({ chunk: buffer.slice(0, n), due });
          more?.();
        }
      } catch {
        // Closed by a reset or the other side.
      }
      ended = true;
      more?.();
    })();
    try {
      for (;;) {
        if (this.signal.aborted) break;
        const next = queue.shift();
        if (next === undefined) {
          if (ended) break;
          await new Promise<void>((resolve) => more = resolve);
          more = undefined;
          continue;
        }
        let { chunk } = next;
        await sleep(next.due - Date.now(), this.signal);
        while (chunk.length > 0 && !this.signal.aborted) {
          if (this.faults.stalled) {
            await new Promise<void>((resolve) => {
              this.#wake = resolve;
              this.signal.addEventListener("abort", () => resolve(), {
                once: true,
              });
            });
            continue;
          }
          // A limited pipe sends at most a tenth of a second's worth at once.
          const { bandwidth } = this.faults;
          const size = Number.isFinite(bandwidth)
            ? Math.max(1, Math.min(chunk.length, Math.floor(bandwidth / 10)))
            : chunk.length;
          const part = chunk.subarray(0, size);
          chunk = chunk.subarray(size);
          let written = 0;
          while (written < part.length) {
            written += await this.to.write(part.subarray(written));
          }
          this.bytes += size;
          if (Number.isFinite(bandwidth)) {
            await sleep(size / bandwidth * 1000, this.signal);
          }
        }
      }
      if (!this.signal.aborted) await this.to.closeWrite().catch(() => {});
    } catch {
      // The other side is gone.
    }
    await reader;
  }
}

/** One proxied connection. */
export class Link {
  readonly pipes: Record<Direction, Pipe>;
  #abort = new AbortController();
  readonly done: Promise<void>;

  constructor(
    readonly id: number,
    readonly client: Deno.Conn,
    readonly server: Deno.Conn,
    random: () => number,
    faults: Record<Direction, PipeFaults>,
  ) {
    const signal = this.#abort.signal;
    this.pipes = {
      up: new Pipe(client, server, random, signal),
      down: new Pipe(server, client, random, signal),
    };
    this.pipes.up.set(faults.up);
    this.pipes.down.set(faults.down);
    this.done = Promise.all([this.pipes.up.run(), this.pipes.down.run()])
      .then(() => this.#close());
  }

  /** Closes both sockets at once, dropping what is buffered. */
  reset(): void {
    this.#abort.abort();
    this.#close();
  }

  #close(): void {
    for (const conn of [this.client, this.server]) {
      try {
        conn.close();
      } catch {
        // Closed already.
      }
    }
  }
}

/** A fault as a seeded script applies it. */
export type Fault =
  | {
    kind: "latency";
    direction: Direction | "both";
    ms: number;
    jitter: number;
  }
  | { kind: "bandwidth"; direction: Direction | "both"; bytesPerSecond: number }
  | { kind: "stall"; direction: Direction | "both" }
  | { kind: "reset" }
  | { kind: "hang" }
  | { kind: "refuse" }
  | { kind: "clear" };

/** Options of {@linkcode FaultProxy.start}. */
export interface FaultProxyOptions {
  /** Seeds the jitter draws. Default 1. */
  seed?: number | undefined;
}

/** A TCP proxy on 127.0.0.1 in front of `target`. */
export class FaultProxy implements AsyncDisposable {
  #listener: Deno.Listener | undefined;
  #target: { hostname: string; port: number };
  #links = new Map<number, Link>();
  #hung = new Set<Deno.Conn>();
  #ids = 0;
  #random: () => number;
  #defaults: Record<Direction, PipeFaults> = {
    up: { ...CLEAR },
    down: { ...CLEAR },
  };
  #hang = false;
  #accepting: Promise<void> = Promise.resolve();
  #closed = false;
  #tasks = new Set<Promise<void>>();
  /** The port it listens on (kept across refusals). */
  readonly port: number;
  /** Connections accepted, and how each ended. */
  readonly counts = { accepted: 0, hung: 0, resets: 0, refusals: 0 };

  private constructor(
    listener: Deno.Listener,
    target: { hostname: string; port: number },
    seed: number,
  ) {
    this.#listener = listener;
    this.#target = target;
    this.#random = seeded(seed);
    this.port = (listener.addr as Deno.NetAddr).port;
    this.#accepting = this.#accept(listener);
  }

  /** Starts a proxy to `target` (a URL or host and port). */
  static start(
    target: string | { hostname: string; port: number },
    options: FaultProxyOptions = {},
  ): FaultProxy {
    const to = typeof target === "string"
      ? (() => {
        const url = new URL(target);
        return { hostname: url.hostname, port: Number(url.port) };
      })()
      : target;
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    return new FaultProxy(listener, to, options.seed ?? 1);
  }

  /** `https://127.0.0.1:<port>`, for a client of an HTTPS target. */
  get url(): string {
    return `https://127.0.0.1:${this.port}`;
  }

  /** The ids of the open connections, oldest first. */
  connections(): number[] {
    return [...this.#links.keys()];
  }

  /** Bytes forwarded so far by a connection, per direction. */
  bytes(id: number): Record<Direction, number> | undefined {
    const link = this.#links.get(id);
    return link && { up: link.pipes.up.bytes, down: link.pipes.down.bytes };
  }

  /**
   * Sets faults of one direction or both, on one connection or (without
   * `connection`) on every open one and every later one.
   */
  set(
    faults: Partial<PipeFaults>,
    options: { direction?: Direction | "both"; connection?: number } = {},
  ): void {
    const directions: Direction[] = options.direction === "up"
      ? ["up"]
      : options.direction === "down"
      ? ["down"]
      : ["up", "down"];
    const links = options.connection === undefined
      ? [...this.#links.values()]
      : [this.#links.get(options.connection)].filter((l) => l !== undefined);
    for (const direction of directions) {
      if (options.connection === undefined) {
        this.#defaults[direction] = { ...this.#defaults[direction], ...faults };
      }
      for (const link of links) link.pipes[direction].set(faults);
    }
  }

  /** Resets one connection, or every open one. */
  reset(connection?: number): void {
    for (const [id, link] of this.#links) {
      if (connection !== undefined && id !== connection) continue;
      this.counts.resets++;
      link.reset();
    }
  }

  /** While on, new connections are accepted and never answered. */
  hang(on: boolean): void {
    this.#hang = on;
    if (!on) {
      for (const conn of this.#hung) {
        try {
          conn.close();
        } catch {
          // Closed by the client.
        }
      }
      this.#hung.clear();
    }
  }

  /**
   * While on, the port is closed (connects are refused); open connections
   * go on. Off listens on the same port again.
   */
  async refuse(on: boolean): Promise<void> {
    if (on && this.#listener) {
      this.counts.refusals++;
      this.#listener.close();
      this.#listener = undefined;
      await this.#accepting;
    } else if (!on && !this.#listener && !this.#closed) {
      const listener = Deno.listen({ hostname: "127.0.0.1", port: this.port });
      this.#listener = listener;
      this.#accepting = this.#accept(listener);
    }
  }

  /** Ends every fault: clears pipes, stops hanging and refusing. */
  async clear(): Promise<void> {
    this.set({ ...CLEAR });
    this.hang(false);
    await this.refuse(false);
  }

  /** Applies a fault of a script to every open and later connection. */
  async apply(fault: Fault): Promise<void> {
    switch (fault.kind) {
      case "latency":
        return this.set({ latency: fault.ms, jitter: fault.jitter }, fault);
      case "bandwidth":
        return this.set({ bandwidth: fault.bytesPerSecond }, fault);
      case "stall":
        return this.set({ stalled: true }, fault);
      case "reset":
        return this.reset();
      case "hang":
        return this.hang(true);
      case "refuse":
        return await this.refuse(true);
      case "clear":
        return await this.clear();
    }
  }

  #track(task: Promise<void>): void {
    this.#tasks.add(task);
    void task.finally(() => this.#tasks.delete(task));
  }

  async #accept(listener: Deno.Listener): Promise<void> {
    try {
      for await (const client of listener) {
        this.counts.accepted++;
        if (this.#hang) {
          this.counts.hung++;
          this.#hung.add(client);
          // Read and drop: the client's bytes are taken, nothing answers.
          this.#track((async () => {
            const sink = new Uint8Array(4096);
            try {
              while (await client.read(sink) !== null) {
                // Discard.
              }
            } catch {
              // Closed.
            }
          })());
          continue;
        }
        this.#track(this.#link(client));
      }
    } catch {
      // The listener closed.
    }
  }

  async #link(client: Deno.Conn): Promise<void> {
    let server: Deno.Conn;
    try {
      server = await Deno.connect(this.#target);
    } catch {
      client.close();
      return;
    }
    const id = ++this.#ids;
    const link = new Link(id, client, server, this.#random, {
      up: { ...this.#defaults.up },
      down: { ...this.#defaults.down },
    });
    this.#links.set(id, link);
    await link.done;
    this.#links.delete(id);
  }

  /** Closes the listener and every connection, and waits for them. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#listener?.close();
    this.#listener = undefined;
    this.hang(false);
    this.reset();
    await this.#accepting;
    while (this.#tasks.size > 0) await Promise.all(this.#tasks);
  }

  /** Closes (for `await using`). */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/** Kinds a script draws from. */
export const FAULT_KINDS = [
  "latency",
  "bandwidth",
  "stall",
  "reset",
  "hang",
  "refuse",
] as const;

/** One step of a script: at `at` ms, apply `fault`; `clear` ends it. */
export interface ScriptStep {
  at: number;
  fault: Fault;
}

/**
 * A fault script from a seed: `count` faults over `duration` ms, each
 * followed by a clear after up to `hold` ms. Latency stays within
 * `maxLatency` per chunk (latency plus jitter), so a request's extra delay
 * stays under the caller's bound.
 */
export function script(
  seed: number,
  options: {
    duration: number;
    count: number;
    hold: number;
    maxLatency: number;
    kinds?: readonly Fault["kind"][];
  },
): ScriptStep[] {
  const random = seeded(seed);
  const kinds = options.kinds ?? FAULT_KINDS;
  const steps: ScriptStep[] = [];
  const slot = options.duration / options.count;
  for (let i = 0; i < options.count; i++) {
    const at = Math.floor(i * slot + random() * slot / 2);
    const kind = kinds[Math.floor(random() * kinds.length)]!;
    const direction = (["up", "down", "both"] as const)[
      Math.floor(random() * 3)
    ]!;
    let fault: Fault;
    switch (kind) {
      case "latency": {
        const ms = Math.floor(random() * options.maxLatency / 2);
        fault = {
          kind,
          direction,
          ms,
          jitter: Math.floor(random() * options.maxLatency / 2),
        };
        break;
      }
      case "bandwidth":
        fault = {
          kind,
          direction,
          bytesPerSecond: 2_000 + Math.floor(random() * 64_000),
        };
        break;
      case "stall":
        fault = { kind, direction };
        break;
      default:
        fault = { kind } as Fault;
    }
    steps.push({ at, fault });
    const hold = Math.floor(random() * options.hold);
    steps.push({
      at: Math.min(at + hold, Math.floor((i + 1) * slot) - 1),
      fault: { kind: "clear" },
    });
  }
  return steps;
}
