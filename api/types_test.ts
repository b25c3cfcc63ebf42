// Typed reads of common built-in kinds, pinned by the compiler: `deno check`
// (and so `deno test`) fails when a kind's type loses a field, gains a wrong
// one, or `client.resource(R)` stops inferring the kind from its Resource.
// The `@ts-expect-error` lines fail the check when they stop being errors.
import assert from "node:assert/strict";
import type { Client, KubeObject } from "../apiclient/mod.ts";
import {
  DAEMONSETS,
  type DeploymentApply,
  DEPLOYMENTS,
  REPLICASETS,
  STATEFULSETS,
} from "./apps/v1/mod.ts";
import { CRONJOBS, JOBS } from "./batch/v1/mod.ts";
import { LEASES } from "./coordination/v1/mod.ts";
import {
  CONFIGMAPS,
  NAMESPACES,
  NODES,
  PERSISTENTVOLUMECLAIMS,
  type Pod,
  type PodApply,
  PODS,
  SECRETS,
  SERVICEACCOUNTS,
  type ServiceApply,
  SERVICES,
} from "./core/v1/mod.ts";
import { INGRESSES, NETWORKPOLICIES } from "./networking/v1/mod.ts";
import { CLUSTERROLES, ROLEBINDINGS, ROLES } from "./rbac/v1/mod.ts";
import { HORIZONTALPODAUTOSCALERS } from "./autoscaling/v2/mod.ts";
import { CUSTOMRESOURCEDEFINITIONS } from "./apiextensions/v1/mod.ts";
import type { Quantity } from "./meta/v1/mod.ts";
import { defineResource, type ObjectOf } from "../resource/mod.ts";
import type { Primary } from "../controller/mod.ts";
import type { Source } from "../informer/mod.ts";

type Equal<A, B> = (<X>() => X extends A ? 1 : 2) extends
  (<X>() => X extends B ? 1 : 2) ? true : false;

// Never called: the compiler is the judge.
async function reads(client: Client, ns: string): Promise<void> {
  const pod = await client.resource(PODS).namespace(ns).get("p");
  const isPod: Equal<typeof pod, Pod> = true;
  const image: string | undefined = pod.spec?.containers[0]?.image;
  const cpu: Quantity | undefined = pod.spec?.containers[0]?.resources?.limits
    ?.["cpu"];
  // @ts-expect-error a Quantity is a string, as the server answers it
  const cores: number | undefined = pod.spec?.containers[0]?.resources?.limits
    ?.["cpu"];
  // @ts-expect-error a Pod's spec has no replicas
  void pod.spec?.replicas;

  const deployment = await client.resource(DEPLOYMENTS).namespace(ns).get("d");
  const replicas: number | undefined = deployment.spec.replicas;
  const apiVersion: "apps/v1" | undefined = deployment.apiVersion;
  // @ts-expect-error a misspelt field
  void deployment.spec.replica;
  // @ts-expect-error the template's containers are the PodSpec's
  void deployment.spec.template.containers;

  const statefulSet = await client.resource(STATEFULSETS).namespace(ns).get(
    "s",
  );
  const serviceName: string | undefined = statefulSet.spec.serviceName;
  const daemonSet = await client.resource(DAEMONSETS).namespace(ns).get("d");
  const scheduled: number = daemonSet.status!.currentNumberScheduled;
  const replicaSet = await client.resource(REPLICASETS).namespace(ns).get("r");
  const ready: number | undefined = replicaSet.status?.readyReplicas;

  const job = await client.resource(JOBS).namespace(ns).get("j");
  const succeeded: number | undefined = job.status?.succeeded;
  // @ts-expect-error completions is a number
  const completions: string | undefined = job.spec?.completions;
  const cronJob = await client.resource(CRONJOBS).namespace(ns).get("c");
  const schedule: string = cronJob.spec!.schedule;
  const template = cronJob.spec?.jobTemplate.spec?.template.spec?.containers;

  const service = await client.resource(SERVICES).namespace(ns).get("s");
  // An enum string lists its values (for editors) and takes any string.
  type Policy = NonNullable<
    NonNullable<typeof service.spec>["externalTrafficPolicy"]
  >;
  const listed: Equal<Extract<Policy, "Local">, "Local"> = true;
  const newer: Policy = "SomethingNewer";
  const port: number | string | undefined = service.spec?.ports?.[0]
    ?.targetPort;
  const configMap = await client.resource(CONFIGMAPS).namespace(ns).get("c");
  const data: Record<string, string> | undefined = configMap.data;
  // @ts-expect-error a ConfigMap's values are strings
  const wrong: Record<string, number> | undefined = configMap.data;
  const secret = await client.resource(SECRETS).namespace(ns).get("s");
  const type: string | undefined = secret.type;
  const claim = await client.resource(PERSISTENTVOLUMECLAIMS).namespace(ns)
    .get("c");
  const storage: Quantity | undefined = claim.spec?.resources?.requests
    ?.["storage"];
  const account = await client.resource(SERVICEACCOUNTS).namespace(ns).get("a");
  const pullSecrets = account.imagePullSecrets?.map((s) => s.name);

  const namespace = await client.resource(NAMESPACES).get("n");
  const phase: string | undefined = namespace.status?.phase;
  const node = await client.resource(NODES).get("n");
  const address: string | undefined = node.status?.addresses?.[0]?.address;

  const ingress = await client.resource(INGRESSES).namespace(ns).get("i");
  const host: string | undefined = ingress.spec?.rules?.[0]?.host;
  const policy = await client.resource(NETWORKPOLICIES).namespace(ns).get("p");
  const types: string[] | undefined = policy.spec?.policyTypes;
  const role = await client.resource(ROLES).namespace(ns).get("r");
  const verbs: string[] | undefined = role.rules?.[0]?.verbs;
  const binding = await client.resource(ROLEBINDINGS).namespace(ns).get("b");
  const roleName: string = binding.roleRef.name;
  const clusterRole = await client.resource(CLUSTERROLES).get("c");
  const aggregation = clusterRole.aggregationRule?.clusterRoleSelectors;
  const lease = await client.resource(LEASES).namespace(ns).get("l");
  const holder: string | undefined = lease.spec?.holderIdentity;
  // @ts-expect-error renewTime is a MicroTime string
  const renewed: Date | undefined = lease.spec?.renewTime;
  const hpa = await client.resource(HORIZONTALPODAUTOSCALERS).namespace(ns)
    .get("h");
  const max: number = hpa.spec!.maxReplicas;
  const crd = await client.resource(CUSTOMRESOURCEDEFINITIONS).get("c");
  const plural: string = crd.spec.names.plural;
  const schema = crd.spec.versions[0]?.schema?.openAPIV3Schema;
  const specType: string | undefined = schema?.properties?.["spec"]?.type;
  const items = schema?.items;
  const itemType = Array.isArray(items) ? items[0]?.type : items?.type;

  // Every kind is a KubeObject, so the rest of the library takes it.
  const objects: KubeObject[] = [pod, deployment, job, crd, lease, node];
  void [isPod, image, cpu, replicas, apiVersion, serviceName, scheduled, ready];
  void [succeeded, completions, schedule, template, port, data, wrong, type];
  void [storage, pullSecrets, phase, address, host, types, verbs, roleName];
  void [aggregation, holder, renewed, max, plural, objects, cores, specType];
  void [itemType, listed, newer];
}

