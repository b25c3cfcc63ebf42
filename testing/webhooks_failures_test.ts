// Failures to call an admission webhook, and failurePolicy: a wrong uid, a
// certificate without the right name, a caBundle of another CA (over real
// HTTPS with generateCertificates' certificates), a timeout on fake time
// (the in-memory webhookFetch), and a Service resolved by resolveService.
import assert from "node:assert/strict";
import { FakeApiServer } from "./fake_server.ts";
import { installFakeTime } from "./fake_time.ts";
import {
  generateCertificates,
  validating,
  webhookFetch,
  WebhookServer,
} from "../webhook/mod.ts";
import {
  ADMISSION,
  certificates,
  fixture,
  greeting,
  GREETINGS,
  GROUP,
  internalError,
  type Sent,
} from "./_admission/webhooks_test_util.ts";
import { testLogger } from "../_internal/_log_test_util.ts";

// Sets failurePolicy of a stored validating configuration's first webhook.
async function setPolicy(
  send: (method: string, path: string, body?: unknown) => Promise<Sent>,
  name: string,
  policy: "Fail" | "Ignore",
): Promise<void> {
  const path = `${ADMISSION}/validatingwebhookconfigurations/${name}`;
  const now = (await send("GET", path)).body as {
    webhooks: Record<string, unknown>[];
  };
  now.webhooks[0]!.failurePolicy = policy;
  assert.equal((await send("PUT", path, now)).status, 200);
}

Deno.test({
  name:
    "webhooks: an answer with another uid is a failure to call: refused under Fail in the API server's words, admitted under Ignore",
  async fn(): Promise<void> {
    await using f = await fixture();
    const made = await certificates();
    const uids: string[] = [];
    // A webhook that answers another request's uid (WebhookServer never does).
    await using wrong = Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      cert: made.cert,
      key: made.key,
      onListen(): void {},
    }, async (request) => {
      const review = await request.json();
      uids.push(review.request.uid);
      return Response.json({
        apiVersion: "admission.k8s.io/v1",
        kind: "AdmissionReview",
        response: { uid: `${review.request.uid}-not`, allowed: true },
      });
    });
    await f.configure("Validating", "uid", [{
      ...f.hook("/record"),
      name: `uid.${GROUP}`,
      clientConfig: {
        url: `https://127.0.0.1:${wrong.addr.port}/uid`,
        caBundle: made.caBundle,
      },
    }]);
    const refused = await f.send("POST", GREETINGS, greeting("u"));
    assert.equal(refused.status, 500);
    const uid = uids[0]!;
    assert.deepEqual(
      refused.body,
      internalError(
        `failed calling webhook "uid.${GROUP}": received invalid webhook response: expected response.uid=${
          JSON.stringify(uid)
        }, got ${JSON.stringify(`${uid}-not`)}`,
      ),
    );
    assert.equal(f.api.object(`${GREETINGS}/u`), undefined);
    await setPolicy(f.send, "uid", "Ignore");
    assert.equal((await f.send("POST", GREETINGS, greeting("u"))).status, 201);
    assert.equal(uids.length, 2);
  },
});

Deno.test({
  name:
    "webhooks: a serving certificate without the webhook's name in its SAN is refused; failurePolicy applies",
  async fn(): Promise<void> {
    await using f = await fixture();
    const elsewhere = await generateCertificates({
      dnsNames: ["hooks.elsewhere.svc"],
    });
    let reached = 0;
    await using misnamed = new WebhookServer({
      hostname: "127.0.0.1",
      port: 0,
      cert: elsewhere.cert,
      key: elsewhere.key,
      webhooks: { "/record": validating(() => void reached++) },
    });
    const url = `https://127.0.0.1:${misnamed.port}/record`;
    await f.configure("Validating", "san", [{
      ...f.hook("/record"),
      name: `san.${GROUP}`,
      clientConfig: { url, caBundle: elsewhere.caBundle },
    }]);
    const refused = await f.send("POST", GREETINGS, greeting("s"));
    assert.equal(refused.status, 500);
    assert.equal(refused.body.reason, "InternalError");
    const message = String(refused.body.message);
    assert.ok(
      message.startsWith(
        `Internal error occurred: failed calling webhook "san.${GROUP}": failed to call webhook: Post "${url}?timeout=2s": `,
      ),
      message,
    );
    // The rest is Deno's (rustls') words; Go's say "x509: certificate is
    // valid for hooks.elsewhere.svc, not 127.0.0.1".
    assert.match(message, /certificate not valid for name "127\.0\.0\.1"/);
    assert.equal(reached, 0);
    await setPolicy(f.send, "san", "Ignore");
    assert.equal((await f.send("POST", GREETINGS, greeting("s"))).status, 201);
    assert.equal(reached, 0, "never reached: the handshake fails");
  },
});

