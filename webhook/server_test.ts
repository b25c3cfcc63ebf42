import assert from "node:assert/strict";
import { testCerts } from "../testing/certs.ts";
import { Registry } from "../metrics/registry.ts";
import { mutating, validating, WebhookServer } from "./mod.ts";
import { admissionReview, post } from "./_test_util.ts";
import { testLogger } from "../_internal/_log_test_util.ts";

const BOTH = [testCerts.caCert, testCerts.otherCaCert];

// Deno.symlink needs unscoped --allow-read and --allow-write; `ln` needs
// only --allow-run=ln.
async function symlink(target: string, path: string): Promise<void> {
  const { success } = await new Deno.Command("ln", {
    args: ["-s", target, path],
  }).output();
  assert.ok(success, `ln -s ${target} ${path}`);
}

// Writes a pair the way the kubelet writes a Secret volume: files in a
// timestamped directory, `..data` a symlink to it, the names symlinks into
// `..data`; a swap writes a new directory and renames a new `..data` over
// the old one.
async function kubeletWrite(
  dir: string,
  cert: string,
  key: string,
  n: number,
): Promise<void> {
  const stamp = `..2025_01_01_00_00_0${n}`;
  await Deno.mkdir(`${dir}/${stamp}`);
  await Deno.writeTextFile(`${dir}/${stamp}/tls.crt`, cert);
  await Deno.writeTextFile(`${dir}/${stamp}/tls.key`, key);
  await symlink(stamp, `${dir}/..data_tmp`);
  await Deno.rename(`${dir}/..data_tmp`, `${dir}/..data`);
  for (const name of ["tls.crt", "tls.key"]) {
    try {
      await Deno.lstat(`${dir}/${name}`);
    } catch {
      await symlink(`..data/${name}`, `${dir}/${name}`);
    }
  }
  for await (const entry of Deno.readDir(dir)) {
    if (entry.name.startsWith("..20") && entry.name !== stamp) {
      await Deno.remove(`${dir}/${entry.name}`, { recursive: true });
    }
  }
}

