// The scale bench's Pods: a Deployment's Pod as kube-apiserver serves it
// once the kubelet runs it (two containers with env, resources, ports
// and volumeMounts; the projected service-account volume; status
// with five conditions and a containerStatus each), and the managedFields
// of the three writers on the wire: kube-controller-manager (the
// ReplicaSet's create), kube-scheduler (the binding's PodScheduled) and the
// kubelet (the status). About 6.7 KB of JSON an object on the wire, 4.6 KB
// once the managedFields are stripped. Watch events are the kubelet's
// status updates: the app container restarted, Ready moved.

const T0 = "2026-12-02T11:00:00Z";
const T1 = "2026-12-02T11:00:01Z";
const T2 = "2026-12-02T11:00:04Z";

function fields(...names: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = { ".": {} };
  for (const name of names) out[`f:${name}`] = {};
  return out;
}

function container(
  name: string,
  image: string,
  port: number,
  env: [string, string][],
  /** The main container: it mounts the config volume too. */
  probe: boolean,
): Record<string, unknown> {
  const out: Record<string, unknown> = {
    name,
    image,
    ports: [{ name: "http", containerPort: port, protocol: "TCP" }],
    env: env.map(([name, value]) => ({ name, value })),
    resources: {
      limits: { cpu: "500m", memory: "256Mi" },
      requests: { cpu: "100m", memory: "128Mi" },
    },
    volumeMounts: [
      ...(probe
        ? [{ name: "config", readOnly: true, mountPath: "/etc/app" }]
        : []),
      {
        name: "kube-api-access",
        readOnly: true,
        mountPath: "/var/run/secrets/kubernetes.io/serviceaccount",
      },
    ],
    terminationMessagePath: "/dev/termination-log",
    terminationMessagePolicy: "File",
    imagePullPolicy: "IfNotPresent",
  };
  return out;
}

const CONTAINERS = [
  container("app", "registry.example.com/shop/web:1.42.0", 8080, [
    ["LOG_LEVEL", "info"],
    ["LISTEN_ADDR", ":8080"],
  ], true),
  container("sidecar", "registry.example.com/infra/proxy:2.7.1", 15001, [
    ["PROXY_MODE", "sidecar"],
    ["ADMIN_PORT", "15000"],
  ], false),
];

function managedFields(time: string): unknown[] {
  const containerSpec = {
    ".": {},
    "f:env": {},
    "f:image": {},
    "f:imagePullPolicy": {},
    "f:name": {},
    "f:ports": {},
    "f:resources": fields("limits", "requests"),
    "f:terminationMessagePath": {},
    "f:terminationMessagePolicy": {},
    "f:volumeMounts": {},
  };
  const spec: Record<string, unknown> = {
    "f:dnsPolicy": {},
    "f:enableServiceLinks": {},
    "f:restartPolicy": {},
    "f:schedulerName": {},
    "f:securityContext": {},
    "f:terminationGracePeriodSeconds": {},
    "f:volumes": fields('k:{"name":"config"}'),
  };
  for (const c of CONTAINERS) {
    spec[`f:containers`] = {
      ...(spec["f:containers"] as Record<string, unknown> | undefined),
      [`k:{"name":"${c.name}"}`]: containerSpec,
    };
  }
  const condition = (type: string): Record<string, unknown> => ({
    [`k:{"type":"${type}"}`]: {
      ".": {},
      "f:lastProbeTime": {},
      "f:lastTransitionTime": {},
      "f:status": {},
      "f:type": {},
    },
  });
  return [
    {
      manager: "kube-controller-manager",
      operation: "Update",
      apiVersion: "v1",
      time: T0,
      fieldsType: "FieldsV1",
      fieldsV1: {
        "f:metadata": {
          "f:generateName": {},
          "f:labels": fields("app", "pod-template-hash", "shard"),
          "f:ownerReferences": fields('k:{"uid":"rs"}'),
        },
        "f:spec": spec,
      },
    },
    {
      manager: "kube-scheduler",
      operation: "Update",
      apiVersion: "v1",
      time: T0,
      fieldsType: "FieldsV1",
      fieldsV1: {
        "f:status": {
          "f:conditions": { ".": {}, ...condition("PodScheduled") },
        },
      },
      subresource: "status",
    },
    {
      manager: "kubelet",
      operation: "Update",
      apiVersion: "v1",
      time,
      fieldsType: "FieldsV1",
      fieldsV1: {
        "f:status": {
          "f:conditions": {
            ...condition("ContainersReady"),
            ...condition("Initialized"),
            ...condition("PodReadyToStartContainers"),
            ...condition("Ready"),
          },
          "f:containerStatuses": {},
          "f:hostIP": {},
          "f:hostIPs": {},
          "f:phase": {},
          "f:podIP": {},
          "f:podIPs": fields('k:{"ip":"10.0.0.1"}'),
          "f:startTime": {},
          "f:qosClass": {},
        },
      },
      subresource: "status",
    },
  ];
}

