// Hostile and broken answers, as a proxy, a buggy API server or a bad mount
// would give them: each is refused with a clear error, never a hang, a hot
// loop, a leaked token or a silent substitution.
import assert from "node:assert/strict";
import {
  ApiError,
  Client,
  InClusterConfigError,
  MalformedResponseError,
  retryAfterSeconds,
  ThrottledError,
  WatchStream,
} from "./mod.ts";
import { FakeApiServer } from "../testing/mod.ts";
import { installFakeTime } from "../testing/fake_time.ts";
import { sleep } from "../_internal/sleep.ts";
import { failure, json, scripted } from "./_scripted_test_util.ts";
import { work } from "./_work_test_util.ts";
import { MAX_LINE_LENGTH, MAX_RETRY_AFTER_SECONDS } from "./_limits.ts";

const CM = "/api/v1/namespaces/default/configmaps";

function nameOf(event: { object: unknown }): string {
  return (event.object as { metadata: { name: string } }).metadata.name;
}

// ------------------------------------------------------- 1. huge waits

Deno.test("a Retry-After of 1e9 (header or Status) reads as the documented maximum", async () => {
  for (
    const [header, stated] of [
      ["1000000000", undefined],
      [undefined, 1e9],
      [undefined, Number.MAX_SAFE_INTEGER],
    ] as const
  ) {
    const { fetch } = scripted(() =>
      json(
        429,
        stated === undefined ? failure(429, "TooManyRequests", "busy") : {
          ...failure(429, "TooManyRequests", "busy"),
          details: { retryAfterSeconds: stated },
        },
        header === undefined ? {} : { "retry-after": header },
      )
    );
    const error = await new Client("http://api", { fetch }).get("/x").catch((
      e,
    ) => e);
    assert.ok(error instanceof ThrottledError);
    assert.equal(error.retryAfterSeconds, MAX_RETRY_AFTER_SECONDS);
    assert.equal(retryAfterSeconds(error), 60);
  }
});

Deno.test("a 503 Status asking for 1e9 s gives retryAfterSeconds of at most 60; a bad one gives 0", async () => {
  for (
    const [stated, expected] of [[1e9, 60], [5, 5], [-3, 0], ["7", 0]] as const
  ) {
    const { fetch } = scripted(() =>
      json(503, {
        ...failure(503, "ServiceUnavailable", "later"),
        details: { retryAfterSeconds: stated },
      })
    );
    const error = await new Client("http://api", { fetch }).get("/x").catch((
      e,
    ) => e);
    assert.ok(error instanceof ApiError);
    assert.equal(retryAfterSeconds(error), expected);
  }
});

Deno.test("a caller that waits what the server asks sends 1 request, then 1 a minute, under Retry-After: 1e9", async () => {
  using time = installFakeTime();
  await using server = new FakeApiServer();
  server.refuse({ status: 429, retryAfterHeader: 1e9 });
  const client = new Client(server.url, { fetch: server.fetch });
  const stop = new AbortController();
  const loop = (async (): Promise<void> => {
    while (!stop.signal.aborted) {
      try {
        await client.get(`${CM}/a`, { signal: stop.signal });
      } catch (error) {
        await sleep(retryAfterSeconds(error) * 1000, stop.signal);
      }
    }
  })();
  await time.tick(1000);
  const inOneSecond = server.requests.length;
  await time.tick(120_000);
  const inTwoMinutes = server.requests.length;
  stop.abort();
  await time.settle();
  await loop;
  // One request, then one a minute: the wait is bounded, never a hot loop
  // and never years.
  assert.equal(inOneSecond, 1);
  assert.equal(inTwoMinutes, 3);
});

// ------------------------------------------------------- 2. the token

