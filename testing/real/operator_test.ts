// The example operator against a real kube-apiserver, as its own
// ServiceAccount bound by the committed rbac.yaml and nothing more: a
// permission the manifests forgot fails here with the server's 403.
import assert from "node:assert/strict";
import { greetingController, startOperator } from "../../examples/operator.ts";
import { orphanController } from "../../examples/orphans.ts";
import { Manager } from "../../controller/mod.ts";
import type { KubeObject } from "../../apiclient/mod.ts";
import { rbac } from "../../manifests/mod.ts";
import {
  type ConfigMap,
  configMapName,
  CONFIGMAPS,
  GREETING,
  type Greeting,
  SELECTOR,
} from "../../examples/greeting.ts";
import {
  configMapPath,
  greetingPath,
  newGreeting,
} from "../../examples/samples.ts";
import { eventually, kubectl } from "./_eventually.ts";
import { suite } from "./_plane.ts";
import { tool } from "../../tools/needs.ts";
import { testLogger } from "../../_internal/_log_test_util.ts";

const MANIFESTS = new URL("../../examples/manifests/", import.meta.url)
  .pathname;

/** A CRD for a cert-manager kind that takes any spec. */
function standIn(kind: string, plural: string): KubeObject {
  return <KubeObject> {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.cert-manager.io` },
    spec: {
      group: "cert-manager.io",
      scope: "Namespaced",
      names: { kind, plural, singular: kind.toLowerCase() },
      versions: [{
        name: "v1",
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: "object",
            "x-kubernetes-preserve-unknown-fields": true,
          },
        },
      }],
    },
  };
}

suite("example operator", [
  ["the manifests pass a server-side dry run", async ({ plane }) => {
    // A dry run creates nothing, so the operator's namespace must exist
    // for the objects in it (as in a cluster it is installed into).
    await kubectl(plane.ready.kubeconfig, [
      "create",
      "namespace",
      "greeting-system",
    ]);
    // webhooks.yaml names cert-manager's Issuer and Certificate, whose CRDs
    // are not installed here: stand-ins that keep any spec let the dry run
    // map their kinds (their specs are cert-manager's to check).
    const kinds = [["Issuer", "issuers"], ["Certificate", "certificates"]];
    for (const [kind, plural] of kinds as [string, string][]) {
      await plane.client().create(
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
        standIn(kind, plural),
      ).catch((error: unknown) => {
        if (!String(error).includes("409")) throw error;
      });
      await kubectl(plane.ready.kubeconfig, [
        "wait",
        "--for=condition=Established",
        "--timeout=60s",
        `crd/${plural}.cert-manager.io`,
      ]);
    }
    const { stdout } = await kubectl(plane.ready.kubeconfig, [
      "apply",
      "--dry-run=server",
      "-f",
      MANIFESTS,
    ]);
    assert.match(
      stdout,
      /customresourcedefinition.*greetings.*\(server dry run\)/,
    );
    assert.match(stdout, /deployment.*greeting-operator.*\(server dry run\)/);
    // The webhook configurations, checked by the API server's own rules.
    assert.match(
      stdout,
      /validatingwebhookconfiguration.*greeting-operator.*\(server dry run\)/,
    );
    assert.match(
      stdout,
      /mutatingwebhookconfiguration.*greeting-operator.*\(server dry run\)/,
    );
    assert.match(stdout, /service\/greeting-webhooks.*\(server dry run\)/);
  }],
  [
    "as its ServiceAccount it reconciles a Greeting; the collector removes its ConfigMap",
    async ({ plane, namespace }) => {
      const kubeconfig = plane.ready.kubeconfig;
      await kubectl(kubeconfig, ["apply", "-f", `${MANIFESTS}crd.yaml`]);
      await kubectl(kubeconfig, ["apply", "-f", `${MANIFESTS}rbac.yaml`]);
      await kubectl(kubeconfig, [
        "wait",
        "--for=condition=Established",
        "--timeout=60s",
        "crd/greetings.demo.liken.dev",
      ]);
      const token = await plane.tokenFor(
        "greeting-system",
        "greeting-operator",
      );
      const client = plane.clientWith(token);
      const admin = plane.client();
      const lines: string[] = [];
      const exits: number[] = [];
      await using operator = await startOperator(client, {
        pod: "greeter-0",
        leaseNamespace: "greeting-system",
        logger: testLogger({ all: (line) => lines.push(line) }),
        exit: (code) => void exits.push(code),
      });
      await admin.create(greetingPath(namespace), newGreeting("hello", "Hi"));
      const child = configMapPath(namespace, configMapName("hello"));
      const made = await eventually(
        "the operator's ConfigMap",
        () => admin.get<ConfigMap>(child).catch(() => undefined),
      );
      assert.equal(made.data?.message, "Hi");
      await eventually("the Greeting's status", async () => {
        const greeting = await admin.get<Greeting>(
          greetingPath(namespace, "hello"),
        );
        return greeting.status?.conditions?.some((c) =>
          c.type === "Ready" && c.status === "True"
        );
      });
      // No request of the operator was refused: the Role has all it needs.
      assert.ok(
        !lines.some((line) => /: 403 Forbidden|is forbidden/.test(line)),
        lines.join("\n"),
      );
      await admin.delete(greetingPath(namespace, "hello"));
      await eventually(
        "the garbage collector",
        () => admin.get(child).then(() => false, (e) => e.status === 404),
        90_000,
      );
      await operator.stop();
      assert.deepEqual(exits, []);
    },
    { controllers: true },
  ],
  [
    "with a Role in each of two namespaces and no ClusterRole, a manager over the namespace set works in both",
    async ({ plane, namespace }) => {
      const kubeconfig = plane.ready.kubeconfig;
      const admin = plane.client();
      const other = `${namespace}-b`;
      await admin.create("/api/v1/namespaces", {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: other },
      });
      await kubectl(kubeconfig, ["apply", "-f", `${MANIFESTS}crd.yaml`]);
      await kubectl(kubeconfig, [
        "wait",
        "--for=condition=Established",
        "--timeout=60s",
        "crd/greetings.demo.liken.dev",
      ]);
      const namespaces = [namespace, other];
      const serviceAccount = {
        name: "greeting-roles",
        namespace: "greeting-system",
      };
      await admin.create(
        "/api/v1/namespaces/greeting-system/serviceaccounts",
        { apiVersion: "v1", kind: "ServiceAccount", metadata: serviceAccount },
      );
      const controllers = [
        {
          ...greetingController({ pod: "greeter-roles" }),
          for: { ...GREETING, namespaces },
          owns: [{ ...CONFIGMAPS, namespaces, labelSelector: SELECTOR }],
        },
        {
          ...orphanController(),
          for: {
            ...CONFIGMAPS,
            namespaces,
            labelSelector: SELECTOR,
            kind: "ConfigMap",
          },
        },
      ];
      const lease = { namespace: "greeting-system", name: "greeting-roles" };
      const objects = rbac({
        name: "greeting-roles",
        serviceAccount,
        controllers,
        lease,
      });
      assert.ok(
        objects.every((o) => !o.kind?.startsWith("Cluster")),
        "no ClusterRole",
      );
      for (const object of objects) {
        const plural = object.kind === "Role" ? "roles" : "rolebindings";
        await admin.create(
          `/apis/rbac.authorization.k8s.io/v1/namespaces/${object.metadata.namespace}/${plural}`,
          object,
        );
      }
      const token = await plane.tokenFor("greeting-system", "greeting-roles");
      const errors: string[] = [];
      await using manager = new Manager(plane.clientWith(token), {
        controllers,
        election: { lease, pod: "greeter-roles", exit: () => {} },
        logger: testLogger({
          onError: (error) => void errors.push(String(error)),
        }),
      });
      for (const ns of namespaces) {
        await admin.create(greetingPath(ns), newGreeting("hello", `Hi ${ns}`));
      }
      for (const ns of namespaces) {
        const made = await eventually(
          `the ConfigMap in ${ns}`,
          () =>
            admin.get<ConfigMap>(configMapPath(ns, configMapName("hello")))
              .catch(() => undefined),
        );
        assert.equal(made.data?.message, `Hi ${ns}`);
      }
      assert.ok(
        !errors.some((e) => /forbidden/i.test(e)),
        errors.join("\n"),
      );
      await manager.stop();
      await admin.delete(`/api/v1/namespaces/${other}`);
    },
  ],
], {
  unmet: await tool(
    "kubectl",
    "deno task test:unit --filter 'example operator'",
  ),
});
