// The replay server of the scale bench: a plain HTTP server on 127.0.0.1
// that answers ConfigMap lists and watches from bytes serialised once,
// before any peer connects, so that on 2 cores the server costs a peer as
// little as a copy of the bytes does.
//
// It serves `/api/v1/configmaps` (all namespaces), JSON only, never
// compressed (every peer is also set to identity where it would ask for
// gzip; the log shows what each asked):
//
// - a paginated list (`limit` = the built page size, `continue`), with
//   `remainingItemCount` as the API server sends it; any other limit, or
//   none, is served by serialising on the spot (slow, and logged so);
// - a streaming list (`watch=true&sendInitialEvents=true`): one ADDED event
//   an object, then the BOOKMARK with `k8s.io/initial-events-end`, as
//   kube-apiserver 1.37 sends; in `paged` mode it answers 422, as a server
//   without the WatchList feature does, so every peer lists by pages;
// - a watch (`watch=true`): after the peer posts `/_replay/go` (it measures
//   its heap first), `events` MODIFIED events as fast as the socket takes
//   them, or at `rate` a second; then the watch stays open and idle.
//
// With `meta`, the `PartialObjectMetadata` forms (asked by `Accept`) are
// built too, for the metadata-only informer.
import { configMap } from "../_shared.ts";

/** How the collection is served. */
export interface ReplayData {
  objects: number;
  events: number;
  pageSize: number;
  mode: "paged" | "stream";
  /** Bytes of JSON of one list item, on average (managedFields included). */
  itemBytes: number;
  full: Encoded;
  meta: Encoded | undefined;
}

/** One form (whole objects or metadata) serialised. */
interface Encoded {
  pages: Bytes[];
  /** The streaming list's initial events and bookmark, in chunks. */
  initial: Bytes[];
  /** The watch events, one buffer, and where each event ends. */
  events: Bytes;
  ends: Uint32Array;
}

/** One request, as the log prints it. */
export interface LoggedRequest {
  method: string;
  path: string;
  query: string;
  accept: string;
  acceptEncoding: string;
  status: number;
}

type Bytes = Uint8Array<ArrayBuffer>;

const PATH = "/api/v1/configmaps";
const CHUNK = 64 * 1024;
const encoder = new TextEncoder();

function metaOf(object: Record<string, unknown>): Record<string, unknown> {
  return {
    kind: "PartialObjectMetadata",
    apiVersion: "meta.k8s.io/v1",
    metadata: object.metadata,
  };
}

/** Joins strings into chunks of about CHUNK bytes, as an API server flushes. */
function chunked(lines: Iterable<string>): Bytes[] {
  const chunks: Bytes[] = [];
  let parts: string[] = [];
  let size = 0;
  for (const line of lines) {
    parts.push(line);
    size += line.length;
    if (size >= CHUNK) {
      chunks.push(encoder.encode(parts.join("")));
      parts = [];
      size = 0;
    }
  }
  if (parts.length > 0) chunks.push(encoder.encode(parts.join("")));
  return chunks;
}

function listJson(
  form: "full" | "meta",
  items: string[],
  version: string,
  token: string | undefined,
  remaining: number,
): string {
  const metadata: Record<string, unknown> = { resourceVersion: version };
  if (token !== undefined) {
    metadata.continue = token;
    metadata.remainingItemCount = remaining;
  }
  const head = form === "full"
    ? { kind: "ConfigMapList", apiVersion: "v1", metadata }
    : {
      kind: "PartialObjectMetadataList",
      apiVersion: "meta.k8s.io/v1",
      metadata,
    };
  const text = JSON.stringify(head);
  return `${text.slice(0, -1)},"items":[${items.join(",")}]}`;
}

/** The i-th object as the server holds it (version i + 1). */
function objectAt(i: number): Record<string, unknown> {
  return configMap(i, { version: i + 1 }) as unknown as Record<
    string,
    unknown
  >;
}

function encode(
  form: "full" | "meta",
  objects: number,
  events: number,
  pageSize: number,
  mode: "paged" | "stream",
): Encoded & { itemBytes: number } {
  const version = String(objects);
  const pages: Bytes[] = [];
  const lines: string[] = [];
  let itemBytes = 0;
  let page: string[] = [];
  const shape = form === "full" ? (o: Record<string, unknown>) => o : metaOf;
  for (let i = 0; i < objects; i++) {
    const text = JSON.stringify(shape(objectAt(i)));
    itemBytes += text.length;
    if (mode === "paged") {
      page.push(text);
      if (page.length === pageSize || i === objects - 1) {
        const last = i === objects - 1;
        pages.push(encoder.encode(listJson(
          form,
          page,
          version,
          last ? undefined : String(pages.length + 1),
          objects - i - 1,
        )));
        page = [];
      }
    } else lines.push(`{"type":"ADDED","object":${text}}\n`);
  }
  const bookmark = {
    type: "BOOKMARK",
    object: {
      kind: form === "full" ? "ConfigMap" : "PartialObjectMetadata",
      apiVersion: form === "full" ? "v1" : "meta.k8s.io/v1",
      metadata: {
        resourceVersion: version,
        annotations: { "k8s.io/initial-events-end": "true" },
      },
    },
  };
  lines.push(JSON.stringify(bookmark) + "\n");
  const initial = mode === "stream" ? chunked(lines) : [];
  lines.length = 0;
  // The watch events: object k % objects, each a new version and colour.
  const texts: string[] = [];
  const ends = new Uint32Array(events);
  let end = 0;
  for (let k = 0; k < events; k++) {
    const object = objectAt(k % objects);
    const metadata = object.metadata as Record<string, unknown>;
    metadata.resourceVersion = String(objects + k + 1);
    (object.data as Record<string, string>).color = `c-${
      String(k).padStart(7, "0")
    }`;
    const line = `{"type":"MODIFIED","object":${
      JSON.stringify(shape(object))
    }}\n`;
    texts.push(line);
    end += line.length; // ASCII only: characters are bytes.
    ends[k] = end;
  }
  return {
    pages,
    initial,
    events: encoder.encode(texts.join("")),
    ends,
    itemBytes: itemBytes / objects,
  };
}

