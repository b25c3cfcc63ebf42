import assert from "node:assert/strict";
import {
  ApiError,
  Client,
  MalformedResponseError,
  type Outcome,
  ThrottledError,
  WatchIdleError,
  WatchStream,
} from "./mod.ts";
import type { KubeObject, WatchEvent } from "./types.ts";
import { installFakeTime } from "../testing/fake_time.ts";
import { failure, json, scripted } from "./_scripted_test_util.ts";

const encoder = new TextEncoder();

function event(type: string, name: string, rv: string): string {
  return JSON.stringify({
    type,
    object: { metadata: { name, resourceVersion: rv } },
  });
}

/** A body the test feeds chunk by chunk; records whether it was cancelled. */
function feed(): {
  body: ReadableStream<Uint8Array>;
  push(text: string): void;
  close(): void;
  cancelled: () => unknown;
} {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let reason: unknown = "not cancelled";
  const body = new ReadableStream<Uint8Array>({
    start(c): void {
      controller = c;
    },
    cancel(r): void {
      reason = r;
    },
  });
  return {
    body,
    push: (text) => controller.enqueue(encoder.encode(text)),
    close: () => controller.close(),
    cancelled: () => reason,
  };
}

async function collect<T extends KubeObject>(
  stream: AsyncIterable<WatchEvent<T>>,
): Promise<WatchEvent<T>[]> {
  const events: WatchEvent<T>[] = [];
  for await (const e of stream) events.push(e);
  return events;
}

Deno.test("events decode whatever the chunking: split lines, many per chunk, byte by byte", async () => {
  const lines = [
    event("ADDED", "a", "1"),
    event("MODIFIED", "a", "2"),
    JSON.stringify({
      type: "BOOKMARK",
      object: { metadata: { resourceVersion: "3" } },
    }),
    event("DELETED", "a", "4"),
    JSON.stringify({
      type: "ERROR",
      object: failure(410, "Expired", "too old resource version"),
    }),
  ];
  const text = lines.join("\n") + "\n";
  for (const size of [1, 3, 7, 64, text.length]) {
    const body = new ReadableStream<Uint8Array>({
      start(c): void {
        const all = encoder.encode(text);
        for (let i = 0; i < all.length; i += size) {
          c.enqueue(all.slice(i, i + size));
        }
        c.close();
      },
    });
    const events = await collect(
      new WatchStream(body, { method: "GET", path: "/w" }),
    );
    assert.deepEqual(events.map((e) => e.type), [
      "ADDED",
      "MODIFIED",
      "BOOKMARK",
      "DELETED",
      "ERROR",
    ], `chunk ${size}`);
    const error = events[4]!;
    assert.equal(error.type === "ERROR" && error.object.code, 410);
  }
});

Deno.test("a multi-byte character split across chunks decodes intact", async () => {
  const line = JSON.stringify({
    type: "ADDED",
    object: { metadata: { name: "grüße-✓" } },
  }) + "\n";
  const all = encoder.encode(line);
  const body = new ReadableStream<Uint8Array>({
    start(c): void {
      for (let i = 0; i < all.length; i++) c.enqueue(all.slice(i, i + 1));
      c.close();
    },
  });
  const [only] = await collect(
    new WatchStream(body, { method: "GET", path: "/w" }),
  );
  assert.equal(only?.type === "ADDED" && only.object.metadata.name, "grüße-✓");
});

/** A body of the given reads, each copied into its own buffer. */
function reads(...parts: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(c): void {
      for (const part of parts) c.enqueue(part.slice());
      c.close();
    },
  });
}

Deno.test("every cut of a 2-, 3- and 4-byte character between reads decodes", async () => {
  const name = "é✓😀-\uFFFD"; // a real U+FFFD is valid text, not an error
  const all = encoder.encode(
    JSON.stringify({ type: "ADDED", object: { metadata: { name } } }) + "\n",
  );
  const at = all.indexOf(0xc3); // the first byte of "é"
  for (let cut = at; cut < at + 12; cut++) {
    for (const cut2 of [cut + 1, cut + 2, cut + 3]) {
      const [only] = await collect(
        new WatchStream(
          reads(
            all.subarray(0, cut),
            all.subarray(cut, cut2),
            all.subarray(cut2),
          ),
          { method: "GET", path: "/w" },
        ),
      );
      assert.equal(
        only?.type === "ADDED" && only.object.metadata.name,
        name,
        `cut at ${cut} and ${cut2}`,
      );
    }
  }
});

