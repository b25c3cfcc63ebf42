// The fault proxy itself, on loopback in front of a TCP echo server.
import assert from "node:assert/strict";
import { FaultProxy, script } from "./_fault_proxy.ts";

/** An echo server that counts its connections. */
function echo(): { port: number; accepted: () => number } & AsyncDisposable {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let accepted = 0;
  const conns = new Set<Deno.Conn>();
  const tasks: Promise<void>[] = [];
  const loop = (async () => {
    try {
      for await (const conn of listener) {
        accepted++;
        conns.add(conn);
        tasks.push((async () => {
          const buffer = new Uint8Array(64 * 1024);
          try {
            for (;;) {
              const n = await conn.read(buffer);
              if (n === null) break;
              let w = 0;
              while (w < n) w += await conn.write(buffer.subarray(w, n));
            }
          } catch {
            // Reset.
          }
          conns.delete(conn);
          try {
            conn.close();
          } catch {
            // Closed.
          }
        })());
      }
    } catch {
      // Closed.
    }
  })();
  return {
    port: (listener.addr as Deno.NetAddr).port,
    accepted: () => accepted,
    async [Symbol.asyncDispose](): Promise<void> {
      listener.close();
      for (const conn of conns) conn.close();
      await loop;
      await Promise.all(tasks);
    },
  };
}

async function send(conn: Deno.Conn, text: string): Promise<void> {
  await conn.write(new TextEncoder().encode(text));
}