Deno.test({
  name:
    "webhooks: a caBundle of another CA fails the handshake; failurePolicy applies",
  async fn(): Promise<void> {
    await using f = await fixture();
    const other = await generateCertificates({ ipAddresses: ["127.0.0.1"] });
    await f.configure("Validating", "ca", [{
      ...f.hook("/record"),
      name: `ca.${GROUP}`,
      clientConfig: {
        url: `https://127.0.0.1:${f.hooks.port}/record`,
        caBundle: other.caBundle,
      },
    }]);
    const refused = await f.send("POST", GREETINGS, greeting("c"));
    assert.equal(refused.status, 500);
    assert.match(
      String(refused.body.message),
      new RegExp(
        `^Internal error occurred: failed calling webhook "ca\\.demo\\.liken\\.dev": failed to call webhook: Post "https://127\\.0\\.0\\.1:${f.hooks.port}/record\\?timeout=2s": .*UnknownIssuer`,
      ),
    );
    assert.equal(f.seen.length, 0);
    await setPolicy(f.send, "ca", "Ignore");
    assert.equal((await f.send("POST", GREETINGS, greeting("c"))).status, 201);
    assert.equal(f.seen.length, 0);
    // The right CA: the same webhook is reached.
    const path = `${ADMISSION}/validatingwebhookconfigurations/ca`;
    const now = (await f.send("GET", path)).body as {
      webhooks: { clientConfig: { caBundle: string } }[];
    };
    now.webhooks[0]!.clientConfig.caBundle = f.certificates.caBundle;
    assert.equal((await f.send("PUT", path, now)).status, 200);
    assert.equal((await f.send("POST", GREETINGS, greeting("d"))).status, 201);
    assert.deepEqual(f.seen.map((r) => r.name), ["d"]);
  },
});

Deno.test({
  name:
    "webhooks on fake time: a webhook slower than timeoutSeconds is a failure to call; failurePolicy applies",
  async fn(): Promise<void> {
    using time = installFakeTime();
    let called = 0;
    const hooks = webhookFetch({
      "/slow": validating((_request, { signal }) =>
        new Promise<void>((resolve) => {
          called++;
          const timer = setTimeout(resolve, 60_000);
          signal.addEventListener("abort", () => {
            clearTimeout(timer);
            resolve();
          });
        })
      ),
    }, { logger: testLogger({ onError: () => {} }) });
    await using api = new FakeApiServer({ webhookFetch: hooks });
    api.register({
      group: GROUP,
      version: "v1",
      resource: "greetings",
      kind: "Greeting",
    });
    const post = async (path: string, body: unknown): Promise<Response> =>
      await api.fetch(`${api.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const configure = async (policy: string): Promise<void> => {
      const made = await post(
        `${ADMISSION}/validatingwebhookconfigurations`,
        {
          metadata: { name: `slow-${policy.toLowerCase()}` },
          webhooks: [{
            name: `slow.${GROUP}`,
            clientConfig: {
              service: { namespace: "operators", name: "hooks", path: "/slow" },
            },
            rules: [{
              operations: ["CREATE"],
              apiGroups: [GROUP],
              apiVersions: ["v1"],
              resources: ["greetings"],
            }],
            sideEffects: "None",
            admissionReviewVersions: ["v1"],
            timeoutSeconds: 5,
            failurePolicy: policy,
          }],
        },
      );
      assert.equal(made.status, 201, await made.text());
    };
    await configure("Fail");
    const started = time.now();
    const pending = post(GREETINGS, greeting("t"));
    await time.settle();
    assert.equal(called, 1);
    await time.tick(4_999);
    let settled = false;
    void pending.then(() => (settled = true));
    await time.settle();
    assert.equal(settled, false, "still waiting before the deadline");
    await time.tick(1);
    const refused = await pending;
    assert.equal(refused.status, 500);
    assert.deepEqual(
      await refused.json(),
      internalError(
        `failed calling webhook "slow.${GROUP}": failed to call webhook: Post "https://hooks.operators.svc:443/slow?timeout=5s": context deadline exceeded`,
      ),
    );
    assert.equal(time.now() - started, 5_000);
    assert.equal(api.object(`${GREETINGS}/t`), undefined);
    // Under Ignore, the write waits for the deadline, then goes on.
    const removed = await api.fetch(
      `${api.url}${ADMISSION}/validatingwebhookconfigurations/slow-fail`,
      { method: "DELETE" },
    );
    await removed.body?.cancel();
    await configure("Ignore");
    const through = post(GREETINGS, greeting("t"));
    await time.settle();
    await time.tick(5_000);
    const admitted = await through;
    assert.equal(admitted.status, 201);
    await admitted.body?.cancel();
    assert.ok(api.object(`${GREETINGS}/t`));
    await time.tick(60_000);
  },
});

Deno.test({
  name:
    "webhooks: a clientConfig.service is called where resolveService says, with its path and port",
  async fn(): Promise<void> {
    const asked: unknown[] = [];
    let origin = "";
    await using f = await fixture({
      api: {
        resolveService: (service) => {
          asked.push(service);
          return service.name === "hooks" ? origin : undefined;
        },
      },
    });
    origin = `https://127.0.0.1:${f.hooks.port}`;
    const service = (name: string): Record<string, unknown> => ({
      ...f.hook("/record"),
      name: `${name}.${GROUP}`,
      clientConfig: {
        service: { namespace: "operators", name, path: "/record", port: 8443 },
        caBundle: f.certificates.caBundle,
      },
    });
    await f.configure("Validating", "service", [service("hooks")]);
    assert.equal((await f.send("POST", GREETINGS, greeting("v"))).status, 201);
    assert.deepEqual(f.seen.map((r) => r.name), ["v"]);
    assert.deepEqual(asked, [{
      namespace: "operators",
      name: "hooks",
      port: 8443,
      path: "/record",
    }]);
    // A Service it does not resolve is called at its DNS name (which does
    // not resolve outside a cluster, nor is it allowed here).
    await f.configure("Validating", "unresolved", [service("other")]);
    const refused = await f.send("POST", GREETINGS, greeting("w"));
    assert.equal(refused.status, 500);
    assert.ok(
      String(refused.body.message).startsWith(
        `Internal error occurred: failed calling webhook "other.${GROUP}": failed to call webhook: Post "https://other.operators.svc:8443/record?timeout=2s": `,
      ),
      String(refused.body.message),
    );
  },
});
