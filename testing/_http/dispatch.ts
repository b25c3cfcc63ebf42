/**
 * Dispatch: what a request is (recorded as the server received it), which
 * verb answers it, and the Status a failure becomes.
 *
 * @module
 */
import { PatchError } from "../_verbs/patch.ts";
import {
  failure,
  invalid,
  methodNotAllowed,
  noSuchResource,
  notFound,
  StatusError,
  statusResponse,
} from "../_verbs/status.ts";
import { discoveryResponse } from "../_builtins/discovery.ts";
import { flag, listOptions } from "../_options.ts";
import { TableEncoder } from "../_tables/table.ts";
import { type Encoder, MetadataEncoder } from "../_store/metadata.ts";
import { negotiateAs } from "./negotiation.ts";
import { parseRoute } from "./route.ts";
import { getObject, listObjects } from "../_verbs/reads.ts";
import { createObject } from "../_verbs/create.ts";
import { patchObject, updateObject } from "../_verbs/update.ts";
import { deleteCollection, deleteObject } from "../_verbs/delete.ts";
import { watchObjects } from "../_watch/watch.ts";
import type { ServerState } from "../_store/state.ts";
import { servedVersion } from "./served.ts";
import { startPass } from "../_crds/conversion_round.ts";
import { scaleObject } from "../_verbs/scale.ts";
import { hasSubresource } from "../_store/registry.ts";
import { ACTIONS, actOn } from "../_verbs/subresources.ts";
import type { RecordedRequest } from "../types.ts";
import {
  isProtobuf,
  PROTOBUF,
  protobufRefusal,
  protobufText,
} from "../_protobuf/body.ts";

/** A request as the server reads it. */
export interface Received {
  /** The method, upper-cased. */
  method: string;
  /** The URL. */
  url: URL;
  /** The body's text; `""` for GET and HEAD. */
  text: string;
  /** The body, parsed as JSON when it is JSON. */
  body: unknown;
  /** Its entry in the state's requests. */
  recorded: RecordedRequest;
}

