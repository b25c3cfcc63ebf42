// Answer time of the webhook server for reviews answering 0.5–64 KB, over
// one kept-alive HTTPS connection from Deno's fetch (issue 45). A TLS
// socket without TCP_NODELAY makes every answer over about 1.1 KB wait for
// the client's delayed ACK: 44 ms instead of well under 1 ms. The bare TLS
// `Deno.serve` shows that stall beside it; if the server's rows come near
// it, the stall is back.
//
//   deno bench --allow-net=127.0.0.1 webhook/server_bench.ts

import { testCerts } from "../testing/certs.ts";
import { mutating, WebhookServer } from "./mod.ts";
import { admissionReview } from "./_test_util.ts";

const SIZES = [512, 1_500, 4_096, 16_384, 65_536];

// The patch is base64 of JSON: an annotation of 3/4 of the size answers
// about `size` bytes.
const server = new WebhookServer({
  hostname: "127.0.0.1",
  port: 0,
  cert: testCerts.serverCert,
  key: testCerts.serverKey,
  webhooks: {
    "/m": mutating((request) => {
      const size = Number(request.name);
      const object = request.object as { metadata: Record<string, unknown> };
      object.metadata.annotations = { a: "x".repeat(size * 3 / 4 - 120) };
    }),
  },
});
const bare = Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  cert: testCerts.serverCert,
  key: testCerts.serverKey,
  onListen: () => {},
}, () => new Response("x".repeat(4_096)));
const client = Deno.createHttpClient({ caCerts: [testCerts.caCert] });

for (const size of SIZES) {
  const body = JSON.stringify(admissionReview("u", { name: String(size) }));
  Deno.bench({
    name: `WebhookServer answer of ${size} bytes`,
    group: `${size}`,
    baseline: true,
    async fn(): Promise<void> {
      const response = await fetch(
        `https://127.0.0.1:${server.port}/m?timeout=10s`,
        {
          client,
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
        },
      );
      await response.arrayBuffer();
    },
  });
}

Deno.bench({
  name: "bare TLS Deno.serve, 4096 bytes (the 44 ms stall)",
  group: "4096",
  n: 10,
  warmup: 2,
  async fn(): Promise<void> {
    const response = await fetch(`https://127.0.0.1:${bare.addr.port}/`, {
      client,
    });
    await response.arrayBuffer();
  },
});

globalThis.addEventListener("unload", () => {
  client.close();
  void bare.shutdown();
  void server.stop();
});
