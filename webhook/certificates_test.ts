import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { testCerts } from "../testing/certs.ts";
import {
  generateCertificates,
  serviceDnsNames,
  validating,
  WebhookServer,
  writeCertificates,
} from "./mod.ts";
import { admissionReview, post } from "./_test_util.ts";
import { integer, namedBits, oid, time } from "./_der.ts";
import { testLogger } from "../_internal/_log_test_util.ts";

const hex = (bytes: Uint8Array): string =>
  [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");

function serve(cert: string, key: string): Deno.HttpServer<Deno.NetAddr> {
  return Deno.serve(
    { hostname: "127.0.0.1", port: 0, cert, key, onListen(): void {} },
    () => new Response("hello"),
  );
}

// A TLS handshake to 127.0.0.1 that checks the certificate for `name`:
// `fetch("https://localhost")` would need --allow-net=localhost.
async function handshake(
  port: number,
  name: string,
  caCert: string,
): Promise<void> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const tls = await Deno.startTls(conn, { hostname: name, caCerts: [caCert] });
  try {
    await tls.handshake();
    await tls.write(
      new TextEncoder().encode(
        `GET / HTTP/1.1\r\nhost: ${name}\r\nconnection: close\r\n\r\n`,
      ),
    );
    let text = "";
    const buffer = new Uint8Array(4096);
    for (;;) {
      const n = await tls.read(buffer);
      if (n === null) break;
      text += new TextDecoder().decode(buffer.subarray(0, n));
    }
    assert.match(text, /^HTTP\/1\.1 200 [^]*hello$/);
  } finally {
    tls.close();
  }
}

Deno.test("der: integers, object identifiers, bits and times", () => {
  assert.equal(hex(integer(0)), "020100");
  assert.equal(hex(integer(127)), "02017f");
  assert.equal(hex(integer(128)), "02020080");
  assert.equal(hex(integer(Uint8Array.of(0, 0, 1))), "020101");
  assert.equal(hex(oid("1.2.840.10045.4.3.2")), "06082a8648ce3d040302");
  assert.equal(hex(oid("2.5.29.17")), "0603551d11");
  // keyCertSign + cRLSign, and digitalSignature, as OpenSSL writes them.
  assert.equal(hex(namedBits([5, 6])), "03020106");
  assert.equal(hex(namedBits([0])), "03020780");
  assert.equal(
    new TextDecoder().decode(time(new Date("2049-12-31T23:59:59Z"))).slice(2),
    "491231235959Z",
  );
  const late = time(new Date("2050-01-01T00:00:00Z"));
  assert.equal(late[0], 0x18);
  assert.equal(new TextDecoder().decode(late.slice(2)), "20500101000000Z");
});

Deno.test("certificates: the CA and the serving certificate carry the extensions asked for", async () => {
  const before = Date.now();
  const made = await generateCertificates({
    dnsNames: serviceDnsNames("hooks", "operators"),
    ipAddresses: ["127.0.0.1", "::1"],
    validDays: 30,
  });
  const ca = new X509Certificate(made.caCert);
  const cert = new X509Certificate(made.cert);
  assert.equal(ca.ca, true);
  assert.equal(cert.ca, false);
  assert.ok(ca.verify(ca.publicKey), "self-signed");
  assert.ok(cert.checkIssued(ca));
  assert.ok(cert.verify(ca.publicKey), "signed by the CA");
  assert.equal(
    cert.subjectAltName,
    "DNS:hooks.operators.svc, DNS:hooks.operators.svc.cluster.local, IP Address:127.0.0.1, IP Address:::1",
  );
  assert.deepEqual(cert.keyUsage, ["DigitalSignature"]);
  assert.equal(cert.subject, "CN=hooks.operators.svc");
  assert.match(ca.subject, /^CN=liken-webhook-ca-[0-9a-f]{8}$/);
  assert.equal(cert.issuer, ca.subject);
  assert.notEqual(cert.serialNumber, ca.serialNumber);
  // Valid from an hour ago (clock skew), for 30 days from now.
  assert.ok(made.notBefore.getTime() <= before - 3_590_000);
  assert.equal(new Date(cert.validFrom).getTime(), made.notBefore.getTime());
  assert.equal(new Date(cert.validTo).getTime(), made.notAfter.getTime());
  assert.ok(made.notAfter.getTime() >= before + 30 * 86_400_000 - 1_000);
  assert.equal(atob(made.caBundle), made.caCert);
  assert.match(made.key, /^-----BEGIN PRIVATE KEY-----\n/);
  // Two calls, two CAs.
  const again = await generateCertificates({ ipAddresses: ["127.0.0.1"] });
  assert.notEqual(again.caCert, made.caCert);
  assert.equal(new X509Certificate(again.cert).subject, "CN=liken-webhook");
});

