/**
 * The API server's defaults for the common built-in kinds, as the release's
 * defaulting functions (`pkg/apis/<group>/v1/defaults.go`) and create
 * strategies set them, with the empty structs Go's encoding writes
 * (`resources: {}`, `securityContext: {}`, a zero `status`). Checked against
 * the recorded answers of `builtin-defaults` and `builtin-cluster-defaults`
 * (`builtins_test.ts`).
 *
 * @module
 */
import type { KubeObject } from "../../apiclient/types.ts";
import { isObject, resourceKey } from "../_store/objects.ts";
import type { RegisteredResource } from "../types.ts";
import { defaultPolicySpec } from "../_admission/policy_objects.ts";

type Obj = Record<string, unknown>;

function obj(value: unknown): Obj | undefined {
  return isObject(value) ? value : undefined;
}

/** `object[key]` as an object, made when absent. */
function ensure(object: Obj, key: string): Obj {
  if (!isObject(object[key])) object[key] = {};
  return object[key] as Obj;
}

function setDefault(object: Obj, key: string, value: unknown): void {
  if (object[key] === undefined) object[key] = value;
}

/**
 * `imagePullPolicy` by the image's tag: `Always` for `:latest` or no tag
 * (and no digest), else `IfNotPresent`.
 */
function pullPolicy(image: unknown): string {
  if (typeof image !== "string") return "IfNotPresent";
  if (image.includes("@")) return "IfNotPresent";
  const last = image.slice(image.lastIndexOf("/") + 1);
  const colon = last.lastIndexOf(":");
  if (colon < 0) return "Always";
  return last.slice(colon + 1) === "latest" ? "Always" : "IfNotPresent";
}

function probe(value: unknown): void {
  const p = obj(value);
  if (p === undefined) return;
  setDefault(p, "timeoutSeconds", 1);
  setDefault(p, "periodSeconds", 10);
  setDefault(p, "successThreshold", 1);
  setDefault(p, "failureThreshold", 3);
  const http = obj(p.httpGet);
  if (http !== undefined) {
    setDefault(http, "path", "/");
    setDefault(http, "scheme", "HTTP");
  }
}

function container(value: unknown): void {
  const c = obj(value);
  if (c === undefined) return;
  setDefault(c, "resources", {});
  setDefault(c, "terminationMessagePath", "/dev/termination-log");
  setDefault(c, "terminationMessagePolicy", "File");
  setDefault(c, "imagePullPolicy", pullPolicy(c.image));
  for (const port of Array.isArray(c.ports) ? c.ports : []) {
    if (isObject(port)) setDefault(port, "protocol", "TCP");
  }
  for (const env of Array.isArray(c.env) ? c.env : []) {
    const fieldRef = obj(obj(obj(env)?.valueFrom)?.fieldRef);
    if (fieldRef !== undefined) setDefault(fieldRef, "apiVersion", "v1");
  }
  probe(c.livenessProbe);
  probe(c.readinessProbe);
  probe(c.startupProbe);
}

function volume(value: unknown): void {
  const v = obj(value);
  if (v === undefined) return;
  for (const key of ["secret", "configMap", "projected", "downwardAPI"]) {
    const source = obj(v[key]);
    if (source !== undefined) setDefault(source, "defaultMode", 420);
  }
}

/** `SetDefaults_PodSpec` and its containers and volumes. */
function podSpec(spec: Obj): void {
  setDefault(spec, "restartPolicy", "Always");
  setDefault(spec, "terminationGracePeriodSeconds", 30);
  setDefault(spec, "dnsPolicy", "ClusterFirst");
  setDefault(spec, "securityContext", {});
  setDefault(spec, "schedulerName", "default-scheduler");
  // The deprecated field mirrors the name (the v1 conversion).
  if (typeof spec.serviceAccountName === "string") {
    setDefault(spec, "serviceAccount", spec.serviceAccountName);
  }
  for (const key of ["containers", "initContainers"]) {
    for (const c of Array.isArray(spec[key]) ? spec[key] : []) container(c);
  }
  for (const v of Array.isArray(spec.volumes) ? spec.volumes : []) volume(v);
}

