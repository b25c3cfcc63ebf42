/**
 * The server a scenario talks to, and the transcript it writes: each step's
 * request and the server's answer, as plain JSON.
 *
 * @module
 */

/** A server to send raw requests to: the fake, or a real API server. */
export interface Target {
  /** A name for messages: `fake` or `real`. */
  readonly name: string;
  /** Sends one request (its URL is already absolute). */
  fetch(request: Request): Promise<Response>;
  /** The base URL, such as `https://127.0.0.1:6443`. */
  readonly url: string;
}

/** One step of a transcript. */
export interface Step {
  /** The step's name within its scenario. */
  step: string;
  /** `METHOD path?query` as sent (the namespace already normalised later). */
  request: string;
  /** The answer's status code. */
  status: number;
  /** The answer's body: JSON, or `{ text }` when not JSON. */
  body: unknown;
  /** The `Warning` headers of the answer, if any. */
  warnings?: string[];
}

/** Options of one request. */
export interface SendOptions {
  /**
   * A JSON body (sent as `application/json` unless `contentType` says), or
   * bytes sent as they are (a protobuf body).
   */
  body?: unknown;
  /** The `Content-Type` of the body. */
  contentType?: string;
  /** The `Accept` header. Default `application/json`. */
  accept?: string;
  /** Whether to keep the step out of the transcript (set-up). */
  quiet?: boolean;
  /**
   * Whether to keep the answer's `metadata.resourceVersion` out of the
   * transcript: the objects a control plane makes at its start are written
   * in an order that changes from one start to the next.
   */
  unversioned?: boolean;
}

/** Options of a watch read. */
export interface WatchOptions {
  /** Stop after this many events. */
  events: number;
  /** Give up reading after this many milliseconds (real time). */
  timeout?: number;
  /** Runs once the watch is open: the changes the events should show. */
  during?: () => Promise<void>;
}

const decoder = new TextDecoder();
const USER_AGENT = "differential/1.0";

/** The running of one scenario on one target: its namespace and transcript. */
export class Run {
  /** The target. */
  readonly target: Target;
  /** The namespace this run may use (created by the runner). */
  readonly namespace: string;
  /** What happened, step by step. */
  readonly steps: Step[] = [];

  /**
   * @param target The server.
   * @param namespace The run's own namespace.
   */
  constructor(target: Target, namespace: string) {
    this.target = target;
    this.namespace = namespace;
  }

  /** A namespaced collection path, such as `/api/v1/namespaces/<ns>/configmaps`. */
  path(resource: string, group = ""): string {
    const base = group === "" ? "/api/v1" : `/apis/${group}`;
    return `${base}/namespaces/${this.namespace}/${resource}`;
  }

  /**
   * Sends one request and records it as `step`.
   *
   * @returns The status and the parsed body.
   */
  async send(
    step: string,
    method: string,
    path: string,
    options: SendOptions = {},
  ): Promise<{ status: number; body: unknown }> {
    const headers = new Headers({
      accept: options.accept ?? "application/json",
      // The field manager of a write without fieldManager comes from it.
      "user-agent": USER_AGENT,
    });
    let body: string | Uint8Array<ArrayBuffer> | null = null;
    if (options.body !== undefined) {
      body = typeof options.body === "string" ||
          options.body instanceof Uint8Array
        ? options.body as string | Uint8Array<ArrayBuffer>
        : JSON.stringify(options.body);
      headers.set("content-type", options.contentType ?? "application/json");
    }
    const request = new Request(this.target.url + path, {
      method,
      headers,
      body,
    });
    const answer = await this.target.fetch(request);
    const text = await answer.text();
    const parsed = parse(text);
    if (options.unversioned) {
      delete (parsed as { metadata?: { resourceVersion?: string } }).metadata
        ?.resourceVersion;
    }
    const warnings = answer.headers.get("warning");
    if (!options.quiet) {
      this.steps.push({
        step,
        request: `${method} ${path}`,
        status: answer.status,
        body: parsed,
        ...(warnings ? { warnings: warnings.split(/,\s*(?=\d{3} )/) } : {}),
      });
    }
    return { status: answer.status, body: parsed };
  }

  /**
   * Opens a watch, runs `during`, and records the first `events` events
   * (the stream is then closed).
   */
  async watch(
    step: string,
    path: string,
    options: WatchOptions,
  ): Promise<void> {
    const stop = new AbortController();
    const timer = setTimeout(
      () => stop.abort(new Error("The watch read timed out")),
      options.timeout ?? 10_000,
    );
    const events: unknown[] = [];
    let status = 0;
    try {
      const answer = await this.target.fetch(
        new Request(this.target.url + path, {
          headers: {
            accept: "application/json",
            // As the library's client asks: kube-apiserver gzips a streaming
            // list as one gzip member per flush, and Deno's fetch ends the
            // body after the first (the stream ended after one object,
            // without its bookmark, in 5 of 500 runs).
            "accept-encoding": "identity",
            "user-agent": USER_AGENT,
          },
          signal: stop.signal,
        }),
      );
      status = answer.status;
      if (!answer.ok || answer.body === null) {
        events.push(parse(await answer.text()));
      } else {
        const reader = answer.body.getReader();
        const during = options.during?.();
        let buffer = "";
        try {
          while (events.length < options.events) {
            const { done, value } = await reader.read();
            if (done) break;
            buffer += decoder.decode(value, { stream: true });
            let at: number;
            while (
              (at = buffer.indexOf("\n")) !== -1 &&
              events.length < options.events
            ) {
              const line = buffer.slice(0, at).trim();
              buffer = buffer.slice(at + 1);
              if (line !== "") events.push(parse(line));
            }
          }
        } catch (error) {
          if (!stop.signal.aborted) throw error;
          events.push({ timedOut: true });
        } finally {
          await reader.cancel().catch(() => {});
          await during;
        }
      }
    } finally {
      clearTimeout(timer);
    }
    this.steps.push({ step, request: `WATCH ${path}`, status, body: events });
  }

  /** Polls `check` every 250 ms (real time) until it answers true. */
  async until(
    what: string,
    check: () => Promise<boolean>,
    timeout = 90_000,
  ): Promise<void> {
    const end = Date.now() + timeout;
    while (!(await check())) {
      if (Date.now() > end) throw new Error(`Waited too long for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { text: text.trim() };
  }
}
