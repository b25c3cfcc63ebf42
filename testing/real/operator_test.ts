// The example operator against a real kube-apiserver, as its own
// ServiceAccount bound by the committed rbac.yaml and nothing more: a
// permission the manifests forgot fails here with the server's 403.
import assert from "node:assert/strict";
import { startOperator } from "../../examples/operator.ts";
import {
  type ConfigMap,
  configMapName,
  type Greeting,
} from "../../examples/greeting.ts";
import {
  configMapPath,
  greetingPath,
  newGreeting,
} from "../../examples/samples.ts";
import { eventually, kubectl } from "./_eventually.ts";
import { suite } from "./_plane.ts";

const MANIFESTS = new URL("../../examples/manifests/", import.meta.url)
  .pathname;

suite("example operator", [
  ["the manifests pass a server-side dry run", async ({ plane }) => {
    // A dry run creates nothing, so the operator's namespace must exist
    // for the objects in it (as in a cluster it is installed into).
    await kubectl(plane.ready.kubeconfig, [
      "create",
      "namespace",
      "greeting-system",
    ]);
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
        log: (line) => lines.push(line),
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
  ],
]);
