// One request as the caller sees it: sent (waiting out 429s) and decoded, or
// a watch opened, with its final outcome told to the client's observer.
import type { KubeObject } from "./types.ts";
import { MalformedResponseError } from "./errors.ts";
import type {
  Outcome,
  PatchOptions,
  RequestOptions,
  WatchOptions,
} from "./options.ts";
import { WatchStream } from "./watch.ts";
import { redact } from "./_decode.ts";
import { send } from "./_throttle.ts";
import {
  type Answer,
  type Bound,
  open,
  type SendOptions,
  type Shared,
  streamSignal,
} from "./_transport.ts";
import { MAX_TIMER } from "../_internal/sleep.ts";

/**
 * What a request's answer must be: any JSON (`json`), bytes, a JSON object
 * (`object`: an object's or a list's methods), or an object or nothing
 * (`object?`: a delete, whose answer may be empty).
 */
export type Mode = "json" | "bytes" | "object" | "object?";

/** Sends one request and answers its decoded body; the observer hears it. */
export async function request(
  shared: Shared,
  bound: Bound,
  method: string,
  path: string,
  options: SendOptions,
  mode: Mode,
): Promise<unknown> {
  // The status of the last answer, which the observer hears even when the
  // body then fails (malformed, cut off, timed out): the server answered.
  const answer = { status: 0 };
  const started = Date.now();
  let value: unknown;
  try {
    value = await send(
      shared,
      bound,
      method,
      path,
      options,
      mode === "bytes" ? "bytes" : "json",
      answer,
    );
    if (mode === "object" || (mode === "object?" && value !== undefined)) {
      checkObject(value, method, path);
    }
  } catch (error) {
    const duration = Date.now() - started;
    observe(bound, { method, path, status: answer.status, error, duration });
    throw error;
  }
  observe(bound, {
    method,
    path,
    status: answer.status,
    duration: Date.now() - started,
  });
  return value;
}

/** Tells the client's observer an outcome; an observer's failure is dropped. */
export function observe(bound: Bound, outcome: Outcome): void {
  const observer = bound.observer;
  if (!observer) return;
  try {
    observer(outcome);
  } catch {
    // An observer's failure must not change the request's answer.
  }
}

/**
 * Opens a watch: its answer's headers within the request timeout, without
 * waiting out a 429; the observer hears it.
 */
export async function openWatch<T extends KubeObject>(
  shared: Shared,
  bound: Bound,
  path: string,
  options: WatchOptions,
): Promise<WatchStream<T>> {
  const idleTimeout = idleLimit(options.idleTimeout);
  const maxLine = options.maxLineLength;
  if (maxLine !== undefined && !(maxLine >= 0)) {
    throw new RangeError(
      `The line limit must be a positive number of characters: ${maxLine}`,
    );
  }
  const answer: Answer = { status: 0 };
  const started = Date.now();
  try {
    const response = await open(
      shared,
      bound,
      "GET",
      path,
      {
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.accept ? { accept: options.accept } : {}),
      },
      "stream",
      answer,
    );
    const authorization = answer.authorization;
    const stream = new WatchStream<T>(response.body!, {
      method: "GET",
      path,
      signal: streamSignal(bound, options.signal),
      idleTimeout,
      maxLineLength: options.maxLineLength,
      redact: authorization === undefined
        ? undefined
        : (text) => redact(text, authorization),
    });
    const duration = Date.now() - started;
    observe(bound, { method: "GET", path, status: answer.status, duration });
    return stream;
  } catch (error) {
    const duration = Date.now() - started;
    observe(bound, {
      method: "GET",
      path,
      status: answer.status,
      error,
      duration,
    });
    throw error;
  }
}

/** Checks a watch's idle limit: absent, 0 or beyond a timer's range is none. */
function idleLimit(ms: number | undefined): number | undefined {
  if (ms === undefined || ms === 0 || ms > MAX_TIMER) return undefined;
  if (!(ms > 0)) {
    throw new RangeError(
      `The idle timeout must be a positive number of milliseconds: ${ms}`,
    );
  }
  return ms;
}

/**
 * Checks an answer the library reads as an object: a JSON object, and when
 * it is a list (a `kind` ending in `List`, or none), `items` is an array.
 * Two `typeof` checks on the common path.
 */
function checkObject(value: unknown, method: string, path: string): void {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new MalformedResponseError(
      `the answer is not a JSON object: ${preview(value)}`,
      { method, path },
    );
  }
  const { items, kind } = value as { items?: unknown; kind?: unknown };
  if (
    items !== undefined && !Array.isArray(items) &&
    (kind === undefined || (typeof kind === "string" && kind.endsWith("List")))
  ) {
    throw new MalformedResponseError(
      `the list's items are not an array: ${preview(items)}`,
      { method, path },
    );
  }
}

/** A short rendering of a value for an error message. */
function preview(value: unknown): string {
  const text = value === undefined ? "nothing" : JSON.stringify(value);
  return text.length > 100 ? `${text.slice(0, 100)}…` : text;
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
  const query = new URLSearchParams();
  if (options.fieldManager) query.set("fieldManager", options.fieldManager);
  if (options.force) query.set("force", "true");
  const sep = path.includes("?") ? "&" : "?";
  const url = query.size ? `${path}${sep}${query}` : path;
  const request: RequestOptions = {
    body: options.type === "apply" ? JSON.stringify(patch) : patch,
    contentType: PATCH_TYPES[options.type],
  };
  if (options.signal) request.signal = options.signal;
  return { url, request };
}
