/**
 * Admission webhooks: one `WebhookServer` on loopback, registered by `url:`
 * with the test CA as its `caBundle`, called by the server under test for
 * ConfigMaps of the run's namespace. Each webhook is chosen by an object
 * label (`hook`), so every step names the webhook it meets: a mutating
 * patch, a denial (default and custom code), a warning, a webhook that is
 * not there (`Fail` and `Ignore`), a wrong uid, a timeout, and a dry run.
 * What the webhooks were sent is a step of its own.
 *
 * @module
 */

import { discardLogger } from "../../../log/mod.ts";
import { testCerts } from "../../certs.ts";
import {
  Denied,
  mutating,
  validating,
  type Webhook,
  WebhookServer,
} from "../../../webhook/mod.ts";
import type {
  AdmissionRequest,
  AdmissionReview,
} from "../../../webhook/mod.ts";
import type { Run } from "../_target.ts";
import { configMap, type Scenario } from "./_common.ts";

const ADMISSION = "/apis/admissionregistration.k8s.io/v1";

/** A webhook that answers another request's uid. */
function wrongUid(): Webhook<AdmissionReview> {
  return {
    type: "admission",
    review(body: unknown): Promise<AdmissionReview> {
      const request = (body as AdmissionReview).request!;
      return Promise.resolve({
        apiVersion: "admission.k8s.io/v1",
        kind: "AdmissionReview",
        response: { uid: `${request.uid}-not`, allowed: true },
      });
    },
  };
}

/** What a review carried, without what only one server can know. */
function summary(request: AdmissionRequest): Record<string, unknown> {
  const object = request.object as
    | { metadata?: { name?: string; labels?: Record<string, string> } }
    | null
    | undefined;
  return {
    operation: request.operation,
    kind: request.kind,
    resource: request.resource,
    subResource: request.subResource ?? null,
    requestKind: request.requestKind ?? null,
    requestResource: request.requestResource ?? null,
    name: request.name ?? null,
    namespace: request.namespace ?? null,
    dryRun: request.dryRun ?? null,
    options: request.options ?? null,
    object: object ? { labels: object.metadata?.labels ?? {} } : null,
    oldObject: request.oldObject ? "present" : null,
  };
}

