import { MalformedResponseError, WatchIdleError } from "./errors.ts";
import type { KubeObject, WatchEvent } from "./types.ts";
import { MAX_TIMER } from "../_internal/sleep.ts";
import { excerpt, redactStrings } from "../_internal/redact.ts";
import {
  PARSE,
  type Parse,
  parseObjects,
  type ParseOption,
} from "../_internal/parse.ts";
import { MAX_LINE_LENGTH } from "./_limits.ts";
import { ON_IDLE } from "./_pool.ts";

const BUFFER_SIZE = 256 * 1024;

const EVENT_TYPES = new Set([
  "ADDED",
  "MODIFIED",
  "DELETED",
  "BOOKMARK",
  "ERROR",
]);

/** What a {@linkcode WatchStream} needs to decode a response. */
export interface WatchStreamOptions {
  /** The HTTP method of the request, for error messages. */
  method: string;
  /** The API path of the watch, for error messages. */
  path: string;
  /** Ends the stream: the reader is cancelled and iteration throws the reason. */
  signal?: AbortSignal | undefined;
  /**
   * Milliseconds the server may stay silent, while the stream waits for it,
   * before the stream is presumed dead and ends with a
   * {@linkcode WatchIdleError}. Time the consumer spends on an event does not
   * count. Absent, 0 or `Infinity`: no limit.
   */
  idleTimeout?: number | undefined;
  /**
   * Answer each line's JSON as it is, without checking that it is a watch
   * event (for other NDJSON streams).
   */
  raw?: boolean | undefined;
  /** Called once when the stream ends, however it ends. */
  onEnd?: (() => void) | undefined;
  /**
   * The `Authorization` value the request sent: an error that quotes the
   * stream never holds it, raw or JSON-escaped (a proxy may echo it).
   * Default: none.
   */
  authorization?: string | undefined;
  /**
   * The longest line the stream takes, in characters; a longer one ends it
   * with a {@linkcode MalformedResponseError}. Default
   * 32 Mi characters.
   */
  maxLineLength?: number | undefined;
}

/**
 * A watch's event stream: newline-delimited JSON decoded into typed events.
 *
 * Iteration ends when the server closes the stream. It throws a
 * {@linkcode WatchIdleError} after `idleTimeout` ms of silence, a
 * {@linkcode MalformedResponseError} on a malformed or truncated line, invalid
 * UTF-8, or a line longer than `maxLineLength`, and the signal's reason when
 * the signal aborts. A line that spans many reads costs time linear in its
 * length. Leaving the loop early (or
 * {@linkcode WatchStream.cancel}) cancels the response body. A stream can be
 * iterated once.
 *
 * @example Decode a stream
 * ```ts
 * import assert from "node:assert/strict";
 * import { WatchStream } from "@liken/kubernetes/apiclient";
 *
 * const body = new Response(
 *   '{"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"1"}}}\n',
 * ).body!;
 * const stream = new WatchStream(body, { method: "GET", path: "/api/v1/pods" });
 * const names = [];
 * for await (const event of stream) {
 *   if (event.type === "ADDED") names.push(event.object.metadata.name);
 * }
 * assert.deepEqual(names, ["a"]);
 * ```
 *
 * @typeParam T The kind of the watched objects.
 */
