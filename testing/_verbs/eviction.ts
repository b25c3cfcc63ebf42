/**
 * `pods/eviction` as kube-apiserver answers it: a delete of the Pod that
 * its PodDisruptionBudget must allow. A Pod that is Pending, Succeeded,
 * Failed or already being deleted goes regardless; a Pod that is not Ready
 * goes when the budget is healthy; otherwise the budget must have been
 * processed (its `observedGeneration`) and allow a disruption, which the
 * eviction spends (recorded in `builtin-admission`).
 *
 * @module
 */
import { rfc3339 } from "../../_internal/time.ts";
import type { KubeObject } from "../../apiclient/types.ts";
import { clone } from "./patch.ts";
import { isObject, resourceKey, storeKey } from "../_store/objects.ts";
import type { Route } from "../_http/route.ts";
import type { ServerState } from "../_store/state.ts";
import { failure, StatusError } from "./status.ts";
import { deleteObject } from "./delete.ts";
import { selectorMatches } from "../_admission/webhook_call.ts";
import { diffSets, Schema } from "../_apply/fields.ts";
import { managedFields, recordUpdate } from "../_apply/managed.ts";

/** Who writes a budget's status on an eviction: the API server itself. */
const SERVER = "kube-apiserver";

interface Budget extends KubeObject {
  spec?: {
    selector?: unknown;
    unhealthyPodEvictionPolicy?: string;
  };
  status?: {
    observedGeneration?: number;
    disruptionsAllowed?: number;
    currentHealthy?: number;
    desiredHealthy?: number;
    disruptedPods?: Record<string, string>;
    conditions?: Record<string, unknown>[];
  };
}

function tooMany(message: string, retry?: number): StatusError {
  return new StatusError(failure(
    429,
    "TooManyRequests",
    "Cannot evict pod as it would violate the pod's disruption budget.",
    {
      causes: [{ reason: "DisruptionBudget", message }],
      ...(retry === undefined ? {} : { retryAfterSeconds: retry }),
    },
  ));
}

function ready(pod: KubeObject): boolean {
  const status = (pod as { status?: { conditions?: unknown[] } }).status;
  return (status?.conditions ?? []).some((c) =>
    isObject(c) && c.type === "Ready" && c.status === "True"
  );
}

/** Evicts the Pod `route` names, as its budget allows. */
export function evict(
  state: ServerState,
  route: Route,
  pod: KubeObject,
  sent: Record<string, unknown>,
  query: URLSearchParams,
): void {
  const name = pod.metadata.name!;
  const namespace = route.namespace!;
  const options = isObject(sent.deleteOptions) ? sent.deleteOptions : {};
  const dryRun = query.get("dryRun") === "All" ||
    (Array.isArray(options.dryRun) && options.dryRun.includes("All"));
  const remove = (): void => {
    deleteObject(
      state,
      { ...route, subresource: undefined },
      name,
      options,
      query,
    );
  };
  const phase = (pod as { status?: { phase?: string } }).status?.phase;
  if (
    pod.metadata.deletionTimestamp !== undefined ||
    phase === "Pending" || phase === "Succeeded" || phase === "Failed"
  ) return remove();
  const pdbs = state.resources.find((r) =>
    r.group === "policy" && r.resource === "poddisruptionbudgets"
  )!;
  const labels = pod.metadata.labels ?? {};
  const budgets = state.store.all(resourceKey(pdbs)).filter(([key, b]) =>
    key.startsWith(`${namespace}/`) &&
    selectorMatches((b as Budget).spec?.selector ?? {}, labels)
  ) as [string, Budget][];
  if (budgets.length === 0) return remove();
  if (budgets.length > 1) {
    throw new StatusError(failure(
      500,
      "InternalError",
      "Internal error occurred: This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
      {
        causes: [{
          message:
            "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
        }],
      },
    ));
  }
  const [key, budget] = budgets[0]!;
  const status = budget.status ?? {};
  const healthy = (status.currentHealthy ?? 0) >= (status.desiredHealthy ?? 0);
  if (
    budget.spec?.unhealthyPodEvictionPolicy === "AlwaysAllow" && !ready(pod) ||
    !ready(pod) && healthy && (status.desiredHealthy ?? 0) > 0
  ) return remove();
  const pdbName = budget.metadata.name!;
  if ((status.observedGeneration ?? 0) < (budget.metadata.generation ?? 0)) {
    throw tooMany(
      `The disruption budget ${pdbName} is still being processed by the server.`,
      10,
    );
  }
  const allowed = status.disruptionsAllowed ?? 0;
  if (allowed < 0) {
    throw new StatusError(failure(
      403,
      "Forbidden",
      "pdb disruptions allowed is negative",
    ));
  }
  if (allowed === 0) {
    throw tooMany(
      `The disruption budget ${pdbName} needs ${
        status.desiredHealthy ?? 0
      } healthy pods and has ${status.currentHealthy ?? 0} currently`,
    );
  }
  if (dryRun) return remove();
  // The eviction spends a disruption: the budget's status says so.
  const now = rfc3339();
  const next = clone(budget);
  const left = allowed - 1;
  const condition = {
    type: "DisruptionAllowed",
    status: left > 0 ? "True" : "False",
    observedGeneration: status.observedGeneration ?? 0,
    lastTransitionTime: now,
    reason: left > 0 ? "SufficientPods" : "InsufficientPods",
    message: "",
  };
  const old = (status.conditions ?? []).find((c) =>
    c.type === "DisruptionAllowed"
  );
  if (old?.status === condition.status) {
    condition.lastTransitionTime = old.lastTransitionTime as string;
  }
  next.status = {
    observedGeneration: status.observedGeneration ?? 0,
    disruptedPods: { ...status.disruptedPods, [name]: now },
    disruptionsAllowed: left,
    currentHealthy: status.currentHealthy ?? 0,
    desiredHealthy: status.desiredHealthy ?? 0,
    expectedPods: (status as { expectedPods?: number }).expectedPods ?? 0,
    conditions: [
      ...(status.conditions ?? []).filter((c) => c.type !== condition.type),
      condition,
    ],
  } as NonNullable<Budget["status"]>;
  const uid = next.metadata.uid!;
  const owners = recordUpdate(
    state.owners.get(uid) ?? [],
    { manager: SERVER, apiVersion: "policy/v1", subresource: "status" },
    diffSets(budget, next, new Schema(pdbs), true),
  );
  state.owners.set(uid, owners);
  if (state.managedFields) next.metadata.managedFields = managedFields(owners);
  state.store.write(
    resourceKey(pdbs),
    storeKey(pdbs, namespace, key.slice(namespace.length + 1)),
    next,
  );
  remove();
}
