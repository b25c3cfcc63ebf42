// One exchange with the API server: the write guard, the headers and the
// token, the body, the request deadline and signals, then the answer read
// whole (or its headers, for a stream) and decoded.
import { PARSE, type ParseOption } from "../_internal/parse.ts";
import {
  MalformedResponseError,
  RequestTimeoutError,
  WriteRefusedError,
} from "./errors.ts";
import type { ClientOptions, Outcome, RequestOptions } from "./options.ts";
import {
  bytesOf,
  decodeJson,
  errorFor,
  readBody,
  readErrorText,
} from "./_decode.ts";
import { type Deadline, Deadlines } from "./_deadlines.ts";
import { hasControl, hasNonLatin1, readToken } from "./_in_cluster.ts";
import { parseWarnings } from "./_warnings.ts";
import { MAX_TIMER } from "../_internal/sleep.ts";
import { join } from "../_internal/signals.ts";
import { withoutTrailing } from "../_internal/strings.ts";
import { DEFAULT_TIMEOUT } from "./_limits.ts";
import { Pool } from "./_pool.ts";

/** A request's options as the client sends them. */
export interface SendOptions extends RequestOptions, ParseOption {
  accept?: string | undefined;
}

/** The status of the last answer, which the observer hears. */
export interface Answer {
  status: number;
  /** The texts of the last answer's `Warning` headers, if it had any. */
  warnings?: string[] | undefined;
  /** The Authorization value sent, for redacting what an error quotes. */
  authorization?: string | undefined;
  /** The pool the request went through, when the client replaces pools. */
  via?: Deno.HttpClient | undefined;
}

/** What a client and the clients its builders answer share. */
export interface Shared {
  server: string;
  fetch: typeof fetch;
  /** A `Deno.HttpClient` given as is (closed on dispose, never replaced). */
  httpClient: Deno.HttpClient | undefined;
  /** The pool made by a given factory, replaced when presumed dead. */
  pool: Pool | undefined;
  /** Set when disposing closed the `Deno.HttpClient` (nothing sends after). */
  disposed: boolean;
  authorization: (() => Promise<string | undefined>) | undefined;
  timeout: number;
  namespace: string | undefined;
  deadlines: Deadlines;
  onWarning: ClientOptions["onWarning"];
}

/** What one client's builders bound it to. */
export interface Bound {
  signal: AbortSignal | undefined;
  waitSignal: AbortSignal | undefined;
  guard: (() => void) | undefined;
  /** Every observer, the first client's first; each hears each outcome once. */
  observers: readonly ((outcome: Outcome) => void)[];
}

/** The shared part of a new client of `server`. */
export function createShared(server: string, options: ClientOptions): Shared {
  const given = options.httpClient;
  const httpClient = typeof given === "function" ? undefined : given;
  const serviceAccountDir = options.serviceAccountDir;
  let authorization = options.authorization;
  if (authorization === undefined && serviceAccountDir) {
    authorization = () => readToken(`${serviceAccountDir}/token`);
  }
  const timeout = requestTimeout(options.timeout);
  // Made last, so that no earlier error leaks it.
  const pool = typeof given === "function" ? new Pool(given) : undefined;
  const send = options.fetch;
  return {
    server: withoutTrailing(server, "/"),
    // The pool is read at each send: a replaced one is never used again.
    fetch: pool
      ? (input, init) =>
        (send ?? fetch)(input, { ...init, client: pool.current })
      : send ??
        (httpClient
          ? (input, init) => fetch(input, { ...init, client: httpClient })
          : (input, init) => fetch(input, init)),
    httpClient,
    pool,
    disposed: false,
    authorization,
    timeout,
    namespace: options.namespace,
    deadlines: new Deadlines(),
    onWarning: options.onWarning,
  };
}

/** A timeout's abort reason: the client's, or a `TimeoutError` of a caller's. */
function isTimeout(reason: unknown): boolean {
  return reason instanceof RequestTimeoutError ||
    (reason instanceof Error && reason.name === "TimeoutError");
}

/** Checks a request timeout: absent or 0 means the default. */
function requestTimeout(ms: number | undefined): number {
  if (ms === undefined || ms === 0) return DEFAULT_TIMEOUT;
  if (!(ms > 0)) {
    throw new RangeError(
      `The request timeout must be a positive number of milliseconds: ${ms}`,
    );
  }
  return ms;
}

/** The signal that ends a stream: the request's and the client's. */
export function streamSignal(
  bound: Bound,
  signal: AbortSignal | undefined,
): AbortSignal | undefined {
  const boundSignal = bound.signal;
  if (!signal) return boundSignal;
  return boundSignal ? AbortSignal.any([signal, boundSignal]) : signal;
}

/**
 * Sends once. A `json` or `bytes` answer is read whole within the timeout;
 * a `stream` answer returns with its body unread once headers arrived.
 */