Deno.test("a byte-order mark starts a stream only once; invalid bytes anywhere are refused", async () => {
  const line = encoder.encode(event("ADDED", "a", "1") + "\n");
  const bom = new Uint8Array([0xef, 0xbb, 0xbf]);
  // Dropped at the start, even when cut between reads.
  const events = await collect(
    new WatchStream(reads(bom.subarray(0, 1), bom.subarray(1), line), {
      method: "GET",
      path: "/w",
    }),
  );
  assert.deepEqual(events.map((e) => e.type), ["ADDED"]);
  // Invalid bytes: alone, beside a real U+FFFD, and as a lead byte cut by
  // the read's end.
  for (
    const bad of [
      [0xff, 0x0a],
      [...encoder.encode('"\uFFFD"'), 0xc3, 0x28, 0x0a],
      [0xf8],
    ]
  ) {
    const names: string[] = [];
    await assert.rejects(
      async () => {
        for await (
          const e of new WatchStream(
            reads(line, new Uint8Array(bad), line),
            { method: "GET", path: "/w" },
          )
        ) names.push(e.type === "ADDED" ? e.object.metadata.name ?? "" : "");
      },
      (error: Error) =>
        error instanceof MalformedResponseError &&
        /not valid UTF-8/.test(error.message),
    );
    assert.deepEqual(names, ["a"], `bytes ${bad}`);
  }
});

Deno.test("a truncated last line is an error, not a silent end", async () => {
  const f = feed();
  f.push(
    event("ADDED", "a", "1") + "\n" + '{"type":"MODIFIED","object":{"meta',
  );
  f.close();
  const seen: string[] = [];
  await assert.rejects(
    (async () => {
      for await (
        const e of new WatchStream(f.body, {
          method: "GET",
          path: "/api/v1/pods",
        })
      ) seen.push(e.type);
    })(),
    (error: Error) => {
      assert.ok(error instanceof MalformedResponseError);
      assert.match(
        error.message,
        /^GET \/api\/v1\/pods: watch stream ended inside an event/,
      );
      return true;
    },
  );
  assert.deepEqual(seen, ["ADDED"]);
});

Deno.test("a malformed line or an event without type and object is an error", async () => {
  for (
    const bad of [
      "{not json}",
      '{"type":"NOPE","object":{}}',
      '{"type":"ADDED"}',
      "[1,2]",
    ]
  ) {
    const f = feed();
    f.push(bad + "\n");
    f.push(event("ADDED", "later", "9") + "\n");
    await assert.rejects(
      collect(new WatchStream(f.body, { method: "GET", path: "/w" })),
      MalformedResponseError,
      bad,
    );
    assert.notEqual(
      f.cancelled(),
      "not cancelled",
      "the body is cancelled after the error",
    );
  }
});

Deno.test("the idle timer ends a silent stream with WatchIdleError and cancels the body", async () => {
  using time = installFakeTime();
  const f = feed();
  const stream = new WatchStream(f.body, {
    method: "GET",
    path: "/w",
    idleTimeout: 60_000,
  });
  const seen: string[] = [];
  const done = (async () => {
    for await (const e of stream) {
      seen.push(e.type === "ERROR" ? "" : e.object.metadata.name ?? "");
    }
  })().then(() => undefined, (e) => e);
  await time.settle();
  await time.tick(59_000);
  f.push(event("ADDED", "a", "1") + "\n"); // activity re-arms the timer
  await time.settle();
  await time.tick(59_000);
  assert.equal(seen.length, 1);
  await time.tick(1_000);
  const error = await done;
  assert.ok(error instanceof WatchIdleError);
  assert.equal(error.idleTimeout, 60_000);
  assert.ok(f.cancelled() instanceof WatchIdleError);
  assert.equal(time.countTimers(), 0);
});

Deno.test("a stream has no total timeout: it lives as long as events arrive", async () => {
  using time = installFakeTime();
  const f = feed();
  const stream = new WatchStream(f.body, {
    method: "GET",
    path: "/w",
    idleTimeout: 10_000,
  });
  let count = 0;
  const done = (async () => {
    for await (const _ of stream) count++;
  })();
  for (let i = 0; i < 100; i++) {
    await time.tick(9_000);
    f.push(event("MODIFIED", "a", String(i)) + "\n");
    await time.settle();
  }
  f.close();
  await done;
  assert.equal(count, 100);
});

Deno.test("the signal ends the stream with its reason and cancels the reader", async () => {
  const f = feed();
  const stop = new AbortController();
  const stream = new WatchStream(f.body, {
    method: "GET",
    path: "/w",
    signal: stop.signal,
  });
  const done = collect(stream).then(() => undefined, (e) => e);
  f.push(event("ADDED", "a", "1") + "\n");
  await new Promise((r) => setTimeout(r, 0));
  const reason = new Error("operator stopping");
  stop.abort(reason);
  assert.equal(await done, reason);
  assert.equal(f.cancelled(), reason);
});