async function tokenDir(token: string): Promise<string> {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/token`, token);
  return dir;
}

Deno.test("a token with LF, CR LF, NUL or another control character inside is refused naming the file, never the content", async () => {
  for (
    const token of [
      "abcd-secret\nefgh-secret",
      "abcd-secret\r\nefgh-secret",
      "abcd-secret\0efgh-secret",
      "abcd-secret\x1befgh-secret",
    ]
  ) {
    const dir = await tokenDir(`${token}\n`);
    try {
      const { fetch, seen } = scripted(() => json(200, {}));
      const errors: unknown[] = [];
      const client = new Client("http://api", {
        fetch,
        serviceAccountDir: dir,
      }).withObserver((o) => errors.push(o.error));
      const error = await client.get("/api").catch((e) => e as Error);
      assert.ok(error instanceof InClusterConfigError, String(error));
      assert.ok(error.message.includes(`${dir}/token`));
      assert.match(error.message, /control character/);
      assert.equal(errors[0], error);
      const shown = JSON.stringify({ m: error.message, s: error.stack });
      assert.ok(!shown.includes("secret"), shown);
      assert.equal(seen.length, 0);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
});

Deno.test("an authorization callback's value with a line break is refused without quoting it", async () => {
  const { fetch, seen } = scripted(() => json(200, {}));
  const client = new Client("http://api", {
    fetch,
    authorization: () => Promise.resolve("Bearer abcd-secret\nx"),
  });
  const error = await client.get("/api").catch((e) => e as Error);
  assert.ok(error instanceof TypeError);
  assert.match(error.message, /^GET \/api not sent: .*control character/);
  assert.ok(!error.message.includes("secret"));
  assert.equal(seen.length, 0);
});

// A server or proxy may echo the whole header, or the token alone (a JWT
// without its `Bearer `): both are redacted.
const echoes = [
  (auth: string): string => auth,
  (auth: string): string => auth.slice("Bearer ".length),
];

function pairs<A, B>(as: readonly A[], bs: readonly B[]): [A, B][] {
  return as.flatMap((a) => bs.map((b): [A, B] => [a, b]));
}

Deno.test("a server that echoes the Authorization header or the bare token in its 401 (text or Status) does not put the token in the error", async () => {
  const token = "eyJhbGciOiJSUzI1NiJ9.very-secret-token";
  for (const [echo, asStatus] of pairs(echoes, [false, true])) {
    const dir = await tokenDir(token);
    try {
      const { fetch } = scripted((request) => {
        const echoed = `Unauthorized: ${
          echo(request.headers.get("authorization")!)
        }`;
        return asStatus
          ? json(401, failure(401, "Unauthorized", echoed))
          : new Response(echoed, { status: 401 });
      });
      const client = new Client("http://api", {
        fetch,
        serviceAccountDir: dir,
      });
      const error = await client.get("/api").catch((e) => e as ApiError);
      assert.ok(error instanceof ApiError);
      const shown = JSON.stringify({
        m: error.message,
        s: error.stack,
        t: error.text,
        o: error.statusObject,
      });
      assert.ok(!shown.includes("very-secret-token"), shown);
      assert.match(error.message, /Unauthorized: \[redacted\]/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
});

Deno.test("a malformed 2xx answer that echoes the header or the bare token does not put it in the error", async () => {
  const token = "Bearer abcdefgh-very-secret";
  for (const echo of echoes) {
    const { fetch } = scripted((request) =>
      new Response(
        `<html>${echo(request.headers.get("authorization")!)}</html>`,
      )
    );
    const client = new Client("http://api", {
      fetch,
      authorization: () => Promise.resolve(token),
    });
    const error = await client.get("/api").catch((e) => e as Error);
    assert.ok(error instanceof MalformedResponseError);
    assert.ok(!error.message.includes("very-secret"), error.message);
    assert.match(error.message, /<html>\[redacted\]<\/html>/);
  }
});

Deno.test("a watch line that echoes the header or the bare token is quoted without it", async () => {
  const token = "Bearer abcdefgh-very-secret";
  const lines = [
    (auth: string) => `{"broken": "${auth}"\n`, // malformed JSON
    (auth: string) => `{"type":"WHAT","echo":"${auth}"}\n`, // unknown type
    (auth: string) => `{"type":"ADDED","object":{"e":"${auth}"`, // cut off
  ];
  for (const [line, echo] of pairs(lines, echoes)) {
    const { fetch } = scripted((request) =>
      new Response(line(echo(request.headers.get("authorization")!)))
    );
    const client = new Client("http://api", {
      fetch,
      authorization: () => Promise.resolve(token),
    });
    const stream = await client.watch("/api/v1/configmaps?watch=1");
    const error = await (async () => {
      for await (const _ of stream) { /* drain */ }
    })().catch((e) => e as Error);
    assert.ok(error instanceof MalformedResponseError, String(error));
    assert.ok(!error.message.includes("very-secret"), error.message);
    assert.match(error.message, /\[redacted\]/);
  }
});

// ------------------------------------------------------- 6. long lines

function chunked(text: string, size: number): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  return new ReadableStream({
    pull(controller): void {
      if (offset >= bytes.length) {
        controller.close();
        return;
      }
      controller.enqueue(bytes.slice(offset, offset + size));
      offset += size;
    },
  });
}

function eventLine(name: string, size: number): string {
  return JSON.stringify({
    type: "ADDED",
    object: { metadata: { name }, data: { v: "x".repeat(size) } },
  }) + "\n";
}

Deno.test("a long line split over many reads decodes whole, with the events around it", async () => {
  const body = eventLine("a", 10) + eventLine("big", 3 << 20) +
    eventLine("b", 10);
  const stream = new WatchStream(chunked(body, 16 * 1024), {
    method: "GET",
    path: CM,
  });
  const seen: [string, number][] = [];
  for await (const event of stream) {
    const object = event.object as { data: { v: string } };
    seen.push([nameOf(event), object.data.v.length]);
  }
  assert.deepEqual(seen, [["a", 10], ["big", 3 << 20], ["b", 10]]);
});

Deno.test("a line past the limit ends the stream with a clear error, across reads and within one", async () => {
  for (const size of [1024, 1 << 20]) {
    const body = eventLine("a", 10) + eventLine("big", 5000) +
      eventLine("b", 10);
    const stream = new WatchStream(chunked(body, size), {
      method: "GET",
      path: CM,
      maxLineLength: 4096,
    });
    const names: string[] = [];
    await assert.rejects(
      (async () => {
        for await (const event of stream) {
          names.push(nameOf(event));
        }
      })(),
      (error: Error) => {
        assert.ok(error instanceof MalformedResponseError);
        assert.match(
          error.message,
          /^GET \/api\/v1\/namespaces\/default\/configmaps: a watch line of at least \d+ characters is longer than the limit of 4096$/,
        );
        return true;
      },
    );
    assert.deepEqual(names, ["a"]);
  }
  assert.equal(MAX_LINE_LENGTH, 32 << 20);
  assert.throws(
    () =>
      new WatchStream(chunked("", 1), {
        method: "GET",
        path: CM,
        maxLineLength: -1,
      }),
    RangeError,
  );
});

Deno.test("a line without end is refused at the limit, not buffered without bound; the body is cancelled", async () => {
  let sent = 0;
  let cancelled = false;
  const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
  const endless = new ReadableStream<Uint8Array>({
    pull(controller): void {
      sent += chunk.length;
      controller.enqueue(chunk);
    },
    cancel(): void {
      cancelled = true;
    },
  });
  const stream = new WatchStream(endless, {
    method: "GET",
    path: CM,
    maxLineLength: 1 << 20,
  });
  await assert.rejects(
    (async () => {
      for await (const _ of stream) { /* nothing arrives */ }
    })(),
    /longer than the limit of 1048576/,
  );
  assert.ok(sent <= (1 << 20) + 3 * chunk.length, `${sent} bytes read`);
  assert.equal(cancelled, true);
});

Deno.test("a long line's decode work is linear: 4 MiB in 4 KiB reads costs within 2x of one piece", async () => {
  // Counted, not timed (a wall clock on a loaded machine swings by several
  // times; `apiclient/watch_bench.ts` times the same comparison): the
  // characters and bytes the decoder scans, copies, decodes and parses. The
  // quadratic decoder rescanned what it held on each read: about 1,000x here.
  const line = eventLine("big", 4 << 20);
  const bytes = new TextEncoder().encode(line);
  const decode = async (size: number): Promise<number> => {
    const reads: Uint8Array[] = [];
    for (let o = 0; o < bytes.length; o += size) {
      reads.push(bytes.subarray(o, o + size));
    }
    let i = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller): void {
        if (i < reads.length) controller.enqueue(reads[i++]!);
        else controller.close();
      },
    });
    let length = 0;
    const cost = await work(async () => {
      for await (
        const event of new WatchStream(body, { method: "GET", path: CM })
      ) length = (event.object as { data: { v: string } }).data.v.length;
    });
    assert.equal(length, 4 << 20);
    return cost;
  };
  const whole = await decode(bytes.length);
  const split = await decode(4 * 1024);
  // One piece: decoded, checked, scanned for its end, cut out and parsed,
  // once each (5 characters of work a character today).
  assert.ok(whole <= 8 * line.length, `${whole} for ${line.length}`);
  assert.ok(split <= 2 * whole, `${split} split vs ${whole} whole`);
});

Deno.test("an abort lands promptly while a long line is arriving", async () => {
  const controller = new AbortController();
  let reads = 0;
  const chunk = new TextEncoder().encode("x".repeat(16 * 1024));
  const endless = new ReadableStream<Uint8Array>({
    async pull(c): Promise<void> {
      reads++;
      if (reads === 100) controller.abort(new Error("stop"));
      await Promise.resolve();
      c.enqueue(chunk);
    },
  });
  const stream = new WatchStream(endless, {
    method: "GET",
    path: CM,
    signal: controller.signal,
  });
  await assert.rejects(
    (async () => {
      for await (const _ of stream) { /* nothing arrives */ }
    })(),
    /stop/,
  );
  assert.ok(reads <= 102, `${reads} reads`);
});

// ------------------------------------------------------- 7. invalid UTF-8

const INVALID = new Uint8Array([0xc3, 0x28]); // a lead byte, then no follower

Deno.test("invalid UTF-8 in a body is a MalformedResponseError naming method and path", async () => {
  const bytes = new Uint8Array([
    ...new TextEncoder().encode('{"metadata":{"name":"'),
    ...INVALID,
    ...new TextEncoder().encode('"}}'),
  ]);
  const { fetch } = scripted(() => new Response(bytes));
  const error = await new Client("http://api", { fetch }).get(`${CM}/a`)
    .catch((e) => e as Error);
  assert.ok(error instanceof MalformedResponseError);
  assert.equal(error.method, "GET");
  assert.equal(error.path, `${CM}/a`);
  assert.match(error.message, /not valid UTF-8/);
  // Valid multi-byte UTF-8 still decodes.
  const { fetch: good } = scripted(() =>
    json(200, { metadata: { name: "é✓" } })
  );
  const read = await new Client("http://api", { fetch: good }).get<
    { metadata: { name: string } }
  >(`${CM}/a`);
  assert.equal(read.metadata.name, "é✓");
});

Deno.test("a real U+FFFD or a leading byte-order mark in a body decodes; invalid bytes beside U+FFFD do not", async () => {
  const text = new TextEncoder().encode('{"metadata":{"name":"a\uFFFD"}}');
  const { fetch } = scripted(() =>
    new Response(new Uint8Array([0xef, 0xbb, 0xbf, ...text]))
  );
  const read = await new Client("http://api", { fetch }).get<
    { metadata: { name: string } }
  >(`${CM}/a`);
  assert.equal(read.metadata.name, "a\uFFFD");
  const { fetch: bad } = scripted(() =>
    new Response(new Uint8Array([...text.subarray(0, 25), ...INVALID, 0x7d]))
  );
  const error = await new Client("http://api", { fetch: bad }).get(`${CM}/a`)
    .catch((e) => e as Error);
  assert.ok(error instanceof MalformedResponseError);
  assert.match(error.message, /not valid UTF-8/);
});

Deno.test("invalid UTF-8 in a watch line, or cut at the end, is a MalformedResponseError", async () => {
  const line = new TextEncoder().encode(eventLine("a", 1));
  for (
    const tail of [
      new Uint8Array([...INVALID, 0x0a]),
      new Uint8Array([0xe2, 0x9c]), // a character cut short at the end
    ]
  ) {
    const names: string[] = [];
    const body = new ReadableStream<Uint8Array>({
      start(controller): void {
        controller.enqueue(line);
        controller.enqueue(tail);
        controller.close();
      },
    });
    const stream = new WatchStream(body, {
      method: "GET",
      path: CM,
    });
    await assert.rejects(
      (async () => {
        for await (const event of stream) {
          names.push(nameOf(event));
        }
      })(),
      (error: Error) => {
        assert.ok(error instanceof MalformedResponseError);
        assert.match(error.message, /^GET \/api\/v1\/.*not valid UTF-8/);
        return true;
      },
    );
    assert.deepEqual(names, ["a"]);
  }
  // A multi-byte character split between reads decodes.
  const text = eventLine("é✓", 1);
  const split = new WatchStream(chunked(text, 1), { method: "GET", path: CM });
  for await (const event of split) {
    assert.equal(nameOf(event), "é✓");
  }
});

// ------------------------------------------------------- 8. non-objects

Deno.test("a get, create, replace or patch answered with a non-object is a clear error naming method and path", async () => {
  for (const answer of [42, null, "x", [1], true]) {
    const { fetch } = scripted(() => json(200, answer));
    const client = new Client("http://api", { fetch });
    for (
      const [method, call] of [
        ["GET", () => client.get(`${CM}/a`)],
        ["POST", () => client.create(CM, { metadata: { name: "a" } })],
        ["PUT", () => client.replace(`${CM}/a`, { metadata: { name: "a" } })],
        ["PATCH", () => client.patch(`${CM}/a`, {}, { type: "merge" })],
        ["DELETE", () => client.delete(`${CM}/a`)],
      ] as const
    ) {
      const error = await call().catch((e) => e as Error);
      assert.ok(error instanceof MalformedResponseError, `${method} ${answer}`);
      assert.equal(error.method, method);
      assert.match(error.message, /the answer is not a JSON object/);
    }
  }
});

Deno.test("a list whose items are not an array is a clear error; request() stays raw", async () => {
  const { fetch } = scripted(() =>
    json(200, { kind: "ConfigMapList", items: 5 })
  );
  const client = new Client("http://api", { fetch });
  await assert.rejects(
    client.get(CM),
    (error: Error) => {
      assert.ok(error instanceof MalformedResponseError);
      assert.equal(
        error.message,
        `GET ${CM}: the list's items are not an array: 5`,
      );
      return true;
    },
  );
  const { fetch: bare } = scripted(() => json(200, { items: "x" }));
  await assert.rejects(
    new Client("http://api", { fetch: bare }).get(CM),
    /items/,
  );
  // An object kind with its own `items` field is not a list.
  const { fetch: custom } = scripted(() =>
    json(200, { kind: "Basket", items: { apples: 2 } })
  );
  await new Client("http://api", { fetch: custom }).get("/apis/x/v1/baskets/a");
  // request() answers any JSON as it is.
  const { fetch: raw } = scripted(() => json(200, 42));
  assert.equal(
    await new Client("http://api", { fetch: raw }).request("GET", "/x"),
    42,
  );
});

