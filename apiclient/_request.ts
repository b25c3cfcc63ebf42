// One request as the caller sees it: sent (waiting out 429s) and decoded, or
// a watch opened, with its final outcome told to the client's observer.
import type { KubeObject } from "./types.ts";
import type { Outcome, WatchOptions } from "./options.ts";
import { WatchStream } from "./watch.ts";
import { send } from "./_throttle.ts";
import {
  type Bound,
  open,
  type SendOptions,
  type Shared,
  streamSignal,
} from "./_transport.ts";
import { MAX_TIMER } from "../_internal/sleep.ts";

/** Sends one request and answers its decoded body; the observer hears it. */
export async function request(
  shared: Shared,
  bound: Bound,
  method: string,
  path: string,
  options: SendOptions,
  mode: "json" | "bytes",
): Promise<unknown> {
  // The status of the last answer, which the observer hears even when the
  // body then fails (malformed, cut off, timed out): the server answered.
  const answer = { status: 0 };
  let value: unknown;
  try {
    value = await send(shared, bound, method, path, options, mode, answer);
  } catch (error) {
    observe(bound, { method, path, status: answer.status, error });
    throw error;
  }
  observe(bound, { method, path, status: answer.status });
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
  const answer = { status: 0 };
  try {
    const response = await open(
      shared,
      bound,
      "GET",
      path,
      {
        ...(options.signal ? { signal: options.signal } : {}),
      },
      "stream",
      answer,
    );
    const stream = new WatchStream<T>(response.body!, {
      method: "GET",
      path,
      signal: streamSignal(bound, options.signal),
      idleTimeout,
    });
    observe(bound, { method: "GET", path, status: answer.status });
    return stream;
  } catch (error) {
    observe(bound, { method: "GET", path, status: answer.status, error });
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
