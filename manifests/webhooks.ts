// Webhook configurations from one description: the admissionregistration
// objects an operator's webhook server needs, with safe defaults.
import type { KubeObject } from "../apiclient/types.ts";

/** The operations a rule matches. */
export type WebhookOperation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT" | "*";

/** What a webhook is called for (`rules[]`). */
export interface WebhookRule {
  /** The API groups; `""` is the core group. */
  apiGroups: readonly string[];
  /** The versions, such as `["v1alpha1"]` or `["*"]`. */
  apiVersions: readonly string[];
  /** The resources; `greetings` does not match `greetings/status`. */
  resources: readonly string[];
  /** The operations. */
  operations: readonly WebhookOperation[];
  /** `Namespaced`, `Cluster` or `*`. Default `*`. */
  scope?: "Namespaced" | "Cluster" | "*" | undefined;
}

/** One webhook of the operator's server. */
export interface WebhookManifest {
  /** `validating` or `mutating`. */
  type: "validating" | "mutating";
  /** A DNS name of three parts at least, such as `validate.greetings.demo.liken.dev`. */
  name: string;
  /** The path the webhook server routes it by, such as `/validate`. */
  path: string;
  /** What it is called for. */
  rules: readonly WebhookRule[];
  /** `Fail` (default: a request the webhook cannot judge is refused) or `Ignore`. */
  failurePolicy?: "Fail" | "Ignore" | undefined;
  /** Seconds the API server waits, 1 to 30. Default 10. */
  timeoutSeconds?: number | undefined;
  /** `None` (default) or `NoneOnDryRun`: what a dry run may call. */
  sideEffects?: "None" | "NoneOnDryRun" | undefined;
  /** `Equivalent` (default) or `Exact`. */
  matchPolicy?: "Equivalent" | "Exact" | undefined;
  /** CEL conditions the API server checks before calling. Default none. */
  matchConditions?:
    | readonly { name: string; expression: string }[]
    | undefined;
  /** Only objects with these labels (`objectSelector.matchLabels`). */
  objectLabels?: Readonly<Record<string, string>> | undefined;
}

/** Options of {@linkcode webhookConfigurations}. */
export interface WebhookConfigurationsOptions {
  /** The configurations' name, such as `greeting-operator`. */
  name: string;
  /** The Service in front of the webhook server. */
  service: { namespace: string; name: string; port?: number | undefined };
  /** The webhooks. */
  webhooks: readonly WebhookManifest[];
  /**
   * How the API server trusts the server: `{ caBundle }` (base64 PEM, such
   * as a development CA) or `{ certManager: "<namespace>/<certificate>" }`
   * (cert-manager's CA injector fills `caBundle` from that Certificate).
   */
  trust: { caBundle: string } | { certManager: string };
  /**
   * Namespaces never sent to the webhooks. Default: the operator's own
   * (the Service's) and `kube-system`, since a `Fail` webhook that blocks
   * its own pods (or the cluster's) keeps them from starting again.
   */
  excludeNamespaces?: readonly string[] | undefined;
}

/**
 * The `ValidatingWebhookConfiguration` and `MutatingWebhookConfiguration`
 * (admissionregistration.k8s.io/v1) an operator's webhooks need, for a
 * manifests task and a gate check, as `rbac` is. Each webhook
 * calls the Service at its path, with `admissionReviewVersions: ["v1"]`,
 * the API server's defaults written out, and a `namespaceSelector` that
 * leaves out the excluded namespaces (by `kubernetes.io/metadata.name`,
 * which the API server sets on every Namespace). Only the kinds with
 * webhooks are written.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { webhookConfigurations } from "@liken/kubernetes/manifests";
 *
 * const [validating] = webhookConfigurations({
 *   name: "greeting-operator",
 *   service: { namespace: "greeting-system", name: "greeting-webhooks" },
 *   trust: { certManager: "greeting-system/greeting-webhooks" },
 *   webhooks: [{
 *     type: "validating",
 *     name: "validate.greetings.demo.liken.dev",
 *     path: "/validate",
 *     rules: [{ apiGroups: ["demo.liken.dev"], apiVersions: ["v1alpha1"], resources: ["greetings"], operations: ["CREATE", "UPDATE"] }],
 *   }],
 * });
 * assert.equal(validating?.kind, "ValidatingWebhookConfiguration");
 * assert.equal(
 *   validating?.metadata.annotations?.["cert-manager.io/inject-ca-from"],
 *   "greeting-system/greeting-webhooks",
 * );
 * ```
 *
 * @param options The name, the Service, the trust, the webhooks.
 * @returns The configurations (validating first), ready for `yaml`.
 * @throws {TypeError} When a webhook's name, path or timeout is one the API
 *   server refuses, or two webhooks share a name.
 */