Deno.test("breaking out of the loop or cancel() releases the body; a stream iterates once", async () => {
  const f = feed();
  f.push(event("ADDED", "a", "1") + "\n" + event("ADDED", "b", "2") + "\n");
  let ended = 0;
  const stream = new WatchStream(f.body, {
    method: "GET",
    path: "/w",
    onEnd: () => ended++,
  });
  for await (const _ of stream) break;
  assert.notEqual(f.cancelled(), "not cancelled");
  assert.equal(ended, 1);
  assert.throws(() => stream[Symbol.asyncIterator](), TypeError);

  const g = feed();
  const unused = new WatchStream(g.body, { method: "GET", path: "/w" });
  await unused.cancel();
  await unused.cancel();
  assert.notEqual(g.cancelled(), "not cancelled");
});

Deno.test("client.watch resolves on 2xx and rejects a refused watch with the typed error", async () => {
  const answers = [
    () => new Response(event("ADDED", "a", "1") + "\n"),
    () => json(410, failure(410, "Expired", "too old resource version: 1 (5)")),
    () =>
      json(
        403,
        failure(
          403,
          "Forbidden",
          'configmaps is forbidden: User "x" cannot watch',
        ),
      ),
    () =>
      json(429, failure(429, "TooManyRequests", "slow"), {
        "Retry-After": "7",
      }),
  ];
  const { fetch, seen } = scripted((_r, i) => answers[i]!());
  const client = new Client("http://api", { fetch });
  await using stream = await client.watch("/api/v1/configmaps?watch=1");
  const events = await collect(stream);
  assert.equal(events.length, 1);
  const gone = await client.watch(
    "/api/v1/configmaps?watch=1&resourceVersion=1",
  ).catch((e) => e);
  assert.ok(gone instanceof ApiError);
  assert.equal(gone.status, 410);
  const forbidden = await client.watch("/w").catch((e) => e);
  assert.equal(forbidden.status, 403);
  // A refused watch is not waited out: the informer's backoff does that.
  const throttled = await client.watch("/w").catch((e) => e);
  assert.ok(throttled instanceof ThrottledError);
  assert.equal(throttled.retryAfterSeconds, 7);
  assert.equal(seen.length, 4);
});

Deno.test("client.watch ends with the client's signal too", async () => {
  const f = feed();
  const { fetch } = scripted(() => new Response(f.body));
  const stop = new AbortController();
  const client = new Client("http://api", { fetch }).withSignal(stop.signal);
  const stream = await client.watch("/w");
  const done = collect(stream).then(() => "ended", (e) => e);
  stop.abort(new Error("bye"));
  assert.equal((await done as Error).message, "bye");
});

Deno.test("the idle timer counts only the server's silence, not the consumer's time", async () => {
  using time = installFakeTime();
  const f = feed();
  const stream = new WatchStream(f.body, {
    method: "GET",
    path: "/w",
    idleTimeout: 10_000,
  });
  const iterator = stream[Symbol.asyncIterator]();
  f.push(event("ADDED", "a", "1") + "\n");
  const first = await iterator.next();
  assert.equal(first.done, false);
  // The consumer holds the event for a minute: no read is pending.
  await time.tick(60_000);
  assert.equal(f.cancelled(), "not cancelled");
  assert.equal(time.countTimers(), 0);
  const next = iterator.next();
  f.push(event("ADDED", "b", "2") + "\n");
  assert.equal((await next).done, false);
  // Now a read waits on the server, and the limit applies.
  const last = iterator.next().then(() => undefined, (e) => e);
  await time.tick(10_000);
  assert.ok(await last instanceof WatchIdleError);
  assert.equal(time.countTimers(), 0);
});

Deno.test("an idle limit of 0 or Infinity is none; a negative one is refused", async () => {
  using time = installFakeTime();
  for (const idleTimeout of [0, Infinity]) {
    const f = feed();
    const { fetch } = scripted(() => new Response(f.body));
    const stream = await new Client("http://api", { fetch }).watch("/w", {
      idleTimeout,
    });
    const done = collect(stream).then(() => "ended", (e) => e);
    await time.tick(24 * 3600_000);
    f.push(event("ADDED", "a", "1") + "\n");
    f.close();
    assert.equal(await done, "ended", String(idleTimeout));
  }
  const { fetch, seen } = scripted(() => new Response(""));
  await assert.rejects(
    new Client("http://api", { fetch }).watch("/w", { idleTimeout: -5 }),
    RangeError,
  );
  assert.equal(seen.length, 0);
});

