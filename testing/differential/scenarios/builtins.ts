/**
 * Built-in kinds: a minimal create of each common kind (the server's
 * defaults and the Go encoding's shape), the scale subresources of the
 * workloads, and a Deployment's status strategy.
 *
 * @module
 */

import {
  envelope,
  MERGE_PATCH,
  msg,
  pb,
  rvOf,
  type Scenario,
} from "./_common.ts";

const POD_SPEC = { containers: [{ name: "app", image: "nginx:1.27" }] };
const TEMPLATE = { metadata: { labels: { app: "web" } }, spec: POD_SPEC };
const SELECTOR = { matchLabels: { app: "web" } };

const WORKLOADS: readonly [string, string][] = [
  ["statefulsets", "StatefulSet"],
  ["replicasets", "ReplicaSet"],
  ["daemonsets", "DaemonSet"],
];

/** A minimal object of a kind: what `kubectl create` would send. */
function minimal(
  apiVersion: string,
  kind: string,
  name: string,
  rest: Record<string, unknown> = {},
): Record<string, unknown> {
  return { apiVersion, kind, metadata: { name }, ...rest };
}

/** The namespaced kinds of the minimal creates: path, group/version, body. */
const NAMESPACED: readonly [string, string, Record<string, unknown>][] = [
  ["configmaps", "", minimal("v1", "ConfigMap", "cm", { data: { k: "v" } })],
  ["secrets", "", minimal("v1", "Secret", "s", { stringData: { k: "v" } })],
  ["serviceaccounts", "", minimal("v1", "ServiceAccount", "robot")],
  [
    "pods",
    "",
    minimal("v1", "Pod", "p", {
      spec: { ...POD_SPEC, automountServiceAccountToken: false },
    }),
  ],
  [
    "services",
    "",
    minimal("v1", "Service", "headless", {
      spec: {
        clusterIP: "None",
        selector: { app: "web" },
        ports: [{ port: 80 }],
      },
    }),
  ],
  [
    "persistentvolumeclaims",
    "",
    minimal("v1", "PersistentVolumeClaim", "pvc", {
      spec: {
        accessModes: ["ReadWriteOnce"],
        resources: { requests: { storage: "1Gi" } },
      },
    }),
  ],
  [
    "deployments",
    "apps/v1",
    minimal("apps/v1", "Deployment", "d", {
      spec: { selector: SELECTOR, template: TEMPLATE },
    }),
  ],
  [
    "statefulsets",
    "apps/v1",
    minimal("apps/v1", "StatefulSet", "ss", {
      spec: { selector: SELECTOR, template: TEMPLATE },
    }),
  ],
  [
    "daemonsets",
    "apps/v1",
    minimal("apps/v1", "DaemonSet", "ds", {
      spec: { selector: SELECTOR, template: TEMPLATE },
    }),
  ],
  [
    "replicasets",
    "apps/v1",
    minimal("apps/v1", "ReplicaSet", "rs", {
      spec: { selector: SELECTOR, template: TEMPLATE },
    }),
  ],
  [
    "jobs",
    "batch/v1",
    minimal("batch/v1", "Job", "j", {
      spec: {
        template: { spec: { ...POD_SPEC, restartPolicy: "Never" } },
      },
    }),
  ],
  [
    "cronjobs",
    "batch/v1",
    minimal("batch/v1", "CronJob", "cj", {
      spec: {
        schedule: "*/5 * * * *",
        jobTemplate: {
          spec: { template: { spec: { ...POD_SPEC, restartPolicy: "Never" } } },
        },
      },
    }),
  ],
  [
    "ingresses",
    "networking.k8s.io/v1",
    minimal("networking.k8s.io/v1", "Ingress", "ing", {
      spec: {
        defaultBackend: { service: { name: "web", port: { number: 80 } } },
      },
    }),
  ],
  [
    "networkpolicies",
    "networking.k8s.io/v1",
    minimal("networking.k8s.io/v1", "NetworkPolicy", "np", {
      spec: { podSelector: {} },
    }),
  ],
  [
    "roles",
    "rbac.authorization.k8s.io/v1",
    minimal("rbac.authorization.k8s.io/v1", "Role", "r", {
      rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }],
    }),
  ],
  [
    "rolebindings",
    "rbac.authorization.k8s.io/v1",
    minimal("rbac.authorization.k8s.io/v1", "RoleBinding", "rb", {
      roleRef: {
        apiGroup: "rbac.authorization.k8s.io",
        kind: "Role",
        name: "r",
      },
      subjects: [{ kind: "ServiceAccount", name: "default" }],
    }),
  ],
  [
    "horizontalpodautoscalers",
    "autoscaling/v2",
    minimal("autoscaling/v2", "HorizontalPodAutoscaler", "hpa", {
      spec: {
        scaleTargetRef: {
          apiVersion: "apps/v1",
          kind: "Deployment",
          name: "d",
        },
        maxReplicas: 3,
      },
    }),
  ],
  [
    "poddisruptionbudgets",
    "policy/v1",
    minimal("policy/v1", "PodDisruptionBudget", "pdb", {
      spec: { minAvailable: 1, selector: SELECTOR },
    }),
  ],
];