/** A pod template: `metadata: {}` is written (a struct), its spec defaulted. */
function template(value: unknown): void {
  const t = obj(value);
  if (t === undefined) return;
  setDefault(t, "metadata", {});
  podSpec(ensure(t, "spec"));
}

function deployment(spec: Obj): void {
  setDefault(spec, "replicas", 1);
  const strategy = ensure(spec, "strategy");
  setDefault(strategy, "type", "RollingUpdate");
  if (strategy.type === "RollingUpdate") {
    const rolling = ensure(strategy, "rollingUpdate");
    setDefault(rolling, "maxUnavailable", "25%");
    setDefault(rolling, "maxSurge", "25%");
  }
  setDefault(spec, "revisionHistoryLimit", 10);
  setDefault(spec, "progressDeadlineSeconds", 600);
}

function statefulSet(spec: Obj): void {
  setDefault(spec, "replicas", 1);
  setDefault(spec, "serviceName", "");
  setDefault(spec, "podManagementPolicy", "OrderedReady");
  const strategy = ensure(spec, "updateStrategy");
  setDefault(strategy, "type", "RollingUpdate");
  if (strategy.type === "RollingUpdate") {
    const rolling = ensure(strategy, "rollingUpdate");
    setDefault(rolling, "partition", 0);
    setDefault(rolling, "maxUnavailable", 1);
  }
  setDefault(spec, "revisionHistoryLimit", 10);
  const retention = ensure(spec, "persistentVolumeClaimRetentionPolicy");
  setDefault(retention, "whenDeleted", "Retain");
  setDefault(retention, "whenScaled", "Retain");
}

function daemonSet(spec: Obj): void {
  const strategy = ensure(spec, "updateStrategy");
  setDefault(strategy, "type", "RollingUpdate");
  if (strategy.type === "RollingUpdate") {
    const rolling = ensure(strategy, "rollingUpdate");
    setDefault(rolling, "maxUnavailable", 1);
    setDefault(rolling, "maxSurge", 0);
  }
  setDefault(spec, "revisionHistoryLimit", 10);
}

function job(spec: Obj): void {
  if (spec.completions === undefined && spec.parallelism === undefined) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  setDefault(spec, "parallelism", 1);
  setDefault(spec, "backoffLimit", 6);
  setDefault(spec, "completionMode", "NonIndexed");
  setDefault(spec, "suspend", false);
  setDefault(
    spec,
    "podReplacementPolicy",
    spec.podFailurePolicy === undefined ? "TerminatingOrFailed" : "Failed",
  );
}

function cronJob(spec: Obj): void {
  setDefault(spec, "concurrencyPolicy", "Allow");
  setDefault(spec, "suspend", false);
  setDefault(spec, "successfulJobsHistoryLimit", 3);
  setDefault(spec, "failedJobsHistoryLimit", 1);
  const jobTemplate = ensure(spec, "jobTemplate");
  setDefault(jobTemplate, "metadata", {});
  template(ensure(jobTemplate, "spec").template);
}

function service(spec: Obj): void {
  setDefault(spec, "type", "ClusterIP");
  setDefault(spec, "sessionAffinity", "None");
  for (const port of Array.isArray(spec.ports) ? spec.ports : []) {
    if (!isObject(port)) continue;
    setDefault(port, "protocol", "TCP");
    setDefault(port, "targetPort", port.port);
  }
  if (spec.type !== "ExternalName") {
    setDefault(spec, "internalTrafficPolicy", "Cluster");
  }
  if (spec.type === "NodePort" || spec.type === "LoadBalancer") {
    setDefault(spec, "externalTrafficPolicy", "Cluster");
  }
  if (spec.type === "LoadBalancer") {
    setDefault(spec, "allocateLoadBalancerNodePorts", true);
  }
}

function hpa(spec: Obj): void {
  setDefault(spec, "minReplicas", 1);
  setDefault(spec, "metrics", [{
    type: "Resource",
    resource: {
      name: "cpu",
      target: { type: "Utilization", averageUtilization: 80 },
    },
  }]);
}

