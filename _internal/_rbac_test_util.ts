/**
 * How the API server's authorizer sees a request, for tests that check
 * generated RBAC against the requests a program really sends.
 *
 * Not part of the package: tests only.
 *
 * @module
 */

/**
 * The RBAC `group/resource verb` of one request, as the API server maps it
 * (`resource/subresource` for a subresource).
 *
 * @param method The HTTP method.
 * @param url The request's URL.
 * @returns Such as `coordination.k8s.io/leases update`.
 */
export function verbOf(method: string, url: URL): string {
  const parts = url.pathname.split("/").filter((p) => p !== "");
  // /api/v1/... or /apis/<group>/<version>/...
  const group = parts[0] === "api" ? "" : parts[1]!;
  let rest = parts.slice(parts[0] === "api" ? 2 : 3);
  if (rest[0] === "namespaces" && rest.length >= 3) rest = rest.slice(2);
  const [resource, name, subresource] = rest;
  const full = subresource ? `${resource}/${subresource}` : resource;
  const watch = url.searchParams.get("watch");
  const verb = method === "GET"
    ? name !== undefined
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
  return `${group}/${full} ${verb}`;
}

/** One RBAC rule, as far as {@linkcode grants} reads it. */
export interface GrantedRule {
  /** The API groups. */
  apiGroups: readonly string[];
  /** The resources. */
  resources: readonly string[];
  /** The verbs. */
  verbs: readonly string[];
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
