// Shared by the webhooks_*_test.ts files: a fake API server with a
// WebhookServer on 127.0.0.1 that serves certificates made by
// generateCertificates, and the configurations that point at it.
import assert from "node:assert/strict";
import { FakeApiServer } from "../fake_server.ts";
import type { FakeApiServerOptions } from "../types.ts";
import {
  type AdmissionRequest,
  type Certificates,
  Denied,
  generateCertificates,
  mutating,
  validating,
  type Webhook,
  WebhookServer,
} from "../../webhook/mod.ts";
import type { KubeObject } from "../../apiclient/types.ts";
import { testLogger } from "../../_internal/_log_test_util.ts";

/** The test's custom resource. */
export type Greeting = KubeObject & {
  spec?: { message?: string; [key: string]: unknown };
  status?: { seen?: boolean };
};

export const GROUP = "demo.liken.dev";
export const GREETINGS = `/apis/${GROUP}/v1/namespaces/default/greetings`;
export const ADMISSION = "/apis/admissionregistration.k8s.io/v1";

/** One answer of the fake, read. */
export interface Sent {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

/** A fake API server, a webhook server, and helpers. */
export interface Fixture extends AsyncDisposable {
  api: FakeApiServer;
  hooks: WebhookServer;
  certificates: Certificates;
  seen: AdmissionRequest[];
  send(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<Sent>;
  configure(
    kind: "Validating" | "Mutating",
    name: string,
    webhooks: Record<string, unknown>[],
  ): Promise<void>;
  hook(path: string, extra?: Record<string, unknown>): Record<string, unknown>;
}

/** What {@linkcode fixture} takes. */
export interface FixtureOptions {
  /** More webhooks, by path, beside the usual ones. */
  webhooks?: Record<string, Webhook> | undefined;
  /** The fake API server's options. */
  api?: FakeApiServerOptions | undefined;
}

// Made once: each generateCertificates is a few ms, the tests need one CA.
let shared: Promise<Certificates> | undefined;

/** The certificates of the fixtures' webhook servers (127.0.0.1, localhost). */
export function certificates(): Promise<Certificates> {
  shared ??= generateCertificates({
    dnsNames: ["localhost"],
    ipAddresses: ["127.0.0.1"],
  });
  return shared;
}

/** The usual webhooks, recording what they see in `seen`. */
function usual(seen: AdmissionRequest[]): Record<string, Webhook> {
  return {
    "/default": mutating<Greeting>((request) => {
      seen.push(request as AdmissionRequest);
      const object = request.object!;
      object.spec ??= {};
      object.spec.message ??= "hello";
      object.metadata.labels = { ...object.metadata.labels, defaulted: "yes" };
    }),
    "/validate": validating<Greeting>((request, { warn }) => {
      seen.push(request as AdmissionRequest);
      warn(`saw ${request.operation}`);
      if (request.object?.spec?.message === "") {
        throw new Denied("spec.message must not be empty");
      }
      if (request.operation === "DELETE") {
        throw new Denied("keep it", { code: 409, reason: "Conflict" });
      }
    }),
    "/record": validating((request) => {
      seen.push(request);
    }),
    "/slow": validating((_request, { signal }) =>
      new Promise((resolve) => {
        const timer = setTimeout(resolve, 3_000);
        signal.addEventListener("abort", () => {
          clearTimeout(timer);
          resolve();
        });
      })
    ),
  };
}

/** A fake API server with `Greeting`s and a webhook server. */
export async function fixture(options: FixtureOptions = {}): Promise<Fixture> {
  const seen: AdmissionRequest[] = [];
  const made = await certificates();
  const hooks = new WebhookServer({
    hostname: "127.0.0.1",
    port: 0,
    cert: made.cert,
    key: made.key,
    logger: testLogger({ onError: () => {} }),
    webhooks: { ...usual(seen), ...options.webhooks },
  });
  const api = new FakeApiServer(options.api);
  api.register({
    group: GROUP,
    version: "v1",
    resource: "greetings",
    kind: "Greeting",
    statusSubresource: true,
  });
  const send: Fixture["send"] = async (method, path, body, headers = {}) => {
    const response = await api.fetch(`${api.url}${path}`, {
      method,
      headers: { "content-type": "application/json", ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return {
      status: response.status,
      body: await response.json(),
      headers: response.headers,
    };
  };
  const hook = (
    path: string,
    extra: Record<string, unknown> = {},
  ): Record<string, unknown> => ({
    name: `${path.slice(1)}.${GROUP}`,
    clientConfig: {
      url: `https://127.0.0.1:${hooks.port}${path}`,
      caBundle: made.caBundle,
    },
    rules: [{
      operations: ["CREATE", "UPDATE", "DELETE"],
      apiGroups: [GROUP],
      apiVersions: ["v1"],
      resources: ["greetings"],
    }],
    sideEffects: "None",
    admissionReviewVersions: ["v1"],
    timeoutSeconds: 2,
    ...extra,
  });
  return {
    api,
    hooks,
    certificates: made,
    seen,
    send,
    hook,
    async configure(kind, name, webhooks): Promise<void> {
      const answer = await send(
        "POST",
        `${ADMISSION}/${kind.toLowerCase()}webhookconfigurations`,
        { metadata: { name }, webhooks },
      );
      assert.equal(answer.status, 201, JSON.stringify(answer.body));
    },
    async [Symbol.asyncDispose](): Promise<void> {
      await api.stop();
      await hooks.stop();
    },
  };
}

/** A `Greeting`. */
export function greeting(
  name: string,
  spec: Greeting["spec"] = { message: "hi" },
  labels: Record<string, string> = {},
): Greeting {
  return {
    apiVersion: `${GROUP}/v1`,
    kind: "Greeting",
    metadata: { name, labels },
    spec,
  };
}

/** The Status of an internal error, as the API server words a failed call. */
export function internalError(message: string): Record<string, unknown> {
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: `Internal error occurred: ${message}`,
    reason: "InternalError",
    details: { causes: [{ message }] },
    code: 500,
  };
}
