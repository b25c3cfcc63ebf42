import assert from "node:assert/strict";
import { Client } from "../apiclient/mod.ts";
import { FakeApiServer } from "../testing/mod.ts";
import { webhookConfigurations, type WebhookManifest } from "./mod.ts";

const RULES = [{
  apiGroups: ["demo.liken.dev"],
  apiVersions: ["v1alpha1"],
  resources: ["greetings"],
  operations: ["CREATE", "UPDATE"] as const,
}];
const VALIDATE: WebhookManifest = {
  type: "validating",
  name: "validate.greetings.demo.liken.dev",
  path: "/validate",
  rules: RULES,
};
const DEFAULT: WebhookManifest = {
  type: "mutating",
  name: "default.greetings.demo.liken.dev",
  path: "/default",
  rules: RULES,
  failurePolicy: "Ignore",
  timeoutSeconds: 5,
};
const SERVICE = { namespace: "greeting-system", name: "greeting-webhooks" };

type Webhook = {
  name: string;
  clientConfig: { caBundle?: string; service: Record<string, unknown> };
  namespaceSelector: unknown;
  failurePolicy: string;
  timeoutSeconds: number;
  sideEffects: string;
  reinvocationPolicy?: string;
};

Deno.test("webhookConfigurations: both kinds, the Service path, defaults written out, own namespace and kube-system left out", () => {
  const objects = webhookConfigurations({
    name: "greeting-operator",
    service: SERVICE,
    trust: { caBundle: "Q0E=" },
    webhooks: [DEFAULT, VALIDATE],
  }) as unknown as {
    kind: string;
    metadata: { annotations?: unknown };
    webhooks: Webhook[];
  }[];
  assert.deepEqual(objects.map((o) => o.kind), [
    "ValidatingWebhookConfiguration",
    "MutatingWebhookConfiguration",
  ]);
  const [validating, mutating] = objects.map((o) => o.webhooks[0]!);
  assert.deepEqual(validating!.clientConfig, {
    service: { ...SERVICE, path: "/validate", port: 443 },
    caBundle: "Q0E=",
  });
  assert.equal(validating!.failurePolicy, "Fail");
  assert.equal(validating!.timeoutSeconds, 10);
  assert.equal(validating!.sideEffects, "None");
  assert.equal(validating!.reinvocationPolicy, undefined);
  assert.deepEqual(validating!.namespaceSelector, {
    matchExpressions: [{
      key: "kubernetes.io/metadata.name",
      operator: "NotIn",
      values: ["greeting-system", "kube-system"],
    }],
  });
  assert.equal(mutating!.failurePolicy, "Ignore");
  assert.equal(mutating!.timeoutSeconds, 5);
  assert.equal(mutating!.reinvocationPolicy, "Never");
  assert.equal(objects[0]!.metadata.annotations, undefined);
});

Deno.test("webhookConfigurations: cert-manager injects the CA; no caBundle is written", () => {
  const [validating] = webhookConfigurations({
    name: "op",
    service: SERVICE,
    trust: { certManager: "greeting-system/greeting-webhooks" },
    webhooks: [VALIDATE],
  }) as unknown as {
    metadata: { annotations: Record<string, string> };
    webhooks: Webhook[];
  }[];
  assert.deepEqual(validating!.metadata.annotations, {
    "cert-manager.io/inject-ca-from": "greeting-system/greeting-webhooks",
  });
  assert.equal(validating!.webhooks[0]!.clientConfig.caBundle, undefined);
});

Deno.test("webhookConfigurations refuses what the API server refuses, with the reason", () => {
  const make = (webhook: Partial<WebhookManifest>): unknown =>
    webhookConfigurations({
      name: "op",
      service: SERVICE,
      trust: { caBundle: "" },
      webhooks: [{ ...VALIDATE, ...webhook }],
    });
  assert.throws(() => make({ name: "validate" }), /three parts at least/);
  assert.throws(() => make({ path: "validate" }), /must start with "\/"/);
  assert.throws(() => make({ timeoutSeconds: 31 }), /from 1 to 30, not 31/);
  assert.throws(() => make({ rules: [] }), /has no rules/);
  assert.throws(
    () =>
      webhookConfigurations({
        name: "op",
        service: SERVICE,
        trust: { caBundle: "" },
        webhooks: [VALIDATE, VALIDATE],
      }),
    /Two webhooks are named/,
  );
});

Deno.test("the generated configurations are accepted by the fake as the API server accepts them", async () => {
  await using server = new FakeApiServer();
  const client = new Client(server.url, { fetch: server.fetch });
  const objects = webhookConfigurations({
    name: "op",
    service: SERVICE,
    trust: { caBundle: btoa("not a real CA") },
    webhooks: [VALIDATE, DEFAULT],
  });
  for (const object of objects) {
    const plural = object.kind === "ValidatingWebhookConfiguration"
      ? "validatingwebhookconfigurations"
      : "mutatingwebhookconfigurations";
    const made = await client.create(
      `/apis/admissionregistration.k8s.io/v1/${plural}`,
      object,
    );
    assert.equal(made.metadata.name, "op");
  }
});