/** Reads a request and records it in the state's requests. */
export async function receive(
  state: ServerState,
  request: Request,
): Promise<Received> {
  const url = new URL(request.url);
  const method = request.method.toUpperCase();
  const text = method === "GET" || method === "HEAD"
    ? ""
    : isProtobuf(request.headers.get("content-type"))
    ? await protobufText(request)
    : await request.text();
  let body: unknown = undefined;
  if (text !== "") {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  const recorded: RecordedRequest = {
    method,
    path: url.pathname,
    query: url.searchParams,
    time: Date.now(),
  };
  if (body !== undefined) recorded.body = body;
  state.requests.push(recorded);
  return { method, url, text, body, recorded };
}

/**
 * The Status answer of what a verb threw: its own Status, 422 for a patch
 * that cannot apply, else 500. Rethrows when the client went away.
 */
export function failureResponse(error: unknown, request: Request): Response {
  if (error instanceof StatusError) {
    return statusResponse(error.status, error.headers);
  }
  if (error instanceof PatchError) {
    return statusResponse(
      failure(
        422,
        "Invalid",
        // kube-apiserver says no more (its details are empty).
        "the server rejected our request due to an error in our request",
        {},
      ),
    );
  }
  if (request.signal.aborted) throw error;
  return statusResponse(
    failure(
      500,
      "InternalError",
      `Internal error occurred: ${(error as Error)?.message ?? error}`,
    ),
  );
}

/**
 * Answers a request to the API: discovery, or a verb on a resource, as the
 * path and the method name it.
 */
export function route(
  state: ServerState,
  method: string,
  url: URL,
  text: string,
  body: unknown,
  request: Request,
): Response {
  startPass();
  const path = url.pathname;
  const discovered = discoveryResponse(path, state.resources);
  if (discovered) return discovered;
  if (!path.startsWith("/api/") && !path.startsWith("/apis/")) {
    return new Response("404 page not found\n", {
      status: 404,
      headers: { "content-type": "text/plain; charset=utf-8" },
    });
  }
  const parsed = parseRoute(state.resources, path);
  // A CertificateSigningRequest's approval is written as its status is:
  // its conditions change, nothing else.
  const route = parsed?.subresource === "approval" &&
      hasSubresource(parsed.resource, "approval")
    ? { ...parsed, subresource: "status" }
    : parsed;
  if (!route) {
    if (unservedGroup(state, path)) {
      // No handler has the group: the API server's plain 404.
      return new Response("404 page not found\n", {
        status: 404,
        headers: { "content-type": "text/plain; charset=utf-8" },
      });
    }
    throw noSuchResource();
  }
  const { resource, namespace, name, subresource } = route;
  const served = servedVersion(resource);
  // A deprecated version of a custom resource warns on every request.
  if (served?.warning !== undefined) state.warnings.push(served.warning);
  if (served !== undefined && subresource !== undefined) {
    // The apiextensions server answers an object that is not found for a
    // subresource the version does not have.
    const known = subresource === "status"
      ? resource.statusSubresource
      : subresource === "scale" && served.scale !== undefined;
    if (!known) throw notFound(resource, name ?? "");
  } else if (
    subresource !== undefined && subresource !== "status" &&
    !((subresource === "scale" || ACTIONS.has(subresource)) &&
      hasSubresource(resource, subresource))
  ) {
    throw noSuchResource();
  }
  if (subresource === "status" && !resource.statusSubresource) {
    throw noSuchResource();
  }
  const query = url.searchParams;
  const contentType = (request.headers.get("content-type") ?? "").split(";")[0]!
    .trim().toLowerCase();
  if (
    (method === "POST" || method === "PUT" || method === "DELETE") &&
    contentType === PROTOBUF
  ) {
    // controller-runtime's typed clients send protobuf for built-in kinds;
    // a body the fake could not read says plainly what to send instead.
    const refusal = protobufRefusal(request);
    if (refusal !== undefined) throw refusal;
  }
  // The API server names the manager of a write by fieldManager, else by
  // the client's user agent.
  state.manager = query.get("fieldManager") ??
    (request.headers.get("user-agent") ?? "unknown").split("/")[0]!;
  const dryRun = query.getAll("dryRun");
  const options = OPTIONS_KINDS[method];
  if (options !== undefined && dryRun.some((value) => value !== "All")) {
    throw invalid(options, "", [{
      field: "dryRun",
      reason: "FieldValueNotSupported",
      message: `Unsupported value: ${
        JSON.stringify(dryRun).replaceAll(",", " ")
      }: supported values: "All"`,
    }], "meta.k8s.io");
  }
  if (subresource !== undefined && ACTIONS.has(subresource)) {
    return actOn(state, route, method, body, query);
  }
  if (subresource === "scale") {
    return scaleObject(state, route, {
      method,
      text,
      body,
      contentType: (request.headers.get("content-type") ?? "").split(";")[0]!
        .trim().toLowerCase(),
      query,
    });
  }
  switch (method) {
    case "GET": {
      // kubectl get asks for a Table (as=Table in Accept) to print; a
      // metadata client asks for PartialObjectMetadata(List).
      const accept = request.headers.get("accept");
      const watching = flag(query, "watch") ?? false;
      const conversion = negotiateAs(accept, [
        "Table",
        name === undefined && !watching
          ? "PartialObjectMetadataList"
          : "PartialObjectMetadata",
      ]);
      const table: Encoder | undefined = conversion === undefined
        ? undefined
        : conversion.as === "Table"
        ? TableEncoder.negotiate(resource, { accept, query })
        : new MetadataEncoder(conversion.apiVersion);
      if (watching) {
        const options = listOptions(query);
        return watchObjects(
          state,
          route,
          query,
          options,
          request.signal,
          table,
        );
      }
      return name === undefined
        ? listObjects(state, resource, namespace, query, table)
        : getObject(state, route, path, table);
    }
    case "POST":
      if (name !== undefined) throw methodNotAllowed();
      if (resource.namespaced && namespace === undefined) {
        throw noSuchResource();
      }
      return createObject(state, resource, namespace, body, query);
    case "PUT":
      if (name === undefined) throw methodNotAllowed();
      return updateObject(state, route, name, body, query);
    case "PATCH":
      if (name === undefined) throw methodNotAllowed();
      return patchObject(state, route, name, text, request, query);
    case "DELETE":
      return name === undefined
        ? deleteCollection(state, resource, namespace, query, body)
        : deleteObject(state, route, name, body, query);
    default:
      throw methodNotAllowed();
  }
}

/**
 * Whether a path names a group and version that only
 * CustomResourceDefinitions serve (or none), whose handler passes what it
 * does not know to the API server's plain 404.
 */
function unservedGroup(state: ServerState, path: string): boolean {
  const [root, group, version] = path.split("/").slice(1);
  if (root !== "apis" || !group || !version) return false;
  return state.resources.every((r) =>
    r.group !== group || r.version !== version || servedVersion(r) !== undefined
  );
}

/** The options kind the API server validates `dryRun` as, by method. */
const OPTIONS_KINDS: Readonly<Record<string, string>> = {
  POST: "CreateOptions",
  PUT: "UpdateOptions",
  PATCH: "PatchOptions",
  DELETE: "DeleteOptions",
};
