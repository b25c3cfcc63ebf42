// Every parser of the client that reads the server's text (Warning and
// Retry-After headers, Status bodies, JSON answers, watch lines, the server
// URL, the redaction of error text) finishes on 100,000 characters or more
// of the worst input for its pattern. The bound (1 s each) is 20x or more
// what a linear parse takes on a loaded machine.
import assert from "node:assert/strict";
import {
  ApiError,
  Client,
  MalformedResponseError,
  ThrottledError,
} from "./mod.ts";
import { parseWarnings } from "./_warnings.ts";
import { errorFor } from "./_decode.ts";
import { failure, json, scripted } from "./_scripted_test_util.ts";

const N = 100_000;
const BOUND = 1000;

async function timed<T>(name: string, run: () => Promise<T> | T): Promise<T> {
  const started = Date.now();
  const value = await run();
  const took = Date.now() - started;
  assert.ok(took < BOUND, `${name}: ${took} ms`);
  return value;
}

Deno.test("Warning headers of 100k hostile characters parse in linear time", async () => {
  const headers: Record<string, string> = {
    "an unclosed quote": '299 - "' + "a".repeat(N),
    "escapes": '299 - "' + "\\a".repeat(N / 2) + '"',
    "an agent that never ends": "299 " + "a".repeat(N),
    "many entries": '299 - "x",'.repeat(N / 10),
    "an unclosed date": '299 - "x" "' + "d".repeat(N),
    "control characters": '299 - "' + "\u0001".repeat(N) + '"',
  };
  for (const [name, header] of Object.entries(headers)) {
    await timed(name, () => parseWarnings(header));
  }
  // Through the client too: the texts heard are bounded.
  const heard: string[] = [];
  const { fetch } = scripted(() =>
    json(200, {}, { warning: '299 - "' + "w".repeat(N) + '"' })
  );
  const client = new Client("http://api", {
    fetch,
    onWarning: (text) => heard.push(text),
  });
  await timed("client", () => client.get("/api"));
  assert.equal(heard.length, 1);
  assert.ok(heard[0]!.length <= 1024);
});

Deno.test("a Retry-After of 100k digits or spaces is read in linear time, and bounded", async () => {
  const text = JSON.stringify(failure(429, "TooManyRequests", "busy"));
  for (
    const header of [
      "9".repeat(N),
      " ".repeat(N) + "7",
      "1" + " ".repeat(N) + "x",
    ]
  ) {
    const response = new Response(null, {
      status: 429,
      headers: { "retry-after": header },
    });
    const error = await timed(
      "retry-after",
      () => errorFor("GET", "/x", response, text),
    );
    assert.ok(error instanceof ThrottledError, String(error));
    assert.ok(error.retryAfterSeconds <= 60);
  }
});

Deno.test("Status bodies and JSON answers of 100k hostile characters decode in linear time", async () => {
  const bodies: [number, string][] = [
    [500, JSON.stringify(failure(500, "InternalError", "m".repeat(N)))],
    [500, "[".repeat(N)],
    [500, '{"kind":"Status","message":"' + "\\u0041".repeat(N / 6)],
    [200, "[".repeat(N)],
    [200, '{"a":"' + "\\".repeat(N)],
    [200, "{".repeat(N) + "}".repeat(N)],
  ];
  for (const [status, body] of bodies) {
    const { fetch } = scripted(() => new Response(body, { status }));
    const client = new Client("http://api", {
      fetch,
      authorization: () => Promise.resolve("Bearer abcdefghijklmnop"),
    });
    const error = await timed(
      `${status} ${body.slice(0, 20)}`,
      () => client.get("/x").catch((e) => e),
    );
    assert.ok(
      error instanceof ApiError || error instanceof MalformedResponseError,
      String(error),
    );
    assert.ok(error.message.length < 3000);
  }
});

Deno.test("watch lines of 100k hostile characters decode in linear time", async () => {
  const lines = [
    "[".repeat(N) + "\n",
    '{"type":"ADDED","object":' + "[".repeat(N) + "\n",
    '{"type":"ADDED","object":{"a":"' + "\\u0041".repeat(N / 6) + "\n",
    " ".repeat(N) + "x\n",
    '{"type":"ADDED","object":{"e":"' + "x".repeat(N),
  ];
  for (const line of lines) {
    const { fetch } = scripted(() => new Response(line));
    const client = new Client("http://api", {
      fetch,
      authorization: () => Promise.resolve("Bearer abcdefghijklmnop"),
    });
    const stream = await client.watch("/api/v1/configmaps?watch=1");
    const error = await timed(line.slice(0, 30), () =>
      (async () => {
        for await (const _ of stream) { /* drain */ }
      })().catch((e) => e));
    assert.ok(error instanceof MalformedResponseError, String(error));
    assert.ok(error.message.length < 1000);
  }
});

Deno.test("a server URL of 200k slashes before its end is read in linear time, and trailing slashes go", async () => {
  const { fetch, seen } = scripted(() => json(200, {}));
  const hostile = "http://api" + "/".repeat(2 * N) + "x";
  await timed("server", () => new Client(hostile, { fetch }));
  await new Client("http://api/base///", { fetch }).get("/x");
  assert.equal(seen[0]!.url, "http://api/base/x");
});
