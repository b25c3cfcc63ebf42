// RBAC from the controllers' options: the rules for exactly the requests
// the library sends for them, grouped by where they apply.
import type { KubeObject } from "../apiclient/types.ts";
import type { ControllerOptions } from "../controller/types.ts";
import type { LeaseRef } from "../election/types.ts";
import type { Source } from "../informer/source.ts";
import type { SharderOptions } from "../shard/sharder.ts";

/** What {@linkcode sharderRules} reads of a sharder's options. */
export type SharderRbac = Pick<
  SharderOptions,
  "ring" | "namespace" | "for" | "owns"
>;

const LEASES = { group: "coordination.k8s.io", resource: "leases" };

/**
 * One RBAC rule (`rbac.authorization.k8s.io/v1` PolicyRule), for the
 * requests a reconcile sends by itself.
 */
export interface PolicyRule {
  /** The API groups; `""` is the core group. */
  apiGroups: readonly string[];
  /** The resources, with `name/subresource` for a subresource. */
  resources: readonly string[];
  /** The verbs: `get`, `list`, `watch`, `create`, `update`, `patch`, `delete`. */
  verbs: readonly string[];
  /** Only these objects. Default: every object. */
  resourceNames?: readonly string[] | undefined;
}

/**
 * The requests a controller's reconcile sends beyond those its options
 * imply, for {@linkcode rulesOf} and {@linkcode RbacOptions.permissions}.
 */
export interface ControllerPermissions {
  /**
   * Whether the reconcile writes the primary's status
   * ({@linkcode ReconcileContext.status}: `update` on `<primary>/status`).
   * Default `true`.
   */
  status?: boolean | undefined;
  /**
   * Whether the reconcile deletes children
   * ({@linkcode ReconcileContext.deleteChild}: `delete` on each `owns`
   * collection). Default `false`.
   */
  deleteChildren?: boolean | undefined;
  /**
   * Other requests, such as a `finalizer`'s `patch` on the primary or a
   * write to a collection the controller does not watch. They take the
   * scope of the primary (its namespace, or the cluster).
   */
  rules?: readonly PolicyRule[] | undefined;
}

/** Where a rule applies: a namespace, or the cluster (`undefined`). */
type Scope = string | undefined;

/**
 * The rules one controller needs, each with its scope: `namespace` for a
 * Role there, `undefined` for a ClusterRole.
 */
export interface ScopedRule extends PolicyRule {
  /** The namespace of the Role; `undefined` for the ClusterRole. */
  namespace?: string | undefined;
}

/** Options of {@linkcode rbac}. */
export interface RbacOptions {
  /**
   * The name of the Roles and ClusterRole and their bindings, such as
   * `greeting-operator`.
   */
  name: string;
  /** The ServiceAccount the operator runs as. */
  serviceAccount: { namespace: string; name: string };
  /**
   * The controllers, as their options (a `lead` or a `reconcile` in them is
   * not looked at).
   */
  // deno-lint-ignore no-explicit-any -- controllers of any primary kind
  controllers: readonly ControllerOptions<any>[];
  /**
   * The election's Lease: `get` and `update` on it alone (`resourceNames`),
   * and `create` on Leases in its namespace (a create names no object, so
   * it cannot be limited to one). Default: none.
   */
  lease?: LeaseRef | undefined;
  /**
   * The sharders of the operator's rings (`@liken/kubernetes/shard`), as
   * their options: see {@linkcode sharderRules}. Default: none.
   */
  sharders?: readonly SharderRbac[] | undefined;
  /**
   * What each controller's reconcile writes beyond what its options say,
   * by controller name: see {@linkcode ControllerPermissions}. Default: the
   * status, no deletes, no other rules.
   */
  permissions?: Readonly<Record<string, ControllerPermissions>> | undefined;
}

