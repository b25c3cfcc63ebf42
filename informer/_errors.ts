// How the reflector reads a failure: which ones mean "list again", which
// "back off and retry", and which "the watch is forbidden".
import {
  ApiError,
  MalformedResponseError,
  retryAfterSeconds,
} from "../apiclient/errors.ts";
import type { Status } from "../apiclient/types.ts";
import { excerpt } from "../_internal/redact.ts";

/** The HTTP status of an API error, or 0 for anything else. */
export function statusOf(error: unknown): number {
  return error instanceof ApiError ? error.status : 0;
}

/**
 * A 410: the version asked for is older than the server's history (a watch
 * from a compacted version, or an expired continue token).
 */
export function isExpired(error: unknown): boolean {
  if (!(error instanceof ApiError)) return false;
  return error.status === 410 || error.reason === "Expired" ||
    error.reason === "Gone";
}

/**
 * The server has not caught up with the version asked for (its cache waits a
 * few seconds, then gives up with a 504 that names the cause).
 */
export function isTooLargeVersion(error: unknown): boolean {
  if (!(error instanceof ApiError)) return false;
  const status = error.statusObject;
  const causes = status?.details?.causes ?? [];
  if (causes.some((c) => c.reason === "ResourceVersionTooLarge")) return true;
  if (error.status !== 504 && error.reason !== "Timeout") return false;
  return causes.some((c) => c.message === "Too large resource version") ||
    (status?.message ?? "").includes("Too large resource version");
}

/** A 401 or a 403: the server refuses this client the watch. */
export function isForbidden(error: unknown): boolean {
  const status = statusOf(error);
  return status === 401 || status === 403;
}

/**
 * A failure that says nothing about the request itself: no answer (refused
 * connection, reset, timeout, idle stream), a 429, or a 5xx. The same request
 * may succeed after a wait.
 */
export function isTransient(error: unknown): boolean {
  if (error instanceof MalformedResponseError) return false;
  if (!(error instanceof ApiError)) return true;
  return error.status === 0 || error.status === 429 || error.status >= 500;
}

/**
 * The wait in milliseconds the server asked for, or 0; never more than
 * 60 s, whatever the server said (`retryAfterSeconds` bounds it).
 */
export function retryAfterMs(error: unknown): number {
  // Bounded by the client (Retry-After or the Status's retryAfterSeconds).
  const seconds = retryAfterSeconds(error);
  if (!Number.isFinite(seconds) || seconds <= 0) return 0;
  return seconds * 1000;
}

/** The error an ERROR event of a watch stands for. */
export function eventError(status: Status, path: string): ApiError {
  const code = typeof status.code === "number" ? status.code : 500;
  // A server may send anything in a Status: show text, never [object Object].
  const message = typeof status.message === "string"
    ? status.message
    : status.message === undefined
    ? ""
    : JSON.stringify(status.message);
  // Cut as the client cuts an error body: a Status may be megabytes long.
  return new ApiError(
    `GET ${path}: watch ended with ${code}: ${
      excerpt(message, undefined, 2048)
    }`.trimEnd(),
    { method: "GET", path, status: code, statusObject: status },
  );
}
