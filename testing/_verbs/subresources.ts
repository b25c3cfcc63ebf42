/**
 * Subresources of built-in kinds that are actions rather than views:
 * `pods/binding` (the scheduler's bind), `pods/eviction` (a delete through
 * the eviction API) and `serviceaccounts/token` (a TokenRequest). Each is
 * a POST answered as kube-apiserver answers it (recorded in
 * `builtin-subresources`).
 *
 * @module
 */
import { rfc3339 } from "../../_internal/time.ts";
import type { KubeObject } from "../../apiclient/types.ts";
import { clone } from "./patch.ts";
import { isObject, json, resourceKey, storeKey } from "../_store/objects.ts";
import type { Route } from "../_http/route.ts";
import type { ServerState } from "../_store/state.ts";
import {
  badRequest,
  failure,
  methodNotAllowed,
  notFound,
  StatusError,
} from "./status.ts";
import { evict } from "./eviction.ts";

/** The subresources this module answers. */
export const ACTIONS: ReadonlySet<string> = new Set([
  "binding",
  "eviction",
  "token",
]);

/** A `Status` of success with `code`, as the API server answers a bind. */
function success(code: number): Response {
  return json(
    { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code },
    code,
  );
}

/** Answers a request to `pods/binding`, `pods/eviction` or `serviceaccounts/token`. */
export function actOn(
  state: ServerState,
  route: Route,
  method: string,
  body: unknown,
  query: URLSearchParams = new URLSearchParams(),
): Response {
  if (method !== "POST") throw methodNotAllowed();
  const { resource, namespace } = route;
  const name = route.name!;
  const rkey = resourceKey(resource);
  const key = storeKey(resource, namespace, name);
  const existing = state.store.peek(rkey, key);
  if (!existing) throw notFound(resource, name);
  const sent = isObject(body) ? body : {};
  switch (route.subresource) {
    case "binding":
      return bind(state, rkey, key, existing, sent);
    case "eviction":
      evict(state, route, existing, sent, query);
      return success(201);
    default:
      return token(existing, sent);
  }
}

/** Sets the Pod's node once, with its PodScheduled condition. */
function bind(
  state: ServerState,
  rkey: string,
  key: string,
  pod: KubeObject,
  sent: Record<string, unknown>,
): Response {
  const target = isObject(sent.target) ? sent.target : {};
  const node = typeof target.name === "string" ? target.name : "";
  if (node === "") throw badRequest("Binding target must have a name");
  const name = pod.metadata.name!;
  const next = clone(pod) as KubeObject & {
    spec?: Record<string, unknown>;
    status?: Record<string, unknown>;
  };
  const spec = next.spec ??= {};
  if (typeof spec.nodeName === "string" && spec.nodeName !== "") {
    throw new StatusError(failure(
      409,
      "Conflict",
      `Operation cannot be fulfilled on pods/binding "${name}": pod ${name} is already assigned to node ${
        JSON.stringify(spec.nodeName)
      }`,
      { name, kind: "pods/binding" },
    ));
  }
  spec.nodeName = node;
  const status = next.status ??= {};
  const conditions = Array.isArray(status.conditions)
    ? status.conditions.filter((c) =>
      !(isObject(c) && c.type === "PodScheduled")
    )
    : [];
  conditions.push({
    type: "PodScheduled",
    status: "True",
    lastProbeTime: null,
    lastTransitionTime: rfc3339(),
  });
  // The condition goes before the QoS class, as the Go struct orders them.
  const { qosClass, ...rest } = status;
  next.status = { ...rest, conditions, ...(qosClass ? { qosClass } : {}) };
  state.store.write(rkey, key, next);
  return success(201);
}

function base64url(value: unknown): string {
  return btoa(JSON.stringify(value)).replaceAll("+", "-").replaceAll("/", "_")
    .replace(/=+$/, "");
}

/**
 * A TokenRequest's answer: a JWT-shaped token with the claims a
 * ServiceAccount token carries, not signed by any key (the fake checks no
 * token).
 */
function token(account: KubeObject, sent: Record<string, unknown>): Response {
  const spec = isObject(sent.spec) ? sent.spec : {};
  const audiences = Array.isArray(spec.audiences) && spec.audiences.length > 0
    ? spec.audiences
    : ["https://kubernetes.default.svc.cluster.local"];
  const seconds = typeof spec.expirationSeconds === "number"
    ? spec.expirationSeconds
    : 3600;
  const now = Math.floor(Date.now() / 1000);
  const { name, namespace, uid } = account.metadata;
  const claims = {
    aud: audiences,
    exp: now + seconds,
    iat: now,
    iss: "https://kubernetes.default.svc.cluster.local",
    sub: `system:serviceaccount:${namespace}:${name}`,
    "kubernetes.io": { namespace, serviceaccount: { name, uid } },
  };
  const jwt = `${base64url({ alg: "RS256", kid: "fake" })}.${
    base64url(claims)
  }.fake`;
  return json({
    kind: "TokenRequest",
    apiVersion: "authentication.k8s.io/v1",
    metadata: { name, namespace, creationTimestamp: null },
    spec: {
      audiences,
      expirationSeconds: seconds,
      boundObjectRef: spec.boundObjectRef ?? null,
    },
    status: {
      token: jwt,
      expirationTimestamp: rfc3339((now + seconds) * 1000),
    },
  }, 201);
}