// ------------------------------------------------------- 9. bad Status

Deno.test("a Status with wrong field types shows the server's text, not [object Object]", async () => {
  const body = {
    kind: "Status",
    apiVersion: "v1",
    status: "Failure",
    message: { nested: "oops" },
    reason: 7,
    code: "500",
  };
  const { fetch } = scripted(() => json(500, body));
  const error = await new Client("http://api", { fetch }).get("/x").catch((
    e,
  ) => e as ApiError);
  assert.ok(error instanceof ApiError);
  assert.ok(!error.message.includes("[object Object]"), error.message);
  assert.ok(error.message.includes('"nested":"oops"'), error.message);
  assert.equal(error.reason, undefined);
  assert.equal(error.text, JSON.stringify(body));
});

Deno.test("client.watch takes a line limit; a bad one is refused before sending", async () => {
  await using server = new FakeApiServer();
  const client = new Client(server.url, { fetch: server.fetch });
  await assert.rejects(
    client.watch(`${CM}?watch=1`, { maxLineLength: -1 }),
    RangeError,
  );
  assert.equal(server.requests.length, 0);
  await using stream = await client.watch(`${CM}?watch=1`, {
    maxLineLength: 50,
  });
  await client.create(CM, {
    metadata: { name: "a" },
    data: { v: "x".repeat(100) },
  });
  await assert.rejects(
    (async () => {
      for await (const _ of stream) { /* the one event is too long */ }
    })(),
    /longer than the limit of 50/,
  );
});