Deno.test("the observer hears a watch's answer: accepted or refused", async () => {
  const answers = [
    () => new Response(event("ADDED", "a", "1") + "\n"),
    () => json(410, failure(410, "Expired", "too old resource version")),
    () => Promise.reject(new TypeError("Connection refused")),
  ];
  const { fetch } = scripted((_r, i) => answers[i]!());
  const outcomes: Outcome[] = [];
  const client = new Client("http://api", { fetch }).withObserver((o) =>
    outcomes.push(o)
  );
  await using stream = await client.watch("/w?watch=1");
  await collect(stream);
  const gone = await client.watch("/w?watch=1&resourceVersion=1").catch((e) =>
    e
  );
  const down = await client.watch("/w?watch=1").catch((e) => e);
  assert.deepEqual(
    outcomes.map((o) => [o.method, o.path, o.status, o.error]),
    [
      ["GET", "/w?watch=1", 200, undefined],
      ["GET", "/w?watch=1&resourceVersion=1", 410, gone],
      ["GET", "/w?watch=1", 0, down],
    ],
  );
});

Deno.test("cancel() of a loop paused at an event runs its cleanup: no timer, listener or body left", async () => {
  using time = installFakeTime();
  const f = feed();
  f.push(event("ADDED", "a", "1") + "\n" + event("ADDED", "b", "2") + "\n");
  let ended = 0;
  const stop = new AbortController();
  const stream = new WatchStream(f.body, {
    method: "GET",
    path: "/w",
    idleTimeout: 30_000,
    signal: stop.signal,
    onEnd: () => ended++,
  });
  const iterator = stream[Symbol.asyncIterator]();
  const first = await iterator.next();
  assert.equal(first.done, false);
  await stream.cancel();
  assert.equal(ended, 1);
  assert.notEqual(f.cancelled(), "not cancelled");
  assert.equal(time.countTimers(), 0);
  assert.deepEqual(await iterator.next(), { done: true, value: undefined });
});

Deno.test("the lazy idle timer still fires exactly at the limit after many quick reads", async () => {
  using time = installFakeTime();
  const f = feed();
  const stream = new WatchStream(f.body, {
    method: "GET",
    path: "/w",
    idleTimeout: 10_000,
  });
  const done = (async () => {
    for await (const _ of stream) { /* drain */ }
  })().then(() => undefined, (e) => e);
  for (let i = 0; i < 5; i++) {
    await time.tick(3_000);
    f.push(event("MODIFIED", "a", String(i)) + "\n");
    await time.settle();
  }
  const silentFrom = time.now();
  await time.tick(9_999);
  assert.equal(time.countTimers() > 0, true);
  await time.tick(1);
  const error = await done;
  assert.ok(error instanceof WatchIdleError);
  assert.equal(time.now() - silentFrom, 10_000);
});

Deno.test("batches() answers the events of each read together, in order", async () => {
  const f = feed();
  const stream = new WatchStream(f.body, { method: "GET", path: "/w" });
  const batches = stream.batches();
  f.push(
    event("ADDED", "a", "1") + "\n" + event("ADDED", "b", "2") + "\n" +
      event("ADDED", "c", "3") + "\n",
  );
  const first = await batches.next();
  assert.deepEqual(
    first.value?.map((e: WatchEvent) =>
      e.type === "ERROR" ? "" : e.object.metadata.name
    ),
    ["a", "b", "c"],
  );
  f.push(event("DELETED", "a", "4") + "\n");
  f.close();
  const second = await batches.next();
  assert.equal(second.value?.length, 1);
  assert.equal((await batches.next()).done, true);
  assert.throws(() => stream[Symbol.asyncIterator](), TypeError);
});

Deno.test("the events before a malformed line in the same read are delivered, then the error", async () => {
  const f = feed();
  f.push(
    event("ADDED", "a", "1") + "\n{broken\n" + event("ADDED", "c", "3") + "\n",
  );
  const seen: string[] = [];
  const error = await (async () => {
    for await (
      const e of new WatchStream(f.body, { method: "GET", path: "/w" })
    ) {
      seen.push(e.type === "ERROR" ? "" : e.object.metadata.name ?? "");
    }
  })().then(() => undefined, (e) => e);
  assert.ok(error instanceof MalformedResponseError);
  assert.deepEqual(seen, ["a"]);
  assert.notEqual(f.cancelled(), "not cancelled");
});