function collection(
  r: { path(resource: string, group?: string): string },
  resource: string,
  group: string,
): string {
  return group === "" ? r.path(resource) : r.path(resource, group);
}

/** Cluster-scoped kinds: collection path, body (names unique per run). */
const CLUSTER: readonly [string, Record<string, unknown>][] = [
  [
    "/apis/rbac.authorization.k8s.io/v1/clusterroles",
    minimal("rbac.authorization.k8s.io/v1", "ClusterRole", "clusterRole-10", {
      rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }],
    }),
  ],
  [
    "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
    minimal("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "crb", {
      roleRef: {
        apiGroup: "rbac.authorization.k8s.io",
        kind: "ClusterRole",
        name: "clusterRole-10",
      },
    }),
  ],
  [
    "/apis/networking.k8s.io/v1/ingressclasses",
    minimal("networking.k8s.io/v1", "IngressClass", "ic", {
      spec: { controller: "example.com/ingress" },
    }),
  ],
  [
    "/apis/scheduling.k8s.io/v1/priorityclasses",
    minimal("scheduling.k8s.io/v1", "PriorityClass", "pc", { value: 10 }),
  ],
  ["/api/v1/nodes", minimal("v1", "Node", "n1")],
  ["/api/v1/namespaces", minimal("v1", "Namespace", "builtin-ns")],
  [
    "/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations",
    minimal(
      "flowcontrol.apiserver.k8s.io/v1",
      "PriorityLevelConfiguration",
      "plc",
      {
        spec: {
          type: "Limited",
          limited: { limitResponse: { type: "Reject" } },
        },
      },
    ),
  ],
  [
    "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies",
    minimal(
      "admissionregistration.k8s.io/v1",
      "ValidatingAdmissionPolicy",
      "vap",
      {
        spec: {
          matchConstraints: {
            resourceRules: [{
              apiGroups: [""],
              apiVersions: ["v1"],
              operations: ["CREATE"],
              resources: ["pods"],
            }],
          },
          validations: [{ expression: "true" }],
        },
      },
    ),
  ],
  [
    "/apis/node.k8s.io/v1/runtimeclasses",
    minimal("node.k8s.io/v1", "RuntimeClass", "rc", { handler: "runc" }),
  ],
  [
    "/apis/storage.k8s.io/v1/csidrivers",
    minimal("storage.k8s.io/v1", "CSIDriver", "csi.example.com", { spec: {} }),
  ],
  [
    "/apis/storage.k8s.io/v1/storageclasses",
    minimal("storage.k8s.io/v1", "StorageClass", "sc", {
      provisioner: "example.com/x",
    }),
  ],
  [
    "/apis/resource.k8s.io/v1/deviceclasses",
    minimal("resource.k8s.io/v1", "DeviceClass", "dc", { spec: {} }),
  ],
];

