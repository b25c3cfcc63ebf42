import assert from "node:assert/strict";
import {
  Client,
  InClusterConfigError,
  MalformedResponseError,
  RequestTimeoutError,
} from "./mod.ts";
import { FakeApiServer } from "../testing/fake_server.ts";
import { FaultProxy } from "../testing/real/_fault_proxy.ts";
import { testCerts } from "../testing/certs.ts";
import { fakeServiceAccount } from "../testing/service_account.ts";
import { json, scripted } from "./_scripted_test_util.ts";

const ENV = ["KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT"] as const;

async function withEnv(
  values: Partial<Record<(typeof ENV)[number], string>>,
  fn: () => Promise<void>,
): Promise<void> {
  const saved = ENV.map((k) => [k, Deno.env.get(k)] as const);
  for (const k of ENV) {
    const v = values[k];
    if (v === undefined) Deno.env.delete(k);
    else Deno.env.set(k, v);
  }
  try {
    await fn();
  } finally {
    for (const [k, v] of saved) {
      v === undefined ? Deno.env.delete(k) : Deno.env.set(k, v);
    }
  }
}

Deno.test("inCluster outside a cluster says so", async () => {
  await using account = await fakeServiceAccount();
  await withEnv({}, async () => {
    await assert.rejects(
      Client.inCluster({ serviceAccountDir: account.dir }),
      /Not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are unset/,
    );
    await assert.rejects(
      Client.inCluster({ serviceAccountDir: account.dir }),
      InClusterConfigError,
    );
  });
});

Deno.test("inCluster takes the server from the environment, brackets an IPv6 host", async () => {
  await using account = await fakeServiceAccount({ namespace: "team-a" });
  await withEnv({
    KUBERNETES_SERVICE_HOST: "10.96.0.1",
    KUBERNETES_SERVICE_PORT: "443",
  }, async () => {
    using client = await Client.inCluster({ serviceAccountDir: account.dir });
    assert.equal(client.server, "https://10.96.0.1:443");
    assert.equal(client.defaultNamespace, "team-a");
  });
  await withEnv({
    KUBERNETES_SERVICE_HOST: "fd00:10:96::1",
    KUBERNETES_SERVICE_PORT: "443",
  }, async () => {
    using client = await Client.inCluster({ serviceAccountDir: account.dir });
    assert.equal(client.server, "https://[fd00:10:96::1]:443");
  });
  using explicit = await Client.inCluster({
    serviceAccountDir: account.dir,
    server: "https://127.0.0.1:6443",
  });
  assert.equal(explicit.server, "https://127.0.0.1:6443");
});

Deno.test("inCluster: a missing CA, a CA without a certificate, a missing token are clear InClusterConfigErrors", async () => {
  const server = "https://127.0.0.1:6443";
  {
    await using account = await fakeServiceAccount();
    await account.remove("ca.crt");
    await assert.rejects(
      Client.inCluster({ serviceAccountDir: account.dir, server }),
      (e: Error) =>
        e.message.startsWith(
          `Cannot read the ServiceAccount CA ${account.dir}/ca.crt`,
        ),
    );
    await assert.rejects(
      Client.inCluster({ serviceAccountDir: account.dir, server }),
      InClusterConfigError,
    );
  }
  {
    await using account = await fakeServiceAccount({
      ca: "not a certificate\n",
    });
    await assert.rejects(
      Client.inCluster({ serviceAccountDir: account.dir, server }),
      new RegExp(
        `The ServiceAccount CA ${account.dir}/ca.crt holds no certificate`,
      ),
    );
    await assert.rejects(
      Client.inCluster({ serviceAccountDir: account.dir, server }),
      InClusterConfigError,
    );
  }
  {
    await using account = await fakeServiceAccount({
      ca: "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
    });
    await assert.rejects(
      Client.inCluster({ serviceAccountDir: account.dir, server }),
      (e: Error) =>
        e.message.startsWith(
          `The ServiceAccount CA ${account.dir}/ca.crt holds no valid certificate: `,
        ),
    );
    await assert.rejects(
      Client.inCluster({ serviceAccountDir: account.dir, server }),
      InClusterConfigError,
    );
  }
  {
    await using account = await fakeServiceAccount();
    await account.remove("token");
    await assert.rejects(
      Client.inCluster({ serviceAccountDir: account.dir, server }),
      (e: Error) =>
        e.message.startsWith(
          `Cannot read the ServiceAccount token ${account.dir}/token`,
        ),
    );
    await assert.rejects(
      Client.inCluster({ serviceAccountDir: account.dir, server }),
      InClusterConfigError,
    );
  }
});

