// The example's Greeting webhooks end to end: registered with the fake API
// server from the generated webhooks.yaml, called by it as kube-apiserver
// calls them (in memory on fake time, with the operator reconciling the
// defaulted Greeting; and over HTTPS with the caBundle cert-manager would
// inject, at the Service the configuration names).
import assert from "node:assert/strict";
import { loadAll } from "js-yaml";
import { ApiError, Client } from "../apiclient/mod.ts";
import { REQUEST_TIMEOUT } from "../election/mod.ts";
import {
  FakeApiServer,
  type FakeApiServerOptions,
  installFakeTime,
  testCerts,
} from "../testing/mod.ts";
import { webhookFetch, WebhookServer } from "../webhook/mod.ts";
import { type ConfigMap, GREETING, type Greeting } from "./greeting.ts";
import { OPERATOR_NAMESPACE, webhooksYaml } from "./manifests.ts";
import { startOperator } from "./operator.ts";
import { configMapPath, greetingPath, newGreeting } from "./samples.ts";
import {
  DEFAULT_MESSAGE,
  greetingWebhooks,
  WEBHOOK_SERVICE,
} from "./webhooks.ts";

import type {
  MutatingWebhookConfiguration,
  ValidatingWebhookConfiguration,
} from "../api/admissionregistration/v1/mod.ts";
import { testLogger } from "../_internal/_log_test_util.ts";
const NS = "default";
const ADMISSION = "/apis/admissionregistration.k8s.io/v1";

type Configuration =
  | MutatingWebhookConfiguration
  | ValidatingWebhookConfiguration;

/**
 * A fake with the Greeting CRD and the two webhook configurations of
 * webhooks.yaml, their `caBundle` filled in as cert-manager's CA injector
 * does.
 */
async function fake(
  options: FakeApiServerOptions,
): Promise<{ server: FakeApiServer; warnings: string[]; user: Client }> {
  const server = new FakeApiServer(options);
  const admin = new Client(server.url, { fetch: server.fetch });
  await admin.create(
    "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
    GREETING.crd(),
  );
  const docs = loadAll(webhooksYaml()) as Configuration[];
  const configurations = docs.filter((d) =>
    d.kind?.endsWith("WebhookConfiguration")
  );
  assert.equal(configurations.length, 2);
  for (const configuration of configurations) {
    for (const hook of configuration.webhooks ?? []) {
      hook.clientConfig.caBundle = btoa(testCerts.caCert);
    }
    const plural = `${configuration.kind!.toLowerCase()}s`;
    await admin.create(`${ADMISSION}/${plural}`, configuration);
  }
  const warnings: string[] = [];
  const user = new Client(server.url, {
    fetch: server.fetch,
    onWarning: (text) => warnings.push(text),
  });
  return { server, warnings, user };
}

/** What every transport must show: defaulting, refusal, a warning. */
async function admits(
  server: FakeApiServer,
  user: Client,
  warnings: string[],
): Promise<void> {
  // No message: the defaulting webhook runs before the schema's check.
  await user.create(greetingPath(NS), {
    apiVersion: GREETING.apiVersion,
    kind: GREETING.kind,
    metadata: { name: "plain" },
    spec: {},
  });
  assert.equal(
    server.object<Greeting>(greetingPath(NS, "plain"))?.spec.message,
    DEFAULT_MESSAGE,
  );
  // A given message is kept.
  await user.create(greetingPath(NS), newGreeting("given", "Hi"));
  assert.equal(
    server.object<Greeting>(greetingPath(NS, "given"))?.spec.message,
    "Hi",
  );
  // A blank one is refused with the webhook's message, and nothing stored.
  const refused = await user.create(
    greetingPath(NS),
    newGreeting("blank", "   "),
  ).then(() => undefined, (error: unknown) => error);
  assert.ok(refused instanceof ApiError, `refused: ${refused}`);
  assert.match(
    refused.message,
    /validate\.greetings\.demo\.liken\.dev.*spec\.message must not be empty or only spaces/,
  );
  assert.equal(server.object(greetingPath(NS, "blank")), undefined);
  // An update is checked too.
  const given = server.object<Greeting>(greetingPath(NS, "given"))!;
  await assert.rejects(
    user.replace(greetingPath(NS, "given"), {
      ...given,
      spec: { message: "" },
    }),
    /must not be empty/,
  );
  // Spaces around a message: admitted, with a warning for the client.
  assert.deepEqual(warnings, []);
  await user.create(greetingPath(NS), newGreeting("spaced", " Hi "));
  assert.deepEqual(warnings, ["spec.message has spaces around it"]);
}

Deno.test("the Greeting webhooks default, refuse and warn, and the operator reconciles the default (fake time)", async () => {
  using time = installFakeTime({ now: Date.parse("2030-01-01T00:00:00Z") });
  const errors: unknown[] = [];
  const { server, user, warnings } = await fake({
    webhookFetch: webhookFetch(greetingWebhooks(), {
      logger: testLogger({ onError: (e) => errors.push(e) }),
    }),
  });
  await using _server = server;
  await admits(server, user, warnings);
  const client = new Client(server.url, {
    fetch: server.fetch,
    timeout: REQUEST_TIMEOUT,
  });
  const operator = await startOperator(client, {
    pod: "greeter-0",
    leaseNamespace: NS,
    exit: () => {},
  });
  await time.settle();
  await operator.idle();
  await time.settle();
  const cm = server.object<ConfigMap>(configMapPath(NS, "plain-greeting"));
  assert.equal(cm?.data?.message, DEFAULT_MESSAGE);
  await operator.stop();
  assert.deepEqual(errors, []);
});

Deno.test("the Greeting webhooks over HTTPS at the Service of webhooks.yaml, trusting its caBundle", async () => {
  const errors: unknown[] = [];
  await using hooks = new WebhookServer({
    hostname: "127.0.0.1",
    port: 0,
    cert: testCerts.serverCert,
    key: testCerts.serverKey,
    webhooks: greetingWebhooks(),
    logger: testLogger({ onError: (e) => errors.push(e) }),
  });
  const called: string[] = [];
  const { server, user, warnings } = await fake({
    resolveService: ({ namespace, name, port }) => {
      called.push(`${name}.${namespace}.svc:${port}`);
      if (namespace !== OPERATOR_NAMESPACE || name !== WEBHOOK_SERVICE) {
        return undefined;
      }
      return `https://127.0.0.1:${hooks.port}`;
    },
  });
  await using _server = server;
  await admits(server, user, warnings);
  assert.ok(called.length > 0);
  assert.deepEqual(
    new Set(called),
    new Set([`${WEBHOOK_SERVICE}.${OPERATOR_NAMESPACE}.svc:443`]),
  );
  assert.deepEqual(errors, []);
});
