/**
 * The default admission plugins that read other objects for a new Pod:
 * ServiceAccount (the account must exist, 403 otherwise; its token volume
 * mounted into every container; its image pull secrets) and Priority (the
 * PriorityClass named, or the global default, gives the priority and the
 * preemption policy; 403 for a class that does not exist). Also the
 * ServiceAccount controller's part: a new Namespace gets its `default`
 * account (recorded in `builtin-admission`).
 *
 * @module
 */
import { rfc3339 } from "../../_internal/time.ts";
import type { KubeObject } from "../../apiclient/types.ts";
import { isObject, resourceKey, storeKey } from "../_store/objects.ts";
import type { ServerState } from "../_store/state.ts";
import { failure, StatusError } from "../_verbs/status.ts";
import type { RegisteredResource } from "../types.ts";

/** Where the token volume is mounted. */
const TOKEN_PATH = "/var/run/secrets/kubernetes.io/serviceaccount";
const TOKEN_VOLUME = "kube-api-access-";

type Obj = Record<string, unknown>;

function served(
  state: ServerState,
  group: string,
  resource: string,
): RegisteredResource {
  return state.resources.find((r) =>
    r.group === group && r.resource === resource
  )!;
}

function peek(
  state: ServerState,
  resource: RegisteredResource,
  namespace: string | undefined,
  name: string,
): KubeObject | undefined {
  return state.store.peek(
    resourceKey(resource),
    storeKey(resource, namespace, name),
  );
}

function forbidden(pod: string, message: string): StatusError {
  return new StatusError(failure(
    403,
    "Forbidden",
    `pods "${pod}" is forbidden: ${message}`,
    { name: pod, kind: "pods" },
  ));
}

/**
 * ServiceAccount and Priority on a new Pod in `namespace`, in place. The
 * account is only required in a namespace the server holds (one a test
 * never made, with NamespaceLifecycle off, has no accounts to look up).
 */
export function admitNewPod(
  state: ServerState,
  namespace: string,
  pod: KubeObject,
): void {
  const spec = ((pod as unknown as Obj).spec ??= {}) as Obj;
  const name = pod.metadata.name ?? "";
  const accountName = typeof spec.serviceAccountName === "string"
    ? spec.serviceAccountName
    : "default";
  const namespaces = served(state, "", "namespaces");
  const account = peek(
    state,
    served(state, "", "serviceaccounts"),
    namespace,
    accountName,
  ) as (KubeObject & Obj) | undefined;
  if (!account && peek(state, namespaces, undefined, namespace)) {
    throw forbidden(
      name,
      `error looking up service account ${namespace}/${accountName}: serviceaccount "${accountName}" not found`,
    );
  }
  const automount = typeof spec.automountServiceAccountToken === "boolean"
    ? spec.automountServiceAccountToken
    : typeof account?.automountServiceAccountToken === "boolean"
    ? account.automountServiceAccountToken
    : true;
  if (automount) mountToken(state, spec);
  const secrets = Array.isArray(account?.imagePullSecrets)
    ? account.imagePullSecrets
    : [];
  const own = Array.isArray(spec.imagePullSecrets) ? spec.imagePullSecrets : [];
  if (own.length === 0 && secrets.length > 0) {
    spec.imagePullSecrets = secrets.map((s) => ({ name: (s as Obj).name }));
  }
  prioritize(state, name, spec);
}

/** The token volume, and a mount of it in each container without one. */
function mountToken(state: ServerState, spec: Obj): void {
  const volumes = Array.isArray(spec.volumes) ? spec.volumes as Obj[] : [];
  const existing = volumes.find((v) =>
    typeof v.name === "string" && v.name.startsWith(TOKEN_VOLUME)
  );
  const volumeName = (existing?.name as string | undefined) ??
    TOKEN_VOLUME + state.suffix();
  let needed = false;
  for (const list of ["initContainers", "containers"]) {
    if (!Array.isArray(spec[list])) continue;
    for (const container of spec[list] as unknown[]) {
      if (!isObject(container)) continue;
      const mounts = Array.isArray(container.volumeMounts)
        ? container.volumeMounts
        : [];
      // A mount at the token's path of its own keeps the token out.
      if (mounts.some((m) => isObject(m) && m.mountPath === TOKEN_PATH)) {
        continue;
      }
      container.volumeMounts = [
        ...mounts,
        { name: volumeName, readOnly: true, mountPath: TOKEN_PATH },
      ];
      needed = true;
    }
  }
  if (existing || !needed) return;
  spec.volumes = [...volumes, {
    name: volumeName,
    projected: {
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: "token" } },
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
              fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" },
            }],
          },
        },
      ],
      defaultMode: 420,
    },
  }];
}

/** Priority: the class's value and preemption policy. */
function prioritize(state: ServerState, pod: string, spec: Obj): void {
  const classes = served(state, "scheduling.k8s.io", "priorityclasses");
  let named = typeof spec.priorityClassName === "string" &&
      spec.priorityClassName !== ""
    ? spec.priorityClassName
    : undefined;
  let found: Obj | undefined;
  if (named !== undefined) {
    found = peek(state, classes, undefined, named) as Obj | undefined;
    if (!found) {
      throw forbidden(pod, `no PriorityClass with name ${named} was found`);
    }
  } else {
    // The global default class, if one is marked so.
    const [, fallback] = state.store.all(resourceKey(classes)).find((
      [, c],
    ) => (c as unknown as Obj).globalDefault === true) ?? [];
    if (fallback) {
      found = fallback as unknown as Obj;
      named = fallback.metadata.name!;
      spec.priorityClassName = named;
    }
  }
  const value = typeof found?.value === "number" ? found.value : 0;
  if (typeof spec.priority === "number" && spec.priority !== value) {
    throw forbidden(
      pod,
      `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${value} from the given PriorityClass name`,
    );
  }
  spec.priority = value;
  if (spec.preemptionPolicy === undefined) {
    spec.preemptionPolicy = typeof found?.preemptionPolicy === "string"
      ? found.preemptionPolicy
      : "PreemptLowerPriority";
  }
}

/**
 * The ServiceAccount controller's work on a new Namespace: its `default`
 * account, written with no manager as the controller writes it.
 */
export function createDefaultAccount(
  state: ServerState,
  namespace: string,
): void {
  const accounts = served(state, "", "serviceaccounts");
  if (peek(state, accounts, namespace, "default")) return;
  const uid = crypto.randomUUID();
  state.noteCreated(uid);
  state.store.write(
    resourceKey(accounts),
    storeKey(accounts, namespace, "default"),
    {
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: {
        name: "default",
        namespace,
        uid,
        creationTimestamp: rfc3339(),
      },
    },
  );
}
