/**
 * How the API server's authorizer sees a request, for tests that check
 * generated RBAC against the requests a program really sends.
 *
 * Not part of the package: tests only.
 *
 * @module
 */

/** A request as the API server's RBAC authorizer sees it. */
export interface RbacRequest {
  /** `get`, `list`, `watch`, `create`, `update`, `patch` or `delete`. */
  verb: string;
  /** The API group; `""` for the core group. */
  group: string;
  /** The resource, `resource/subresource` for a subresource. */
  resource: string;
  /** The namespace; absent across the cluster. */
  namespace?: string;
  /**
   * The object's name: absent for a create and for a list or watch, unless
   * it selects `metadata.name=` (the API server reads the name from the
   * field selector then).
   */
  name?: string;
}

/**
 * How the API server's request-info resolver reads one request.
 *
 * @param method The HTTP method.
 * @param url The request's URL.
 * @returns Its verb, group, resource, namespace and name.
 */
export function requestOf(method: string, url: URL): RbacRequest {
  const parts = url.pathname.split("/").filter((p) => p !== "");
  // /api/v1/... or /apis/<group>/<version>/...
  const group = parts[0] === "api" ? "" : parts[1]!;
  let rest = parts.slice(parts[0] === "api" ? 2 : 3);
  let namespace: string | undefined;
  if (rest[0] === "namespaces" && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [resource = "", named, subresource] = rest;
  const watch = url.searchParams.get("watch");
  const verb = method === "GET"
    ? named !== undefined
      ? "get"
      : watch === "true" || watch === "1"
      ? "watch"
      : "list"
    : {
      POST: "create",
      PUT: "update",
      PATCH: "patch",
      DELETE: "delete",
    }[method]!;
  let name = named;
  if (name === undefined && (verb === "list" || verb === "watch")) {
    const selector = url.searchParams.get("fieldSelector") ?? "";
    name = /^metadata\.name=([^,]+)$/.exec(selector)?.[1];
  }
  const out: RbacRequest = {
    verb,
    group,
    resource: subresource ? `${resource}/${subresource}` : resource,
  };
  if (namespace !== undefined) out.namespace = namespace;
  if (name !== undefined) out.name = name;
  return out;
}

/**
 * The RBAC `group/resource verb` of one request, as the API server maps it
 * (`resource/subresource` for a subresource).
 *
 * @param method The HTTP method.
 * @param url The request's URL.
 * @returns Such as `coordination.k8s.io/leases update`.
 */
export function verbOf(method: string, url: URL): string {
  const { group, resource, verb } = requestOf(method, url);
  return `${group}/${resource} ${verb}`;
}

/** A Role, ClusterRole or one of their bindings, as {@linkcode allows} reads it. */
export interface RbacObject {
  /** `Role`, `ClusterRole`, `RoleBinding` or `ClusterRoleBinding`. */
  kind?: string | undefined;
  /** Its name and namespace. */
  metadata: { name?: string | undefined; namespace?: string | undefined };
  /** A role's rules. */
  rules?: readonly GrantedRule[] | undefined;
  /** A binding's role. */
  roleRef?: { kind: string; name: string } | undefined;
}

/**
 * Whether the objects (Roles, ClusterRoles and their bindings, all taken to
 * bind the one subject) allow the request, by the API server's RBAC rules:
 * a ClusterRoleBinding's rules apply everywhere, a RoleBinding's only to
 * requests in its namespace; a rule matches on group, resource and verb
 * (`*` matching any), and with `resourceNames` only a request that names
 * one of them (never a create).
 *
 * @param objects The RBAC objects.
 * @param request The request.
 * @returns Whether some bound rule allows it.
 */
export function allows(
  objects: readonly RbacObject[],
  request: RbacRequest,
): boolean {
  const role = (kind: string, name: string, namespace?: string) =>
    objects.find((o) =>
      o.kind === kind && o.metadata.name === name &&
      (kind === "ClusterRole" || o.metadata.namespace === namespace)
    );
  for (const binding of objects) {
    const ref = binding.roleRef;
    if (ref === undefined) continue;
    let where: string | undefined;
    if (binding.kind === "RoleBinding") {
      where = binding.metadata.namespace;
      if (request.namespace !== where) continue;
    } else if (binding.kind !== "ClusterRoleBinding") continue;
    const rules = role(ref.kind, ref.name, where)?.rules ?? [];
    if (rules.some((rule) => ruleAllows(rule, request))) return true;
  }
  return false;
}

function ruleAllows(rule: GrantedRule, request: RbacRequest): boolean {
  const any = (list: readonly string[], value: string): boolean =>
    list.includes("*") || list.includes(value);
  if (!any(rule.verbs, request.verb)) return false;
  if (!any(rule.apiGroups, request.group)) return false;
  if (!any(rule.resources, request.resource)) return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 ||
    (request.name !== undefined && names.includes(request.name));
}

/** One RBAC rule, as far as {@linkcode grants} reads it. */
export interface GrantedRule {
  /** The API groups. */
  apiGroups: readonly string[];
  /** The resources. */
  resources: readonly string[];
  /** The verbs. */
  verbs: readonly string[];
  /** Only these objects. Default: every object. */
  resourceNames?: readonly string[] | undefined;
}

/**
 * Every `group/resource verb` the rules grant.
 *
 * @param rules The rules.
 * @returns The set.
 */
export function grants(rules: readonly GrantedRule[]): Set<string> {
  const out = new Set<string>();
  for (const rule of rules) {
    for (const group of rule.apiGroups) {
      for (const resource of rule.resources) {
        for (const verb of rule.verbs) out.add(`${group}/${resource} ${verb}`);
      }
    }
  }
  return out;
}
