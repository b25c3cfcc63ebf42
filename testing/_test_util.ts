// Helpers for the fake server's own tests: plain fetch calls and a line
// reader for watch streams.
import type { FakeApiServer } from "./fake_server.ts";

/** A decoded answer. */
export interface Answer {
  status: number;
  headers: Headers;
  // deno-lint-ignore no-explicit-any
  body: any;
}

/** Sends one request through the in-memory fetch and reads the JSON answer. */
export async function call(
  server: FakeApiServer,
  method: string,
  path: string,
  body?: unknown,
  contentType = "application/json",
): Promise<Answer> {
  const init: RequestInit = { method };
  if (body !== undefined) {
    init.body = typeof body === "string" ? body : JSON.stringify(body);
    init.headers = { "content-type": contentType };
  }
  const res = await server.fetch(server.url + path, init);
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch { /* not JSON */ }
  return { status: res.status, headers: res.headers, body: parsed };
}

/** Reads a watch body line by line. */
export class Lines {
  #reader: ReadableStreamDefaultReader<Uint8Array>;
  #decoder = new TextDecoder();
  #buffer = "";
  /** Every chunk read, as text. */
  chunks: string[] = [];

  constructor(response: Response) {
    this.#reader = response.body!.getReader();
  }

  /** The next full line, or undefined at the end of the stream. */
  async line(): Promise<string | undefined> {
    for (;;) {
      const nl = this.#buffer.indexOf("\n");
      if (nl >= 0) {
        const line = this.#buffer.slice(0, nl);
        this.#buffer = this.#buffer.slice(nl + 1);
        return line;
      }
      const { value, done } = await this.#reader.read();
      if (done) {
        return undefined;
      }
      const text = this.#decoder.decode(value, { stream: true });
      this.chunks.push(text);
      this.#buffer += text;
    }
  }

  /** What is left after the last full line, once the stream ended. */
  get rest(): string {
    return this.#buffer;
  }

  /** The next event, decoded. */
  // deno-lint-ignore no-explicit-any
  async event(): Promise<any> {
    const line = await this.line();
    return line === undefined ? undefined : JSON.parse(line);
  }

  /** Reads events until the stream ends. */
  // deno-lint-ignore no-explicit-any
  async all(): Promise<any[]> {
    const out = [];
    for (let e = await this.event(); e !== undefined; e = await this.event()) {
      out.push(e);
    }
    return out;
  }

  /** Cancels the stream. */
  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
  }
}

/** Opens a watch through the in-memory fetch. */
export async function watch(
  server: FakeApiServer,
  path: string,
  signal?: AbortSignal,
): Promise<{ status: number; lines: Lines }> {
  const init: RequestInit = {};
  if (signal) init.signal = signal;
  const res = await server.fetch(server.url + path, init);
  return { status: res.status, lines: new Lines(res) };
}
