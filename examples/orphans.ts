/**
 * The example's second controller: it deletes the operator's ConfigMaps
 * that no Greeting owns any more (a Greeting deleted with
 * `propagationPolicy: Orphan` leaves its ConfigMap behind, its
 * ownerReference removed). It watches the same labelled ConfigMaps as the
 * Greeting controller's `owns`, so in one `Manager` the two share one
 * watch and one store.
 *
 * @module
 */
import type { ControllerOptions, ReconcileContext } from "../controller/mod.ts";
import type { ControllerPermissions } from "../manifests/mod.ts";
import { type ConfigMap, CONFIGMAPS, GREETING, SELECTOR } from "./greeting.ts";

/**
 * The orphan collector's options; `rbac.yaml` is derived from them too.
 *
 * @param namespace The namespace to watch. Default: every namespace.
 * @returns The options.
 */
export function orphanController(
  namespace?: string,
): ControllerOptions<ConfigMap> {
  return {
    name: "greeting-orphans",
    for: {
      ...CONFIGMAPS,
      namespace,
      labelSelector: SELECTOR,
      kind: "ConfigMap",
    },
    reconcile,
  };
}

/** What the orphan collector writes beyond its options: it deletes its primaries, and writes no status. */
export const ORPHAN_PERMISSIONS: ControllerPermissions = {
  status: false,
  rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["delete"] }],
};

async function reconcile(context: ReconcileContext<ConfigMap>): Promise<void> {
  const configMap = context.object;
  if (configMap === undefined || configMap.metadata.deletionTimestamp) return;
  const owned = configMap.metadata.ownerReferences?.some((r) =>
    r.kind === GREETING.kind && r.apiVersion === GREETING.apiVersion
  );
  if (owned) return;
  // Only the copy this pass saw: one a Greeting adopted meanwhile stays.
  const { namespace = "", name = "", uid, resourceVersion } =
    configMap.metadata;
  await context.client.resource(CONFIGMAPS).namespace(namespace).delete(name, {
    preconditions: { uid, resourceVersion },
    signal: context.signal,
  });
}