/**
 * The rules a controller's options imply, with their scopes:
 *
 * - `get`, `list` and `watch` on the primary, every `owns` and every
 *   `watches` collection (list: the first read of an API server that
 *   cannot stream it; get: a read the cache cannot answer);
 * - `create` and `patch` on each `owns` collection (`context.apply`: the
 *   API server authorises an apply that makes the object as `create`), and
 *   `delete` with `permissions.deleteChildren`, only where the children
 *   can be: a primary in a namespace (or a set) owns children of that
 *   namespace alone (`context.apply` refuses any other), so these go in
 *   its Role even when the children are watched across the cluster;
 * - `update` on `<primary>/finalizers` when it owns children:
 *   `context.apply` sets `blockOwnerDeletion`, which the
 *   OwnerReferencesPermissionEnforcement admission plugin allows only to
 *   who may update the owner's finalizers;
 * - `update` on `<primary>/status` unless `permissions.status` is `false`;
 * - `create` and `patch` on Events (core group), in the primary's scope,
 *   with a `wiring.recorder` or `wiring.events`;
 * - `permissions.rules`, in the primary's scope;
 * - with `wiring.shards`: `get`, `create` and `update` on Leases in the ring's
 *   namespace (the member Lease, named after the pod, so not limited to a
 *   name), and `patch` on the primary (a drained object is acknowledged by
 *   removing its shard labels).
 *
 * A collection with a namespace gets a Role there, one over a namespace
 * set a Role in each; one without, the ClusterRole.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rulesOf } from "@liken/kubernetes/manifests";
 *
 * const rules = rulesOf({
 *   name: "web",
 *   for: { group: "apps", version: "v1", resource: "deployments", kind: "Deployment", namespace: "shop" },
 *   // Watched in every namespace, written in the Deployment's alone.
 *   owns: [{ version: "v1", resource: "configmaps" }],
 *   reconcile: () => {},
 * }, { status: false });
 * assert.deepEqual(rules.map((r) => `${r.namespace ?? "*"} ${r.resources} ${r.verbs}`), [
 *   "shop deployments get,list,watch",
 *   "* configmaps get,list,watch",
 *   "shop configmaps create,patch",
 *   "shop deployments/finalizers update",
 * ]);
 * ```
 *
 * @param options The controller's options.
 * @param permissions What its reconcile writes beyond them.
 * @returns The rules, in the order above.
 */
export function rulesOf(
  // deno-lint-ignore no-explicit-any -- controllers of any primary kind
  options: ControllerOptions<any>,
  permissions: ControllerPermissions = {},
): ScopedRule[] {
  const primary = options.for;
  // Events and declared rules go where the primary is.
  const scopes = scopesOf(primary);
  const out: ScopedRule[] = rule(primary, ["get", "list", "watch"]);
  const owns = options.owns ?? [];
  const deletes = permissions.deleteChildren === true;
  for (const child of owns) {
    out.push(...rule(child, ["get", "list", "watch"]));
    // An apply that makes the object is authorised as `create` too.
    const verbs = deletes ? ["create", "patch", "delete"] : ["create", "patch"];
    out.push(...rule(child, verbs, { owner: primary }));
  }
  for (const watch of options.watches ?? []) {
    out.push(...rule(watch.source, ["get", "list", "watch"]));
  }
  if (owns.length > 0) {
    out.push(...rule(primary, ["update"], { subresource: "finalizers" }));
  }
  if (permissions.status !== false) {
    out.push(...rule(primary, ["update"], { subresource: "status" }));
  }
  const wiring = options.wiring;
  if (wiring?.recorder !== undefined || wiring?.events !== undefined) {
    for (const scope of scopes) {
      out.push(scoped(scope, {
        apiGroups: [""],
        resources: ["events"],
        verbs: ["create", "patch"],
      }));
    }
  }
  for (const extra of permissions.rules ?? []) {
    for (const scope of scopes) out.push(scoped(scope, extra));
  }
  if (wiring?.shards !== undefined) {
    out.push(scoped(wiring.shards.namespace, {
      apiGroups: [LEASES.group],
      resources: [LEASES.resource],
      verbs: ["get", "create", "update"],
    }));
    out.push(...rule(primary, ["patch"]));
  }
  return out;
}