export function webhookConfigurations(
  options: WebhookConfigurationsOptions,
): KubeObject[] {
  const { service, trust } = options;
  const excluded = options.excludeNamespaces ??
    [service.namespace, "kube-system"];
  const names = new Set<string>();
  for (const webhook of options.webhooks) check(webhook, names);
  const annotations = "certManager" in trust
    ? { "cert-manager.io/inject-ca-from": trust.certManager }
    : undefined;
  const out: KubeObject[] = [];
  for (const type of ["validating", "mutating"] as const) {
    const hooks = options.webhooks.filter((w) => w.type === type);
    if (hooks.length === 0) continue;
    const kind = type === "validating"
      ? "ValidatingWebhookConfiguration"
      : "MutatingWebhookConfiguration";
    out.push({
      apiVersion: "admissionregistration.k8s.io/v1",
      kind,
      metadata: annotations === undefined
        ? { name: options.name }
        : { name: options.name, annotations },
      webhooks: hooks.map((webhook) => {
        const clientConfig: Record<string, unknown> = {
          service: {
            namespace: service.namespace,
            name: service.name,
            path: webhook.path,
            port: service.port ?? 443,
          },
        };
        if ("caBundle" in trust) clientConfig.caBundle = trust.caBundle;
        const entry: Record<string, unknown> = {
          name: webhook.name,
          admissionReviewVersions: ["v1"],
          clientConfig,
          rules: webhook.rules.map((rule) => ({
            apiGroups: [...rule.apiGroups],
            apiVersions: [...rule.apiVersions],
            resources: [...rule.resources],
            operations: [...rule.operations],
            scope: rule.scope ?? "*",
          })),
          failurePolicy: webhook.failurePolicy ?? "Fail",
          sideEffects: webhook.sideEffects ?? "None",
          timeoutSeconds: webhook.timeoutSeconds ?? 10,
          matchPolicy: webhook.matchPolicy ?? "Equivalent",
          namespaceSelector: excluded.length === 0 ? {} : {
            matchExpressions: [{
              key: "kubernetes.io/metadata.name",
              operator: "NotIn",
              values: [...excluded],
            }],
          },
          objectSelector: webhook.objectLabels === undefined
            ? {}
            : { matchLabels: { ...webhook.objectLabels } },
        };
        if (type === "mutating") entry.reinvocationPolicy = "Never";
        if (webhook.matchConditions !== undefined) {
          entry.matchConditions = webhook.matchConditions.map((c) => ({
            ...c,
          }));
        }
        return entry;
      }),
    } as KubeObject);
  }
  return out;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

function check(webhook: WebhookManifest, names: Set<string>): void {
  const parts = webhook.name.split(".");
  if (parts.length < 3 || !parts.every((p) => DNS_LABEL.test(p))) {
    throw new TypeError(
      `The webhook name ${
        JSON.stringify(webhook.name)
      } must be a DNS name of three parts at least, such as validate.greetings.example.com`,
    );
  }
  if (names.has(webhook.name)) {
    throw new TypeError(`Two webhooks are named ${webhook.name}`);
  }
  names.add(webhook.name);
  if (!webhook.path.startsWith("/")) {
    throw new TypeError(
      `The path of the webhook ${webhook.name} must start with "/"`,
    );
  }
  const timeout = webhook.timeoutSeconds;
  if (
    timeout !== undefined &&
    !(Number.isInteger(timeout) && timeout >= 1 && timeout <= 30)
  ) {
    throw new TypeError(
      `The timeoutSeconds of the webhook ${webhook.name} must be a whole number from 1 to 30, not ${timeout}`,
    );
  }
  if (webhook.rules.length === 0) {
    throw new TypeError(`The webhook ${webhook.name} has no rules`);
  }
}
