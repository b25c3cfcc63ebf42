// The shipped manifests against what the program really does: RBAC grants
// exactly the requests the operator sends, and the Deployment and the
// README's `deno compile` flags match what main.ts reads.
import assert from "node:assert/strict";
import { loadAll } from "js-yaml";
import {
  allows,
  type GrantedRule,
  grants,
  type RbacObject,
  type RbacRequest,
  requestOf,
  verbOf,
} from "../_internal/_rbac_test_util.ts";
import { ApiError, Client, type KubeObject } from "../apiclient/mod.ts";
import { FakeApiServer, installFakeTime } from "../testing/mod.ts";
import { REQUEST_TIMEOUT } from "../election/mod.ts";
import {
  crdYaml,
  GENERATED,
  OPERATOR_NAMESPACE,
  policiesYaml,
  rbacYaml,
  WEBHOOK_SECRET,
  webhooksYaml,
} from "./manifests.ts";
import { startOperator } from "./operator.ts";
import { GREETING, type Greeting } from "./greeting.ts";
import { configMapPath, greetingPath, newGreeting } from "./samples.ts";

const { group: GROUP, version: VERSION, resource: RESOURCE, kind: KIND } =
  GREETING;
// Text imports: the suite has no --allow-read for the repository.
import crdText from "./manifests/crd.yaml" with { type: "text" };
import rbacText from "./manifests/rbac.yaml" with { type: "text" };
import webhooksText from "./manifests/webhooks.yaml" with { type: "text" };
import policiesText from "./manifests/policies.yaml" with { type: "text" };
import { BLANK_MESSAGE, MESSAGE_POLICY } from "./policy.ts";
import deploymentText from "./manifests/deployment.yaml" with { type: "text" };
import readme from "./README.md" with { type: "text" };
import mainText from "./main.ts" with { type: "text" };

/** `group/resource verb` for every rule of every Role and ClusterRole. */
function granted(): Set<string> {
  const rules: GrantedRule[] = [];
  for (
    const doc of loadAll(rbacText) as { kind: string; rules?: GrantedRule[] }[]
  ) {
    if (doc.kind !== "Role" && doc.kind !== "ClusterRole") continue;
    rules.push(...doc.rules ?? []);
  }
  return grants(rules);
}

Deno.test("RBAC grants exactly the requests the operator sends", async () => {
  using time = installFakeTime({ now: Date.parse("2030-01-01T00:00:00Z") });
  await using server = new FakeApiServer();
  server.register({ ...GREETING, statusSubresource: true });
  // The namespace of its Lease, as the manifests create it.
  server.put(`/api/v1/namespaces/${OPERATOR_NAMESPACE}`, { metadata: {} });
  const sent = new Set<string>();
  const requests: RbacRequest[] = [];
  const client = new Client(server.url, {
    timeout: REQUEST_TIMEOUT,
    fetch: (input, init) => {
      const request = new Request(input, init);
      sent.add(verbOf(request.method, new URL(request.url)));
      requests.push(requestOf(request.method, new URL(request.url)));
      return server.fetch(request);
    },
  });
  const user = new Client(server.url, { fetch: server.fetch });
  const ns = "default";
  // A Greeting before the start: its first pass may run before the stores
  // hold their first read, so it reads the API server (get).
  await user.create(greetingPath(ns), newGreeting("hello", "Hi"));
  const operator = await startOperator(client, {
    pod: "greeter-0",
    leaseNamespace: OPERATOR_NAMESPACE,
    exit: () => {},
  });
  const settle = async (): Promise<void> => {
    await time.settle();
    await operator.idle();
    await time.settle();
  };
  await settle();
  // Two edits: the second "Updated" Event repeats the first (a series patch).
  for (const message of ["Hello", "Hi"]) {
    const hello = server.object<Greeting>(greetingPath(ns, "hello"))!;
    await user.replace(greetingPath(ns, "hello"), {
      ...hello,
      spec: { message },
    });
    await settle();
  }
  await user.delete(greetingPath(ns, "hello"));
  await settle();
  await time.tick(10); // the fake's garbage collector deletes the ConfigMap
  assert.equal(server.object(configMapPath(ns, "hello-greeting")), undefined);
  // One deleted with Orphan: the orphan collector deletes its ConfigMap.
  await user.create(greetingPath(ns), newGreeting("left", "Bye"));
  await settle();
  await user.delete(greetingPath(ns, "left"), { propagationPolicy: "Orphan" });
  await time.tick(10);
  await settle();
  assert.equal(server.object(configMapPath(ns, "left-greeting")), undefined);
  await operator.stop();

  // Each request allowed where it went (its namespace, the Lease's name),
  // by the API server's RBAC rules.
  const objects = loadAll(rbacText) as RbacObject[];
  const refused = requests.filter((r) => !allows(objects, r));
  assert.deepEqual(refused, [], "requests the RBAC does not allow");
  assert.ok(sent.has("coordination.k8s.io/leases update"), "no renewal");
  const rbac = granted();
  // The informer lists only when the server cannot stream the first read
  // (an API server before 1.32); the fake streams, so list stays unused here.
  // Not sent as such: the finalizers update is checked by an admission
  // plugin, and an apply (PATCH) that makes the ConfigMap is authorised as
  // create too (kube-apiserver refuses it with 403 otherwise; the fake has
  // no RBAC, so the real-server suite checks that).
  const fallbacks = new Set([
    "demo.liken.dev/greetings list",
    "/configmaps list",
    "demo.liken.dev/greetings/finalizers update",
    "/configmaps create",
  ]);
  const unused = [...rbac].filter((v) => !sent.has(v) && !fallbacks.has(v));
  assert.deepEqual(unused, [], "granted verbs the operator never uses");
});