/** `group/resource` → its versioned defaulting of the whole object. */
const DEFAULTS: Record<string, (object: Obj) => void> = {
  "/pods": (o) => {
    const spec = ensure(o, "spec");
    podSpec(spec);
    setDefault(spec, "enableServiceLinks", true);
    // SetDefaults_Pod: a limit without its request requests the limit (a
    // Pod's own, not a template's).
    for (const list of ["initContainers", "containers"]) {
      for (const c of Array.isArray(spec[list]) ? spec[list] : []) {
        const resources = obj(obj(c)?.resources);
        const limits = obj(resources?.limits);
        if (resources === undefined || limits === undefined) continue;
        const requests = ensure(resources, "requests");
        for (const [name, value] of Object.entries(limits)) {
          setDefault(requests, name, value);
        }
      }
    }
  },
  "/podtemplates": (o) => template(o.template),
  "/replicationcontrollers": (o) => {
    const spec = ensure(o, "spec");
    setDefault(spec, "replicas", 1);
    template(spec.template);
  },
  "/secrets": (o) => setDefault(o, "type", "Opaque"),
  "/services": (o) => service(ensure(o, "spec")),
  "/persistentvolumeclaims": (o) => {
    setDefault(ensure(o, "spec"), "volumeMode", "Filesystem");
  },
  "/persistentvolumes": (o) => {
    const spec = ensure(o, "spec");
    setDefault(spec, "persistentVolumeReclaimPolicy", "Retain");
    setDefault(spec, "volumeMode", "Filesystem");
  },
  "apps/deployments": (o) => {
    const spec = ensure(o, "spec");
    deployment(spec);
    template(spec.template);
  },
  "apps/statefulsets": (o) => {
    const spec = ensure(o, "spec");
    statefulSet(spec);
    template(spec.template);
  },
  "apps/daemonsets": (o) => {
    const spec = ensure(o, "spec");
    daemonSet(spec);
    template(spec.template);
    // Recorded as the creator's: the API server sets it before it records
    // ownership.
    const meta = ensure(o, "metadata");
    meta.annotations = {
      "deprecated.daemonset.template.generation": "1",
      ...obj(meta.annotations),
    };
  },
  "apps/replicasets": (o) => {
    const spec = ensure(o, "spec");
    setDefault(spec, "replicas", 1);
    template(spec.template);
  },
  "batch/jobs": (o) => {
    const spec = ensure(o, "spec");
    job(spec);
    template(spec.template);
    // Owned by the creator, as recorded.
    setDefault(spec, "manualSelector", false);
  },
  "batch/cronjobs": (o) => cronJob(ensure(o, "spec")),
  "networking.k8s.io/networkpolicies": (o) => {
    const spec = ensure(o, "spec");
    setDefault(spec, "podSelector", {});
    if (spec.policyTypes === undefined) {
      spec.policyTypes = Array.isArray(spec.egress) && spec.egress.length > 0
        ? ["Ingress", "Egress"]
        : ["Ingress"];
    }
  },
  "autoscaling/horizontalpodautoscalers": (o) => hpa(ensure(o, "spec")),
  "storage.k8s.io/csidrivers": (o) => {
    // SetDefaults_CSIDriverSpec, in the Go struct's order.
    const spec = ensure(o, "spec");
    const sent = { ...spec };
    for (const key of Object.keys(spec)) delete spec[key];
    Object.assign(spec, {
      attachRequired: true,
      podInfoOnMount: false,
      volumeLifecycleModes: ["Persistent"],
      storageCapacity: false,
      fsGroupPolicy: "ReadWriteOnceWithFSType",
      requiresRepublish: false,
      seLinuxMount: false,
      preventPodSchedulingIfMissing: false,
    }, sent);
  },
  "scheduling.k8s.io/priorityclasses": (o) => {
    setDefault(o, "preemptionPolicy", "PreemptLowerPriority");
  },
  "resource.k8s.io/deviceclasses": (o) => setDefault(o, "spec", {}),
  "flowcontrol.apiserver.k8s.io/prioritylevelconfigurations": (o) => {
    const limited = obj(obj(o.spec)?.limited);
    if (limited === undefined) return;
    setDefault(limited, "nominalConcurrencyShares", 30);
    setDefault(limited, "lendablePercent", 0);
  },
  "admissionregistration.k8s.io/validatingadmissionpolicies": defaultPolicySpec,
  "admissionregistration.k8s.io/mutatingadmissionpolicies": defaultPolicySpec,
  "storage.k8s.io/storageclasses": (o) => {
    setDefault(o, "reclaimPolicy", "Delete");
    setDefault(o, "volumeBindingMode", "Immediate");
  },
};

