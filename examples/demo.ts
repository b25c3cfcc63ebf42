/**
 * `deno task demo`: the example operator against the embedded fake API
 * server, served on loopback. It creates three Greetings, edits one, deletes
 * one, prints what the operator did, and exits 0.
 *
 * `--keep-running` keeps the fake and the operator up until Ctrl-C, so that
 * `kubectl` can look at them.
 *
 * It also serves the operator's probes and metrics (`ProbeServer`) on
 * loopback, and prints what a scrape of `/metrics` shows after the story,
 * and the Greeting webhooks (`webhooks.ts`) over HTTPS on loopback, which
 * the fake calls at the Service `webhooks.yaml` names: a Greeting without
 * a message gets the default, a blank one is refused.
 *
 * Permissions: `--allow-net=127.0.0.1`.
 *
 * @module
 */
import {
  ApiError,
  Client,
  type KubeObject,
  type Outcome,
} from "../apiclient/mod.ts";
import { Metrics, ProbeServer } from "../metrics/mod.ts";
import { FakeApiServer } from "../testing/mod.ts";
import { generateCertificates, WebhookServer } from "../webhook/mod.ts";
import { REQUEST_TIMEOUT } from "../election/mod.ts";
import { formatJson, formatText, sinkLogger } from "../log/mod.ts";
import { startOperator } from "./operator.ts";
import {
  type ConfigMap,
  configMapName,
  GREETING,
  type Greeting,
} from "./greeting.ts";
import { configMapPath, greetingPath, newGreeting } from "./samples.ts";
import { OPERATOR_NAMESPACE, webhooksYaml } from "./manifests.ts";
import { greetingWebhooks, WEBHOOK_SERVICE } from "./webhooks.ts";
import { loadAll } from "js-yaml";

const NAMESPACE = "default";
const keepRunning = Deno.args.includes("--keep-running");

function say(line = ""): void {
  // deno-lint-ignore no-console
  console.log(line);
}

