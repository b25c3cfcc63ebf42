// The client over real sockets (Deno.serve and raw TCP on 127.0.0.1): every
// answer's body is read or cancelled on every path, and a watch whose server
// dies ends with an error. Each test has a timeout, so a hang fails it.
import assert from "node:assert/strict";
import {
  ApiError,
  Client,
  ConflictError,
  MalformedResponseError,
  NotFoundError,
  type Outcome,
  RequestTimeoutError,
  ThrottledError,
} from "./mod.ts";
import { failure } from "./_scripted_test_util.ts";

const encoder = new TextEncoder();

/** A body the server streams on demand; records how it ended. */
function tracked(
  ends: Map<string, string>,
  name: string,
  total: number,
  first = "",
): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    start(c): void {
      if (first) c.enqueue(encoder.encode(first));
    },
    pull(c): void {
      if (sent >= total) {
        ends.set(name, "read to the end");
        c.close();
        return;
      }
      const size = Math.min(64 * 1024, total - sent);
      sent += size;
      c.enqueue(new Uint8Array(size).fill(0x20));
    },
    cancel(): void {
      ends.set(name, "cancelled");
    },
  });
}

function statusBody(code: number, reason: string, message: string): string {
  return JSON.stringify(failure(code, reason, message)) + "\n";
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !check(); i++) {
    await new Promise((r) => setTimeout(r, 5));
  }
}

Deno.test({
  name:
    "every answer's body is read or cancelled over a real socket: 404, 409, 429, big and endless errors, malformed, timeout, refused watch",
  timeout: 20_000,
  fn: async () => {
    const ends = new Map<string, string>();
    const server = Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      onListen(): void {},
    }, (request) => {
      const name = new URL(request.url).pathname.slice(1);
      const json = { "content-type": "application/json" };
      switch (name) {
        case "missing":
          return new Response(statusBody(404, "NotFound", "gone"), {
            status: 404,
            headers: json,
          });
        case "conflict":
          return new Response(statusBody(409, "Conflict", "modified"), {
            status: 409,
            headers: json,
          });
        case "throttled":
          // More than the 10 s budget: answered at once, without a wait.
          return new Response(statusBody(429, "TooManyRequests", "busy"), {
            status: 429,
            headers: { ...json, "Retry-After": "30" },
          });
        case "big-error":
          // Bigger than the drain cap: read to the cap, then cancelled.
          return new Response(tracked(ends, name, 64 << 20, "big"), {
            status: 500,
          });
        case "endless-error":
          return new Response(tracked(ends, name, Infinity, "endless"), {
            status: 503,
          });
        case "malformed":
          return new Response(tracked(ends, name, 300_000, "<html>"), {
            status: 200,
          });
        case "stalled":
          return new Response(
            new ReadableStream<Uint8Array>({
              start(c): void {
                c.enqueue(encoder.encode('{"partial":'));
              },
              cancel(): void {
                ends.set(name, "cancelled");
              },
            }),
            { status: 200, headers: json },
          );
        case "watch-gone":
          return new Response(statusBody(410, "Expired", "too old"), {
            status: 410,
            headers: json,
          });
        default:
          return Response.json({ ok: true });
      }
    });
    const responses: Response[] = [];
    const outcomes: Outcome[] = [];
    const client = new Client(`http://127.0.0.1:${server.addr.port}`, {
      timeout: 2_000,
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        responses.push(response);
        return response;
      },
    }).withObserver((o) => outcomes.push(o));
    try {
      assert.ok(
        await client.get("/missing").catch((e) => e) instanceof
          NotFoundError,
      );
      assert.ok(
        await client.replace("/conflict", { metadata: {} }).catch((e) =>
          e
        ) instanceof ConflictError,
      );
      const throttled = await client.get("/throttled").catch((e) => e);
      assert.ok(throttled instanceof ThrottledError);
      assert.equal(throttled.retryAfterSeconds, 30);
      const big = await client.get("/big-error").catch((e) => e);
      assert.ok(big instanceof ApiError);
      assert.equal(big.status, 500);
      assert.equal(big.text, "big");
      const endless = await client.get("/endless-error").catch((e) => e);
      assert.ok(endless instanceof ApiError);
      assert.equal(endless.status, 503);
      assert.ok(
        await client.get("/malformed").catch((e) => e) instanceof
          MalformedResponseError,
      );
      const stalled = await client.get("/stalled").catch((e) => e);
      assert.ok(stalled instanceof RequestTimeoutError, String(stalled));
      assert.ok(
        await client.watch("/watch-gone").catch((e) => e) instanceof ApiError,
      );
      assert.deepEqual(await client.get("/ok"), { ok: true });

      assert.equal(responses.length, 9);
      for (const [i, response] of responses.entries()) {
        assert.ok(response.bodyUsed, `body ${i} read or cancelled`);
      }
      await until(() => ends.size === 4);
      assert.deepEqual(Object.fromEntries(ends), {
        "big-error": "cancelled",
        "endless-error": "cancelled",
        "malformed": "read to the end",
        "stalled": "cancelled",
      });
      assert.deepEqual(outcomes.map((o) => o.status), [
        404,
        409,
        429,
        500,
        503,
        200,
        200,
        410,
        200,
      ]);
    } finally {
      // A body left open would hold the server's shutdown: the test times out.
      await server.shutdown();
    }
  },
});