/**
 * The status a create stores for a kind with a status subresource, as Go
 * writes the zero value of its status struct (fields without `omitempty`
 * stay); `undefined`: no status.
 */
const ZERO_STATUS: Record<string, () => Obj | undefined> = {
  "/pods": () => ({ phase: "Pending" }),
  "/services": () => ({ loadBalancer: {} }),
  "/persistentvolumeclaims": () => ({ phase: "Pending" }),
  "/persistentvolumes": () => ({ phase: "Pending" }),
  "/replicationcontrollers": () => ({ replicas: 0 }),
  "/nodes": () => ({
    daemonEndpoints: { kubeletEndpoint: { Port: 0 } },
    nodeInfo: {
      machineID: "",
      systemUUID: "",
      bootID: "",
      kernelVersion: "",
      osImage: "",
      containerRuntimeVersion: "",
      kubeletVersion: "",
      kubeProxyVersion: "",
      operatingSystem: "",
      architecture: "",
    },
  }),
  "flowcontrol.apiserver.k8s.io/prioritylevelconfigurations": () => ({}),
  "admissionregistration.k8s.io/validatingadmissionpolicies": () => ({}),
  "apps/deployments": () => ({}),
  "apps/statefulsets": () => ({ replicas: 0, availableReplicas: 0 }),
  "apps/daemonsets": () => ({
    currentNumberScheduled: 0,
    numberMisscheduled: 0,
    desiredNumberScheduled: 0,
    numberReady: 0,
  }),
  "apps/replicasets": () => ({ replicas: 0 }),
  "batch/jobs": () => ({}),
  "batch/cronjobs": () => ({}),
  "networking.k8s.io/ingresses": () => ({ loadBalancer: {} }),
  "autoscaling/horizontalpodautoscalers": () => ({
    desiredReplicas: 0,
    currentMetrics: null,
  }),
  "policy/poddisruptionbudgets": () => ({
    disruptionsAllowed: 0,
    currentHealthy: 0,
    desiredHealthy: 0,
    expectedPods: 0,
  }),
};

/**
 * Fills in the defaults of a built-in kind's object decoded from a request
 * (create, update, patch), in place; other kinds pass unchanged.
 */
export function applyDefaults(
  resource: RegisteredResource,
  object: KubeObject,
): KubeObject {
  DEFAULTS[resourceKey(resource)]?.(object as unknown as Obj);
  return object;
}

/**
 * The status a new object of a built-in kind starts with, or `undefined`
 * when the kind has none to write.
 */
export function initialBuiltInStatus(
  resource: RegisteredResource,
  object: KubeObject,
): Obj | undefined {
  const status = ZERO_STATUS[resourceKey(resource)]?.();
  if (status === undefined) return undefined;
  if (resourceKey(resource) === "/pods") {
    status.qosClass = qosClass(object);
  }
  return status;
}

/**
 * What the create strategies and the default admission plugins set
 * beside defaults, once the object has its uid (a Job's generated selector
 * and labels, a DaemonSet's template generation annotation, a Service's
 * cluster IP, a Pod's ServiceAccount, tolerations and priority, a Node's
 * not-ready taint, a claim's protection finalizer): after ownership is
 * recorded, so the writer owns none of it, as on the API server.
 */