/** Waits in real time until `check` holds, or throws after 10 s. */
async function until(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

// The webhooks, served as every copy of the operator serves them (there on
// 0.0.0.0:9443 with cert-manager's certificate; here on loopback with a
// development CA made on the spot, whose caBundle stands in for the one
// cert-manager injects).
const certs = await generateCertificates({ ipAddresses: ["127.0.0.1"] });
await using hooks = new WebhookServer({
  hostname: "127.0.0.1",
  port: 0,
  cert: certs.cert,
  key: certs.key,
  webhooks: greetingWebhooks(),
});
await using server = new FakeApiServer({
  // The Service of webhooks.yaml is this loopback port.
  resolveService: ({ namespace, name }) =>
    namespace === OPERATOR_NAMESPACE && name === WEBHOOK_SERVICE
      ? `https://127.0.0.1:${hooks.port}`
      : undefined,
});
server.register({
  ...GREETING,
  statusSubresource: true,
  shortNames: ["greet"],
});
await using served = await server.serve();
const admin = new Client(served.url);
for (
  const doc of loadAll(
    webhooksYaml(),
  ) as (KubeObject & { webhooks: { clientConfig: object }[] })[]
) {
  const kind = String(doc.kind);
  if (!kind.endsWith("WebhookConfiguration")) continue;
  for (const hook of doc.webhooks) {
    Object.assign(hook.clientConfig, { caBundle: certs.caBundle });
  }
  await admin.create(
    `/apis/admissionregistration.k8s.io/v1/${kind.toLowerCase()}s`,
    doc,
  );
}

say(`Fake API server on ${served.url}`);
say(`Greeting webhooks on https://127.0.0.1:${hooks.port}`);
say(
  `Look with kubectl while it runs: kubectl --server=${served.url} get greetings,configmaps,events,leases`,
);
say();

// Writes the operator sends, as the client's observer sees them.
const writes: string[] = [];
const observe = (outcome: Outcome): void => {
  if (outcome.method === "GET") return;
  if (outcome.path.includes("/leases")) return; // renewals: counted below
  writes.push(`${outcome.method} ${outcome.path} -> ${outcome.status}`);
};
const client = new Client(served.url, { timeout: REQUEST_TIMEOUT })
  .withObserver(observe);
const user = new Client(served.url);
const greetings = user.resource<Greeting>(GREETING).namespace(NAMESPACE);

// The operator's metrics and probes, served as in a pod (there on
// 0.0.0.0:8080; here on loopback).
const metrics = new Metrics();
await using probes = new ProbeServer(metrics, {
  hostname: "127.0.0.1",
  port: 0,
});
say(`Probes on http://127.0.0.1:${probes.port}/healthz, /readyz and /metrics`);
say();

// The operator's log: klog's text here, and the same lines as JSON (what
// a pod writes, for a log collector), shown at the end.
const jsonLines: string[] = [];
const operator = await startOperator(client, {
  pod: "greeting-operator-7d9f-x2x4b",
  leaseNamespace: NAMESPACE,
  metrics,
  logger: sinkLogger((record) => {
    say(`  ${formatText(record)}`);
    jsonLines.push(formatJson(record));
  }),
});

const greeting = (name: string): Greeting | undefined =>
  server.object<Greeting>(greetingPath(NAMESPACE, name));
const configMap = (name: string): ConfigMap | undefined =>
  server.object<ConfigMap>(configMapPath(NAMESPACE, configMapName(name)));
const settled = (name: string): boolean => {
  const g = greeting(name);
  return g?.status?.observedGeneration === g?.metadata.generation &&
    g?.status?.conditions?.some((c) => c.type === "Ready") === true;
};

say("1. Creating Greetings hello, bonjour and hola");
for (
  const [name, message] of [
    ["hello", "Hello, world"],
    ["bonjour", "Bonjour"],
    ["hola", "Hola"],
  ] as const
) {
  await greetings.create(newGreeting(name, message));
}
await until(
  "three Ready Greetings",
  () => ["hello", "bonjour", "hola"].every(settled),
);
await operator.idle();

say("2. Editing bonjour's message");
const bonjour = greeting("bonjour")!;
await greetings.replace({
  ...bonjour,
  spec: { message: "Bonjour à tous" },
});
await until(
  "the edit",
  () =>
    configMap("bonjour")?.data?.message === "Bonjour à tous" &&
    settled("bonjour"),
);
await operator.idle();

say("3. Deleting hola");
await greetings.delete("hola");
await until("hola's ConfigMap to go", () => configMap("hola") === undefined);
await operator.idle();

say("4. Admission webhooks: a Greeting without a message, and a blank one");
await greetings.create(
  { ...newGreeting("hey", ""), spec: {} } as unknown as Greeting,
);
say(`  hey's message, defaulted: "${greeting("hey")?.spec.message}"`);
await until("hey's ConfigMap", () => settled("hey"));
await operator.idle();
try {
  await greetings.create(newGreeting("blank", "  "));
  throw new Error("The blank Greeting was admitted");
} catch (error) {
  if (!(error instanceof ApiError)) throw error;
  say(`  blank refused (${error.status}): ${error.message}`);
}

say();
say("What the operator did");
say(`  leader: ${server.leaseHolder(NAMESPACE, "greeting-operator")}`);
say(`  writes (${writes.length}, Lease renewals not shown):`);
for (const line of writes) say(`    ${line}`);

// What a Prometheus scrape of the operator sees (buckets left out here).
const probe = (path: string): Promise<Response> =>
  fetch(`http://127.0.0.1:${probes.port}${path}`);
const [healthz, readyz, scrape] = await Promise.all(
  ["/healthz", "/readyz", "/metrics"].map(probe),
);
await healthz!.body?.cancel();
await readyz!.body?.cancel();
say();
say(`/healthz ${healthz!.status}, /readyz ${readyz!.status}; /metrics:`);
for (const line of (await scrape!.text()).split("\n")) {
  if (line === "" || line.startsWith("#") || line.includes("_bucket{")) {
    continue;
  }
  if (
    /^(controller_runtime|workqueue_(adds|depth|retries)|leader_election|informer_(objects|synced)|event_recorder|rest_client_requests)/
      .test(line)
  ) say(`  ${line}`);
}

if (keepRunning) {
  say();
  say("Running until Ctrl-C. Try:");
  say(`  kubectl --server=${served.url} get greetings -o wide`);
  say(
    `  kubectl --server=${served.url} describe greeting hello`,
  );
  say(
    `  kubectl --server=${served.url} get lease greeting-operator -o yaml`,
  );
  const { promise, resolve } = Promise.withResolvers<void>();
  const stop = (): void => resolve();
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
  await promise;
  Deno.removeSignalListener("SIGINT", stop);
  Deno.removeSignalListener("SIGTERM", stop);
}

say();
say("5. Shutting down (Events first, then the Lease)");
await operator.stop();

say();
say("Events");
for (const name of ["hello", "bonjour", "hola"]) {
  for (
    const event of server.eventsAbout({
      kind: GREETING.kind,
      name,
      namespace: NAMESPACE,
    })
  ) {
    say(
      `  ${name}: ${event.type} ${event.reason} (x${
        event.count ?? 1
      }): ${event.message}`,
    );
  }
}
say();
say("Conditions");
for (const name of ["hello", "bonjour"]) {
  const g = greeting(name);
  for (const c of g?.status?.conditions ?? []) {
    say(
      `  ${name}: ${c.type}=${c.status} ${c.reason} "${c.message}" (generation ${c.observedGeneration}); ConfigMap ${g?.status?.configMap}: ${
        JSON.stringify(configMap(name)?.data)
      }`,
    );
  }
}
say(
  `  Lease holder after the step-down: "${
    server.leaseHolder(NAMESPACE, "greeting-operator") ?? ""
  }"`,
);

// The same log as a pod writes it: klog's JSON lines, one per line above.
say();
say("The operator's log as JSON lines (klog's format, as a pod writes it):");
for (const line of jsonLines.filter((l) => /"name":"hello"/.test(l))) {
  say(`  ${line}`);
}
