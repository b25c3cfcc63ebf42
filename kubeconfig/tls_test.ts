import assert from "node:assert/strict";
import { loadKubeconfig } from "./mod.ts";
import { base64, echoServer, kubeconfig, tempDir } from "./testdata/helpers.ts";
import {
  clientCaCert,
  clientCert,
  clientKey,
} from "./testdata/client_certs.ts";
import { testCerts } from "../testing/mod.ts";

const SOCKET = { timeout: 15_000 } as const;

Deno.test({
  name: "certificate-authority-data makes the cluster CA trusted",
  ...SOCKET,
  async fn(): Promise<void> {
    await using dir = await tempDir();
    await using server = echoServer({
      cert: testCerts.serverCert,
      key: testCerts.serverKey,
    });
    const path = await dir.write(
      "config",
      kubeconfig(server.url, { token: "t" }, {
        "certificate-authority-data": base64(testCerts.caCert),
      }),
    );
    using config = await loadKubeconfig({ path });
    const answer = await config.client.get<{ seen: { authorization: string } }>(
      "/version",
    );
    assert.equal(answer.seen.authorization, "Bearer t");
  },
});

Deno.test({
  name: "certificate-authority is read relative to the kubeconfig",
  ...SOCKET,
  async fn(): Promise<void> {
    await using dir = await tempDir();
    await using server = echoServer({
      cert: testCerts.serverCert,
      key: testCerts.serverKey,
    });
    await dir.write("certs/ca.crt", testCerts.caCert);
    const path = await dir.write(
      "config",
      kubeconfig(server.url, {}, { "certificate-authority": "certs/ca.crt" }),
    );
    using config = await loadKubeconfig({ path });
    await config.client.get("/version");
    assert.equal(server.seen.length, 1);
  },
});

Deno.test({
  name: "a server certified by another CA, or by none given, is refused",
  ...SOCKET,
  async fn(): Promise<void> {
    await using dir = await tempDir();
    await using server = echoServer({
      cert: testCerts.serverCert,
      key: testCerts.serverKey,
    });
    const other = await dir.write(
      "other",
      kubeconfig(server.url, {}, {
        "certificate-authority-data": base64(testCerts.otherCaCert),
      }),
    );
    const none = await dir.write("none", kubeconfig(server.url));
    for (const path of [other, none]) {
      using config = await loadKubeconfig({ path });
      await assert.rejects(
        config.client.get("/version"),
        (e: unknown) =>
          e instanceof TypeError &&
          /UnknownIssuer|invalid peer certificate/.test(
            String((e as Error).cause),
          ),
      );
    }
    assert.equal(server.seen.length, 0);
  },
});

// Deno.serve cannot ask for client certificates, so a Node HTTPS server that
// requires one signed by the client CA checks them.
const MTLS_SERVER = `
import https from "node:https";
import fs from "node:fs";
const [cert, key, ca] = process.argv.slice(2).map((f) => fs.readFileSync(f, "utf8"));
const server = https.createServer(
  { cert, key, ca, requestCert: true, rejectUnauthorized: true },
  (req, res) => {
    const peer = req.socket.getPeerCertificate();
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ cn: peer.subject.CN, o: peer.subject.O, authorized: req.socket.authorized }));
  },
);
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
`;

Deno.test({
  name:
    "client-certificate-data and client-key-data are presented for mutual TLS",
  ...SOCKET,
  async fn(): Promise<void> {
    await using dir = await tempDir();
    const script = await dir.write("mtls_server.mjs", MTLS_SERVER);
    const files = await Promise.all([
      dir.write("server.crt", testCerts.serverCert),
      dir.write("server.key", testCerts.serverKey),
      dir.write("client-ca.crt", clientCaCert),
    ]);
    const child = new Deno.Command("node", {
      args: [script, ...files],
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    try {
      let first = "";
      while (!first.includes("\n")) {
        const { value, done } = await lines.read();
        if (done) throw new Error("The Node server ended early");
        first += value;
      }
      const url = `https://127.0.0.1:${first.trim()}`;
      const ca = { "certificate-authority-data": base64(testCerts.caCert) };
      const withCert = await dir.write(
        "with-cert",
        kubeconfig(url, {
          "client-certificate-data": base64(clientCert),
          "client-key-data": base64(clientKey),
        }, ca),
      );
      await dir.write("user.crt", clientCert);
      await dir.write("user.key", clientKey);
      const withFiles = await dir.write(
        "with-files",
        kubeconfig(url, {
          "client-certificate": "user.crt",
          "client-key": "user.key",
        }, ca),
      );
      for (const path of [withCert, withFiles]) {
        using config = await loadKubeconfig({ path });
        const peer = await config.client.get<
          { cn: string; o: string; authorized: boolean }
        >("/version");
        assert.deepEqual(peer, {
          cn: "liken-test-user",
          o: "system:masters",
          authorized: true,
        });
      }
      const without = await dir.write("without", kubeconfig(url, {}, ca));
      using config = await loadKubeconfig({ path: without });
      await assert.rejects(config.client.get("/version"), TypeError);
    } finally {
      await child.stdin.close();
      await lines.cancel();
      await child.status;
    }
  },
});