Deno.test("the Deployment and the README's flags match what main.ts reads", () => {
  const read = [...mainText.matchAll(/env\("([A-Z_]+)"\)/g)].map((m) => m[1]!);
  assert.deepEqual(read.sort(), [
    "POD_NAME",
    "POD_NAMESPACE",
    "WATCH_NAMESPACE",
    "WEBHOOK_CERT_DIR",
  ]);
  const compile = readme.match(/deno compile[^`]*?examples\/main\.ts/)?.[0];
  assert.ok(compile, "README shows the deno compile command");
  const allowEnv = compile.match(/--allow-env=(\S+)/)?.[1]?.split(",") ?? [];
  for (
    const name of [
      ...read,
      "KUBERNETES_SERVICE_HOST",
      "KUBERNETES_SERVICE_PORT",
    ]
  ) {
    assert.ok(allowEnv.includes(name), `--allow-env lacks ${name}`);
  }
  // main.ts names the API server so that --allow-net can name it.
  const server = mainText.match(/inClusterServer: "https:\/\/([^"]+)"/)?.[1];
  assert.equal(server, "kubernetes.default.svc:443");
  // The API server, and the probe server's address (the Deployment's
  // probes call its port).
  assert.match(
    compile,
    /--allow-net=kubernetes\.default\.svc:443,0\.0\.0\.0:8080,0\.0\.0\.0:9443,127\.0\.0\.1 /,
  );
  assert.match(deploymentText, /containerPort: 8080/);
  assert.match(deploymentText, /name: webhooks\s+containerPort: 9443/);
  assert.match(deploymentText, /livenessProbe:\s+httpGet:\s+path: \/healthz/);
  assert.match(deploymentText, /readinessProbe:\s+httpGet:\s+path: \/readyz/);
  assert.match(
    compile,
    /--allow-read=\/var\/run\/secrets\/kubernetes\.io\/serviceaccount,\/tmp\/k8s-webhook-server\/serving-certs /,
  );
  assert.doesNotMatch(compile, /--allow-(run|write|all)|-A /);

  const [deployment] = loadAll(deploymentText) as {
    kind: string;
    spec: {
      replicas: number;
      template: {
        spec: {
          serviceAccountName: string;
          containers: {
            env: { name: string; value?: string }[];
            volumeMounts: { name: string; mountPath: string }[];
          }[];
          volumes: { name: string; secret?: { secretName: string } }[];
        };
      };
    };
  }[];
  assert.equal(deployment?.kind, "Deployment");
  assert.equal(deployment.spec.replicas, 2);
  assert.equal(
    deployment.spec.template.spec.serviceAccountName,
    "greeting-operator",
  );
  const env = deployment.spec.template.spec.containers[0]!.env.map((e) =>
    e.name
  );
  assert.deepEqual(env.sort(), [
    "POD_NAME",
    "POD_NAMESPACE",
    "WEBHOOK_CERT_DIR",
  ]);
  for (const name of env) assert.ok(allowEnv.includes(name));
  // The webhook certificate: the Certificate's Secret, mounted where
  // WEBHOOK_CERT_DIR points and --allow-read allows.
  const pod = deployment.spec.template.spec;
  const dir = pod.containers[0]!.env.find((e) => e.name === "WEBHOOK_CERT_DIR")
    ?.value;
  assert.equal(dir, "/tmp/k8s-webhook-server/serving-certs");
  const mount = pod.containers[0]!.volumeMounts.find((m) =>
    m.mountPath === dir
  );
  assert.ok(mount, "the certificate directory is mounted");
  assert.equal(
    pod.volumes.find((v) => v.name === mount.name)?.secret?.secretName,
    WEBHOOK_SECRET,
  );
});

Deno.test("webhooks.yaml is what `deno task manifests` writes from the webhooks", () => {
  assert.ok(
    webhooksText.startsWith(GENERATED),
    "webhooks.yaml is not generated",
  );
  const docs = loadAll(webhooksText) as {
    kind: string;
    spec?: { secretName?: string; dnsNames?: string[] };
  }[];
  assert.deepEqual(
    docs,
    loadAll(webhooksYaml()),
    "examples/manifests/webhooks.yaml is stale: run `deno task manifests`",
  );
  assert.deepEqual(docs.map((d) => d.kind), [
    "Service",
    "Issuer",
    "Certificate",
    "ValidatingWebhookConfiguration",
    "MutatingWebhookConfiguration",
  ]);
  const certificate = docs[2]!;
  assert.equal(certificate.spec?.secretName, WEBHOOK_SECRET);
  assert.ok(
    certificate.spec?.dnsNames?.includes(
      "greeting-webhooks.greeting-system.svc",
    ),
  );
});

Deno.test("crd.yaml is what `deno task manifests` writes from the Greeting definition", () => {
  // Compared as objects: `deno fmt` may lay the YAML out its own way.
  assert.ok(crdText.startsWith(GENERATED), "crd.yaml is not generated");
  assert.deepEqual(
    loadAll(crdText),
    loadAll(crdYaml()),
    "examples/manifests/crd.yaml is stale: run `deno task manifests`",
  );
});

Deno.test("rbac.yaml is what `deno task manifests` derives from the controller", () => {
  assert.ok(rbacText.startsWith(GENERATED), "rbac.yaml is not generated");
  assert.deepEqual(
    loadAll(rbacText),
    loadAll(rbacYaml()),
    "examples/manifests/rbac.yaml is stale: run `deno task manifests`",
  );
});

Deno.test("the CRD serves the Greeting the operator reads and writes", () => {
  const [crd] = loadAll(crdText) as {
    kind: string;
    metadata: { name: string };
    spec: {
      group: string;
      scope: string;
      names: { plural: string; kind: string };
      versions: {
        name: string;
        served: boolean;
        storage: boolean;
        subresources?: { status?: unknown };
        schema: {
          openAPIV3Schema: {
            properties: {
              status: { properties: Record<string, unknown> };
            };
          };
        };
      }[];
    };
  }[];
  assert.equal(crd?.kind, "CustomResourceDefinition");
  assert.equal(crd.metadata.name, `${RESOURCE}.${GROUP}`);
  assert.equal(crd.spec.group, GROUP);
  assert.equal(crd.spec.scope, "Namespaced");
  assert.deepEqual(crd.spec.names.plural, RESOURCE);
  assert.deepEqual(crd.spec.names.kind, KIND);
  const version = crd.spec.versions.find((v) => v.name === VERSION);
  assert.ok(version?.served && version.storage);
  // settleStatus writes through the status subresource.
  assert.deepEqual(version.subresources?.status, {});
  assert.deepEqual(
    Object.keys(version.schema.openAPIV3Schema.properties.status.properties)
      .sort(),
    ["conditions", "configMap", "observedGeneration"],
  );
});

Deno.test("policies.yaml is what `deno task manifests` writes, and the fake enforces it on Greetings", async () => {
  assert.ok(
    policiesText.startsWith(GENERATED),
    "policies.yaml is not generated",
  );
  const docs = loadAll(policiesText) as KubeObjectLike[];
  assert.deepEqual(
    docs,
    loadAll(policiesYaml()),
    "examples/manifests/policies.yaml is stale: run `deno task manifests`",
  );
  await using server = new FakeApiServer();
  const user = new Client(server.url, { fetch: server.fetch });
  await user.create(
    "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
    loadAll(crdText)[0] as KubeObjectLike,
  );
  for (const doc of docs) {
    const plural = doc.kind === "ValidatingAdmissionPolicy"
      ? "validatingadmissionpolicies"
      : "validatingadmissionpolicybindings";
    await user.create(`/apis/admissionregistration.k8s.io/v1/${plural}`, doc);
  }
  const path = greetingPath("default");
  await user.create(path, newGreeting("fine", "Hello"));
  const refused = await user.create(path, newGreeting("blank", "  ")).then(
    () => undefined,
    (error: unknown) => error,
  );
  assert.ok(refused instanceof ApiError, String(refused));
  assert.equal(refused.status, 422);
  assert.equal(
    refused.statusObject?.message,
    `greetings.${GROUP} "blank" is forbidden: ValidatingAdmissionPolicy '${MESSAGE_POLICY}' with binding '${MESSAGE_POLICY}' denied request: ${BLANK_MESSAGE}`,
  );
});

type KubeObjectLike = KubeObject & { kind: string };