export async function open(
  shared: Shared,
  bound: Bound,
  method: string,
  path: string,
  options: SendOptions,
  mode: "stream",
  answer: Answer,
): Promise<Response>;
export async function open(
  shared: Shared,
  bound: Bound,
  method: string,
  path: string,
  options: SendOptions,
  mode: "json" | "bytes",
  answer: Answer,
): Promise<unknown>;
export async function open(
  shared: Shared,
  bound: Bound,
  method: string,
  path: string,
  options: SendOptions,
  mode: "json" | "bytes" | "stream",
  answer: Answer,
): Promise<unknown> {
  answer.status = 0;
  answer.warnings = undefined;
  answer.via = undefined;
  if (shared.disposed) {
    // Else Deno's fetch answers "Bad resource ID", which names nothing.
    throw new Error(
      `${method} ${path} not sent: the client was disposed and its connections closed; make a new Client`,
    );
  }
  const { guard, signal: boundSignal } = bound;
  if (guard && method !== "GET") {
    try {
      guard();
    } catch (cause) {
      throw new WriteRefusedError(method, path, cause);
    }
  }
  // A plain record: Deno's fetch takes it on a cheaper path than a Headers
  // object (measured: about 30 µs a request on loopback).
  const headers: Record<string, string> = {
    Accept: options.accept ?? "application/json",
  };
  // A stream is asked for uncompressed. kube-apiserver (WatchListCompression)
  // gzips a streaming list (sendInitialEvents) as one gzip member per flush,
  // and Deno's fetch ends the body at the end of the first member: measured
  // on kube-apiserver 1.37, a streaming list of 1,000 ConfigMaps ended after
  // 23 objects without its bookmark, every time (and one of a single object
  // ended before its bookmark in about 1 run in 100).
  if (mode === "stream") headers["Accept-Encoding"] = "identity";
  const authorize = shared.authorization;
  let authorization: string | undefined;
  if (authorize !== undefined) {
    authorization = await authorize();
    if (authorization) {
      // fetch would refuse it with an error that quotes the value.
      if (hasControl(authorization)) {
        throw new TypeError(
          `${method} ${path} not sent: the Authorization value holds a control character (such as a line break)`,
        );
      }
      if (hasNonLatin1(authorization)) {
        throw new TypeError(
          `${method} ${path} not sent: the Authorization value holds a character outside Latin-1`,
        );
      }
      headers.Authorization = authorization;
    } else authorization = undefined;
  }
  let body: BodyInit | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === "string" ||
        options.body instanceof Uint8Array ||
        options.body instanceof ReadableStream
      ? options.body as BodyInit
      : JSON.stringify(options.body);
    headers["Content-Type"] = options.contentType ?? "application/json";
  }
  const timeout = shared.timeout;
  let deadline: Deadline | undefined;
  let signal: AbortSignal | undefined;
  let timer: AbortController | undefined;
  // setTimeout fires at once for a longer delay, so a longer limit means none.
  if (timeout <= MAX_TIMER) {
    timer = new AbortController();
    deadline = shared.deadlines.add(
      timeout,
      () => timer!.abort(new RequestTimeoutError(method, path, timeout)),
    );
    signal = timer.signal;
  }
  // One signal needs no combining; AbortSignal.any costs an allocation and
  // a registration on each source.
  if (boundSignal !== undefined) signal = join(signal, boundSignal);
  if (options.signal !== undefined) signal = join(signal, options.signal);
  try {
    const init: RequestInit = { method, headers };
    if (signal !== undefined) init.signal = signal;
    if (body !== undefined) init.body = body;
    let response: Response;
    // Read in the same turn as the send reads it.
    const via = shared.pool?.current;
    answer.via = via;
    try {
      response = await shared.fetch(shared.server + path, init);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw error;
    }
    const status = response.status;
    answer.status = status;
    answer.authorization = authorization;
    const warning = response.headers.get("warning");
    if (warning !== null) {
      answer.warnings = parseWarnings(warning, authorization);
    }
    if (status < 200 || status > 299) {
      const text = await readErrorText(response, signal, authorization);
      throw errorFor(method, path, response, text, authorization);
    }
    if (mode === "stream") {
      if (!response.body) {
        throw new MalformedResponseError("the answer has no body to stream", {
          method,
          path,
        });
      }
      return response;
    }
    const bytes = await readBody(response, signal, bytesOf);
    if (mode === "bytes") return bytes;
    return decodeJson(
      bytes,
      status,
      method,
      path,
      authorization,
      options[PARSE],
    );
  } catch (error) {
    // No answer within a time limit, the client's or the caller's (the
    // elector bounds each Lease request below the client's timeout): the
    // connection is presumed dead (over HTTP/2 the pool would send every
    // later request down it too). A caller's plain abort is not a timeout.
    if (signal?.aborted && isTimeout(signal.reason)) {
      shared.pool?.replace(answer.via);
    }
    throw error;
  } finally {
    if (deadline !== undefined) shared.deadlines.done(deadline);
  }
}