async function webhooks(r: Run): Promise<void> {
  const seen: Record<string, unknown>[] = [];
  const record = (request: AdmissionRequest): void => {
    if (request.name?.startsWith("probe-")) return;
    seen.push(summary(request));
  };
  await using server = new WebhookServer({
    hostname: "127.0.0.1",
    port: 0,
    cert: testCerts.serverCert,
    key: testCerts.serverKey,
    logger: discardLogger(),
    webhooks: {
      "/mutate": mutating((request) => {
        record(request);
        const object = request.object!;
        object.metadata.labels = { ...object.metadata.labels, mutated: "yes" };
        (object as { data?: Record<string, string> }).data = {
          ...(object as { data?: Record<string, string> }).data,
          added: "by the webhook",
        };
      }),
      "/deny": validating((request) => {
        record(request);
        throw new Denied("no ConfigMap of this kind, thanks");
      }),
      "/conflict": validating((request) => {
        record(request);
        throw new Denied("the name is taken elsewhere", {
          code: 409,
          reason: "Conflict",
        });
      }),
      "/warn": validating((request, { warn }) => {
        record(request);
        warn("this ConfigMap is deprecated");
      }),
      "/slow": validating((request, { signal }) => {
        record(request);
        return new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 3_000);
          signal.addEventListener("abort", () => {
            clearTimeout(timer);
            resolve();
          }, { once: true });
        });
      }),
      "/uid": wrongUid(),
    },
  });
  const base = `https://127.0.0.1:${server.port}`;
  const caBundle = btoa(testCerts.caCert);
  const hook = (
    name: string,
    path: string,
    extra: Record<string, unknown> = {},
  ): Record<string, unknown> => ({
    name: `${name}.webhooks.example.com`,
    clientConfig: { url: `${base}${path}`, caBundle },
    rules: [{
      operations: ["CREATE", "UPDATE"],
      apiGroups: [""],
      apiVersions: ["v1"],
      resources: ["configmaps"],
    }],
    // Only this run's namespace, and one webhook per `hook` label.
    namespaceSelector: {
      matchLabels: { "kubernetes.io/metadata.name": r.namespace },
    },
    objectSelector: { matchLabels: { hook: name } },
    sideEffects: "None",
    admissionReviewVersions: ["v1"],
    timeoutSeconds: 5,
    ...extra,
  });
  const configurations = [
    ["mutating", { webhooks: [hook("mutate", "/mutate")] }],
    ["validating", {
      webhooks: [
        hook("deny", "/deny"),
        hook("conflict", "/conflict"),
        hook("warn", "/warn"),
        hook("missing-fail", "/missing"),
        hook("missing-ignore", "/missing", { failurePolicy: "Ignore" }),
        hook("uid", "/uid"),
        hook("slow", "/slow", { timeoutSeconds: 1 }),
      ],
    }],
  ] as const;
  const made: string[] = [];
  const cms = r.path("configmaps");
  try {
    for (const [kind, spec] of configurations) {
      const path = `${ADMISSION}/${kind}webhookconfigurations`;
      const name = `${r.namespace}-${kind}`;
      const answer = await r.send(`configure ${kind}`, "POST", path, {
        body: { metadata: { name }, ...spec },
        quiet: true,
      });
      if (answer.status !== 201) {
        throw new Error(
          `Configuring the ${kind} webhooks answered ${answer.status}: ${
            JSON.stringify(answer.body)
          }`,
        );
      }
      made.push(`${path}/${name}`);
    }
    // kube-apiserver reads configurations from an informer: wait until
    // both kinds are in force before the steps.
    let probe = 0;
    await r.until("the webhooks to be in force", async () => {
      const denied = await r.send("probe", "POST", cms, {
        body: configMap(`probe-${probe++}`, {}, { labels: { hook: "deny" } }),
        quiet: true,
      });
      if (denied.status === 201) return false;
      const mutated = await r.send("probe", "POST", cms, {
        body: configMap(`probe-${probe++}`, {}, { labels: { hook: "mutate" } }),
        quiet: true,
      });
      const labels = (mutated.body as { metadata?: { labels?: object } })
        .metadata?.labels ?? {};
      return "mutated" in labels;
    }, 30_000);
    seen.length = 0;

    const labelled = (name: string, which: string): Record<string, unknown> =>
      configMap(name, { k: "v" }, { labels: { hook: which } });
    const made2 = await r.send("create mutated", "POST", cms, {
      body: labelled("mutated", "mutate"),
    });
    await r.send("update mutated", "PUT", `${cms}/mutated`, {
      body: {
        ...(made2.body as Record<string, unknown>),
        data: { k: "w" },
      },
    });
    await r.send("dry-run create mutated", "POST", `${cms}?dryRun=All`, {
      body: labelled("dry", "mutate"),
    });
    await r.send("create denied", "POST", cms, {
      body: labelled("denied", "deny"),
    });
    await r.send("create denied with a code", "POST", cms, {
      body: labelled("conflict", "conflict"),
    });
    await r.send("create warned", "POST", cms, {
      body: labelled("warned", "warn"),
    });
    await r.send("webhook missing, Fail", "POST", cms, {
      body: labelled("missing-fail", "missing-fail"),
    });
    await r.send("webhook missing, Ignore", "POST", cms, {
      body: labelled("missing-ignore", "missing-ignore"),
    });
    await r.send("wrong uid", "POST", cms, { body: labelled("uid", "uid") });
    await r.send("timeout", "POST", cms, { body: labelled("slow", "slow") });
    await r.send("no webhook", "POST", cms, { body: configMap("plain") });
    r.steps.push({
      step: "what the webhooks were sent",
      request: "WEBHOOK reviews",
      status: 0,
      body: seen,
    });
  } finally {
    for (const path of made) {
      await r.send("unconfigure", "DELETE", path, { quiet: true });
    }
  }
}

/** The scenarios of this area, in order. */
export const WEBHOOKS: readonly Scenario[] = [
  { name: "admission-webhooks", run: webhooks },
];
