// One webhook request: method, content type, the bounded body, the
// deadline from `?timeout=`, and the review's answer.

import type { Logger } from "../_internal/log.ts";
import { ReviewError } from "./errors.ts";
import type { Webhook } from "./types.ts";

/** A plain-text answer. */
export function text(
  status: number,
  body: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(body, {
    status,
    headers: {
      "content-type": "text/plain; charset=utf-8",
      "x-content-type-options": "nosniff",
      ...headers,
    },
  });
}

/** How a body read ended when it gave no bytes. */
type Unread = "too large" | "deadline" | "cut";

/**
 * Reads a body of at most `limit` bytes; stops when `signal` aborts (the
 * review's deadline) or the client goes away.
 */
async function readBounded(
  request: Request,
  limit: number,
  signal: AbortSignal,
): Promise<Uint8Array | Unread> {
  const length = Number(request.headers.get("content-length") ?? NaN);
  if (Number.isFinite(length) && length > limit) {
    await request.body?.cancel().catch(() => {});
    return "too large";
  }
  const body = request.body;
  if (body === null) return new Uint8Array();
  const reader = body.getReader();
  const onAbort = (): void => void reader.cancel().catch(() => {});
  signal.addEventListener("abort", onAbort, { once: true });
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (signal.aborted) return "deadline";
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => {});
        return "too large";
      }
      chunks.push(value);
    }
  } catch {
    // The client reset the connection: nobody reads an answer, and it is
    // not the server's failure, so it is not reported either.
    return signal.aborted ? "deadline" : "cut";
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

const UNITS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  "µs": 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** The longest `?timeout=` read; kube-apiserver sends such as `10s`. */
const MAX_DURATION_CHARS = 32;

/**
 * Milliseconds of a Go duration such as `10s` or `1m30s`, or `undefined`.
 * One pass over at most {@linkcode MAX_DURATION_CHARS} characters, so a
 * hostile value costs nothing.
 */
export function parseDuration(value: string): number | undefined {
  if (value.length === 0 || value.length > MAX_DURATION_CHARS) return;
  let ms = 0;
  let at = 0;
  while (at < value.length) {
    const start = at;
    while (at < value.length && value[at]! >= "0" && value[at]! <= "9") at++;
    if (at === start) return;
    if (value[at] === ".") {
      at++;
      const fraction = at;
      while (at < value.length && value[at]! >= "0" && value[at]! <= "9") at++;
      if (at === fraction) return;
    }
    const number = Number(value.slice(start, at));
    const unit = ["ms", "ns", "us", "µs", "h", "m", "s"].find((u) =>
      value.startsWith(u, at)
    );
    if (unit === undefined) return;
    at += unit.length;
    ms += number * UNITS[unit]!;
  }
  return ms;
}

/**
 * The longest deadline of a review: kube-apiserver's webhook timeout is at
 * most 30 s, after which it has given up on the answer.
 */
export const MAX_REVIEW_TIMEOUT = 30_000;

/**
 * How long past a caller's `?timeout=` the 504 waits, in ms: the handler's
 * signal ends at the deadline, the answer a second later, by when the
 * caller (whose timer started before ours) has given up.
 */
export const CALLER_GRACE = 1_000;

/** What {@linkcode answer} needs beside the request. */
export interface AnswerOptions {
  /** The largest body, in bytes. */
  limit: number;
  /** The longest deadline of a review, body included, in ms. */
  reviewTimeout: number;
  /** Where handler errors go unless the webhook has its own logger. */
  logger: Logger;
}

/**
 * Answers one request for a webhook. The review's deadline is the
 * `?timeout=` the API server appends, at most `reviewTimeout` (also the
 * deadline when it is missing or not a duration), counted from the
 * request's arrival so a stalled body is cut by it too. The handler's
 * signal ends at the deadline; the 504 follows {@linkcode CALLER_GRACE}
 * later when the deadline was the caller's.
 */
export async function answer(
  webhook: Webhook,
  request: Request,
  options: AnswerOptions,
): Promise<Response> {
  const { limit, reviewTimeout, logger } = options;
  if (request.method !== "POST") {
    await request.body?.cancel().catch(() => {});
    return text(405, "method not allowed: a review is POSTed\n", {
      allow: "POST",
    });
  }
  const type = (request.headers.get("content-type") ?? "").split(";")[0]!
    .trim().toLowerCase();
  if (type !== "application/json") {
    await request.body?.cancel().catch(() => {});
    return text(
      400,
      `contentType=${type || "(none)"}, expected application/json\n`,
    );
  }
  const timeout = new URL(request.url).searchParams.get("timeout");
  const asked = timeout === null ? undefined : parseDuration(timeout);
  const ms = Math.min(asked ?? reviewTimeout, reviewTimeout);
  const label = asked === ms ? timeout : `${ms}ms`;
  const deadline = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<Response>((resolve) => {
    timer = setTimeout(() => {
      deadline.abort(
        new DOMException("The review's deadline passed", "TimeoutError"),
      );
      const late = (): void =>
        resolve(text(504, `the review outlived its deadline of ${label}\n`));
      // The caller's own deadline ends its call first: kube-apiserver then
      // reports "context deadline exceeded", never a race with our 504
      // (measured: 6 of 40 calls on a loaded machine lost that race).
      if (asked !== ms || request.signal.aborted) return late();
      timer = setTimeout(late, CALLER_GRACE);
      // A caller that went away hears nothing: free the slot now.
      request.signal.addEventListener("abort", late, { once: true });
    }, ms);
  });
  try {
    const bytes = await readBounded(request, limit, deadline.signal);
    if (bytes === "too large") {
      return text(413, `request body too large: the limit is ${limit} bytes\n`);
    }
    if (bytes === "deadline" || bytes === "cut") {
      return text(
        bytes === "cut" ? 400 : 504,
        bytes === "cut"
          ? "the body was cut short\n"
          : `the body did not arrive within the deadline of ${label}\n`,
        { connection: "close" },
      );
    }
    let body: unknown;
    try {
      body = JSON.parse(
        new TextDecoder("utf-8", { fatal: true }).decode(bytes),
      );
    } catch (error) {
      return text(
        400,
        `the body is not JSON: ${
          error instanceof Error ? error.message : String(error)
        }\n`,
      );
    }
    const review = webhook.review(body, {
      signal: deadline.signal,
      logger,
    });
    body = undefined;
    review.catch(() => {});
    // Past the deadline the handler's outcome, answer or error, is not
    // sent: only the 504 is, when its time comes.
    return await Promise.race([
      review.then(
        (out) =>
          deadline.signal.aborted ? expired : new Response(
            JSON.stringify(out),
            { headers: { "content-type": "application/json" } },
          ),
        (error) => deadline.signal.aborted ? expired : Promise.reject(error),
      ),
      expired,
    ]);
  } catch (error) {
    if (error instanceof ReviewError) {
      return text(error.status, `${error.message}\n`);
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
