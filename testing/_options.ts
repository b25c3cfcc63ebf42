/**
 * The query parameters of a list or a watch, read and checked the way the
 * API server's `ListOptions` validation does (with the WatchList feature on,
 * as in v1.32), so a client that sends a combination the server refuses is
 * refused here too, with the same 422.
 *
 * @module
 */
import { type FieldError, invalid } from "./_verbs/status.ts";

/** What a list or watch request asked for. */
export interface ListOptions {
  /** Whether it is a watch. */
  watch: boolean;
  /** `resourceVersion`, `""` when absent. */
  resourceVersion: string;
  /** `resourceVersionMatch`, `""` when absent. */
  match: string;
  /** `sendInitialEvents`; `undefined` when absent (which differs from false). */
  sendInitialEvents: boolean | undefined;
  /** `allowWatchBookmarks`. */
  bookmarks: boolean;
  /** `continue`, `""` when absent. */
  continue: string;
}

/**
 * A boolean query parameter, converted as the API server converts one:
 * absent is `undefined`; `0` and `false` (any case) are false; any other
 * value, even an empty one, is true.
 */
export function flag(
  query: URLSearchParams,
  name: string,
): boolean | undefined {
  const text = query.get(name);
  if (text === null) return undefined;
  return text !== "0" && text.toLowerCase() !== "false";
}

function forbidden(field: string, detail: string): FieldError {
  return {
    field,
    reason: "FieldValueForbidden",
    message: `Forbidden: ${detail}`,
  };
}

function notSupported(value: string, supported: string[]): FieldError {
  return {
    field: "resourceVersionMatch",
    reason: "FieldValueNotSupported",
    message: `Unsupported value: "${value}": supported values: ${
      supported.map((s) => `"${s}"`).join(", ")
    }`,
  };
}

/** Reads the options of a list or watch; throws the server's 422 on a bad mix. */
export function listOptions(query: URLSearchParams): ListOptions {
  const options: ListOptions = {
    watch: flag(query, "watch") ?? false,
    resourceVersion: query.get("resourceVersion") ?? "",
    match: query.get("resourceVersionMatch") ?? "",
    sendInitialEvents: flag(query, "sendInitialEvents"),
    bookmarks: flag(query, "allowWatchBookmarks") ?? false,
    continue: query.get("continue") ?? "",
  };
  const errors = options.watch ? watchErrors(options) : listErrors(options);
  if (errors.length > 0) {
    throw invalid("ListOptions", "", errors, "meta.k8s.io");
  }
  return options;
}

function listErrors(options: ListOptions): FieldError[] {
  const errors: FieldError[] = [];
  const { match, resourceVersion } = options;
  if (match !== "") {
    if (resourceVersion === "") {
      errors.push(forbidden(
        "resourceVersionMatch",
        "resourceVersionMatch is forbidden unless resourceVersion is provided",
      ));
    }
    if (options.continue !== "") {
      errors.push(forbidden(
        "resourceVersionMatch",
        "resourceVersionMatch is forbidden when continue is provided",
      ));
    }
    if (match !== "Exact" && match !== "NotOlderThan") {
      errors.push(notSupported(match, ["Exact", "NotOlderThan", ""]));
    }
    if (match === "Exact" && resourceVersion === "0") {
      errors.push(forbidden(
        "resourceVersionMatch",
        'resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
      ));
    }
  }
  if (options.sendInitialEvents !== undefined) {
    errors.push(forbidden(
      "sendInitialEvents",
      "sendInitialEvents is forbidden for list",
    ));
  }
  return errors;
}

function watchErrors(options: ListOptions): FieldError[] {
  const errors: FieldError[] = [];
  const { match } = options;
  if (options.sendInitialEvents !== undefined && match !== "NotOlderThan") {
    errors.push(forbidden(
      "resourceVersionMatch",
      "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
    ));
  }
  if (match !== "") {
    if (options.sendInitialEvents === undefined) {
      errors.push(forbidden(
        "resourceVersionMatch",
        "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
      ));
    }
    if (match !== "NotOlderThan") {
      errors.push(notSupported(match, ["NotOlderThan"]));
    }
    if (options.continue !== "") {
      errors.push(forbidden(
        "resourceVersionMatch",
        "resourceVersionMatch is forbidden when continue is provided",
      ));
    }
  }
  return errors;
}