/**
 * The rules a ring's `Sharder` needs, with their scopes: in the ring's
 * namespace, `get`, `list`, `watch`, `create` and `update` on Leases (its
 * own election, the members' Leases it watches, and the takeover of a gone
 * member's); on the primaries, `get`, `list` and `watch` (it watches their
 * metadata) and `patch` (it applies the shard labels); the same on each
 * `owns` collection (it labels children with their owner's shard), its
 * `patch` only where the primaries are when they are in one namespace.
 * The Leases are not limited to names: a member's is named after its pod
 * (unknown before the pods run), and the sharder takes over any member's.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sharderRules } from "@liken/kubernetes/manifests";
 *
 * const rules = sharderRules({
 *   ring: "web",
 *   namespace: "ops",
 *   for: { version: "v1", resource: "configmaps", kind: "ConfigMap", namespace: "shop" },
 *   owns: [{ version: "v1", resource: "secrets" }],
 * });
 * assert.deepEqual(rules.map((r) => `${r.namespace ?? "*"} ${r.resources} ${r.verbs}`), [
 *   "ops leases get,list,watch,create,update",
 *   "shop configmaps get,list,watch,patch",
 *   "* secrets get,list,watch",
 *   "shop secrets patch",
 * ]);
 * ```
 *
 * @param options The sharder's ring, namespace, primaries and children.
 * @returns The rules.
 */
export function sharderRules(options: SharderRbac): ScopedRule[] {
  return [
    scoped(options.namespace, {
      apiGroups: [LEASES.group],
      resources: [LEASES.resource],
      verbs: ["get", "list", "watch", "create", "update"],
    }),
    ...rule(options.for, ["get", "list", "watch", "patch"]),
    ...(options.owns ?? []).flatMap((child) => [
      ...rule(child, ["get", "list", "watch"]),
      ...rule(child, ["patch"], { owner: options.for }),
    ]),
  ];
}

/**
 * The RBAC objects an operator of these controllers needs, least
 * privilege: a ClusterRole and ClusterRoleBinding for the rules without a
 * namespace, a Role and RoleBinding in each namespace with rules (the
 * Lease's among them), all bound to the ServiceAccount. Rules of one
 * group and resource in one scope are merged; the order is stable, so the
 * output can be committed and compared.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rbac } from "@liken/kubernetes/manifests";
 *
 * const objects = rbac({
 *   name: "web-operator",
 *   serviceAccount: { namespace: "ops", name: "web-operator" },
 *   controllers: [{
 *     name: "web",
 *     for: { version: "v1", resource: "configmaps", kind: "ConfigMap" },
 *     reconcile: () => {},
 *   }],
 *   lease: { namespace: "ops", name: "web-operator" },
 * });
 * assert.deepEqual(objects.map((o) => `${o.kind} ${o.metadata.namespace ?? ""}`), [
 *   "ClusterRole ",
 *   "ClusterRoleBinding ",
 *   "Role ops",
 *   "RoleBinding ops",
 * ]);
 * ```
 *
 * @param options The name, the ServiceAccount, the controllers and the
 *   Lease.
 * @returns The objects, ready for {@linkcode yaml}.
 */