/** Serialises the collection once; a server per peer then reuses it. */
export function build(options: {
  objects: number;
  events: number;
  mode: "paged" | "stream";
  meta?: boolean;
  pageSize?: number;
}): ReplayData {
  const pageSize = options.pageSize ?? 500;
  const full = encode(
    "full",
    options.objects,
    options.events,
    pageSize,
    options.mode,
  );
  const meta = options.meta
    ? encode("meta", options.objects, options.events, pageSize, options.mode)
    : undefined;
  return {
    objects: options.objects,
    events: options.events,
    pageSize,
    mode: options.mode,
    itemBytes: full.itemBytes,
    full,
    meta,
  };
}

/** A running replay server. */
export interface Replay extends AsyncDisposable {
  url: string;
  log: LoggedRequest[];
}

function status(code: number, reason: string, message: string): Response {
  return Response.json({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason,
    code,
  }, { status: code });
}

/** Starts a fresh server (its own log and state) on the built bytes. */
export function serve(data: ReplayData, rate = 0): Replay {
  const log: LoggedRequest[] = [];
  const go = Promise.withResolvers<void>();
  const streams = new Set<ReadableStreamDefaultController<Bytes>>();
  let watched = false;
  const closed = new AbortController();

  function eventSource(form: Encoded, initial: boolean): ReadableStream {
    const sendEvents = !watched;
    watched = true;
    let ctl: ReadableStreamDefaultController<Bytes>;
    return new ReadableStream<Bytes>({
      async start(controller): Promise<void> {
        ctl = controller;
        streams.add(controller);
        if (initial) {
          for (const chunk of form.initial) controller.enqueue(chunk);
        }
        if (!sendEvents) return;
        await go.promise;
        if (closed.signal.aborted) return;
        const { events, ends } = form;
        if (rate <= 0) {
          // As fast as the socket takes them: 64 KiB slices, backpressure
          // through the queue (highWaterMark below).
          for (let at = 0; at < events.length; at += CHUNK) {
            controller.enqueue(events.subarray(at, at + CHUNK));
          }
          return;
        }
        // At `rate` a second: a batch every 10 ms, by the clock, so that
        // timer lateness does not lower the rate.
        const t0 = performance.now();
        let sent = 0;
        while (sent < ends.length && !closed.signal.aborted) {
          const due = Math.min(
            ends.length,
            Math.floor((performance.now() - t0) * rate / 1000) + 1,
          );
          if (due > sent) {
            const from = sent === 0 ? 0 : ends[sent - 1]!;
            controller.enqueue(events.subarray(from, ends[due - 1]!));
            sent = due;
          }
          await new Promise((r) => setTimeout(r, 10));
        }
      },
      cancel(): void {
        streams.delete(ctl);
      },
    });
  }

  function list(form: Encoded, query: URLSearchParams): Response {
    const limit = query.get("limit");
    const token = query.get("continue");
    if (limit === String(data.pageSize) && data.mode === "paged") {
      const page = token === null || token === "" ? 0 : Number(token);
      const bytes = form.pages[page];
      if (bytes === undefined) {
        return status(
          410,
          "Expired",
          "The provided continue parameter is too old",
        );
      }
      return new Response(bytes, {
        headers: { "content-type": "application/json" },
      });
    }
    return status(
      400,
      "BadRequest",
      `the replay server serves limit=${data.pageSize} pages only`,
    );
  }

  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: () => {},
  }, (request): Response => {
    const url = new URL(request.url);
    const entry: LoggedRequest = {
      method: request.method,
      path: url.pathname,
      query: url.search,
      accept: request.headers.get("accept") ?? "",
      acceptEncoding: request.headers.get("accept-encoding") ?? "",
      status: 200,
    };
    log.push(entry);
    const answer = route(request, url);
    entry.status = answer.status;
    return answer;
  });

  function route(request: Request, url: URL): Response {
    if (url.pathname === "/_replay/go" && request.method === "POST") {
      go.resolve();
      return new Response("ok\n");
    }
    if (url.pathname !== PATH || request.method !== "GET") {
      return status(404, "NotFound", `${url.pathname} is not served here`);
    }
    const accept = request.headers.get("accept") ?? "";
    const metaAsked = accept.includes("as=PartialObjectMetadata");
    const form = metaAsked ? data.meta : data.full;
    if (form === undefined) {
      return status(406, "NotAcceptable", "metadata forms were not built");
    }
    const query = url.searchParams;
    if (query.get("watch") !== "true" && query.get("watch") !== "1") {
      return list(form, query);
    }
    const initial = query.get("sendInitialEvents") === "true";
    if (initial && data.mode === "paged") {
      return status(
        422,
        "Invalid",
        "sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled",
      );
    }
    if (initial && query.get("resourceVersionMatch") !== "NotOlderThan") {
      return status(
        422,
        "Invalid",
        "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
      );
    }
    return new Response(eventSource(form, initial), {
      headers: { "content-type": "application/json" },
    });
  }

  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    log,
    async [Symbol.asyncDispose](): Promise<void> {
      closed.abort();
      go.resolve();
      for (const stream of streams) {
        try {
          stream.close();
        } catch {
          // Already closed or errored by the client's going away.
        }
      }
      await server.shutdown();
    },
  };
}
