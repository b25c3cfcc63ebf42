/**
 * The read verbs: `get` of one object (which may land a pending write after
 * it, see `landAfterNextRead`), and `list` of a collection with selectors,
 * pages and continue tokens, as the API server answers them.
 *
 * @module
 */
import type { Status } from "../../apiclient/types.ts";
import { BUILT_IN_RESOURCES } from "../_store/registry.ts";
import { clone } from "./patch.ts";
import { bothSelectors, fieldSelector, labelSelector } from "./selectors.ts";
import type { Matcher } from "./selectors.ts";
import {
  badRequest,
  expired,
  failure,
  notFound,
  StatusError,
} from "./status.ts";
import { listOptions } from "../_options.ts";
import {
  apiVersionOf,
  json,
  resourceKey,
  storeKey,
} from "../_store/objects.ts";
import type { Route } from "../_http/route.ts";
import type { ServerState } from "../_store/state.ts";
import type { Encoder } from "../_store/metadata.ts";
import type { KubeObject } from "../../apiclient/types.ts";
import { servedVersion, view, viewAll } from "../_http/served.ts";
import type { RegisteredResource } from "../types.ts";

const CONTINUE_EXPIRED =
  "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.";

function encodeContinue(rv: number, start: string): string {
  return btoa(JSON.stringify({ v: "meta.k8s.io/v1", rv, start: `${start}\0` }));
}

function decodeContinue(token: string): { rv: number; start: string } {
  try {
    const decoded = JSON.parse(atob(token));
    if (
      decoded.v !== "meta.k8s.io/v1" || !Number.isInteger(decoded.rv) ||
      decoded.rv === 0 || typeof decoded.start !== "string"
    ) throw new Error("bad token");
    return { rv: decoded.rv, start: decoded.start.replace(/\0$/, "") };
  } catch {
    throw badRequest(
      "continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)",
    );
  }
}

/**
 * The fields a built-in kind's field selectors may name beside
 * `metadata.name` and `metadata.namespace` (its field label conversion in
 * the Kubernetes sources, `pkg/apis/<group>/v1/conversion.go`), and the
 * words of the 400 for another: a kind with a conversion of its own says
 * `field label not supported`, the others the generic refusal.
 */
const FIELD_LABELS: Record<string, readonly string[]> = {
  "/pods": [
    "spec.nodeName",
    "spec.restartPolicy",
    "spec.schedulerName",
    "spec.serviceAccountName",
    "spec.hostNetwork",
    "status.phase",
    "status.podIP",
    "status.podIPs",
    "status.nominatedNodeName",
  ],
  "/nodes": ["spec.unschedulable"],
  "/replicationcontrollers": ["status.replicas"],
  "/events": [
    "involvedObject.kind",
    "involvedObject.namespace",
    "involvedObject.name",
    "involvedObject.uid",
    "involvedObject.apiVersion",
    "involvedObject.resourceVersion",
    "involvedObject.fieldPath",
    "reason",
    "reportingComponent",
    "source",
    "type",
  ],
  "/namespaces": ["status.phase"],
  "/secrets": ["type"],
  "/services": ["spec.clusterIP", "spec.type"],
  "apps/replicasets": ["status.replicas"],
  "batch/jobs": ["status.successful"],
  "certificates.k8s.io/certificatesigningrequests": ["spec.signerName"],
};

function builtInFields(
  resource: RegisteredResource,
):
  | { fields: readonly string[]; refusal?: (field: string) => string }
  | undefined {
  if (!BUILT_IN_RESOURCES.includes(resource)) return undefined;
  const fields = FIELD_LABELS[`${resource.group}/${resource.resource}`];
  if (fields !== undefined) return { fields };
  return {
    fields: [],
    refusal: (field) =>
      `${
        JSON.stringify(field)
      } is not a known field selector: only "metadata.name", "metadata.namespace"`,
  };
}

/**
 * The label and field selectors of a request, as one matcher; a field
 * selector may name `metadata.name`, `metadata.namespace` and the kind's
 * own fields alone: a custom resource's selectable fields, a built-in
 * kind's field labels.
 */
