import assert from "node:assert/strict";
import {
  ApiError,
  Client,
  ConflictError,
  isStale,
  MalformedResponseError,
  NotFoundError,
  type Outcome,
  retryAfterSeconds,
  ThrottledError,
  WriteRefusedError,
} from "./mod.ts";
import { installFakeTime } from "../testing/fake_time.ts";
import { FakeApiServer } from "../testing/fake_server.ts";
import { failure, json, scripted } from "./_scripted_test_util.ts";

const CM = "/api/v1/namespaces/default/configmaps";

async function tokenDir(token: string): Promise<string> {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/token`, token);
  return dir;
}

Deno.test("request sends JSON with Accept, Content-Type and the token", async () => {
  const dir = await tokenDir("secret-1\n");
  try {
    const { fetch, seen } = scripted(() =>
      json(201, { metadata: { name: "a", resourceVersion: "7" } })
    );
    const client = new Client("https://api.test:6443/", {
      fetch,
      serviceAccountDir: dir,
    });
    const made = await client.create(CM, { metadata: { name: "a" } });
    assert.equal(made.metadata.resourceVersion, "7");
    const request = seen[0]!;
    assert.equal(request.method, "POST");
    assert.equal(request.url, `https://api.test:6443${CM}`);
    assert.equal(request.headers.get("accept"), "application/json");
    assert.equal(request.headers.get("content-type"), "application/json");
    assert.equal(request.headers.get("authorization"), "Bearer secret-1");
    assert.deepEqual(JSON.parse(request.body), { metadata: { name: "a" } });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the token file is read on every request, so a rotated token is used next", async () => {
  const dir = await tokenDir("first");
  try {
    const { fetch, seen } = scripted(() => json(200, {}));
    const client = new Client("http://api", { fetch, serviceAccountDir: dir });
    await client.get("/api");
    await Deno.writeTextFile(`${dir}/token`, "second");
    await client.get("/api");
    assert.deepEqual(seen.map((s) => s.headers.get("authorization")), [
      "Bearer first",
      "Bearer second",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("no credentials directory sends no token", async () => {
  const { fetch, seen } = scripted(() => json(200, {}));
  await new Client("http://api", { fetch, serviceAccountDir: "" }).get("/api");
  await new Client("http://api", { fetch }).get("/api");
  assert.equal(seen[0]!.headers.has("authorization"), false);
  assert.equal(seen[1]!.headers.has("authorization"), false);
});

Deno.test("a missing token file is a clear error that sends nothing", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const { fetch, seen } = scripted(() => json(200, {}));
    const client = new Client("http://api", { fetch, serviceAccountDir: dir });
    await assert.rejects(
      client.get("/api"),
      (error: Error) => {
        assert.match(error.message, /Cannot read the ServiceAccount token/);
        assert.ok(error.message.includes(`${dir}/token`));
        return true;
      },
    );
    assert.equal(seen.length, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("error messages never contain the token", async () => {
  // The server echoes what it got, as the header (`Bearer <token>`) or the
  // token alone, in a Status or as text.
  const dir = await tokenDir("very-secret-token");
  try {
    for (const bare of [false, true]) {
      for (const asStatus of [false, true]) {
        const { fetch } = scripted((request) => {
          const header = request.headers.get("authorization")!;
          const echoed = `bad ${bare ? header.slice(7) : header}`;
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
        assert.equal(error.status, 401);
        const shown = JSON.stringify({
          m: error.message,
          s: error.stack,
          t: error.text,
          o: error.statusObject,
        });
        assert.ok(!shown.includes("very-secret-token"), shown);
        assert.match(error.message, /bad \[redacted\]$/);
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("404 and 409 map to their classes and carry the Status", async () => {
  const answers = [
    json(
      404,
      failure(404, "NotFound", 'configmaps "a" not found', {
        name: "a",
        kind: "configmaps",
      }),
    ),
    json(409, failure(409, "Conflict", "the object has been modified")),
  ];
  const { fetch } = scripted((_r, i) => answers[i]!);
  const client = new Client("http://api", { fetch });
  const missing = await client.get(`${CM}/a`).catch((e) => e);
  assert.ok(missing instanceof NotFoundError);
  assert.equal(missing.status, 404);
  assert.equal(missing.reason, "NotFound");
  assert.equal(missing.statusObject?.details?.name, "a");
  assert.equal(missing.method, "GET");
  assert.equal(missing.path, `${CM}/a`);
  assert.match(
    missing.message,
    /GET \/api\/v1\/namespaces\/default\/configmaps\/a: 404.*configmaps "a" not found/,
  );
  const conflict = await client.replace(`${CM}/a`, { metadata: { name: "a" } })
    .catch((e) => e);
  assert.ok(conflict instanceof ConflictError);
  assert.ok(isStale(missing) && isStale(conflict));
  assert.equal(
    isStale(new ApiError("x", { method: "GET", path: "/", status: 500 })),
    false,
  );
});

Deno.test("a non-Status error body is kept as text: first 2 KiB, trailing space trimmed", async () => {
  const long = "x".repeat(5000);
  const answers = [
    new Response("upstream connect error   \n\n", { status: 503 }),
    new Response(long, { status: 500 }),
  ];
  const { fetch } = scripted((_r, i) => answers[i]!);
  const client = new Client("http://api", { fetch });
  const first = await client.get("/a").then(
    () => undefined,
    (e) => e as ApiError,
  );
  assert.ok(first);
  assert.equal(first.status, 503);
  assert.equal(first.text, "upstream connect error");
  assert.equal(first.statusObject, undefined);
  assert.match(first.message, /GET \/a: 503.*: upstream connect error$/);
  const second = await client.get("/b").then(
    () => undefined,
    (e) => e as ApiError,
  );
  assert.equal(second?.text?.length, 2048);
});

Deno.test("a malformed JSON answer is an error naming method and path", async () => {
  const { fetch } = scripted(() => new Response("{not json", { status: 200 }));
  const client = new Client("http://api", { fetch });
  await assert.rejects(client.get("/api/v1/pods"), (error: Error) => {
    assert.ok(error instanceof MalformedResponseError);
    assert.match(error.message, /^GET \/api\/v1\/pods: malformed JSON answer/);
    return true;
  });
});

Deno.test("429 waits Retry-After, then sends again", async () => {
  using time = installFakeTime();
  const { fetch, seen } = scripted((_r, i) =>
    i === 0
      ? json(429, failure(429, "TooManyRequests", "slow down"), {
        "Retry-After": "3",
      })
      : json(200, { ok: true })
  );
  const client = new Client("http://api", { fetch });
  let answer: unknown;
  const pending = client.get("/x").then((a) => answer = a);
  await time.settle();
  assert.equal(seen.length, 1);
  await time.tick(2_999);
  assert.equal(seen.length, 1);
  await time.tick(1);
  await pending;
  assert.equal(seen.length, 2);
  assert.deepEqual(answer, { ok: true });
});

Deno.test("429 without Retry-After waits the Status's retryAfterSeconds, else 1 s", async () => {
  using time = installFakeTime();
  const times: number[] = [];
  const { fetch } = scripted((_r, i) => {
    times.push(Date.now());
    if (i === 0) {
      return json(
        429,
        failure(429, "TooManyRequests", "storage is (re)initializing", {
          retryAfterSeconds: 2,
        }),
      );
    }
    if (i === 1) return json(429, failure(429, "TooManyRequests", "busy"));
    return json(200, {});
  });
  const pending = new Client("http://api", { fetch }).get("/x");
  await time.tick(10_000);
  await pending;
  assert.deepEqual(times, [0, 2_000, 3_000]);
});

Deno.test("429 that outlasts 10 s of waits answers ThrottledError with retryAfterSeconds", async () => {
  using time = installFakeTime();
  const outcomes: Outcome[] = [];
  const { fetch, seen } = scripted(() =>
    json(429, failure(429, "TooManyRequests", "busy"), { "Retry-After": "4" })
  );
  const client = new Client("http://api", { fetch }).withObserver((o) =>
    outcomes.push(o)
  );
  const pending = client.get("/x").catch((e) => e);
  await time.tick(20_000);
  const error = await pending;
  assert.ok(error instanceof ThrottledError);
  assert.equal(error.retryAfterSeconds, 4);
  assert.equal(retryAfterSeconds(error), 4);
  // Waits of 4 + 4 fit in 10 s; a third would not: three sends.
  assert.equal(seen.length, 3);
  assert.equal(outcomes.length, 1);
  assert.equal(outcomes[0]!.status, 429);
  assert.equal(outcomes[0]!.error, error);
});

Deno.test("a 429 that states no wait reports retryAfterSeconds 0 but still waits 1 s", async () => {
  using time = installFakeTime();
  const { fetch, seen } = scripted(() =>
    json(429, failure(429, "TooManyRequests", "pdb"))
  );
  const pending = new Client("http://api", { fetch }).get("/x").catch((e) => e);
  await time.tick(11_000);
  const error = await pending;
  assert.equal(retryAfterSeconds(error), 0);
  assert.equal(seen.length, 11);
});

Deno.test("the wait signal ends the wait after a 429 and answers the 429", async () => {
  using time = installFakeTime();
  const { fetch, seen } = scripted(() =>
    json(429, failure(429, "TooManyRequests", "busy"), { "Retry-After": "5" })
  );
  const stop = new AbortController();
  const pending = new Client("http://api", { fetch }).withWaitSignal(
    stop.signal,
  ).get("/x").catch((e) => e);
  await time.tick(1_000);
  stop.abort();
  const error = await pending;
  assert.ok(error instanceof ThrottledError);
  assert.equal(seen.length, 1);
  assert.equal(time.countTimers(), 0);
});

Deno.test("withWaitSignal lets a request in flight run to its end", async () => {
  using time = installFakeTime();
  let release!: () => void;
  const { fetch } = scripted(() =>
    new Promise((resolve) =>
      release = () => resolve(json(200, { landed: true }))
    )
  );
  const stop = new AbortController();
  const pending = new Client("http://api", { fetch }).withWaitSignal(
    stop.signal,
  ).replace(`${CM}/a`, { metadata: {} });
  await time.settle();
  stop.abort();
  release();
  assert.deepEqual(await pending, { landed: true });
});

Deno.test("withSignal ends a request in flight and the wait after a 429", async () => {
  using time = installFakeTime();
  const { fetch } = scripted(() => new Promise<Response>(() => {}));
  const stop = new AbortController();
  const client = new Client("http://api", { fetch }).withSignal(stop.signal);
  const pending = client.get("/x").catch((e) => e);
  await time.settle();
  stop.abort(new Error("stopping"));
  assert.equal(((await pending) as Error).message, "stopping");

  const throttled = scripted(() =>
    json(429, failure(429, "TooManyRequests", "x"), { "Retry-After": "5" })
  );
  const stop2 = new AbortController();
  const pending2 = new Client("http://api", { fetch: throttled.fetch })
    .withSignal(stop2.signal).get("/x").catch((e) => e);
  await time.settle();
  stop2.abort();
  assert.ok(await pending2 instanceof ThrottledError);
  assert.equal(throttled.seen.length, 1);
});

Deno.test("a per-request signal ends the wait after a 429, which answers the 429", async () => {
  using time = installFakeTime();
  const { fetch, seen } = scripted(() =>
    json(429, failure(429, "TooManyRequests", "busy"), { "Retry-After": "5" })
  );
  const stop = new AbortController();
  let settled = false;
  const pending = new Client("http://api", { fetch }).get("/x", {
    signal: stop.signal,
  }).catch((e) => e).finally(() => settled = true);
  await time.tick(1_000);
  assert.equal(settled, false);
  stop.abort();
  await time.settle();
  assert.equal(settled, true);
  assert.ok(await pending instanceof ThrottledError);
  assert.equal(seen.length, 1);
  assert.equal(time.countTimers(), 0);
});

Deno.test("an infinite error body is read up to the drain cap, then cancelled", async () => {
  let pulled = 0;
  let cancelled = false;
  const { fetch } = scripted(() =>
    new Response(
      new ReadableStream<Uint8Array>({
        pull(c): void {
          const chunk = new Uint8Array(64 * 1024).fill(0x61);
          pulled += chunk.byteLength;
          c.enqueue(chunk);
        },
        cancel(): void {
          cancelled = true;
        },
      }),
      { status: 500 },
    )
  );
  const error = await new Client("http://api", { fetch }).get("/x").catch((
    e,
  ) => e);
  assert.ok(error instanceof ApiError);
  assert.equal(error.status, 500);
  assert.equal(error.text?.length, 2048);
  assert.ok(cancelled, "the rest of the body is cancelled");
  assert.ok(
    pulled >= 4 << 20 && pulled < (4 << 20) + 4 * 64 * 1024,
    `${pulled}`,
  );
});

Deno.test("the observer hears the answer's status when its body fails to decode", async () => {
  const outcomes: Outcome[] = [];
  const { fetch } = scripted(() => new Response("<html>", { status: 200 }));
  const client = new Client("http://api", { fetch }).withObserver((o) =>
    outcomes.push(o)
  );
  const error = await client.get("/x").catch((e) => e);
  assert.ok(error instanceof MalformedResponseError);
  assert.equal(outcomes.length, 1);
  assert.equal(outcomes[0]!.status, 200);
  assert.equal(outcomes[0]!.error, error);
});

Deno.test("the observer hears a 429 followed by a failed resend as status 0, once", async () => {
  using time = installFakeTime();
  const outcomes: Outcome[] = [];
  const { fetch } = scripted((_r, i) => {
    if (i === 0) {
      return json(429, failure(429, "TooManyRequests", "x"), {
        "Retry-After": "1",
      });
    }
    throw new TypeError("error sending request: Connection refused");
  });
  const client = new Client("http://api", { fetch }).withObserver((o) =>
    outcomes.push(o)
  );
  const pending = client.get("/x").catch((e) => e);
  await time.tick(1_000);
  assert.ok(await pending instanceof TypeError);
  assert.deepEqual(outcomes.map((o) => o.status), [0]);
});

Deno.test("a streamed body is not sent again after a 429", async () => {
  using time = installFakeTime();
  const { fetch, seen } = scripted(() =>
    json(429, failure(429, "TooManyRequests", "x"), { "Retry-After": "1" })
  );
  const client = new Client("http://api", { fetch });
  const body = ReadableStream.from([new TextEncoder().encode("{}")]);
  const error = await client.performRequest({
    method: "POST",
    path: "/x",
    bodyStream: body,
    expectJson: true,
  }).catch((e) => e);
  await time.settle();
  assert.ok(error instanceof ThrottledError);
  assert.equal(seen.length, 1);
});

Deno.test("the write guard is asked before each non-GET; a refusal sends nothing", async () => {
  const { fetch, seen } = scripted(() => json(200, {}));
  let allow = false;
  let asked = 0;
  const outcomes: Outcome[] = [];
  const client = new Client("http://api", { fetch })
    .withObserver((o) => outcomes.push(o))
    .withWriteGuard(() => {
      asked++;
      if (!allow) throw new Error("Not leading: last renewal 12 s ago");
    });
  await client.get("/api");
  assert.equal(asked, 0);
  const error = await client.patch(`${CM}/a`, { data: {} }, { type: "merge" })
    .catch((e) => e);
  assert.ok(error instanceof WriteRefusedError);
  assert.equal(
    error.message,
    `PATCH ${CM}/a not sent: Not leading: last renewal 12 s ago`,
  );
  assert.equal(
    (error.cause as Error).message,
    "Not leading: last renewal 12 s ago",
  );
  assert.equal(seen.length, 1);
  assert.deepEqual(outcomes.at(-1)?.status, 0);
  allow = true;
  await client.delete(`${CM}/a`);
  assert.equal(seen.length, 2);
  assert.equal(asked, 2);
});

Deno.test("the write guard is asked again before a resend after a 429", async () => {
  using time = installFakeTime();
  const { fetch, seen } = scripted((_r, i) =>
    i === 0
      ? json(429, failure(429, "TooManyRequests", "x"), { "Retry-After": "1" })
      : json(200, {})
  );
  let leading = true;
  const client = new Client("http://api", { fetch }).withWriteGuard(() => {
    if (!leading) throw new Error("Not leading");
  });
  const pending = client.create(CM, { metadata: { name: "a" } }).catch((e) =>
    e
  );
  await time.settle();
  leading = false;
  await time.tick(1_000);
  assert.ok(await pending instanceof WriteRefusedError);
  assert.equal(seen.length, 1);
});

Deno.test("the observer hears the final outcome of every request", async () => {
  const outcomes: Outcome[] = [];
  const { fetch } = scripted((request) =>
    request.method === "GET"
      ? json(200, {})
      : json(500, failure(500, "InternalError", "boom"))
  );
  const client = new Client("http://api", { fetch }).withObserver((o) =>
    outcomes.push(o)
  );
  await client.get("/ok");
  await client.delete("/bad").catch(() => {});
  const failing = new Client("http://api", {
    fetch: () =>
      Promise.reject(
        new TypeError("error sending request: Connection refused"),
      ),
  }).withObserver((o) => outcomes.push(o));
  await failing.get("/down").catch(() => {});
  assert.deepEqual(
    outcomes.map((o) => [o.method, o.path, o.status, o.error === undefined]),
    [
      ["GET", "/ok", 200, true],
      ["DELETE", "/bad", 500, false],
      ["GET", "/down", 0, false],
    ],
  );
});

Deno.test("builders share the transport and stack their settings", async () => {
  const { fetch, seen } = scripted(() => json(200, {}));
  const base = new Client("http://api", { fetch });
  const heard: string[] = [];
  const guarded = base.withObserver((o) => heard.push(o.path)).withWriteGuard(
    () => {},
  );
  const bound = guarded.withSignal(new AbortController().signal);
  await bound.create(CM, { metadata: { name: "x" } });
  await base.get("/plain");
  assert.deepEqual(heard, [CM]);
  assert.equal(seen.length, 2);
  assert.equal(bound.server, "http://api");
});

Deno.test("patch states the dialect's content type, field manager and force", async () => {
  const { fetch, seen } = scripted(() => json(200, {}));
  const client = new Client("http://api", { fetch });
  await client.patch(`${CM}/a`, { data: {} }, { type: "merge" });
  await client.patch(`${CM}/a`, [{ op: "add", path: "/data/k", value: "v" }], {
    type: "json",
  });
  await client.patch(`${CM}/a`, { data: {} }, { type: "strategic" });
  await client.patch(`${CM}/a`, { apiVersion: "v1", kind: "ConfigMap" }, {
    type: "apply",
    fieldManager: "demo",
    force: true,
  });
  assert.deepEqual(seen.map((s) => s.headers.get("content-type")), [
    "application/merge-patch+json",
    "application/json-patch+json",
    "application/strategic-merge-patch+json",
    "application/apply-patch+yaml",
  ]);
  assert.equal(seen[3]!.path, `${CM}/a?fieldManager=demo&force=true`);
  assert.deepEqual(JSON.parse(seen[1]!.body), [{
    op: "add",
    path: "/data/k",
    value: "v",
  }]);
});

Deno.test("replaceStatus PUTs to /status, answers the server's copy, leaves the caller's object alone", async () => {
  const { fetch, seen } = scripted((_r, i) =>
    i === 0
      ? json(200, {
        metadata: { name: "a", resourceVersion: "9" },
        status: { phase: "Ready" },
      })
      : json(409, failure(409, "Conflict", "modified"))
  );
  const client = new Client("http://api", { fetch });
  const mine = {
    metadata: { name: "a", resourceVersion: "8" },
    status: { phase: "Ready", extra: 1 },
  };
  const stored = await client.replaceStatus(`${CM}/a`, mine);
  assert.equal(seen[0]!.method, "PUT");
  assert.equal(seen[0]!.path, `${CM}/a/status`);
  assert.equal(stored.metadata.resourceVersion, "9");
  assert.deepEqual(stored.status, { phase: "Ready" });
  assert.equal(mine.metadata.resourceVersion, "8");
  await assert.rejects(client.replaceStatus(`${CM}/a`, mine), ConflictError);
  assert.deepEqual(mine.status, { phase: "Ready", extra: 1 });
});

Deno.test("an empty 2xx body answers undefined", async () => {
  const { fetch } = scripted(() => new Response(null, { status: 200 }));
  assert.equal(
    await new Client("http://api", { fetch }).delete("/x"),
    undefined,
  );
});

Deno.test("a plain 404 on a custom resource's path says which CustomResourceDefinition may be missing", async () => {
  await using server = new FakeApiServer();
  const client = new Client(server.url, { fetch: server.fetch });
  const hint =
    "; the CustomResourceDefinition widgets.example.com may be missing";
  for (
    const path of [
      "/apis/example.com/v1/namespaces/default/widgets",
      "/apis/example.com/v1/widgets?limit=500",
      "/apis/example.com/v1/namespaces/default/widgets/w/status",
    ]
  ) {
    const error = await client.get(path).catch((e) => e);
    assert.ok(error instanceof NotFoundError);
    assert.equal(error.statusObject, undefined);
    assert.equal(
      error.message,
      `GET ${path}: 404: 404 page not found${hint}`,
    );
  }
  // Not for a core or built-in group, nor for an object the server says is
  // not found (a Status).
  for (
    const path of [
      "/apis/apps/v1/namespaces/default/gadgets",
      "/api/v1/namespaces/default/widgets",
      "/api/v1/namespaces/default/configmaps/absent",
    ]
  ) {
    const error = await client.get(path).catch((e) => e);
    assert.ok(error instanceof NotFoundError);
    assert.ok(!error.message.includes("CustomResourceDefinition"), path);
  }
});

Deno.test("client: a disposed client's requests reject, saying so; a fetch-only client has nothing to close and goes on", async () => {
  for (
    const httpClient of [
      () => Deno.createHttpClient({}),
      Deno.createHttpClient({}),
    ]
  ) {
    // Nothing is dialled: the request is refused before it is sent.
    const client = new Client("http://127.0.0.1:1", { httpClient });
    client[Symbol.dispose]();
    await assert.rejects(
      client.get(`${CM}/a`),
      new Error(
        `GET ${CM}/a not sent: the client was disposed and its connections closed; make a new Client`,
      ),
    );
  }
  await using server = new FakeApiServer();
  const client = new Client(server.url, { fetch: server.fetch });
  client[Symbol.dispose]();
  const list = await client.get(CM) as { items: unknown[] };
  assert.deepEqual(list.items, []);
});