// Never called: a built-in Resource is a controller's primary, child or
// watch source as it is.
function sources(): void {
  const primary: Primary = { ...DEPLOYMENTS, namespace: "n" };
  const owned: Source[] = [REPLICASETS, { ...PODS, labelSelector: "app=x" }];
  void [primary, owned];
}

// Never called: a definition's Resource infers as the built-in ones do.
async function defined(client: Client): Promise<void> {
  const GADGETS = defineResource({
    group: "example.com",
    version: "v1",
    kind: "Gadget",
    plural: "gadgets",
    scope: "Namespaced",
    schema: {
      type: "object",
      properties: {
        spec: { type: "object", properties: { size: { type: "integer" } } },
      },
    },
  });
  const gadget = await client.resource(GADGETS).namespace("n").get("g");
  const isGadget: Equal<typeof gadget, ObjectOf<typeof GADGETS>> = true;
  const size: number | undefined = gadget.spec?.size;
  // An explicit type still takes an untyped Resource.
  const pods = client.resource<Pod>({ version: "v1", resource: "pods" });
  void [isGadget, size, pods];
}

// Never called: apply configurations need their list-map keys.
async function applies(client: Client): Promise<void> {
  const deployment: DeploymentApply = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web" },
    spec: {
      template: {
        spec: {
          containers: [
            { name: "web", image: "nginx", ports: [{ containerPort: 80 }] },
            // @ts-expect-error a container needs its list-map key, name
            { image: "sidecar" },
            // @ts-expect-error a port needs containerPort (protocol defaults)
            { name: "other", ports: [{ protocol: "TCP" }] },
          ],
        },
      },
    },
  };
  const applied = await client.resource(DEPLOYMENTS).namespace("default")
    .apply(deployment, { fieldManager: "test" });
  const isDeployment: Equal<typeof applied.kind, "Deployment" | undefined> =
    true;
  const service: ServiceApply = {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "web" },
    // @ts-expect-error a service port needs its port
    spec: { ports: [{ name: "http", targetPort: "http" }] },
  };
  const pod: PodApply = {
    apiVersion: "v1",
    // @ts-expect-error the kind is the Pod's
    kind: "Deployment",
    metadata: { name: "p" },
  };
  void [isDeployment, service, pod];
}

Deno.test("api: the built-in Resources name their collections as discovery does", () => {
  assert.equal(typeof reads, "function");
  assert.equal(typeof applies, "function");
  assert.equal(typeof defined, "function");
  assert.equal(typeof sources, "function");
  assert.deepEqual(
    [DEPLOYMENTS.group, DEPLOYMENTS.version, DEPLOYMENTS.resource],
    ["apps", "v1", "deployments"],
  );
  assert.equal(PODS.group, "");
  assert.equal(PODS.apiVersion, "v1");
  assert.equal(NODES.namespaced, false);
  assert.equal(CONFIGMAPS.namespaced, true);
  assert.deepEqual(PODS.subresources.includes("status"), true);
  assert.equal(CRONJOBS.kind, "CronJob");
  assert.equal(HORIZONTALPODAUTOSCALERS.apiVersion, "autoscaling/v2");
});
