// Reading reviews: the checks every review gets before a handler sees it.

import { ReviewError } from "./errors.ts";

import { isObject } from "../_internal/json.ts";

/**
 * The `request` of a review, after checking the envelope: an object of
 * `apiVersion` and `kind`, with a `request` object that has a string uid.
 */
export function requestOf(
  body: unknown,
  apiVersion: string,
  kind: string,
): Record<string, unknown> & { uid: string } {
  if (!isObject(body)) {
    throw new ReviewError(`The body is not a ${kind} object`);
  }
  if (body.apiVersion !== apiVersion || body.kind !== kind) {
    throw new ReviewError(
      `Expected a ${kind} of ${apiVersion}, got kind ${
        JSON.stringify(body.kind ?? null)
      } of ${JSON.stringify(body.apiVersion ?? null)}`,
    );
  }
  const request = body.request;
  if (!isObject(request)) {
    throw new ReviewError(`The ${kind} has no request`);
  }
  if (typeof request.uid !== "string" || request.uid === "") {
    throw new ReviewError(`The ${kind} request has no uid`);
  }
  return request as Record<string, unknown> & { uid: string };
}

/** Checks that a field is an object, or absent/null when `optional`. */
export function objectField(
  request: Record<string, unknown>,
  field: string,
  optional: boolean,
): void {
  const value = request[field];
  if (value === undefined || value === null) {
    if (optional) return;
    throw new ReviewError(`The request has no ${field}`);
  }
  if (!isObject(value)) {
    throw new ReviewError(`The request's ${field} is not an object`);
  }
}

/**
 * A deep copy of a JSON value. A JSON round trip: about three times faster
 * than `structuredClone` on a review's object (0.75 s against 2.4 s for a
 * 7 MiB body of empty arrays, measured with the hostile-client suite).
 */
export function copy<T>(value: T): T {
  return value === undefined ? value : JSON.parse(JSON.stringify(value));
}
