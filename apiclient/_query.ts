// The query strings and bodies of requests, built from their options in one
// place: the path-based calls of Client and the ResourceClient handle both
// send through these.
import type {
  DeleteOptions,
  ListOptions,
  PatchOptions,
  RequestOptions,
  ResourceWatchOptions,
  WriteOptions,
} from "./options.ts";

/** Query parameters in the order they are sent; absent or empty ones are left out. */
type Params = Record<string, string | undefined>;

/** `path` with the parameters that have a value appended as its query. */
export function withQuery(path: string, params: Params): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== "") query.set(name, value);
  }
  if (query.size === 0) return path;
  return `${path}${path.includes("?") ? "&" : "?"}${query}`;
}

/**
 * The query of a list: the order the informer has always sent (versions,
 * page, then selectors), so a list through the handle is the same request.
 */
export function listPath(path: string, options: ListOptions): string {
  return withQuery(path, {
    resourceVersion: options.resourceVersion,
    resourceVersionMatch: options.resourceVersionMatch,
    limit: count(options.limit, "page limit", 1),
    continue: options.continue,
    labelSelector: options.labelSelector,
    fieldSelector: options.fieldSelector,
  });
}

/**
 * The query of a watch (`watch=true`, as client-go and the informer send
 * it), its parameters in the informer's order.
 */
export function watchPath(path: string, options: ResourceWatchOptions): string {
  return withQuery(path, {
    watch: "true",
    sendInitialEvents: flag(options.sendInitialEvents),
    resourceVersionMatch: options.resourceVersionMatch,
    resourceVersion: options.resourceVersion,
    allowWatchBookmarks: flag(options.allowWatchBookmarks),
    timeoutSeconds: count(options.timeoutSeconds, "watch timeout", 0),
    labelSelector: options.labelSelector,
    fieldSelector: options.fieldSelector,
  });
}

/** The query every write shares: field manager, force, dry run, validation. */
function writeParams(
  options: WriteOptions & { force?: boolean | undefined },
): Params {
  return {
    fieldManager: options.fieldManager,
    force: options.force ? "true" : undefined,
    dryRun: options.dryRun,
    fieldValidation: options.fieldValidation,
  };
}

/** The URL and options of a POST or PUT of `body`. */
export function writeRequest(
  path: string,
  body: unknown,
  options: WriteOptions,
): { url: string; request: RequestOptions } {
  const request: RequestOptions = { body };
  if (options.signal) request.signal = options.signal;
  return { url: withQuery(path, writeParams(options)), request };
}

const PATCH_TYPES: Record<PatchOptions["type"], string> = {
  merge: "application/merge-patch+json",
  json: "application/json-patch+json",
  apply: "application/apply-patch+yaml",
  strategic: "application/strategic-merge-patch+json",
};

/** The URL and options of a PATCH in one of the API server's dialects. */
export function patchRequest(
  path: string,
  patch: unknown,
  options: PatchOptions,
): { url: string; request: RequestOptions } {
  const request: RequestOptions = {
    body: options.type === "apply" ? JSON.stringify(patch) : patch,
    contentType: PATCH_TYPES[options.type],
  };
  if (options.signal) request.signal = options.signal;
  return { url: withQuery(path, writeParams(options)), request };
}

/**
 * The options of a DELETE: its `DeleteOptions` body, which the API server
 * reads in place of the query when there is one (client-go sends the body).
 */
export function deleteRequest(options: DeleteOptions): RequestOptions {
  const { preconditions, propagationPolicy, dryRun } = options;
  const fields: Record<string, unknown> = {};
  if (preconditions !== undefined) {
    const stated: Record<string, string> = {};
    if (preconditions.uid) stated.uid = preconditions.uid;
    if (preconditions.resourceVersion) {
      stated.resourceVersion = preconditions.resourceVersion;
    }
    fields.preconditions = stated;
  }
  if (propagationPolicy !== undefined) {
    fields.propagationPolicy = propagationPolicy;
  }
  const grace = count(options.gracePeriodSeconds, "grace period", 0);
  if (grace !== undefined) fields.gracePeriodSeconds = Number(grace);
  if (dryRun !== undefined) fields.dryRun = [dryRun];
  const request: RequestOptions = {};
  if (options.signal) request.signal = options.signal;
  const stated = Object.keys(fields).length > 0;
  if (stated && options.body !== undefined) {
    throw new TypeError(
      "A delete takes either a body or its options (preconditions, propagationPolicy, gracePeriodSeconds, dryRun), not both",
    );
  }
  if (stated) {
    request.body = { kind: "DeleteOptions", apiVersion: "v1", ...fields };
  } else if (options.body !== undefined) request.body = options.body;
  return request;
}

function flag(value: boolean | undefined): string | undefined {
  return value === undefined ? undefined : String(value);
}

/** A whole number of at least `least` as a parameter, or a RangeError naming it. */
function count(
  value: number | undefined,
  what: string,
  least: number,
): string | undefined {
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || value < least) {
    throw new RangeError(
      `The ${what} must be a whole number of at least ${least}: ${value}`,
    );
  }
  return String(value);
}
