// One webhook request: method, content type, the bounded body, the
// deadline from `?timeout=`, and the review's answer.

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

/** Reads a body of at most `limit` bytes, or `undefined` beyond it. */
async function readBounded(
  request: Request,
  limit: number,
): Promise<Uint8Array | undefined> {
  const length = Number(request.headers.get("content-length") ?? NaN);
  if (Number.isFinite(length) && length > limit) {
    await request.body?.cancel().catch(() => {});
    return undefined;
  }
  const body = request.body;
  if (body === null) return new Uint8Array();
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
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

/** Milliseconds of a Go duration such as `10s` or `1m30s`, or `undefined`. */
export function parseDuration(value: string): number | undefined {
  const parts = [...value.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join("") !== value) {
    return undefined;
  }
  return parts.reduce((ms, p) => ms + Number(p[1]) * UNITS[p[2]!]!, 0);
}

/** Answers one request for a webhook. */
export async function answer(
  webhook: Webhook,
  request: Request,
  limit: number,
  onError: (error: unknown) => void,
): Promise<Response> {
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
  const bytes = await readBounded(request, limit);
  if (bytes === undefined) {
    return text(413, `request body too large: the limit is ${limit} bytes\n`);
  }
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch (error) {
    return text(
      400,
      `the body is not JSON: ${
        error instanceof Error ? error.message : String(error)
      }\n`,
    );
  }
  const deadline = new AbortController();
  const timeout = new URL(request.url).searchParams.get("timeout");
  const ms = timeout === null ? undefined : parseDuration(timeout);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<Response>((resolve) => {
    if (ms === undefined) return;
    timer = setTimeout(() => {
      deadline.abort(
        new DOMException("The review's deadline passed", "TimeoutError"),
      );
      resolve(text(504, `the review outlived its deadline of ${timeout}\n`));
    }, ms);
  });
  try {
    const review = webhook.review(body, {
      signal: deadline.signal,
      onError,
    });
    review.catch(() => {});
    return await Promise.race([
      review.then((out) =>
        new Response(JSON.stringify(out), {
          headers: { "content-type": "application/json" },
        })
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