export function rbac(options: RbacOptions): KubeObject[] {
  const rules = options.controllers.flatMap((controller) =>
    rulesOf(controller, options.permissions?.[controller.name])
  );
  rules.push(...(options.sharders ?? []).flatMap(sharderRules));
  if (options.lease !== undefined) {
    const { namespace, name } = options.lease;
    const leases = { apiGroups: [LEASES.group], resources: [LEASES.resource] };
    // A create names no object, so it cannot be limited to one.
    rules.push({ namespace, ...leases, verbs: ["create"] });
    rules.push({
      namespace,
      ...leases,
      verbs: ["get", "update"],
      resourceNames: [name],
    });
  }
  const scopes = new Map<Scope, PolicyRule[]>();
  for (const { namespace, ...rest } of rules) {
    const list = scopes.get(namespace) ?? [];
    scopes.set(namespace, list);
    merge(list, rest);
  }
  for (const [namespace, list] of scopes) scopes.set(namespace, pruned(list));
  // Array sort never compares `undefined`: the cluster scope goes first.
  const named = [...scopes.keys()].filter((k) => k !== undefined).sort();
  const order: Scope[] = scopes.has(undefined) ? [undefined, ...named] : named;
  const { name, serviceAccount } = options;
  const subjects = [{
    kind: "ServiceAccount",
    name: serviceAccount.name,
    namespace: serviceAccount.namespace,
  }];
  const group = "rbac.authorization.k8s.io";
  const out: KubeObject[] = [];
  for (const namespace of order) {
    const kind = namespace === undefined ? "ClusterRole" : "Role";
    const metadata = namespace === undefined ? { name } : { name, namespace };
    out.push({
      apiVersion: `${group}/v1`,
      kind,
      metadata,
      rules: scopes.get(namespace),
    } as KubeObject);
    out.push({
      apiVersion: `${group}/v1`,
      kind: `${kind}Binding`,
      metadata,
      roleRef: { apiGroup: group, kind, name },
      subjects,
    } as KubeObject);
  }
  return out;
}

/** Where a collection is: each namespace of a set, its namespace, or all. */
function scopesOf(source: Source): Scope[] {
  return source.namespaces !== undefined
    ? [...new Set(source.namespaces)]
    : [source.namespace || undefined];
}

/**
 * Where a primary's children can be written: a namespaced primary's
 * children are in its own namespace (`context.apply` refuses any other, and
 * a cluster-scoped child), so a primary in some namespaces writes children
 * only there, even when it watches them in every namespace; a primary
 * across the cluster (or cluster-scoped) writes them wherever they are
 * watched.
 */
function writeScopes(child: Source, owner: Source): Scope[] {
  const where = scopesOf(child);
  const owners = scopesOf(owner);
  if (owners.includes(undefined)) return where;
  if (child.namespaced === false) return [];
  return owners.filter((namespace) =>
    where.includes(undefined) || where.includes(namespace)
  );
}

/**
 * The rules of one collection: one per namespace of a namespace set; with
 * `owner`, only where that primary can write its children.
 */
function rule(
  source: Source,
  verbs: readonly string[],
  options: { subresource?: string; owner?: Source } = {},
): ScopedRule[] {
  const { subresource, owner } = options;
  const resource = subresource === undefined
    ? source.resource
    : `${source.resource}/${subresource}`;
  const scopes = owner === undefined
    ? scopesOf(source)
    : writeScopes(source, owner);
  return scopes.map((namespace) =>
    scoped(namespace, {
      apiGroups: [source.group ?? ""],
      resources: [resource],
      verbs,
    })
  );
}

function scoped(namespace: Scope, rule: PolicyRule): ScopedRule {
  const out: ScopedRule = {
    apiGroups: [...rule.apiGroups],
    resources: [...rule.resources],
    verbs: [...rule.verbs],
  };
  if (rule.resourceNames !== undefined) {
    out.resourceNames = [...rule.resourceNames];
  }
  return namespace === undefined ? out : { namespace, ...out };
}

/**
 * `list` without the rules limited to names whose every verb a rule of the
 * same groups and resources grants on every object.
 */
function pruned(list: readonly PolicyRule[]): PolicyRule[] {
  const key = (r: PolicyRule): string =>
    JSON.stringify([r.apiGroups, r.resources]);
  return list.filter((r) =>
    r.resourceNames === undefined ||
    !list.some((wide) =>
      wide.resourceNames === undefined && key(wide) === key(r) &&
      r.verbs.every((verb) => wide.verbs.includes(verb))
    )
  );
}

/** Adds `next` to `list`: into a rule of the same groups and resources. */
function merge(list: PolicyRule[], next: PolicyRule): void {
  const key = (r: PolicyRule): string =>
    JSON.stringify([r.apiGroups, r.resources, r.resourceNames ?? null]);
  const same = list.find((r) => key(r) === key(next));
  if (same === undefined) {
    list.push({ ...next, verbs: [...new Set(next.verbs)] });
    return;
  }
  same.verbs = [...new Set([...same.verbs, ...next.verbs])];
}
