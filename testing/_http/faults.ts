/**
 * Refusals: the requests a test has the server answer with a failure Status
 * (such as 403, 429 or 503), worded as the API server words them.
 *
 * @module
 */
import type { StatusDetails } from "../../apiclient/types.ts";
import { flag } from "../_options.ts";
import { parseRoute } from "./route.ts";
import {
  defaultMessage,
  failure,
  qualified,
  REASONS,
  statusResponse,
} from "../_verbs/status.ts";
import type { Refusal, RefuseOptions, RegisteredResource } from "../types.ts";

interface RefusalRule extends RefuseOptions {
  left: number;
}

/** The refusals in force, first match first. */
export class Refusals {
  #rules: RefusalRule[] = [];

  /** Refuses what the options match, until `allow()` or `count` requests. */
  add(options: RefuseOptions): Refusal {
    const rule: RefusalRule = { ...options, left: options.count ?? Infinity };
    this.#rules.push(rule);
    return {
      allow: () => {
        this.#rules = this.#rules.filter((r) => r !== rule);
      },
      get remaining() {
        return Math.max(0, rule.left);
      },
    };
  }

  /**
   * The Status answer of the first refusal that matches the request, or
   * `undefined` when none does; the refusal counts the request.
   */
  answer(
    method: string,
    url: URL,
    resources: readonly RegisteredResource[],
  ): Response | undefined {
    const watch = flag(url.searchParams, "watch") ?? false;
    const rule = this.#rules.find((r) =>
      (r.method === undefined ||
        (typeof r.method === "string" ? [r.method] : r.method).some((m) =>
          m.toUpperCase() === method
        )) &&
      matchPath(r.path, url.pathname) &&
      (r.watch === undefined || r.watch === watch)
    );
    if (!rule) return undefined;
    if (--rule.left <= 0) {
      this.#rules = this.#rules.filter((r) => r !== rule);
    }
    const details: StatusDetails = {};
    let message = rule.message;
    if (message === undefined && rule.status === 403) {
      message = forbidden(resources, method, url, details);
    }
    if (rule.retryAfterSeconds !== undefined) {
      details.retryAfterSeconds = rule.retryAfterSeconds;
    }
    const headers: Record<string, string> = {};
    if (rule.retryAfterHeader !== undefined) {
      headers["retry-after"] = String(rule.retryAfterHeader);
    }
    return statusResponse(
      failure(
        rule.status,
        rule.reason ?? REASONS[rule.status] ?? "Unknown",
        message ?? defaultMessage(rule.status),
        Object.keys(details).length > 0 ? details : undefined,
      ),
      headers,
    );
  }
}

/**
 * The message of a 403 as the API server's authorizer words it, naming the
 * verb, the resource and the scope; fills the details in.
 */
function forbidden(
  resources: readonly RegisteredResource[],
  method: string,
  url: URL,
  details: StatusDetails,
): string {
  const route = parseRoute(resources, url.pathname);
  if (!route) return defaultMessage(403);
  const { resource, namespace, name } = route;
  const watch = flag(url.searchParams, "watch") ?? false;
  const verb = method === "GET"
    ? (watch ? "watch" : name === undefined ? "list" : "get")
    : method === "POST"
    ? "create"
    : method === "PUT"
    ? "update"
    : method === "PATCH"
    ? "patch"
    : name === undefined
    ? "deletecollection"
    : "delete";
  if (name !== undefined) details.name = name;
  if (resource.group !== "") details.group = resource.group;
  details.kind = resource.resource;
  const what = name === undefined
    ? qualified(resource)
    : `${qualified(resource)} "${name}"`;
  const scope = namespace === undefined
    ? "at the cluster scope"
    : `in the namespace "${namespace}"`;
  return `${what} is forbidden: User "system:serviceaccount:default:default" cannot ${verb} resource "${resource.resource}" in API group "${resource.group}" ${scope}`;
}

/** Whether a path is the one a filter names, or one its pattern matches. */
export function matchPath(
  pattern: string | RegExp | undefined,
  path: string,
): boolean {
  if (pattern === undefined) return true;
  if (typeof pattern === "string") {
    return pattern.replace(/\/$/, "") === path.replace(/\/$/, "");
  }
  pattern.lastIndex = 0;
  return pattern.test(path);
}