/**
 * The i-th Pod at `version`; `change` > 0 is the kubelet's change-th status
 * update since (its app container restarted, Ready moved).
 */
export function pod(i: number, version: number, change = 0): unknown {
  const hash = "7d4b9c6f5d";
  const name = `web-${hash}-${String(i).padStart(6, "0")}`;
  const node = `node-${String(i % 500).padStart(3, "0")}`;
  const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
  const hostIp = `192.168.${(i % 500) >> 8}.${(i % 500) & 255}`;
  const moved = change === 0
    ? T2
    : new Date(Date.parse(T2) + change * 1000).toISOString()
      .replace(".000", "");
  const managed = managedFields(moved);
  const condition = (type: string, time: string): Record<string, unknown> => ({
    type,
    status: "True",
    lastProbeTime: null,
    lastTransitionTime: time,
  });
  return {
    kind: "Pod",
    apiVersion: "v1",
    metadata: {
      name,
      generateName: `web-${hash}-`,
      namespace: `ns-${i % 10}`,
      uid: `5c1e9a7b-3f2d-4e6a-8b01-${String(i).padStart(12, "0")}`,
      resourceVersion: String(version),
      creationTimestamp: T0,
      labels: { app: "web", "pod-template-hash": hash, shard: String(i % 16) },
      ownerReferences: [{
        apiVersion: "apps/v1",
        kind: "ReplicaSet",
        name: `web-${hash}`,
        uid: "9e2f4b1a-6c3d-4f8e-a7b2-000000000001",
        controller: true,
        blockOwnerDeletion: true,
      }],
      managedFields: managed,
    },
    spec: {
      volumes: [
        { name: "config", configMap: { name: "web-config", defaultMode: 420 } },
        {
          name: "kube-api-access",
          projected: {
            sources: [
              {
                serviceAccountToken: {
                  expirationSeconds: 3607,
                  path: "token",
                },
              },
              {
                configMap: {
                  name: "kube-root-ca.crt",
                  items: [{ key: "ca.crt", path: "ca.crt" }],
                },
              },
              {
                downwardAPI: {
                  items: [{
                    path: "namespace",
                    fieldRef: {
                      apiVersion: "v1",
                      fieldPath: "metadata.namespace",
                    },
                  }],
                },
              },
            ],
            defaultMode: 420,
          },
        },
      ],
      containers: CONTAINERS,
      restartPolicy: "Always",
      terminationGracePeriodSeconds: 30,
      dnsPolicy: "ClusterFirst",
      serviceAccountName: "default",
      serviceAccount: "default",
      nodeName: node,
      securityContext: {},
      schedulerName: "default-scheduler",
      tolerations: [
        {
          key: "node.kubernetes.io/not-ready",
          operator: "Exists",
          effect: "NoExecute",
          tolerationSeconds: 300,
        },
        {
          key: "node.kubernetes.io/unreachable",
          operator: "Exists",
          effect: "NoExecute",
          tolerationSeconds: 300,
        },
      ],
      priority: 0,
      enableServiceLinks: true,
      preemptionPolicy: "PreemptLowerPriority",
    },
    status: {
      phase: "Running",
      conditions: [
        condition("PodReadyToStartContainers", T2),
        condition("Initialized", T1),
        condition("Ready", moved),
        condition("ContainersReady", moved),
        condition("PodScheduled", T0),
      ],
      hostIP: hostIp,
      hostIPs: [{ ip: hostIp }],
      podIP: ip,
      podIPs: [{ ip }],
      startTime: T1,
      containerStatuses: CONTAINERS.map((c, k) => ({
        name: c.name,
        state: { running: { startedAt: k === 0 ? moved : T2 } },
        lastState: {},
        ready: true,
        restartCount: k === 0 ? change : 0,
        image: c.image,
        imageID: `${String(c.image).split(":")[0]}@sha256:${"3f9a".repeat(16)}`,
        containerID: `containerd://${
          (i.toString(16) + String(k)).padStart(64, "0")
        }`,
        started: true,
        volumeMounts: (c.volumeMounts as { name: string; mountPath: string }[])
          .map((m) => ({
            ...m,
            readOnly: true,
            recursiveReadOnly: "Disabled",
          })),
      })),
      qosClass: "Burstable",
    },
  };
}