Deno.test({
  name: "a refused connection fails with the fetch TypeError, status 0",
  timeout: 10_000,
  fn: async () => {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = listener.addr.port;
    listener.close();
    const outcomes: Outcome[] = [];
    const client = new Client(`http://127.0.0.1:${port}`).withObserver((o) =>
      outcomes.push(o)
    );
    const error = await client.get("/api").catch((e) => e);
    assert.ok(error instanceof TypeError, String(error));
    assert.equal(outcomes[0]?.status, 0);
    assert.equal(outcomes[0]?.error, error);
  },
});

/**
 * A raw HTTP/1.1 server that answers one chunked watch, writes `chunks`, then
 * drops the connection without the final chunk.
 */
function dyingWatchServer(chunks: string[]): Deno.TcpListener {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  (async () => {
    for await (const conn of listener) {
      try {
        await conn.read(new Uint8Array(8192));
        let out = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n" +
          "transfer-encoding: chunked\r\n\r\n";
        for (const chunk of chunks) {
          out += `${encoder.encode(chunk).length.toString(16)}\r\n${chunk}\r\n`;
        }
        await conn.write(encoder.encode(out));
        await new Promise((r) => setTimeout(r, 20));
      } finally {
        conn.close();
      }
    }
  })().catch(() => {});
  return listener;
}

Deno.test({
  name:
    "a watch whose server dies mid-stream over a real socket ends with an error, not a hang",
  timeout: 10_000,
  fn: async () => {
    const added = JSON.stringify({
      type: "ADDED",
      object: { metadata: { name: "a", resourceVersion: "1" } },
    }) + "\n";
    // Dies between events, and dies inside one.
    for (const chunks of [[added], [added, '{"type":"MODIFIED","obj']]) {
      const listener = dyingWatchServer(chunks);
      try {
        const client = new Client(`http://127.0.0.1:${listener.addr.port}`);
        const stream = await client.watch("/api/v1/configmaps?watch=1", {
          idleTimeout: 8_000,
        });
        const seen: string[] = [];
        const error = await (async () => {
          for await (const event of stream) seen.push(event.type);
        })().then(() => undefined, (e) => e);
        assert.deepEqual(seen, ["ADDED"]);
        assert.ok(
          error instanceof TypeError ||
            error instanceof MalformedResponseError,
          `ended with an error, not a clean end or the idle limit: ${error}`,
        );
      } finally {
        listener.close();
      }
    }
  },
});