Deno.test("an InClusterConfigError is named and keeps its cause", async () => {
  await using account = await fakeServiceAccount({
    ca: "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
  });
  const error = await Client.inCluster({
    serviceAccountDir: account.dir,
    server: "https://127.0.0.1:6443",
  }).then(() => assert.fail("expected an InClusterConfigError"), (e) => e);
  assert.ok(error instanceof InClusterConfigError);
  assert.equal(error.name, "InClusterConfigError");
  assert.ok(error.cause !== undefined);
});

Deno.test("an InClusterConfigError from a token that was read never holds the token", async () => {
  // Each token is read (on the request), then refused: the error is made
  // with the content in hand, so it could leak it.
  for (
    const [token, why] of [
      ["abcd-secret\nefgh-secret", /control character/],
      ["abcd-secret\u20acefgh-secret", /outside Latin-1/],
    ] as const
  ) {
    await using account = await fakeServiceAccount({ token });
    using client = await Client.inCluster({
      serviceAccountDir: account.dir,
      server: "https://127.0.0.1:6443",
    });
    const error = await client.get("/api").then(
      () => assert.fail("expected an InClusterConfigError"),
      (e) => e,
    );
    assert.ok(error instanceof InClusterConfigError, String(error));
    assert.equal(error.name, "InClusterConfigError");
    assert.match(error.message, why);
    assert.ok(error.message.includes(`${account.dir}/token`));
    const shown = JSON.stringify({
      m: error.message,
      s: error.stack,
      c: String(error.cause),
      e: error,
    });
    assert.ok(!shown.includes("secret"), shown);
  }
});

Deno.test("a token with a character outside Latin-1 is an InClusterConfigError naming the file, and nothing is sent", async () => {
  const { fetch, seen } = scripted(() => json(200, {}));
  for (const token of ["abcd\u20acsecret", "abcd\u{1f511}secret"]) {
    await using account = await fakeServiceAccount({ token: `${token}\n` });
    const client = new Client("http://api", {
      fetch,
      serviceAccountDir: account.dir,
    });
    const error = await client.get("/api").catch((e) => e as Error);
    assert.ok(error instanceof InClusterConfigError, String(error));
    assert.equal(
      error.message,
      `The ServiceAccount token ${account.dir}/token holds a character outside Latin-1, which no header can carry, so it cannot be sent`,
    );
  }
  // An authorization callback's value is refused the same way, unquoted.
  const callback = new Client("http://api", {
    fetch,
    authorization: () => Promise.resolve("Bearer abcd\u20acsecret"),
  });
  const error = await callback.get("/api").catch((e) => e as Error);
  assert.ok(error instanceof TypeError);
  assert.equal(
    error.message,
    "GET /api not sent: the Authorization value holds a character outside Latin-1",
  );
  assert.equal(seen.length, 0);
});

function tlsServer(
  cert: string,
  key: string,
  handler: (request: Request) => Response | Promise<Response>,
): Deno.HttpServer<Deno.NetAddr> {
  return Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    cert,
    key,
    onListen(): void {},
  }, handler);
}

Deno.test({
  name: "inCluster trusts the cluster CA and sends the rotating token over TLS",
  timeout: 10_000,
  fn: async () => {
    const tokens: (string | null)[] = [];
    await using server = tlsServer(
      testCerts.serverCert,
      testCerts.serverKey,
      (request) => {
        tokens.push(request.headers.get("authorization"));
        return Response.json({
          kind: "Namespace",
          metadata: { name: "default" },
        });
      },
    );
    await using account = await fakeServiceAccount({ token: "t1" });
    using client = await Client.inCluster({
      serviceAccountDir: account.dir,
      server: `https://127.0.0.1:${server.addr.port}`,
    });
    const ns = await client.get<{ metadata: { name: string } }>(
      "/api/v1/namespaces/default",
    );
    assert.equal(ns.metadata.name, "default");
    await account.rotate("t2");
    await client.get("/api/v1/namespaces/default");
    assert.deepEqual(tokens, ["Bearer t1", "Bearer t2"]);
  },
});