Deno.test({
  name:
    "certificate rotation the kubelet way: every request during the swaps succeeds",
  timeout: 60_000,
  async fn(): Promise<void> {
    const dir = await Deno.makeTempDir();
    try {
      await kubeletWrite(dir, testCerts.serverCert, testCerts.serverKey, 0);
      const errors: unknown[] = [];
      await using server = new WebhookServer({
        hostname: "127.0.0.1",
        port: 0,
        certFile: `${dir}/tls.crt`,
        keyFile: `${dir}/tls.key`,
        pollInterval: 50,
        logger: testLogger({ onError: (e) => errors.push(e) }),
        webhooks: { "/v": validating(() => {}) },
      });
      const url = `https://127.0.0.1:${server.port}/v`;
      using both = Deno.createHttpClient({ caCerts: BOTH });
      let running = true;
      let ok = 0;
      const failures: unknown[] = [];
      const worker = async (w: number): Promise<void> => {
        for (let i = 0; running; i++) {
          try {
            const r = await post(url, admissionReview(`${w}-${i}`), both);
            if (
              r.status === 200 &&
              JSON.parse(r.text).response.uid === `${w}-${i}`
            ) ok++;
            else failures.push(r);
          } catch (error) {
            failures.push(error);
          }
        }
      };
      const workers = [0, 1, 2, 3].map(worker);
      const pairs = [
        [testCerts.otherServerCert, testCerts.otherServerKey],
        [testCerts.serverCert, testCerts.serverKey],
        [testCerts.otherServerCert, testCerts.otherServerKey],
      ] as const;
      for (const [n, [cert, key]] of pairs.entries()) {
        await new Promise((r) => setTimeout(r, 150));
        const before = server.reloads();
        await kubeletWrite(dir, cert, key, n + 1);
        while (server.reloads() === before) {
          await new Promise((r) => setTimeout(r, 10));
        }
      }
      await new Promise((r) => setTimeout(r, 150));
      running = false;
      await Promise.all(workers);
      assert.deepEqual(failures, []);
      assert.ok(ok > 20, `only ${ok} requests`);
      assert.equal(server.reloads(), 3);
      assert.deepEqual(errors, []);
      // Now only the other CA's certificate is served.
      using other = Deno.createHttpClient({ caCerts: [testCerts.otherCaCert] });
      assert.equal((await post(url, admissionReview("x"), other)).status, 200);
      using first = Deno.createHttpClient({ caCerts: [testCerts.caCert] });
      await assert.rejects(post(url, admissionReview("y"), first));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "a key that does not match keeps the old pair and is reported",
  timeout: 20_000,
  async fn(): Promise<void> {
    const dir = await Deno.makeTempDir();
    try {
      await kubeletWrite(dir, testCerts.serverCert, testCerts.serverKey, 0);
      const errors: unknown[] = [];
      await using server = new WebhookServer({
        hostname: "127.0.0.1",
        port: 0,
        certFile: `${dir}/tls.crt`,
        keyFile: `${dir}/tls.key`,
        pollInterval: 20,
        logger: testLogger({ onError: (e) => errors.push(e) }),
        webhooks: { "/v": validating(() => {}) },
      });
      await kubeletWrite(
        dir,
        testCerts.serverCert,
        testCerts.otherServerKey,
        1,
      );
      while (errors.length === 0) await new Promise((r) => setTimeout(r, 10));
      assert.match(
        String((errors[0] as Error).message),
        /The new certificate of .*tls.crt did not load/,
      );
      using client = Deno.createHttpClient({ caCerts: [testCerts.caCert] });
      assert.equal(
        (await post(
          `https://127.0.0.1:${server.port}/v`,
          admissionReview("u"),
          client,
        )).status,
        200,
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "hostile requests get clear answers; probes; metrics",
  timeout: 20_000,
  async fn(): Promise<void> {
    const registry = new Registry();
    await using server = new WebhookServer({
      hostname: "127.0.0.1",
      port: 0,
      cert: testCerts.serverCert,
      key: testCerts.serverKey,
      maxBodyBytes: 64 * 1024,
      registry,
      logger: testLogger({ onError: () => {} }),
      webhooks: {
        "/v": validating(() => {}),
        "/slow": mutating((_request, { signal }) =>
          new Promise((_, reject) =>
            signal.addEventListener("abort", () => reject(signal.reason))
          )
        ),
      },
    });
    using client = Deno.createHttpClient({ caCerts: [testCerts.caCert] });
    const base = `https://127.0.0.1:${server.port}`;
    const huge = admissionReview("u", {
      object: { metadata: {}, data: { k: "x".repeat(100_000) } },
    });
    const tooBig = await post(`${base}/v`, huge, client);
    assert.deepEqual(tooBig, {
      status: 413,
      text: "request body too large: the limit is 65536 bytes\n",
    });
    assert.deepEqual(await post(`${base}/v`, "{not json", client), {
      status: 400,
      text:
        "the body is not JSON: Expected property name or '}' in JSON at position 1 (line 1 column 2)\n",
    });
    assert.deepEqual(
      await post(`${base}/v`, { apiVersion: "v1", kind: "Pod" }, client),
      {
        status: 400,
        text:
          'Expected a AdmissionReview of admission.k8s.io/v1, got kind "Pod" of "v1"\n',
      },
    );
    assert.equal(
      (await post(`${base}/v`, admissionReview("u"), client, {
        "content-type": "text/plain",
      })).status,
      400,
    );
    assert.equal(
      (await post(`${base}/nowhere`, admissionReview("u"), client)).status,
      404,
    );
    const slow = await post(
      `${base}/slow?timeout=200ms`,
      admissionReview("u"),
      client,
    );
    assert.deepEqual(slow, {
      status: 504,
      text: "the review outlived its deadline of 200ms\n",
    });
    const ok = await post(
      `${base}/v?timeout=10s`,
      admissionReview("u"),
      client,
    );
    assert.deepEqual(JSON.parse(ok.text).response, { uid: "u", allowed: true });
    for (const path of ["/healthz", "/readyz"]) {
      const r = await fetch(`${base}${path}`, { client });
      assert.equal(await r.text(), "ok\n");
    }
    const text = registry.render();
    assert.match(
      text,
      /^controller_runtime_webhook_requests_total\{webhook="\/v",code="413"\} 1$/m,
    );
    assert.match(
      text,
      /^controller_runtime_webhook_requests_total\{webhook="\/v",code="400"\} 3$/m,
    );
    assert.match(
      text,
      /^controller_runtime_webhook_requests_total\{webhook="\/v",code="200"\} 1$/m,
    );
    assert.match(
      text,
      /^controller_runtime_webhook_requests_total\{webhook="\/slow",code="504"\} 1$/m,
    );
    assert.match(
      text,
      /^controller_runtime_webhook_latency_seconds_count\{webhook="\/v"\} 5$/m,
    );
    assert.match(
      text,
      /^controller_runtime_webhook_requests_in_flight\{webhook="\/v"\} 0$/m,
    );
    // A client that trusts another CA is refused.
    using wrong = Deno.createHttpClient({ caCerts: [testCerts.otherCaCert] });
    await assert.rejects(post(`${base}/v`, admissionReview("u"), wrong));
  },
});

Deno.test("stop is safe twice, and the signal stops the server", async () => {
  const controller = new AbortController();
  const server = new WebhookServer({
    hostname: "127.0.0.1",
    port: 0,
    cert: testCerts.serverCert,
    key: testCerts.serverKey,
    webhooks: {},
    signal: controller.signal,
  });
  controller.abort();
  await server.done;
  await server.stop();
  assert.throws(
    () => new WebhookServer({ webhooks: {} }),
    /needs certFile and keyFile, or cert and key/,
  );
});
