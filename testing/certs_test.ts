import assert from "node:assert/strict";
import { testCerts } from "./certs.ts";

function serveTls(
  cert: string,
  key: string,
): Deno.HttpServer<Deno.NetAddr> {
  return Deno.serve(
    { hostname: "127.0.0.1", port: 0, cert, key, onListen(): void {} },
    () => new Response("trusted"),
  );
}

Deno.test({
  name: "testCerts: a client trusting the test CA accepts the server cert",
  timeout: 10_000,
  async fn(): Promise<void> {
    await using server = serveTls(testCerts.serverCert, testCerts.serverKey);
    using client = Deno.createHttpClient({ caCerts: [testCerts.caCert] });
    const res = await fetch(`https://127.0.0.1:${server.addr.port}/`, {
      client,
    });
    assert.equal(res.status, 200);
    assert.equal(await res.text(), "trusted");
  },
});

Deno.test({
  name: "testCerts: a client trusting only the other CA refuses the server",
  timeout: 10_000,
  async fn(): Promise<void> {
    await using server = serveTls(testCerts.serverCert, testCerts.serverKey);
    using client = Deno.createHttpClient({ caCerts: [testCerts.otherCaCert] });
    const err = await fetch(`https://127.0.0.1:${server.addr.port}/`, {
      client,
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof TypeError, `expected a TypeError, got ${err}`);
    assert.match(String(err.cause), /UnknownIssuer/);
  },
});

Deno.test({
  name: "testCerts: the other server cert is trusted by its own CA only",
  timeout: 10_000,
  async fn(): Promise<void> {
    await using server = serveTls(
      testCerts.otherServerCert,
      testCerts.otherServerKey,
    );
    const url = `https://127.0.0.1:${server.addr.port}/`;
    {
      using client = Deno.createHttpClient({
        caCerts: [testCerts.otherCaCert],
      });
      const res = await fetch(url, { client });
      assert.equal(await res.text(), "trusted");
    }
    using client = Deno.createHttpClient({ caCerts: [testCerts.caCert] });
    await assert.rejects(() => fetch(url, { client }), TypeError);
  },
});

Deno.test("testCerts: every value is one PEM block of the right kind", () => {
  const kinds: Record<keyof typeof testCerts, string> = {
    caCert: "CERTIFICATE",
    serverCert: "CERTIFICATE",
    serverKey: "PRIVATE KEY",
    otherCaCert: "CERTIFICATE",
    otherServerCert: "CERTIFICATE",
    otherServerKey: "PRIVATE KEY",
  };
  for (const [name, kind] of Object.entries(kinds)) {
    const pem = testCerts[name as keyof typeof testCerts];
    assert.match(
      pem,
      new RegExp(
        `^-----BEGIN ${kind}-----\n[A-Za-z0-9+/=\n]+-----END ${kind}-----\n$`,
      ),
      name,
    );
  }
  assert.notEqual(testCerts.caCert, testCerts.otherCaCert);
});
