/**
 * One open watch stream: NDJSON lines, flushed the way the API server flushes
 * a watch, with periodic bookmarks, a timeout, and the corruption a test can
 * inject.
 *
 * @module
 */
import type { WatchEvent } from "../../apiclient/types.ts";
import type { CorruptOptions } from "../types.ts";
import type { Encoder } from "../_store/metadata.ts";
import { JSON_HEADERS } from "../_store/objects.ts";

const encoder = new TextEncoder();
const FLUSH_SIZE = 64 * 1024;

/**
 * One open watch: a stream of NDJSON lines. Events written in one turn of the
 * event loop go out as one chunk (at most 64 KiB), as the API server flushes
 * a watch only once no more events wait, so clients meet real chunking.
 */
export class WatchStream {
  #pending = "";
  #flushQueued = false;
  onChange: (() => void) | undefined;
  #takeCorruption: () => CorruptOptions | undefined;
  #onEnd: () => void;
  #table: Encoder | undefined;
  #controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  #ticker: ReturnType<typeof setTimeout> | undefined;
  #closer: ReturnType<typeof setTimeout> | undefined;
  #ended = false;

  constructor(
    takeCorruption: () => CorruptOptions | undefined,
    onEnd: () => void,
    table?: Encoder,
  ) {
    this.#takeCorruption = takeCorruption;
    this.#onEnd = onEnd;
    this.#table = table;
  }

  start(initial: WatchEvent[]): Response {
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
        for (const event of initial) this.send(event);
      },
      cancel: () => this.#end(),
    });
    return new Response(body, { headers: JSON_HEADERS });
  }

  send(event: WatchEvent): void {
    if (this.#ended || !this.#controller) return;
    const line =
      JSON.stringify(this.#table ? this.#table.event(event) : event) + "\n";
    const corrupt = this.#takeCorruption();
    if (corrupt?.truncate) {
      this.#pending += line.slice(0, Math.max(1, line.length >> 1));
      this.close();
      return;
    }
    this.#pending += corrupt
      ? line.slice(0, Math.max(1, line.length >> 1)) + "\n"
      : line;
    if (this.#pending.length >= FLUSH_SIZE) this.#flush();
    else if (!this.#flushQueued) {
      this.#flushQueued = true;
      queueMicrotask(() => {
        this.#flushQueued = false;
        this.#flush();
      });
    }
  }

  #flush(): void {
    if (this.#pending === "" || this.#ended || !this.#controller) return;
    const chunk = this.#pending;
    this.#pending = "";
    try {
      this.#controller.enqueue(encoder.encode(chunk));
    } catch {
      this.#end();
    }
  }

  /**
   * Sends a bookmark every `ms` (none when `ms` is 0), and one 2 s before
   * the watch's timeout `lasts` ends it, as the watch cache does, so a client
   * resumes from a version as new as possible. `fn` gets `true` for that
   * last one, and sends or skips each.
   */
  bookmarks(
    ms: number,
    lasts: number | undefined,
    fn: (last: boolean) => void,
  ): void {
    const last = lasts === undefined ? undefined : Date.now() + lasts - 2_000;
    const schedule = (): void => {
      const untilLast = last === undefined ? undefined : last - Date.now();
      const wait = ms > 0 && (untilLast === undefined || ms < untilLast)
        ? ms
        : untilLast;
      if (wait === undefined || wait <= 0) return;
      this.#ticker = setTimeout(() => tick(wait === untilLast), wait);
    };
    const tick = (isLast: boolean): void => {
      if (this.#ended) return;
      fn(isLast);
      if (!this.#ended && !isLast) schedule();
    };
    schedule();
  }

  closeAfter(ms: number): void {
    this.#closer = setTimeout(() => this.close(), ms);
  }

  close(): void {
    if (this.#ended) return;
    this.#flush();
    try {
      this.#controller?.close();
    } catch { /* already closed */ }
    this.#end();
  }

  error(reason: unknown): void {
    if (this.#ended) return;
    this.#flush();
    try {
      this.#controller?.error(reason);
    } catch { /* already closed */ }
    this.#end();
  }

  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    clearTimeout(this.#ticker);
    clearTimeout(this.#closer);
    this.onChange?.();
    this.#onEnd();
  }
}