Deno.test({
  name:
    "inCluster refuses a server whose certificate chains to another private CA",
  timeout: 10_000,
  fn: async () => {
    let reached = false;
    await using server = tlsServer(
      testCerts.otherServerCert,
      testCerts.otherServerKey,
      () => {
        reached = true;
        return new Response("{}");
      },
    );
    await using account = await fakeServiceAccount();
    using client = await Client.inCluster({
      serviceAccountDir: account.dir,
      server: `https://127.0.0.1:${server.addr.port}`,
    });
    const error = await client.get("/api").catch((e) => e);
    assert.ok(error instanceof TypeError, String(error));
    assert.match(
      String(error.cause ?? error.message),
      /UnknownIssuer|certificate/i,
    );
    assert.equal(reached, false);
  },
});

Deno.test({
  name: "a watch streams over a real socket and ends when its signal aborts",
  timeout: 10_000,
  fn: async () => {
    let serverSawCancel = false;
    await using server = Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      onListen(): void {},
    }, () => {
      let timer: ReturnType<typeof setInterval> | undefined;
      let n = 0;
      const body = new ReadableStream<Uint8Array>({
        start(c): void {
          timer = setInterval(() => {
            n++;
            c.enqueue(new TextEncoder().encode(
              JSON.stringify({
                type: "ADDED",
                object: {
                  metadata: { name: `o${n}`, resourceVersion: String(n) },
                },
              }) + "\n",
            ));
          }, 5);
        },
        cancel(): void {
          serverSawCancel = true;
          clearInterval(timer);
        },
      });
      return new Response(body, {
        headers: { "content-type": "application/json" },
      });
    });
    const client = new Client(`http://127.0.0.1:${server.addr.port}`);
    const stop = new AbortController();
    const stream = await client.watch("/api/v1/configmaps?watch=1", {
      signal: stop.signal,
      idleTimeout: 5_000,
    });
    const names: string[] = [];
    const error = await (async () => {
      for await (const e of stream) {
        names.push(e.type === "ERROR" ? "" : e.object.metadata.name ?? "");
        if (names.length === 3) stop.abort(new Error("enough"));
      }
    })().then(() => undefined, (e) => e);
    assert.equal(error?.message, "enough");
    assert.deepEqual(names, ["o1", "o2", "o3"]);
    for (let i = 0; i < 200 && !serverSawCancel; i++) {
      await new Promise((r) => setTimeout(r, 5));
    }
    assert.ok(serverSawCancel, "the server saw the stream end");
  },
});

Deno.test({
  name: "a big error body over a real socket is capped and released",
  timeout: 10_000,
  fn: async () => {
    await using server = Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      onListen(): void {},
    }, () => new Response("e".repeat(100_000) + "   \n", { status: 500 }));
    const client = new Client(`http://127.0.0.1:${server.addr.port}`);
    const error = await client.get("/x").then(
      () => assert.fail("expected a 500"),
      (e) => e as { status: number; text: string },
    );
    assert.equal(error.status, 500);
    assert.equal(error.text.length, 2048);
    const ok = await new Client(`http://127.0.0.1:${server.addr.port}`, {
      fetch: () => Promise.resolve(new Response("<html>", { status: 200 })),
    }).get("/x").catch((e) => e);
    assert.ok(ok instanceof MalformedResponseError);
  },
});

Deno.test({
  name:
    "inCluster: the client dials a new connection after a request timeout on a black-holed one",
  timeout: 20_000,
  async fn(): Promise<void> {
    await using server = new FakeApiServer();
    await using served = await server.serve({ tls: true });
    await using proxy = FaultProxy.start(served.url);
    await using account = await fakeServiceAccount({ ca: served.caCert! });
    using client = await Client.inCluster({
      serviceAccountDir: account.dir,
      server: proxy.url,
      timeout: 1_000,
    });
    const cms = "/api/v1/namespaces/default/configmaps";
    await client.get(cms);
    for (const id of proxy.connections()) {
      proxy.set({ stalled: true }, { connection: id });
    }
    await assert.rejects(client.get(cms), RequestTimeoutError);
    await client.get(cms);
    assert.equal(proxy.counts.accepted, 2);
  },
});