Deno.test("certificates: refused options", async () => {
  await assert.rejects(generateCertificates({}), {
    name: "TypeError",
    message: "A serving certificate needs at least one DNS name or IP address",
  });
  await assert.rejects(generateCertificates({ ipAddresses: ["1.2.3.256"] }), {
    name: "TypeError",
    message: 'Not an IP address: "1.2.3.256"',
  });
  await assert.rejects(generateCertificates({ ipAddresses: ["1::2::3"] }), {
    name: "TypeError",
  });
  await assert.rejects(generateCertificates({ dnsNames: ["a b"] }), {
    name: "TypeError",
    message: 'Not a DNS name: "a b"',
  });
  await assert.rejects(
    generateCertificates({ dnsNames: ["a"], validDays: 0 }),
    { name: "RangeError" },
  );
  const controller = new AbortController();
  controller.abort(new Error("stopped"));
  await assert.rejects(
    generateCertificates({ dnsNames: ["a"], signal: controller.signal }),
    { message: "stopped" },
  );
});

Deno.test("certificates: Deno.serve serves them; a client trusting the CA accepts 127.0.0.1 and localhost", async () => {
  const made = await generateCertificates({
    dnsNames: ["localhost"],
    ipAddresses: ["127.0.0.1"],
  });
  await using server = serve(made.cert, made.key);
  const port = server.addr.port;
  using client = Deno.createHttpClient({ caCerts: [made.caCert] });
  const response = await fetch(`https://127.0.0.1:${port}/`, { client });
  assert.equal(await response.text(), "hello");
  await handshake(port, "localhost", made.caCert);
});

Deno.test("certificates: a client trusting another CA refuses them", async () => {
  const made = await generateCertificates({ ipAddresses: ["127.0.0.1"] });
  const other = await generateCertificates({ ipAddresses: ["127.0.0.1"] });
  await using server = serve(made.cert, made.key);
  for (const caCert of [other.caCert, testCerts.caCert]) {
    using client = Deno.createHttpClient({ caCerts: [caCert] });
    const refused = await fetch(`https://127.0.0.1:${server.addr.port}/`, {
      client,
    }).then(() => undefined, (error: Error) => error);
    assert.ok(refused instanceof TypeError);
    assert.match(String((refused.cause as Error).message), /UnknownIssuer/);
  }
});

Deno.test("certificates: a certificate for another name is refused (the SAN is checked)", async () => {
  const made = await generateCertificates({ dnsNames: ["hooks.example"] });
  await using server = serve(made.cert, made.key);
  const port = server.addr.port;
  using client = Deno.createHttpClient({ caCerts: [made.caCert] });
  const refused = await fetch(`https://127.0.0.1:${port}/`, { client }).then(
    () => undefined,
    (error: Error) => error,
  );
  assert.ok(refused instanceof TypeError);
  assert.match(
    String((refused.cause as Error).message),
    /certificate not valid for name "127\.0\.0\.1"/,
  );
  await assert.rejects(handshake(port, "localhost", made.caCert));
  await handshake(port, "hooks.example", made.caCert);
  // The common name alone does not do: only subject alternative names count.
  const cn = await generateCertificates({
    dnsNames: ["hooks.example"],
    commonName: "localhost",
  });
  await using byCn = serve(cn.cert, cn.key);
  await assert.rejects(handshake(byCn.addr.port, "localhost", cn.caCert));
});

Deno.test("certificates: a WebhookServer serves them from the files, and reloads new ones", async () => {
  await Deno.mkdir(".tmp", { recursive: true });
  const directory = await Deno.makeTempDir({ dir: ".tmp" });
  try {
    const first = await generateCertificates({ ipAddresses: ["127.0.0.1"] });
    await writeCertificates(`${directory}/certs`, first);
    const errors: unknown[] = [];
    const listed: string[] = [];
    for await (const entry of Deno.readDir(`${directory}/certs`)) {
      listed.push(entry.name);
    }
    assert.deepEqual(listed.sort(), ["ca.crt", "tls.crt", "tls.key"]);
    assert.equal(
      (await Deno.stat(`${directory}/certs/tls.key`)).mode! & 0o777,
      0o600,
    );
    assert.equal(
      await Deno.readTextFile(`${directory}/certs/ca.crt`),
      first.caCert,
    );
    await using server = new WebhookServer({
      hostname: "127.0.0.1",
      port: 0,
      certFile: `${directory}/certs/tls.crt`,
      keyFile: `${directory}/certs/tls.key`,
      pollInterval: 50,
      // Between the two renames a new key meets the old certificate: the
      // server may report that pair and loads the next.
      logger: testLogger({ onError: (error) => errors.push(error) }),
      webhooks: { "/validate": validating(() => {}) },
    });
    const url = `https://127.0.0.1:${server.port}/validate?timeout=5s`;
    {
      using client = Deno.createHttpClient({ caCerts: [first.caCert] });
      const answered = await post(url, admissionReview("u1"), client);
      assert.equal(answered.status, 200);
      assert.deepEqual(JSON.parse(answered.text).response, {
        uid: "u1",
        allowed: true,
      });
    }
    const second = await generateCertificates({ ipAddresses: ["127.0.0.1"] });
    await writeCertificates(`${directory}/certs`, second);
    const deadline = Date.now() + 5_000;
    while (server.reloads() === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(server.reloads(), 1);
    assert.ok(errors.length <= 1, String(errors));
    using client = Deno.createHttpClient({ caCerts: [second.caCert] });
    const health = await fetch(`https://127.0.0.1:${server.port}/healthz`, {
      client,
    });
    assert.equal(await health.text(), "ok\n");
    await server.stop();
  } finally {
    await Deno.remove(directory, { recursive: true });
  }
});
