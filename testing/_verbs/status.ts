/**
 * Status objects as the API server answers them with an error.
 *
 * @module
 */
import type {
  Status,
  StatusCause,
  StatusDetails,
} from "../../apiclient/types.ts";
import type { RegisteredResource } from "../types.ts";
import { failure } from "../../_internal/status.ts";

export { failure };

/** A failure a handler throws; the router turns it into a Status answer. */
export class StatusError extends Error {
  /** The Status body the server answers. */
  readonly status: Status;
  /** Extra response headers, such as `Retry-After`. */
  readonly headers: Record<string, string>;

  /** Builds the failure from its Status body. */
  constructor(status: Status, headers: Record<string, string> = {}) {
    super(status.message ?? "");
    this.name = "StatusError";
    this.status = status;
    this.headers = headers;
  }
}

/** The reason the API server names for each status code it answers. */
export const REASONS: Readonly<Record<number, string>> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  405: "MethodNotAllowed",
  406: "NotAcceptable",
  409: "Conflict",
  410: "Expired",
  413: "RequestEntityTooLarge",
  415: "UnsupportedMediaType",
  422: "Invalid",
  429: "TooManyRequests",
  500: "InternalError",
  503: "ServiceUnavailable",
  504: "Timeout",
};

/** A generic message for a status code, as the API server words it. */
export function defaultMessage(code: number): string {
  switch (code) {
    case 401:
      return "Unauthorized";
    case 403:
      return "forbidden: the server refused the request";
    case 404:
      return "the server could not find the requested resource";
    case 409:
      return "the server reported a conflict";
    case 410:
      return "the resource version is too old";
    case 429:
      return "Too many requests, please try again later.";
    case 500:
      return "Internal error occurred: the server failed the request";
    case 503:
      return "the server is currently unable to handle the request";
    case 504:
      return "the server was unable to return a response in the time allotted, but may still be processing the request";
    default:
      return `the server responded with the status code ${code}`;
  }
}

/** `configmaps` or `leases.coordination.k8s.io`, as messages name a resource. */
export function qualified(resource: RegisteredResource): string {
  return resource.group === ""
    ? resource.resource
    : `${resource.resource}.${resource.group}`;
}

function details(resource: RegisteredResource, name: string): StatusDetails {
  const out: StatusDetails = { name };
  if (resource.group !== "") out.group = resource.group;
  out.kind = resource.resource;
  return out;
}

/** 404 for an object the store does not hold. */
export function notFound(
  resource: RegisteredResource,
  name: string,
): StatusError {
  return new StatusError(
    failure(
      404,
      "NotFound",
      `${qualified(resource)} "${name}" not found`,
      details(resource, name),
    ),
  );
}

/** 404 for a path the server does not serve. */
export function noSuchResource(): StatusError {
  return new StatusError(
    failure(404, "NotFound", defaultMessage(404), {}),
  );
}

/** 409 for a create of a name that exists. */
export function alreadyExists(
  resource: RegisteredResource,
  name: string,
): StatusError {
  return new StatusError(
    failure(
      409,
      "AlreadyExists",
      `${qualified(resource)} "${name}" already exists`,
      details(resource, name),
    ),
  );
}

/** 409 for a write from a stale resourceVersion. */
export function conflict(
  resource: RegisteredResource,
  name: string,
  why =
    "the object has been modified; please apply your changes to the latest version and try again",
): StatusError {
  return new StatusError(
    failure(
      409,
      "Conflict",
      `Operation cannot be fulfilled on ${
        qualified(resource)
      } "${name}": ${why}`,
      details(resource, name),
    ),
  );
}

/**
 * 409 for a delete whose precondition does not hold, in the API server's
 * words (which name the kind, not the resource).
 */
export function preconditionFailed(
  resource: RegisteredResource,
  name: string,
  field: "UID" | "ResourceVersion",
  wanted: string,
  held: string | undefined,
): StatusError {
  const after = field === "UID" ? "deleted and then recreated" : "modified";
  const d: StatusDetails = { name };
  if (resource.group !== "") d.group = resource.group;
  d.kind = resource.kind;
  return new StatusError(
    failure(
      409,
      "Conflict",
      `Operation cannot be fulfilled on ${resource.kind} "${name}": the ${field} in the precondition (${wanted}) does not match the ${field} in record (${held}). The object might have been ${after}`,
      d,
    ),
  );
}

/** 400 with a message. */
export function badRequest(message: string): StatusError {
  return new StatusError(failure(400, "BadRequest", message));
}

/** 410 Expired with a message. */
export function expired(message: string): StatusError {
  return new StatusError(failure(410, "Expired", message));
}

/** One field error of a 422 Invalid answer. */
export interface FieldError {
  /** The field path, such as `metadata.name`. */
  field: string;
  /** `FieldValueInvalid`, `FieldValueRequired`, `FieldValueForbidden`. */
  reason: string;
  /** The detail, such as `Invalid value: "x": does not match`. */
  message: string;
}

/** 422 Invalid, worded as the API server words validation failures. */
export function invalid(
  kind: string,
  name: string,
  errors: readonly FieldError[],
  group = "",
): StatusError {
  const causes: StatusCause[] = errors.map((e) => ({
    reason: e.reason,
    message: e.message,
    field: e.field,
  }));
  const text = errors.map((e) => `${e.field}: ${e.message}`);
  const summary = text.length === 1 ? text[0] : `[${text.join(", ")}]`;
  const qualifiedKind = group === "" ? kind : `${kind}.${group}`;
  // The API server leaves out an empty name.
  const d: StatusDetails = name === "" ? {} : { name };
  if (group !== "") d.group = group;
  d.kind = kind;
  d.causes = causes;
  return new StatusError(
    failure(
      422,
      "Invalid",
      `${qualifiedKind} "${name}" is invalid: ${summary}`,
      d,
    ),
  );
}

/** The JSON response of a Status (failure or success). */
export function statusResponse(
  status: Status,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify(status), {
    status: status.code ?? 500,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** 405 for a verb the path does not allow. */
export function methodNotAllowed(): StatusError {
  return new StatusError(
    failure(
      405,
      "MethodNotAllowed",
      "the server does not allow this method on the requested resource",
      {},
    ),
  );
}