export function prepareForCreate(
  resource: RegisteredResource,
  object: KubeObject,
  allocate: () => string,
): void {
  const o = object as unknown as Obj;
  const meta = object.metadata;
  switch (resourceKey(resource)) {
    case "batch/jobs": {
      const spec = ensure(o, "spec");
      if (spec.manualSelector === true) break;
      const uid = meta.uid!;
      const labels = {
        "batch.kubernetes.io/controller-uid": uid,
        "batch.kubernetes.io/job-name": meta.name!,
        "controller-uid": uid,
        "job-name": meta.name!,
      };
      spec.manualSelector = false;
      spec.selector = {
        matchLabels: { "batch.kubernetes.io/controller-uid": uid },
      };
      const t = ensure(spec, "template");
      const tmeta = ensure(t, "metadata");
      tmeta.labels = { ...obj(tmeta.labels), ...labels };
      if (meta.labels === undefined || Object.keys(meta.labels).length === 0) {
        meta.labels = { ...(tmeta.labels as Record<string, string>) };
      }
      break;
    }
    case "apps/daemonsets":
      meta.annotations = {
        ...meta.annotations,
        "deprecated.daemonset.template.generation": "1",
      };
      break;
    case "/services": {
      const spec = ensure(o, "spec");
      if (spec.type === "ExternalName") break;
      if (spec.clusterIP === undefined || spec.clusterIP === "") {
        spec.clusterIP = allocate();
      }
      setDefault(spec, "clusterIPs", [spec.clusterIP]);
      setDefault(spec, "ipFamilies", ["IPv4"]);
      setDefault(spec, "ipFamilyPolicy", "SingleStack");
      break;
    }
    case "/pods":
      admitPod(ensure(o, "spec"));
      break;
    case "/nodes": {
      // TaintNodesByCondition: a new Node is not ready until its kubelet
      // says so.
      const spec = ensure(o, "spec");
      const taints = Array.isArray(spec.taints) ? spec.taints : [];
      const key = "node.kubernetes.io/not-ready";
      if (!taints.some((t) => isObject(t) && t.key === key)) {
        spec.taints = [...taints, { key, effect: "NoSchedule" }];
      }
      break;
    }
    case "/persistentvolumeclaims":
      // The StorageObjectInUseProtection admission plugin's finalizer.
      if (!(meta.finalizers ?? []).includes("kubernetes.io/pvc-protection")) {
        meta.finalizers = [
          ...(meta.finalizers ?? []),
          "kubernetes.io/pvc-protection",
        ];
      }
      break;
  }
}

/** The NoExecute taints DefaultTolerationSeconds tolerates for 300 s. */
const TOLERATED = [
  "node.kubernetes.io/not-ready",
  "node.kubernetes.io/unreachable",
];

/**
 * What the default admission plugins set on a new Pod from its own spec:
 * its ServiceAccount's name (`default`) and the tolerations of
 * DefaultTolerationSeconds (`_admission/pod_admission.ts` does what reads other
 * objects: the account, its token, the priority).
 */
function admitPod(spec: Obj): void {
  if (spec.serviceAccountName === undefined || spec.serviceAccountName === "") {
    spec.serviceAccountName = "default";
  }
  setDefault(spec, "serviceAccount", spec.serviceAccountName);
  const tolerations = Array.isArray(spec.tolerations) ? spec.tolerations : [];
  const added = TOLERATED.filter((key) =>
    !tolerations.some((t) =>
      isObject(t) &&
      (t.key === key || (t.key === undefined && t.operator === "Exists")) &&
      (t.effect === undefined || t.effect === "NoExecute")
    )
  ).map((key) => ({
    key,
    operator: "Exists",
    effect: "NoExecute",
    tolerationSeconds: 300,
  }));
  if (added.length > 0) spec.tolerations = [...tolerations, ...added];
}

/**
 * A Pod's QoS class: `Guaranteed` when every container's requests equal
 * its limits for cpu and memory, `BestEffort` when none sets any, else
 * `Burstable` (a simplification: quantities are compared as written).
 */
function qosClass(object: KubeObject): string {
  const spec = obj((object as unknown as Obj).spec);
  const containers = [
    ...(Array.isArray(spec?.containers) ? spec.containers : []),
    ...(Array.isArray(spec?.initContainers) ? spec.initContainers : []),
  ];
  let any = false;
  let guaranteed = containers.length > 0;
  for (const c of containers) {
    const resources = obj(obj(c)?.resources) ?? {};
    const requests = obj(resources.requests) ?? {};
    const limits = obj(resources.limits) ?? {};
    const names = ["cpu", "memory"];
    if (
      names.some((n) => requests[n] !== undefined || limits[n] !== undefined)
    ) {
      any = true;
    }
    for (const n of names) {
      if (limits[n] === undefined) guaranteed = false;
      if (requests[n] !== undefined && requests[n] !== limits[n]) {
        guaranteed = false;
      }
    }
  }
  if (!any) return "BestEffort";
  return guaranteed ? "Guaranteed" : "Burstable";
}