/** The scenarios of this area, in order. */
export const BUILTINS: readonly Scenario[] = [
  {
    name: "builtin-defaults",
    async run(r): Promise<void> {
      for (const [resource, group, body] of NAMESPACED) {
        const name = (body.metadata as { name: string }).name;
        const path = collection(r, resource, group);
        await r.send(`create ${resource}`, "POST", path, { body });
        await r.send(`get ${resource}`, "GET", `${path}/${name}`);
      }
    },
  },
  {
    name: "builtin-cluster-defaults",
    async run(r): Promise<void> {
      for (const [path, body] of CLUSTER) {
        const name = (body.metadata as { name: string }).name;
        const resource = path.split("/").at(-1)!;
        await r.send(`create ${resource}`, "POST", path, { body });
        await r.send(`get ${resource}`, "GET", `${path}/${name}`);
        await r.send(`delete ${resource}`, "DELETE", `${path}/${name}`, {
          quiet: true,
        });
      }
    },
  },
  {
    name: "builtin-scale",
    async run(r): Promise<void> {
      for (const resource of ["deployments", "statefulsets", "replicasets"]) {
        const kind = {
          deployments: "Deployment",
          statefulsets: "StatefulSet",
          replicasets: "ReplicaSet",
        }[resource]!;
        const path = r.path(resource, "apps/v1");
        const made = await r.send(`create ${resource}`, "POST", path, {
          body: minimal("apps/v1", kind, "w", {
            spec: { replicas: 2, selector: SELECTOR, template: TEMPLATE },
          }),
        });
        await r.send(`get ${resource} scale`, "GET", `${path}/w/scale`);
        await r.send(`put ${resource} scale`, "PUT", `${path}/w/scale`, {
          body: {
            apiVersion: "autoscaling/v1",
            kind: "Scale",
            metadata: { name: "w", resourceVersion: rvOf(made.body) },
            spec: { replicas: 4 },
          },
        });
        await r.send(`patch ${resource} scale`, "PATCH", `${path}/w/scale`, {
          body: { spec: { replicas: 1 } },
          contentType: MERGE_PATCH,
        });
        await r.send(`get ${resource}`, "GET", `${path}/w`);
      }
      await r.send(
        "scale of missing",
        "GET",
        `${r.path("deployments", "apps/v1")}/missing/scale`,
      );
    },
  },
  {
    name: "builtin-status-strategy",
    async run(r): Promise<void> {
      const path = r.path("deployments", "apps/v1");
      await r.send("create", "POST", path, {
        body: minimal("apps/v1", "Deployment", "d", {
          spec: { selector: SELECTOR, template: TEMPLATE },
        }),
      });
      await r.send("status keeps labels", "PATCH", `${path}/d/status`, {
        body: {
          metadata: { labels: { a: "b" }, annotations: { x: "y" } },
          spec: { replicas: 9 },
          status: { replicas: 1, observedGeneration: 1 },
        },
        contentType: MERGE_PATCH,
      });
      for (const [resource, kind] of WORKLOADS) {
        const workloads = r.path(resource, "apps/v1");
        await r.send(`create ${resource}`, "POST", workloads, {
          body: minimal("apps/v1", kind, "w", {
            spec: { selector: SELECTOR, template: TEMPLATE },
          }),
        });
        await r.send(`${resource} status`, "PATCH", `${workloads}/w/status`, {
          body: {
            metadata: { labels: { a: "b" }, annotations: { x: "y" } },
            spec: { minReadySeconds: 5 },
            status: { observedGeneration: 1 },
          },
          contentType: MERGE_PATCH,
        });
      }
      const jobs = r.path("jobs", "batch/v1");
      await r.send("create job", "POST", jobs, {
        body: minimal("batch/v1", "Job", "j", {
          spec: { template: { spec: { ...POD_SPEC, restartPolicy: "Never" } } },
        }),
      });
      await r.send("job status keeps labels", "PATCH", `${jobs}/j/status`, {
        body: {
          metadata: { labels: { a: "b" } },
          status: { active: 1 },
        },
        contentType: MERGE_PATCH,
      });
      const pods = r.path("pods");
      await r.send("create pod", "POST", pods, {
        body: minimal("v1", "Pod", "p", {
          spec: { ...POD_SPEC, automountServiceAccountToken: false },
        }),
      });
      await r.send("pod status keeps labels", "PATCH", `${pods}/p/status`, {
        body: {
          metadata: { labels: { a: "b" } },
          status: { phase: "Running" },
        },
        contentType: MERGE_PATCH,
      });
    },
  },
  {
    name: "builtin-validation",
    async run(r): Promise<void> {
      const pods = r.path("pods");
      await r.send("pod without containers", "POST", pods, {
        body: minimal("v1", "Pod", "empty", { spec: { containers: [] } }),
      });
      await r.send("pod without spec", "POST", pods, {
        body: minimal("v1", "Pod", "nospec"),
      });
      await r.send("container without image", "POST", pods, {
        body: minimal("v1", "Pod", "noimage", {
          spec: { containers: [{ name: "app" }] },
        }),
      });
      const deployments = r.path("deployments", "apps/v1");
      await r.send("deployment without containers", "POST", deployments, {
        body: minimal("apps/v1", "Deployment", "empty", {
          spec: {
            selector: SELECTOR,
            template: { metadata: { labels: { app: "web" } }, spec: {} },
          },
        }),
      });
      await r.send("selector does not match", "POST", deployments, {
        body: minimal("apps/v1", "Deployment", "mismatch", {
          spec: {
            selector: { matchLabels: { app: "other" } },
            template: TEMPLATE,
          },
        }),
      });
      await r.send("deployment without selector", "POST", deployments, {
        body: minimal("apps/v1", "Deployment", "noselector", {
          spec: { template: TEMPLATE },
        }),
      });
      await r.send("deployment", "POST", deployments, {
        body: minimal("apps/v1", "Deployment", "d", {
          spec: { selector: SELECTOR, template: TEMPLATE },
        }),
      });
      await r.send("selector is immutable", "PATCH", `${deployments}/d`, {
        body: {
          spec: {
            selector: { matchLabels: { app: "web", tier: "x" } },
            template: { metadata: { labels: { app: "web", tier: "x" } } },
          },
        },
        contentType: MERGE_PATCH,
      });
      const secrets = r.path("secrets");
      await r.send("secret", "POST", secrets, {
        body: minimal("v1", "Secret", "s", { stringData: { k: "v" } }),
      });
      await r.send("secret type is immutable", "PATCH", `${secrets}/s`, {
        body: { type: "kubernetes.io/tls" },
        contentType: MERGE_PATCH,
      });
      const cms = r.path("configmaps");
      await r.send("immutable configmap", "POST", cms, {
        body: minimal("v1", "ConfigMap", "frozen", {
          data: { k: "v" },
          immutable: true,
        }),
      });
      await r.send("immutable data", "PATCH", `${cms}/frozen`, {
        body: { data: { k: "w" } },
        contentType: MERGE_PATCH,
      });
      const jobs = r.path("jobs", "batch/v1");
      await r.send("job", "POST", jobs, {
        body: minimal("batch/v1", "Job", "j", {
          spec: {
            template: { spec: { ...POD_SPEC, restartPolicy: "Never" } },
          },
        }),
      });
      await r.send("job template is immutable", "PATCH", `${jobs}/j`, {
        body: {
          spec: {
            template: {
              spec: { containers: [{ name: "app", image: "nginx:1.28" }] },
            },
          },
        },
        contentType: "application/strategic-merge-patch+json",
      });
      await r.send("job restartPolicy Always", "POST", jobs, {
        body: minimal("batch/v1", "Job", "always", {
          spec: { template: { spec: POD_SPEC } },
        }),
      });
      await r.send(
        "create in a missing namespace",
        "POST",
        "/api/v1/namespaces/builtin-missing/configmaps",
        { body: minimal("v1", "ConfigMap", "c") },
      );
      await r.send(
        "strict unknown field",
        "POST",
        `${deployments}?fieldValidation=Strict`,
        {
          body: minimal("apps/v1", "Deployment", "strict", {
            spec: { selector: SELECTOR, template: TEMPLATE, bogus: 1 },
          }),
        },
      );
      await r.send(
        "warn unknown field",
        "POST",
        `${deployments}?fieldValidation=Warn`,
        {
          body: minimal("apps/v1", "Deployment", "warn", {
            spec: { selector: SELECTOR, template: TEMPLATE, bogus: 1 },
          }),
        },
      );
      await r.send("default unknown field", "POST", cms, {
        body: minimal("v1", "ConfigMap", "unknown", { bogus: 1 }),
      });
      await r.send("dry-run delete in the body", "DELETE", `${cms}/frozen`, {
        body: { apiVersion: "v1", kind: "DeleteOptions", dryRun: ["All"] },
      });
      await r.send("still there", "GET", `${cms}/frozen`);
    },
  },
  {
    name: "builtin-subresources",
    async run(r): Promise<void> {
      const pods = r.path("pods");
      const pod = (name: string) =>
        minimal("v1", "Pod", name, {
          spec: { ...POD_SPEC, automountServiceAccountToken: false },
        });
      await r.send("create pod", "POST", pods, { body: pod("bound") });
      await r.send("binding", "POST", `${pods}/bound/binding`, {
        body: {
          apiVersion: "v1",
          kind: "Binding",
          metadata: { name: "bound" },
          target: { apiVersion: "v1", kind: "Node", name: "n1" },
        },
      });
      await r.send("bound pod", "GET", `${pods}/bound`);
      await r.send("binding again", "POST", `${pods}/bound/binding`, {
        body: {
          apiVersion: "v1",
          kind: "Binding",
          metadata: { name: "bound" },
          target: { apiVersion: "v1", kind: "Node", name: "n2" },
        },
      });
      await r.send("create evicted", "POST", pods, { body: pod("evicted") });
      await r.send("eviction", "POST", `${pods}/evicted/eviction`, {
        body: {
          apiVersion: "policy/v1",
          kind: "Eviction",
          metadata: { name: "evicted" },
        },
      });
      await r.send("evicted pod", "GET", `${pods}/evicted`);
      await r.send("eviction of missing", "POST", `${pods}/missing/eviction`, {
        body: {
          apiVersion: "policy/v1",
          kind: "Eviction",
          metadata: { name: "missing" },
        },
      });
      await r.send("create sa", "POST", r.path("serviceaccounts"), {
        body: minimal("v1", "ServiceAccount", "robot"),
      });
      await r.send(
        "token of missing",
        "POST",
        `${r.path("serviceaccounts")}/missing/token`,
        {
          body: {
            apiVersion: "authentication.k8s.io/v1",
            kind: "TokenRequest",
            spec: { audiences: ["api"] },
          },
        },
      );
    },
  },
  {
    name: "builtin-strategic",
    async run(r): Promise<void> {
      const path = r.path("deployments", "apps/v1");
      await r.send("create", "POST", path, {
        body: minimal("apps/v1", "Deployment", "d", {
          metadata: { name: "d", finalizers: ["example.com/a"] },
          spec: {
            selector: SELECTOR,
            template: {
              metadata: { labels: { app: "web" } },
              spec: {
                containers: [
                  {
                    name: "app",
                    image: "nginx:1.27",
                    env: [{ name: "A", value: "1" }],
                    ports: [{ containerPort: 80 }],
                  },
                  { name: "sidecar", image: "busybox:1.36" },
                ],
              },
            },
          },
        }),
      });
      const smp = (step: string, body: unknown) =>
        r.send(step, "PATCH", `${path}/d`, {
          body,
          contentType: "application/strategic-merge-patch+json",
        });
      await smp("containers merge by name", {
        spec: {
          template: {
            spec: {
              containers: [{
                name: "app",
                image: "nginx:1.28",
                env: [{ name: "B", value: "2" }],
                ports: [{ containerPort: 8080 }],
              }],
            },
          },
        },
      });
      await smp("merge the second container", {
        spec: {
          template: {
            spec: {
              containers: [{
                name: "sidecar",
                image: "busybox:1.37",
                env: [{ name: "A", value: "3" }],
              }],
            },
          },
        },
      });
      await smp("delete a container", {
        spec: {
          template: {
            spec: { containers: [{ name: "sidecar", $patch: "delete" }] },
          },
        },
      });
      await smp("finalizers merge as a set", {
        metadata: { finalizers: ["example.com/b"] },
      });
      await smp("delete from a primitive list", {
        metadata: { "$deleteFromPrimitiveList/finalizers": ["example.com/a"] },
      });
      await smp("replace a list", {
        spec: {
          template: {
            spec: {
              containers: [
                { $patch: "replace" },
                { name: "only", image: "busybox:1.36" },
              ],
            },
          },
        },
      });
      await smp("release", { metadata: { finalizers: null } });
      await r.send(
        "apply containers",
        "PATCH",
        `${path}/d?fieldManager=applier`,
        {
          body: {
            apiVersion: "apps/v1",
            kind: "Deployment",
            metadata: { name: "d" },
            spec: {
              template: {
                spec: {
                  containers: [{ name: "applied", image: "busybox:1.36" }],
                },
              },
            },
          },
          contentType: "application/apply-patch+yaml",
        },
      );
    },
  },
  {
    name: "builtin-tables",
    async run(r): Promise<void> {
      const accept = "application/json;as=Table;v=v1;g=meta.k8s.io";
      const kinds: [string, string, string, Record<string, unknown>][] = [
        ["deployments", "apps/v1", "Deployment", {
          spec: { selector: SELECTOR, template: TEMPLATE },
        }],
        ["replicasets", "apps/v1", "ReplicaSet", {
          spec: { selector: SELECTOR, template: TEMPLATE },
        }],
        ["statefulsets", "apps/v1", "StatefulSet", {
          spec: { selector: SELECTOR, template: TEMPLATE },
        }],
        ["daemonsets", "apps/v1", "DaemonSet", {
          spec: { selector: SELECTOR, template: TEMPLATE },
        }],
        ["jobs", "batch/v1", "Job", {
          spec: {
            template: { spec: { ...POD_SPEC, restartPolicy: "Never" } },
          },
        }],
        ["cronjobs", "batch/v1", "CronJob", {
          spec: {
            schedule: "*/5 * * * *",
            jobTemplate: {
              spec: {
                template: { spec: { ...POD_SPEC, restartPolicy: "Never" } },
              },
            },
          },
        }],
      ];
      for (const [resource, group, kind, rest] of kinds) {
        const path = r.path(resource, group);
        await r.send(`create ${resource}`, "POST", path, {
          body: minimal(group, kind, "t", rest),
          quiet: true,
        });
        await r.send(`table of ${resource}`, "GET", path, { accept });
      }
    },
  },
  {
    // A fresh cluster's own objects, which the fake holds from its start.
    name: "builtin-fresh-cluster",
    async run(r): Promise<void> {
      const gets: [string, string][] = [
        ["namespace default", "/api/v1/namespaces/default"],
        ["namespace kube-system", "/api/v1/namespaces/kube-system"],
        ["namespace kube-public", "/api/v1/namespaces/kube-public"],
        ["namespace kube-node-lease", "/api/v1/namespaces/kube-node-lease"],
        [
          "service kubernetes",
          "/api/v1/namespaces/default/services/kubernetes",
        ],
        [
          "serviceaccount default",
          "/api/v1/namespaces/kube-system/serviceaccounts/default",
        ],
        [
          "clusterrole cluster-admin",
          "/apis/rbac.authorization.k8s.io/v1/clusterroles/cluster-admin",
        ],
        [
          "clusterrole edit",
          "/apis/rbac.authorization.k8s.io/v1/clusterroles/edit",
        ],
        [
          "clusterrolebinding cluster-admin",
          "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/cluster-admin",
        ],
        [
          "role in kube-system",
          "/apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/roles/extension-apiserver-authentication-reader",
        ],
        [
          "priorityclass",
          "/apis/scheduling.k8s.io/v1/priorityclasses/system-cluster-critical",
        ],
        [
          "flowschema exempt",
          "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/exempt",
        ],
        [
          "prioritylevel workload-low",
          "/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations/workload-low",
        ],
        [
          "servicecidr",
          "/apis/networking.k8s.io/v1/servicecidrs/kubernetes",
        ],
        ["ipaddress", "/apis/networking.k8s.io/v1/ipaddresses/10.96.0.1"],
        ["apiservice", "/apis/apiregistration.k8s.io/v1/apiservices/v1.apps"],
      ];
      for (const [step, path] of gets) {
        await r.send(step, "GET", path, { unversioned: true });
      }
    },
  },
  {
    // NamespaceLifecycle: no content in a namespace that is absent or
    // terminating; the system namespaces are never deleted.
    name: "builtin-namespace-lifecycle",
    controllers: true,
    async run(r): Promise<void> {
      const held = `${r.namespace}-held`;
      await r.send(
        "create in a missing namespace",
        "POST",
        `/api/v1/namespaces/${r.namespace}-missing/configmaps`,
        { body: { metadata: { name: "c" } } },
      );
      await r.send("delete default", "DELETE", "/api/v1/namespaces/default");
      await r.send(
        "delete kube-system",
        "DELETE",
        "/api/v1/namespaces/kube-system",
      );
      await r.send("create held", "POST", "/api/v1/namespaces", {
        body: {
          metadata: { name: held, finalizers: ["example.com/hold"] },
        },
        quiet: true,
      });
      await r.send("delete held", "DELETE", `/api/v1/namespaces/${held}`);
      await r.until("the namespace's contents are gone", async () => {
        const { body } = await r.send(
          "poll",
          "GET",
          `/api/v1/namespaces/${held}`,
          { quiet: true },
        );
        const spec = (body as { spec?: { finalizers?: string[] } }).spec;
        return (spec?.finalizers ?? []).length === 0;
      });
      await r.send(
        "create in a terminating namespace",
        "POST",
        `/api/v1/namespaces/${held}/configmaps`,
        { body: { metadata: { name: "late" } } },
      );
      await r.send(
        "get the terminating namespace",
        "GET",
        `/api/v1/namespaces/${held}`,
      );
      await r.send("release", "PATCH", `/api/v1/namespaces/${held}`, {
        body: { metadata: { finalizers: null } },
        contentType: MERGE_PATCH,
      });
      await r.until("the namespace's deletion", async () => {
        const { status } = await r.send(
          "poll",
          "GET",
          `/api/v1/namespaces/${held}`,
          { quiet: true },
        );
        return status === 404;
      });
    },
  },
  {
    // The default admission plugins on a Pod: ServiceAccount (the token
    // volume, 403 for a missing account), Priority, and the
    // PodDisruptionBudget an eviction honours.
    name: "builtin-admission",
    generated: ["kube-api-access-"],
    async run(r): Promise<void> {
      const pods = r.path("pods");
      const pod = (
        name: string,
        spec: Record<string, unknown> = {},
        labels: Record<string, string> = {},
      ) => ({
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name, labels },
        spec: {
          containers: [{ name: "app", image: "nginx:1.27" }],
          initContainers: [{ name: "init", image: "busybox:1.37" }],
          ...spec,
        },
      });
      await r.send("token volume", "POST", pods, { body: pod("auto") });
      await r.send("create robot", "POST", r.path("serviceaccounts"), {
        body: { metadata: { name: "robot" } },
        quiet: true,
      });
      await r.send("named account", "POST", pods, {
        body: pod("robot", { serviceAccountName: "robot" }),
      });
      await r.send("missing account", "POST", pods, {
        body: pod("lost", { serviceAccountName: "missing" }),
      });
      await r.send("no automount", "POST", pods, {
        body: pod("bare", { automountServiceAccountToken: false }),
      });
      await r.send("create quiet", "POST", r.path("serviceaccounts"), {
        body: {
          metadata: { name: "quiet" },
          automountServiceAccountToken: false,
        },
        quiet: true,
      });
      await r.send("account without automount", "POST", pods, {
        body: pod("hushed", { serviceAccountName: "quiet" }),
      });
      await r.send("own mount kept", "POST", pods, {
        body: pod("mounted", {
          automountServiceAccountToken: false,
          containers: [{
            name: "app",
            image: "nginx:1.27",
            volumeMounts: [{
              name: "mine",
              mountPath: "/var/run/secrets/kubernetes.io/serviceaccount",
            }],
          }],
          volumes: [{ name: "mine", emptyDir: {} }],
        }),
      });
      await r.send("system priority", "POST", pods, {
        body: pod("critical", {
          automountServiceAccountToken: false,
          priorityClassName: "system-cluster-critical",
        }),
      });
      const high = `${r.namespace}-high`;
      await r.send(
        "create priority class",
        "POST",
        "/apis/scheduling.k8s.io/v1/priorityclasses",
        {
          body: {
            apiVersion: "scheduling.k8s.io/v1",
            kind: "PriorityClass",
            metadata: { name: high },
            value: 1000,
            preemptionPolicy: "Never",
          },
          quiet: true,
        },
      );
      await r.send("own priority", "POST", pods, {
        body: pod("high", {
          automountServiceAccountToken: false,
          priorityClassName: high,
        }),
      });
      await r.send("missing priority class", "POST", pods, {
        body: pod("nowhere", {
          automountServiceAccountToken: false,
          priorityClassName: `${r.namespace}-missing`,
        }),
      });
      await r.send(
        "delete priority class",
        "DELETE",
        `/apis/scheduling.k8s.io/v1/priorityclasses/${high}`,
        { quiet: true },
      );
      // A PodDisruptionBudget guards Running pods on eviction.
      await r.send("create guarded", "POST", pods, {
        body: pod("guarded", { automountServiceAccountToken: false }, {
          app: "guarded",
        }),
        quiet: true,
      });
      await r.send(
        "pending pod ignores the budget",
        "POST",
        `${pods}/guarded/eviction?dryRun=All`,
        {
          body: {
            apiVersion: "policy/v1",
            kind: "Eviction",
            metadata: { name: "guarded" },
          },
        },
      );
      const guarded = await r.send("get guarded", "GET", `${pods}/guarded`, {
        quiet: true,
      });
      const running = structuredClone(guarded.body) as Record<string, unknown>;
      // Running and Ready: a healthy pod, which a budget guards.
      running.status = {
        phase: "Running",
        conditions: [{ type: "Ready", status: "True" }],
      };
      await r.send("running", "PUT", `${pods}/guarded/status`, {
        body: running,
        quiet: true,
      });
      const pdbs = r.path("poddisruptionbudgets", "policy/v1");
      await r.send("create budget", "POST", pdbs, {
        body: {
          apiVersion: "policy/v1",
          kind: "PodDisruptionBudget",
          metadata: { name: "budget" },
          spec: {
            minAvailable: 1,
            selector: { matchLabels: { app: "guarded" } },
          },
        },
      });
      const evict = () =>
        r.send("eviction", "POST", `${pods}/guarded/eviction`, {
          body: {
            apiVersion: "policy/v1",
            kind: "Eviction",
            metadata: { name: "guarded" },
          },
        });
      await r.send(
        "budget being processed",
        "POST",
        `${pods}/guarded/eviction`,
        {
          body: {
            apiVersion: "policy/v1",
            kind: "Eviction",
            metadata: { name: "guarded" },
          },
        },
      );
      const status = (allowed: number) => ({
        observedGeneration: 1,
        disruptionsAllowed: allowed,
        currentHealthy: 1,
        desiredHealthy: 1,
        expectedPods: 1,
      });
      const budget = await r.send("get budget", "GET", `${pdbs}/budget`, {
        quiet: true,
      });
      const blocked = structuredClone(budget.body) as Record<string, unknown>;
      blocked.status = status(0);
      await r.send("no disruption allowed", "PUT", `${pdbs}/budget/status`, {
        body: blocked,
      });
      await r.send("budget refuses", "POST", `${pods}/guarded/eviction`, {
        body: {
          apiVersion: "policy/v1",
          kind: "Eviction",
          metadata: { name: "guarded" },
        },
      });
      const again = await r.send("get budget again", "GET", `${pdbs}/budget`, {
        quiet: true,
      });
      const allowed = structuredClone(again.body) as Record<string, unknown>;
      allowed.status = status(1);
      await r.send("one disruption allowed", "PUT", `${pdbs}/budget/status`, {
        body: allowed,
      });
      await evict();
      await r.send("budget after", "GET", `${pdbs}/budget`);
      await r.send("evicted", "GET", `${pods}/guarded`);
    },
  },
  {
    // Protobuf bodies, as controller-runtime's typed clients and kubectl
    // send built-in kinds: zeros Go omits, pointers' zeros kept, maps,
    // quantities, int-or-strings; and a kind's status strategy after it.
    name: "builtin-protobuf",
    async run(r): Promise<void> {
      const proto = "application/vnd.kubernetes.protobuf";
      const send = (
        step: string,
        resource: string,
        group: string,
        body: Uint8Array<ArrayBuffer>,
      ) =>
        r.send(step, "POST", r.path(resource, group), {
          body,
          contentType: proto,
        });
      const meta = (name: string) => pb(1, msg(pb(1, name), pb(2, "")));
      await send(
        "configmap",
        "configmaps",
        "",
        envelope(
          "v1",
          "ConfigMap",
          msg(
            meta("cm"),
            pb(2, msg(pb(1, "k"), pb(2, "v"))),
            pb(2, msg(pb(1, "empty"), pb(2, ""))),
          ),
        ),
      );
      const labels = msg(pb(1, "app"), pb(2, "web"));
      const container = pb(
        2,
        msg(
          pb(1, "app"),
          pb(2, "nginx:1.27"),
          pb(
            8,
            msg(
              pb(1, msg(pb(1, "cpu"), pb(2, msg(pb(1, "500m"))))),
              pb(2, msg(pb(1, "memory"), pb(2, msg(pb(1, "64Mi"))))),
            ),
          ),
        ),
      );
      await send(
        "pod",
        "pods",
        "",
        envelope(
          "v1",
          "Pod",
          msg(
            pb(1, msg(pb(1, "p"), pb(2, ""), pb(11, labels))),
            pb(
              2,
              msg(
                container,
                pb(3, ""),
                pb(4, 0),
                pb(11, 0),
                pb(21, 0),
              ),
            ),
          ),
        ),
      );
      await send(
        "service",
        "services",
        "",
        envelope(
          "v1",
          "Service",
          msg(
            meta("svc"),
            pb(
              2,
              msg(
                pb(
                  1,
                  msg(
                    pb(1, "http"),
                    pb(2, "TCP"),
                    pb(3, 80),
                    pb(4, msg(pb(1, 1), pb(2, 0), pb(3, "web"))),
                  ),
                ),
                pb(2, labels),
                // Headless: a cluster IP is picked at random.
                pb(3, "None"),
                pb(4, ""),
              ),
            ),
          ),
        ),
      );
      await send(
        "job",
        "jobs",
        "batch/v1",
        envelope(
          "batch/v1",
          "Job",
          msg(
            meta("j"),
            pb(
              2,
              msg(
                pb(
                  6,
                  msg(
                    pb(1, msg(pb(2, ""))),
                    pb(2, msg(container, pb(3, "Never"), pb(21, 0))),
                  ),
                ),
                pb(7, 0),
              ),
            ),
          ),
        ),
      );
      await send(
        "deployment",
        "deployments",
        "apps/v1",
        envelope(
          "apps/v1",
          "Deployment",
          msg(
            meta("d"),
            pb(
              2,
              msg(
                pb(1, 2),
                pb(2, msg(pb(1, labels))),
                pb(
                  3,
                  msg(
                    pb(1, msg(pb(11, labels))),
                    pb(2, msg(container, pb(21, 0))),
                  ),
                ),
                pb(5, 0),
                pb(7, 0),
              ),
            ),
          ),
        ),
      );
    },
  },
];
