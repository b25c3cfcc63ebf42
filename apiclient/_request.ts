// One request as the caller sees it: sent (waiting out 429s) and decoded, or
// a watch opened, with its final outcome told to the client's warning
// callback and observers.
import type { KubeObject } from "./types.ts";
import { MalformedResponseError } from "./errors.ts";
import type { Outcome, WatchOptions } from "./options.ts";
import { WatchStream, type WatchStreamOptions } from "./watch.ts";
import { send } from "./_throttle.ts";
import { ON_IDLE } from "./_pool.ts";
import {
  type Answer,
  type Bound,
  open,
  type SendOptions,
  type Shared,
  streamSignal,
} from "./_transport.ts";
import { excerpt } from "../_internal/redact.ts";
import { PARSE, type ParseOption } from "../_internal/parse.ts";
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
  const answer: Answer = { status: 0 };
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
      checkObject(value, method, path, answer.authorization);
    }
  } catch (error) {
    tell(shared, bound, outcomeOf(method, path, answer, started, [error]));
    throw error;
  }
  tell(shared, bound, outcomeOf(method, path, answer, started));
  return value;
}

/**
 * The outcome of a request that ends now: the last answer's status and
 * warnings, and the error (as a one-element tuple) when it failed.
 */
export function outcomeOf(
  method: string,
  path: string,
  answer: Answer,
  started: number,
  failed?: [error: unknown],
): Outcome {
  const outcome: Outcome = {
    method,
    path,
    status: answer.status,
    duration: Date.now() - started,
  };
  if (failed !== undefined) outcome.error = failed[0];
  if (answer.warnings !== undefined) outcome.warnings = answer.warnings;
  return outcome;
}

/**
 * Tells an outcome to the warning callback (each text) and then to every
 * observer, in the order they were added. Each is isolated: one that throws
 * neither stops the others nor changes the request's answer.
 */
export function tell(shared: Shared, bound: Bound, outcome: Outcome): void {
  const onWarning = shared.onWarning;
  if (onWarning !== undefined && outcome.warnings !== undefined) {
    for (const text of outcome.warnings) {
      try {
        onWarning(text, outcome);
      } catch {
        // A callback's failure must not change the request's answer.
      }
    }
  }
  for (const observer of bound.observers) {
    try {
      observer(outcome);
    } catch {
      // Nor an observer's, nor stop the next observer.
    }
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
    const streamOptions: WatchStreamOptions & ParseOption = {
      method: "GET",
      path,
      signal: streamSignal(bound, options.signal),
      idleTimeout,
      maxLineLength: options.maxLineLength,
      authorization,
    };
    const parse = (options as ParseOption)[PARSE];
    if (parse !== undefined) streamOptions[PARSE] = parse;
    const pool = shared.pool;
    if (pool !== undefined) {
      const via = answer.via;
      (streamOptions as { [ON_IDLE]?: () => void })[ON_IDLE] = () =>
        pool.replace(via);
    }
    const stream = new WatchStream<T>(response.body!, streamOptions);
    tell(shared, bound, outcomeOf("GET", path, answer, started));
    return stream;
  } catch (error) {
    tell(shared, bound, outcomeOf("GET", path, answer, started, [error]));
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
function checkObject(
  value: unknown,
  method: string,
  path: string,
  authorization: string | undefined,
): void {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new MalformedResponseError(
      `the answer is not a JSON object: ${preview(value, authorization)}`,
      { method, path },
    );
  }
  const { items, kind } = value as { items?: unknown; kind?: unknown };
  if (
    items !== undefined && !Array.isArray(items) &&
    (kind === undefined || (typeof kind === "string" && kind.endsWith("List")))
  ) {
    throw new MalformedResponseError(
      `the list's items are not an array: ${preview(items, authorization)}`,
      { method, path },
    );
  }
}

/** A short rendering of a value for an error message. */
function preview(value: unknown, authorization: string | undefined): string {
  if (value === undefined) return "nothing";
  return excerpt(JSON.stringify(value), authorization, 100);
}
