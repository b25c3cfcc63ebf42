import assert from "node:assert/strict";
import { BoundedServer, type ServerOptions } from "./_server.ts";
import { testCerts } from "../testing/certs.ts";

const LIMITS = {
  hostname: "127.0.0.1",
  port: 0,
  maxConnections: 8,
  handshakeTimeout: Infinity,
  headersTimeout: 5_000,
  idleTimeout: 5_000,
  stopTimeout: 1_000,
} satisfies ServerOptions;

async function get(port: number): Promise<number> {
  // A client per request: a pooled connection to a dead backend is closed.
  using client = Deno.createHttpClient({});
  const response = await fetch(`http://127.0.0.1:${port}/`, { client });
  await response.body?.cancel();
  return response.status;
}

Deno.test({
  name: "server: a backend whose finished rejects is replaced, and reported",
  timeout: 20_000,
  async fn(): Promise<void> {
    const backends: { server: Deno.HttpServer; fail: (e: Error) => void }[] =
      [];
    // Like Deno.serve, but the test ends the first backend as descriptors
    // running out did (its `finished` rejected).
    const serve =
      ((options: Deno.ServeTcpOptions, handler: Deno.ServeHandler) => {
        const server = Deno.serve(options, handler);
        if (backends.length > 0) return server;
        let fail!: (e: Error) => void;
        const finished = new Promise<void>((_, reject) => (fail = reject));
        backends.push({ server, fail });
        return {
          addr: server.addr,
          finished,
          shutdown: () => server.shutdown(),
          ref: () => server.ref(),
          unref: () => server.unref(),
          [Symbol.asyncDispose]: () => server.shutdown(),
        };
      }) as unknown as typeof Deno.serve;
    const errors: unknown[] = [];
    const server = new BoundedServer(
      { ...LIMITS, serve },
      () => Promise.resolve(new Response("ok")),
      (error) => errors.push(error),
    );
    try {
      assert.equal(await get(server.port), 200);
      const first = backends[0]!;
      await first.server.shutdown();
      first.fail(new Error("Too many open files (os error 24)"));
      await new Promise((r) => setTimeout(r, 20));
      assert.equal(await get(server.port), 200);
      assert.equal(errors.length, 1);
      assert.match(String(errors[0]), /Too many open files/);
    } finally {
      await server.close();
    }
  },
});

Deno.test("server: limits must be above 0", () => {
  assert.throws(
    () =>
      new BoundedServer(
        { ...LIMITS, maxConnections: 0 },
        () => Promise.resolve(new Response()),
        () => {},
      ),
    /maxConnections must be above 0, got 0/,
  );
});

Deno.test({
  name:
    "server: close() ends as soon as the requests in flight are answered, over HTTP/1.1 and HTTP/2, not at stopTimeout",
  timeout: 20_000,
  async fn(): Promise<void> {
    for (const http2 of [false, true]) {
      let entered!: () => void;
      const inFlight = new Promise<void>((resolve) => (entered = resolve));
      const server = new BoundedServer(
        {
          ...LIMITS,
          stopTimeout: 10_000,
          pair: { cert: testCerts.serverCert, key: testCerts.serverKey },
        },
        () => {
          entered();
          return new Promise((resolve) =>
            setTimeout(() => resolve(new Response("answered")), 300)
          );
        },
        () => {},
      );
      using client = Deno.createHttpClient({
        caCerts: [testCerts.caCert],
        http1: !http2,
        http2,
      });
      const answer = fetch(`https://127.0.0.1:${server.port}/`, { client })
        .then((r) => r.text());
      // The request is in flight (its handler waits) when the stop begins;
      // a loaded machine can take over 100 ms to get it there.
      await inFlight;
      const started = performance.now();
      await server.close();
      const took = performance.now() - started;
      assert.equal(await answer, "answered", "the answer arrives whole");
      assert.ok(took < 5_000, `http2=${http2}: close() took ${took} ms`);
    }
  },
});
