/**
 * The `scale` subresource of a custom resource, as the apiextensions
 * server serves it: an autoscaling/v1 `Scale` read from the object's
 * `specReplicasPath`, `statusReplicasPath` and `labelSelectorPath`, and a
 * write of one (PUT, or a merge or JSON patch of it) written back to the
 * object's `specReplicasPath` as an update through `/scale`.
 *
 * @module
 */
import type { KubeObject } from "../../apiclient/types.ts";
import { clone, jsonPatch, mergePatch } from "./patch.ts";
import {
  badRequest,
  conflict,
  failure,
  invalid,
  notFound,
  StatusError,
} from "./status.ts";
import { isObject, json, resourceKey, storeKey } from "../_store/objects.ts";
import type { Route } from "../_http/route.ts";
import { type ScaleSubresource, servedVersion, view } from "../_http/served.ts";
import type { ServerState } from "../_store/state.ts";
import { commitObject } from "./update.ts";

/** What a request to `/scale` brings. */
export interface ScaleRequest {
  /** The method, upper-cased. */
  method: string;
  /** The body's text. */
  text: string;
  /** The body, parsed. */
  body: unknown;
  /** The `Content-Type` of the body. */
  contentType: string;
  /** The query. */
  query: URLSearchParams;
}

/**
 * Where the built-in kinds with a `scale` subresource (Deployments,
 * ReplicaSets, StatefulSets, ReplicationControllers) keep their replicas;
 * their selector is `spec.selector`, shown in its string form.
 */
const BUILT_IN_SCALE: ScaleSubresource = Object.freeze({
  specReplicasPath: ".spec.replicas",
  statusReplicasPath: ".status.replicas",
  labelSelectorPath: ".spec.selector",
});

/** Answers GET, PUT and PATCH of an object's `/scale`. */
export function scaleObject(
  state: ServerState,
  route: Route,
  request: ScaleRequest,
): Response {
  const { resource, namespace } = route;
  const name = route.name!;
  const paths = servedVersion(resource)?.scale ?? BUILT_IN_SCALE;
  const existing = view(
    resource,
    state.store.peek(
      resourceKey(resource),
      storeKey(resource, namespace, name),
    ),
  );
  if (!existing) throw notFound(resource, name);
  const current = scaleOf(existing, paths);
  if (request.method === "GET") return json(current);
  if (request.method !== "PUT" && request.method !== "PATCH") {
    throw new StatusError(
      failure(
        405,
        "MethodNotAllowed",
        "the server does not allow this method on the requested resource",
      ),
    );
  }
  const sent = request.method === "PUT"
    ? request.body
    : patched(current, request.text, request.contentType);
  const replicas = replicasOf(sent, name);
  const version = (sent as { metadata?: { resourceVersion?: unknown } })
    .metadata?.resourceVersion;
  if (
    typeof version === "string" && version !== "" &&
    version !== existing.metadata.resourceVersion
  ) throw conflict(resource, name);
  const next = clone(existing);
  setAt(next, paths.specReplicasPath, replicas);
  const written = commitObject(state, route, {
    name,
    existing,
    sent: next,
    subresource: "scale",
    query: request.query,
  });
  return json(scaleOf(written, paths));
}

/** The Scale of an object. */
function scaleOf(object: KubeObject, paths: ScaleSubresource): unknown {
  const spec = valueAt(object, paths.specReplicasPath);
  if (typeof spec !== "number") {
    const message = `the spec replicas field ${
      JSON.stringify(paths.specReplicasPath)
    } does not exist`;
    throw new StatusError(
      failure(500, "InternalError", `Internal error occurred: ${message}`, {
        causes: [{ message }],
      }),
    );
  }
  const status: Record<string, unknown> = {
    replicas: valueAt(object, paths.statusReplicasPath) ?? 0,
  };
  if (paths.labelSelectorPath !== undefined) {
    const selector = valueAt(object, paths.labelSelectorPath);
    if (typeof selector === "string") status.selector = selector;
    else if (isObject(selector)) status.selector = selectorText(selector);
  }
  const { name, namespace, uid, resourceVersion, creationTimestamp } =
    object.metadata;
  const metadata: Record<string, unknown> = { name };
  if (namespace !== undefined) metadata.namespace = namespace;
  Object.assign(metadata, { uid, resourceVersion, creationTimestamp });
  return {
    kind: "Scale",
    apiVersion: "autoscaling/v1",
    metadata,
    spec: { replicas: spec },
    status,
  };
}

/**
 * A `LabelSelector` in its string form, requirements sorted by key, as
 * apimachinery prints it (a ReplicationController's selector is a map).
 */
export function selectorText(selector: Record<string, unknown>): string {
  const parts: [string, string][] = [];
  const labels = isObject(selector.matchLabels)
    ? selector.matchLabels
    : "matchExpressions" in selector
    ? {}
    : selector;
  for (const [key, value] of Object.entries(labels)) {
    parts.push([key, `${key}=${value}`]);
  }
  const expressions = Array.isArray(selector.matchExpressions)
    ? selector.matchExpressions
    : [];
  for (const e of expressions) {
    if (!isObject(e) || typeof e.key !== "string") continue;
    const values = Array.isArray(e.values) ? [...e.values].sort() : [];
    const text = e.operator === "In"
      ? `${e.key} in (${values.join(",")})`
      : e.operator === "NotIn"
      ? `${e.key} notin (${values.join(",")})`
      : e.operator === "DoesNotExist"
      ? `!${e.key}`
      : e.key;
    parts.push([e.key, text]);
  }
  return parts.sort((a, b) => a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)
    .map(([, text]) => text).join(",");
}

/** A patch of the Scale: JSON patch, else merged (strategic and apply as merge). */
function patched(current: unknown, text: string, type: string): unknown {
  let patch: unknown;
  try {
    patch = JSON.parse(text);
  } catch (error) {
    throw badRequest(`error decoding patch: ${(error as Error).message}`);
  }
  return type === "application/json-patch+json"
    ? jsonPatch(current, patch)
    : mergePatch(current, patch);
}

/** The replicas a Scale asks for; 422 for a negative or missing count. */
function replicasOf(scale: unknown, name: string): number {
  const replicas = isObject(scale) && isObject(scale.spec)
    ? scale.spec.replicas ?? 0
    : 0;
  if (!Number.isInteger(replicas) || (replicas as number) < 0) {
    throw invalid("Scale", name, [{
      field: "spec.replicas",
      reason: "FieldValueInvalid",
      message: `Invalid value: ${
        JSON.stringify(replicas)
      }: must be greater than or equal to 0`,
    }], "autoscaling");
  }
  return replicas as number;
}

/** The value at a simple JSONPath such as `.spec.replicas`. */
function valueAt(object: unknown, path: string): unknown {
  let at: unknown = object;
  for (const part of path.replace(/^\./, "").split(".")) {
    if (!isObject(at)) return undefined;
    at = at[part];
  }
  return at;
}

/** Sets the value at a simple JSONPath, making the objects on the way. */
function setAt(object: unknown, path: string, value: unknown): void {
  const parts = path.replace(/^\./, "").split(".");
  let at = object as Record<string, unknown>;
  for (const part of parts.slice(0, -1)) {
    if (!isObject(at[part])) at[part] = {};
    at = at[part] as Record<string, unknown>;
  }
  at[parts[parts.length - 1]!] = value;
}