export class WatchStream<T extends KubeObject = KubeObject>
  implements AsyncIterable<WatchEvent<T>>, AsyncDisposable {
  #body: ReadableStream<Uint8Array>;
  #options: WatchStreamOptions;
  #maxLine: number;
  #used = false;
  #cancelled = false;
  #iterator: AsyncGenerator<WatchEvent<T>[]> | undefined;
  #ended = false;
  #reader:
    | ReadableStreamDefaultReader<Uint8Array>
    | ReadableStreamBYOBReader
    | undefined;

  /**
   * Wraps a response body.
   *
   * @param body The response body of a watch request.
   * @param options The request, the signal, the idle limit and the line
   * limit.
   * @throws {RangeError} For a line limit that is not a positive number.
   */
  constructor(body: ReadableStream<Uint8Array>, options: WatchStreamOptions) {
    this.#body = body;
    this.#options = options;
    this.#maxLine = lineLimit(options.maxLineLength);
  }

  /**
   * Ends the stream and releases the connection. Safe to call more than once.
   *
   * @param reason Why. A {@linkcode WatchIdleError} (the caller's own limit
   * on silence, such as the informer's heartbeat) tells a client that
   * replaces its pool (see `ClientOptions.httpClient`) that the connection
   * under the stream is presumed dead.
   * @returns A promise that settles once the body is cancelled.
   */
  async cancel(reason?: unknown): Promise<void> {
    // The caller's own silence limit (the informer's heartbeat): the
    // connection under the stream is presumed dead, as with `idleTimeout`.
    if (reason instanceof WatchIdleError && !this.#cancelled) {
      (this.#options as { [ON_IDLE]?: () => void })[ON_IDLE]?.();
    }
    this.#cancelled = true;
    if (this.#reader) {
      await this.#reader.cancel().catch(() => {});
      // A loop paused at an event runs its cleanup only when returned.
      await this.#iterator?.return(undefined).catch(() => {});
    } else if (!this.#used) {
      this.#used = true;
      await this.#body.cancel().catch(() => {});
      this.#end();
    }
  }

  /** Cancels the stream (for `await using`). */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.cancel();
  }

  /**
   * Iterates the events.
   *
   * @returns An iterator of the decoded events.
   */
  [Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
    const batches = this.batches();
    const cancelled = (): boolean => this.#cancelled;
    return (async function* (): AsyncGenerator<WatchEvent<T>> {
      try {
        for (;;) {
          const { value, done } = await batches.next();
          if (done) return;
          for (const event of value) {
            if (cancelled()) return;
            yield event;
          }
        }
      } finally {
        await batches.return?.(undefined);
      }
    })();
  }

  /**
   * Iterates the events in batches: all the events one network read
   * delivered, in order. A consumer that handles many events per read (an
   * informer's first sync) pays one await per read rather than one per event.
   * Ends, throws and cancels as the event iteration does; a stream is iterated
   * once, either way.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { WatchStream } from "@liken/kubernetes/apiclient";
   *
   * const body = new Response(
   *   '{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n' +
   *     '{"type":"ADDED","object":{"metadata":{"name":"b"}}}\n',
   * ).body!;
   * const stream = new WatchStream(body, { method: "GET", path: "/api/v1/pods" });
   * const sizes = [];
   * for await (const batch of { [Symbol.asyncIterator]: () => stream.batches() }) {
   *   sizes.push(batch.length);
   * }
   * assert.deepEqual(sizes, [2]);
   * ```
   *
   * @returns An iterator of arrays of events.
   */
  batches(): AsyncIterator<WatchEvent<T>[]> {
    if (this.#used) {
      throw new TypeError("A watch stream can be iterated only once");
    }
    this.#used = true;
    this.#iterator = this.#events();
    return this.#iterator;
  }

  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#options.onEnd?.();
  }

  async *#events(): AsyncGenerator<WatchEvent<T>[]> {
    const parse = (this.#options as ParseOption)[PARSE] ??
      parseObjects;
    const { signal, idleTimeout, method, path, raw, authorization } =
      this.#options;
    const maxLine = this.#maxLine;
    // A BYOB reader with one reused buffer costs far less per read than the
    // default reader when the server sends one small chunk per event; a body
    // that is not a byte stream (an in-memory response) takes the default.
    let reader:
      | ReadableStreamDefaultReader<Uint8Array>
      | ReadableStreamBYOBReader;
    let byob: ReadableStreamBYOBReader | undefined;
    let view = new Uint8Array(0);
    try {
      byob = this.#body.getReader({ mode: "byob" });
      reader = byob;
      view = new Uint8Array(BUFFER_SIZE);
    } catch {
      reader = this.#body.getReader();
    }
    this.#reader = reader;
    let failure: unknown;
    const stop = (reason: unknown): void => {
      if (failure === undefined) failure = reason;
      // Cancelling the reader is what reliably ends a pending read on abort
      // (a streaming fetch's own abort can leave the read hanging).
      reader.cancel(reason).catch(() => {});
    };
    const onAbort = (): void => stop(signal?.reason);
    // The idle timer runs only while a read waits on the server: a consumer
    // that takes its time over an event must not make the server look dead.
    const limit = idleTimeout !== undefined && idleTimeout > 0 &&
        idleTimeout <= MAX_TIMER
      ? idleTimeout
      : undefined;
    // One lazy timer rather than one per read (a read per event is common):
    // when it fires it checks how long the current read has waited, and arms
    // itself again for the rest.
    let idle: ReturnType<typeof setTimeout> | undefined;
    let waitingSince = 0;
    const checkIdle = (): void => {
      idle = undefined;
      if (waitingSince === 0) return;
      const left = waitingSince + limit! - Date.now();
      if (left <= 0) {
        // The connection under a silent watch is presumed dead.
        (this.#options as { [ON_IDLE]?: () => void })[ON_IDLE]?.();
        stop(new WatchIdleError(path, limit!));
      } else idle = setTimeout(checkIdle, left);
    };
    const decoder = new Utf8Stream(method, path);
    // The text after the last line end, from earlier reads: kept in parts and
    // joined once, when its line ends, so a long line costs linear time.
    const parts: string[] = [];
    let partsLength = 0;
    const tooLong = (length: number): MalformedResponseError =>
      new MalformedResponseError(
        `a watch line of at least ${length} characters is longer than the limit of ${maxLine}`,
        { method, path },
      );
    try {
      if (signal?.aborted) throw signal.reason;
      signal?.addEventListener("abort", onAbort, { once: true });
      if (this.#cancelled) return;
      for (;;) {
        if (limit !== undefined) {
          waitingSince = Date.now();
          idle ??= setTimeout(checkIdle, limit);
        }
        const { value, done } = byob === undefined
          ? await (reader as ReadableStreamDefaultReader<Uint8Array>).read()
          : await byob.read(view);
        // The BYOB read hands the buffer back; read into it again next time.
        if (byob !== undefined && value !== undefined) {
          view = new Uint8Array(value.buffer as ArrayBuffer);
        }
        waitingSince = 0;
        if (failure !== undefined) throw failure;
        if (done) break;
        const text = decoder.decode(value);
        let end = text.indexOf("\n");
        if (end === -1) {
          if (text.length > 0) {
            partsLength += text.length;
            if (partsLength > maxLine) throw tooLong(partsLength);
            parts.push(text);
          }
          continue;
        }
        let start = 0;
        const events: WatchEvent<T>[] = [];
        let broken: unknown;
        do {
          let line: string;
          if (partsLength > 0) {
            parts.push(text.slice(0, end));
            line = parts.join("");
            parts.length = 0;
            partsLength = 0;
          } else {
            line = text.slice(start, end);
          }
          if (line.length > maxLine) {
            broken = tooLong(line.length);
            break;
          }
          if (line.length > 0) {
            try {
              const event = decodeEvent<T>(
                line,
                method,
                path,
                raw,
                authorization,
                parse,
              );
              if (event !== undefined) events.push(event);
            } catch (error) {
              // The events before a bad line are delivered first.
              broken = error;
              break;
            }
          }
          start = end + 1;
          end = text.indexOf("\n", start);
        } while (end !== -1);
        if (broken === undefined && start < text.length) {
          partsLength = text.length - start;
          if (partsLength > maxLine) broken = tooLong(partsLength);
          else parts.push(text.slice(start));
        }
        if (events.length > 0) yield events;
        if (broken !== undefined) throw broken;
      }
      if (this.#cancelled) return;
      decoder.end();
      const pending = parts.join("");
      if (pending.trim() !== "") {
        throw new MalformedResponseError(
          `watch stream ended inside an event: ${
            excerpt(pending, authorization, 200)
          }`,
          { method, path },
        );
      }
    } finally {
      if (idle !== undefined) clearTimeout(idle);
      signal?.removeEventListener("abort", onAbort);
      await reader.cancel().catch(() => {});
      this.#end();
    }
  }
}

/** Checks a line limit: absent or 0 is the default. */
function lineLimit(limit: number | undefined): number {
  if (limit === undefined || limit === 0) return MAX_LINE_LENGTH;
  if (!(limit > 0)) {
    throw new RangeError(
      `The line limit must be a positive number of characters: ${limit}`,
    );
  }
  return limit;
}

// The runtime's one-pass UTF-8 decoder is several times cheaper than its
// streaming or fatal one; a replacement character in its output is the only
// sign of invalid bytes, and sends those bytes to the strict decoder.
const LOOSE = new TextDecoder("utf-8", { ignoreBOM: true });
const STRICT = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * A stream's UTF-8, a read at a time: the bytes of a character cut by the
 * read's end wait for the next read, a byte-order mark at the start is
 * dropped, and invalid UTF-8 is a {@linkcode MalformedResponseError}.
 */
class Utf8Stream {
  /** The bytes of a character the last read cut (at most 3). */
  #carry: Uint8Array | undefined;
  #started = false;
  #method: string;
  #path: string;

  constructor(method: string, path: string) {
    this.#method = method;
    this.#path = path;
  }

  decode(read: Uint8Array): string {
    let bytes = read;
    const carry = this.#carry;
    if (carry !== undefined) {
      this.#carry = undefined;
      bytes = new Uint8Array(carry.length + read.length);
      bytes.set(carry);
      bytes.set(read, carry.length);
    }
    let end = bytes.length;
    if (end > 0 && bytes[end - 1]! >= 0x80) {
      // Back to the lead byte of the last character: is all of it here?
      let lead = end - 1;
      while (lead > end - 4 && lead > 0 && (bytes[lead]! & 0xc0) === 0x80) {
        lead--;
      }
      const first = bytes[lead]!;
      const size = first >= 0xf0
        ? 4
        : first >= 0xe0
        ? 3
        : first >= 0xc0
        ? 2
        : 1;
      if (lead + size > end) end = lead;
    }
    // The buffer is read into again: what waits is a copy.
    if (end < bytes.length) this.#carry = bytes.slice(end);
    if (end === 0) return "";
    let start = 0;
    if (!this.#started) {
      this.#started = true;
      if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
        start = 3;
      }
    }
    const whole = start === 0 && end === bytes.length
      ? bytes
      : bytes.subarray(start, end);
    const text = LOOSE.decode(whole);
    if (text.indexOf("\uFFFD") === -1) return text;
    try {
      return STRICT.decode(whole);
    } catch (cause) {
      throw this.#invalid(cause);
    }
  }

  /** The stream ended: a character cut short is invalid. */
  end(): void {
    if (this.#carry !== undefined) {
      throw this.#invalid(new TypeError("The stream ends inside a character"));
    }
  }

  #invalid(cause: unknown): MalformedResponseError {
    return new MalformedResponseError("the watch stream is not valid UTF-8", {
      method: this.#method,
      path: this.#path,
      cause,
    });
  }
}

function decodeEvent<T extends KubeObject>(
  line: string,
  method: string,
  path: string,
  raw: boolean | undefined,
  authorization: string | undefined,
  parse: Parse,
): WatchEvent<T> | undefined {
  let event: { type?: unknown; object?: unknown } | null;
  try {
    event = parse(line) as typeof event;
  } catch (cause) {
    if (line.trim() === "") return undefined;
    throw new MalformedResponseError(
      `malformed watch event: ${excerpt(line, authorization, 200)}`,
      { method, path, cause },
    );
  }
  if (raw) return event as WatchEvent<T>;
  // The common case costs one lookup and one typeof; anything else is looked
  // at closely to say what was wrong.
  if (
    event !== null && typeof event === "object" &&
    EVENT_TYPES.has(event.type as string) &&
    typeof event.object === "object" && event.object !== null
  ) {
    // An ERROR event's Status becomes error text: a proxy may have put the
    // credential in it.
    if (event.type === "ERROR" && authorization !== undefined) {
      event.object = redactStrings(event.object, authorization);
    }
    return event as WatchEvent<T>;
  }
  throw new MalformedResponseError(
    `watch event without a known type and an object: ${
      excerpt(line, authorization, 200)
    }`,
    { method, path },
  );
}