/** Reads exactly `n` bytes, or answers `undefined` after `ms`. */
async function receive(
  conn: Deno.Conn,
  n: number,
  ms = 5_000,
): Promise<string | undefined> {
  const out = new Uint8Array(n);
  let got = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  const reading = (async () => {
    const buffer = new Uint8Array(n);
    while (got < n) {
      const r = await conn.read(buffer.subarray(0, n - got));
      if (r === null) return "EOF";
      out.set(buffer.subarray(0, r), got);
      got += r;
    }
    return new TextDecoder().decode(out);
  })();
  try {
    return await Promise.race([reading, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether `promise` is still pending after `ms` (it keeps running). */
async function pendingAfter(
  promise: Promise<unknown>,
  ms: number,
): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"pending">((resolve) => {
    timer = setTimeout(() => resolve("pending"), ms);
  });
  try {
    return await Promise.race([promise, late]) === "pending";
  } finally {
    clearTimeout(timer);
  }
}

const connect = (port: number): Promise<Deno.Conn> =>
  Deno.connect({ hostname: "127.0.0.1", port });

Deno.test({
  name: "the fault proxy passes bytes both ways untouched without faults",
  timeout: 20_000,
  async fn(): Promise<void> {
    await using server = echo();
    await using proxy = FaultProxy.start({
      hostname: "127.0.0.1",
      port: server.port,
    });
    using conn = await connect(proxy.port);
    await send(conn, "hello");
    assert.equal(await receive(conn, 5), "hello");
    assert.equal(proxy.connections().length, 1);
    assert.deepEqual(proxy.bytes(proxy.connections()[0]!), {
      up: 5,
      down: 5,
    });
  },
});

Deno.test({
  name: "the fault proxy delays each chunk by its latency",
  timeout: 20_000,
  async fn(): Promise<void> {
    await using server = echo();
    await using proxy = FaultProxy.start({
      hostname: "127.0.0.1",
      port: server.port,
    });
    proxy.set({ latency: 300 }, { direction: "down" });
    using conn = await connect(proxy.port);
    const start = Date.now();
    await send(conn, "x");
    assert.equal(await receive(conn, 1), "x");
    assert.ok(Date.now() - start >= 290, `${Date.now() - start} ms`);
  },
});

Deno.test({
  name:
    "a stalled direction holds its bytes with the connection open, per connection",
  timeout: 20_000,
  async fn(): Promise<void> {
    await using server = echo();
    await using proxy = FaultProxy.start({
      hostname: "127.0.0.1",
      port: server.port,
    });
    using a = await connect(proxy.port);
    await send(a, "a");
    assert.equal(await receive(a, 1), "a");
    using b = await connect(proxy.port);
    await send(b, "b");
    assert.equal(await receive(b, 1), "b");
    const first = proxy.connections()[0]!;
    proxy.set({ stalled: true }, { direction: "down", connection: first });
    await send(a, "1");
    await send(b, "2");
    // b is untouched; a's answer is held (the echo server did answer).
    assert.equal(await receive(b, 1), "2");
    const held = receive(a, 1);
    assert.ok(await pendingAfter(held, 300));
    assert.equal(proxy.bytes(first)!.up, 2);
    proxy.set({ stalled: false }, { direction: "down", connection: first });
    assert.equal(await held, "1");
  },
});

Deno.test({
  name: "an upward stall keeps the server from hearing the client",
  timeout: 20_000,
  async fn(): Promise<void> {
    await using server = echo();
    await using proxy = FaultProxy.start({
      hostname: "127.0.0.1",
      port: server.port,
    });
    proxy.set({ stalled: true }, { direction: "up" });
    using conn = await connect(proxy.port);
    await send(conn, "z");
    const held = receive(conn, 1);
    assert.ok(await pendingAfter(held, 300));
    assert.equal(proxy.bytes(proxy.connections()[0]!)!.up, 0);
    proxy.set({ stalled: false });
    assert.equal(await held, "z");
  },
});

Deno.test({
  name: "a reset ends the client's connection at once",
  timeout: 20_000,
  async fn(): Promise<void> {
    await using server = echo();
    await using proxy = FaultProxy.start({
      hostname: "127.0.0.1",
      port: server.port,
    });
    using conn = await connect(proxy.port);
    await send(conn, "a");
    assert.equal(await receive(conn, 1), "a");
    proxy.reset();
    const after = await receive(conn, 1).catch((e: Error) => e.name);
    assert.ok(after === "EOF" || after === "ConnectionReset", String(after));
    assert.equal(proxy.counts.resets, 1);
  },
});

Deno.test({
  name:
    "while hanging, a connection is accepted and never answered nor forwarded",
  timeout: 20_000,
  async fn(): Promise<void> {
    await using server = echo();
    await using proxy = FaultProxy.start({
      hostname: "127.0.0.1",
      port: server.port,
    });
    proxy.hang(true);
    using conn = await connect(proxy.port);
    await send(conn, "q");
    const answer = receive(conn, 1);
    assert.ok(await pendingAfter(answer, 300));
    assert.equal(server.accepted(), 0);
    assert.equal(proxy.counts.hung, 1);
    proxy.hang(false);
    assert.equal(await answer, "EOF");
  },
});

Deno.test({
  name: "while refusing, connects fail; after, the same port accepts",
  timeout: 20_000,
  async fn(): Promise<void> {
    await using server = echo();
    await using proxy = FaultProxy.start({
      hostname: "127.0.0.1",
      port: server.port,
    });
    await proxy.refuse(true);
    await assert.rejects(connect(proxy.port), Deno.errors.ConnectionRefused);
    await proxy.refuse(false);
    using conn = await connect(proxy.port);
    await send(conn, "r");
    assert.equal(await receive(conn, 1), "r");
  },
});

Deno.test({
  name: "a bandwidth limit spreads bytes over time",
  timeout: 20_000,
  async fn(): Promise<void> {
    await using server = echo();
    await using proxy = FaultProxy.start({
      hostname: "127.0.0.1",
      port: server.port,
    });
    proxy.set({ bandwidth: 20_000 }, { direction: "down" });
    using conn = await connect(proxy.port);
    const start = Date.now();
    await send(conn, "b".repeat(20_000));
    assert.equal((await receive(conn, 20_000))?.length, 20_000);
    // 20 kB at 20 kB/s: one second, less the first tenth sent at once.
    assert.ok(Date.now() - start >= 850, `${Date.now() - start} ms`);
  },
});

Deno.test("a fault script replays from its seed and bounds its latency", () => {
  const options = { duration: 60_000, count: 30, hold: 3_000, maxLatency: 800 };
  assert.deepEqual(script(7, options), script(7, options));
  assert.notDeepEqual(script(7, options), script(8, options));
  for (let seed = 0; seed < 200; seed++) {
    const steps = script(seed, options);
    assert.equal(steps.length, 60);
    for (const { fault } of steps) {
      if (fault.kind === "latency") {
        assert.ok(fault.ms + fault.jitter <= 800);
      }
    }
    const kinds = new Set(steps.map((s) => s.fault.kind));
    assert.ok(kinds.has("clear"));
  }
});