export function selectorOf(
  query: URLSearchParams,
  resource: RegisteredResource,
): Matcher {
  const served = servedVersion(resource)?.selectableFields;
  const builtIn = served === undefined ? builtInFields(resource) : undefined;
  return bothSelectors(
    labelSelector(query.get("labelSelector")),
    fieldSelector(
      query.get("fieldSelector"),
      served ?? builtIn?.fields,
      builtIn?.refusal,
    ),
  );
}

/** GET of one object; then the pending write for its path, if any. */
export function getObject(
  state: ServerState,
  route: Route,
  path: string,
  table?: Encoder,
): Response {
  const { resource, namespace, name } = route;
  const stored = state.store.peek(
    resourceKey(resource),
    storeKey(resource, namespace, name!),
  );
  if (!stored) throw notFound(resource, name!);
  const shown = view(resource, stored);
  const response = json(table ? table.object(shown) : shown);
  const at = state.landings.findIndex((l) =>
    l.path.replace(/\/$/, "") === path.replace(/\/$/, "")
  );
  if (at >= 0) {
    const [landing] = state.landings.splice(at, 1);
    const copy = clone(stored);
    const changed = landing!.mutate?.(copy) ?? copy;
    state.store.write(
      resourceKey(resource),
      storeKey(resource, namespace, name!),
      changed,
    );
  }
  return response;
}

/** GET of a collection: one page of the objects that match. */
export function listObjects(
  state: ServerState,
  resource: RegisteredResource,
  namespace: string | undefined,
  query: URLSearchParams,
  table?: Encoder,
): Response {
  const store = state.store;
  const selected = selectorOf(query, resource);
  const filtered = query.has("labelSelector") || query.has("fieldSelector");
  const options = listOptions(query);
  const limit = Number(query.get("limit") ?? 0);
  let rv = store.rv;
  let start: string | undefined;
  if (options.continue) {
    const decoded = decodeContinue(options.continue);
    if (decoded.rv > 0 && decoded.rv < store.compacted) {
      // The API server answers a token to go on from the newest version.
      const status: Status = failure(410, "Expired", CONTINUE_EXPIRED);
      status.metadata = { continue: encodeContinue(-1, decoded.start) };
      throw new StatusError(status);
    }
    if (decoded.rv > 0) rv = decoded.rv;
    start = decoded.start;
  } else if (options.match === "Exact") {
    const asked = Number(options.resourceVersion);
    if (!Number.isInteger(asked) || asked <= 0) {
      throw badRequest(
        `invalid resource version: ${options.resourceVersion}`,
      );
    }
    if (asked < store.compacted) {
      throw expired("The resourceVersion for the provided list is too old.");
    }
    if (asked < rv) rv = asked;
  }
  const entries = rv === store.rv
    ? store.all(resourceKey(resource))
    : store.snapshot(resourceKey(resource), rv);
  const prefix = namespace === undefined ? undefined : `${namespace}/`;
  const matching = entries.filter(([key, object]) =>
    (prefix === undefined || key.startsWith(prefix)) &&
    (start === undefined || key > start) &&
    selected(object)
  );
  const page = limit > 0 ? matching.slice(0, limit) : matching;
  const metadata: Record<string, unknown> = { resourceVersion: String(rv) };
  // A custom resource's list (unstructured there) always writes continue.
  if (servedVersion(resource) && !table) metadata.continue = "";
  if (page.length < matching.length) {
    metadata.continue = encodeContinue(rv, page[page.length - 1]![0]);
    if (!filtered) {
      metadata.remainingItemCount = matching.length - page.length;
    }
  }
  // The API server's built-in kinds are typed: their list items carry no
  // apiVersion and kind (custom resources' items do).
  const typed = !table && BUILT_IN_RESOURCES.includes(resource);
  const list = {
    kind: resource.listKind,
    apiVersion: apiVersionOf(resource),
    metadata,
    items: typed
      ? page.map(([, object]) => untyped(object))
      : viewAll(resource, page.map(([, object]) => object)),
  };
  return json(table ? table.list(list) : list);
}

/** An object without its `apiVersion` and `kind`, as a typed list holds it. */
function untyped(object: KubeObject): KubeObject {
  const { apiVersion: _a, kind: _k, ...rest } = object;
  return rest as KubeObject;
}
