// The replay server of the scale bench: a plain HTTP server on 127.0.0.1
// that answers ConfigMap lists and watches from bytes serialised once,
// before any peer connects, so that on 2 cores the server costs a peer as
// little as a copy of the bytes does.
//
// It serves `/api/v1/configmaps` or `/api/v1/pods` (all namespaces; the
// Pods of ./_pods.ts with `kind: "pods"`), JSON only, never
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
//   them, or at `rate` a second; then the watch stays open and idle;
// - the end of the watch phase: the peer posts `/_replay/done` once it
//   counted every event (the driver reads the peer's CPU time at `go` and
//   at `done`, through the hooks), then, in paged mode, the server ends the
//   watch with an ERROR event of a 410 Expired Status, as kube-apiserver
//   does for a version older than its history, and times the relist: from
//   the 410 to the first list page, and to the next watch from the list's
//   version once every page was read again. The relist's pages carry the
//   newest version (the last event's); a watch from any other version after
//   the 410 is answered with a 410 again, as the API server would.
//
// With `meta`, the `PartialObjectMetadata` forms (asked by `Accept`) are
// built too, for the metadata-only informer.
import { configMap } from "../_shared.ts";
import { pod } from "./_pods.ts";

/** The collections served. */
export type Kind = "configmaps" | "pods";

/** How the collection is served. */
export interface ReplayData {
  objects: number;
  events: number;
  pageSize: number;
  mode: "paged" | "stream";
  kind: Kind;
  /** Bytes of JSON of one list item, on average (managedFields included). */
  itemBytes: number;
  full: Encoded;
  meta: Encoded | undefined;
}

/** One form (whole objects or metadata) serialised. */
export interface Encoded {
  /** Each page from its `,"items":[` on; the head is written per answer. */
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

const LIST_KIND: Record<Kind, string> = {
  configmaps: "ConfigMap",
  pods: "Pod",
};
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

/** A page's head, up to its items: the list's kind, version, token. */
function listHead(
  form: "full" | "meta",
  kind: Kind,
  version: string,
  page: number,
  pages: number,
  remaining: number,
): string {
  const metadata: Record<string, unknown> = { resourceVersion: version };
  if (page < pages - 1) {
    metadata.continue = String(page + 1);
    metadata.remainingItemCount = remaining;
  }
  const head = form === "full"
    ? { kind: `${LIST_KIND[kind]}List`, apiVersion: "v1", metadata }
    : {
      kind: "PartialObjectMetadataList",
      apiVersion: "meta.k8s.io/v1",
      metadata,
    };
  return JSON.stringify(head).slice(0, -1);
}

/**
 * A whole list page as a server answers it: the head (kind, version, the
 * next page's token) then the page's pre-serialised items. The replay and
 * latency servers both answer with it, so neither can send a page without
 * its head.
 */
export function pageBody(
  data: ReplayData,
  form: Encoded,
  page: number,
  version: string,
): Bytes {
  const head = encoder.encode(listHead(
    form === data.meta ? "meta" : "full",
    data.kind,
    version,
    page,
    form.pages.length,
    data.objects - Math.min(data.objects, (page + 1) * data.pageSize),
  ));
  const bytes = form.pages[page]!;
  const body = new Uint8Array(head.length + bytes.length);
  body.set(head);
  body.set(bytes, head.length);
  return body;
}

/** The i-th object as the server holds it (version i + 1). */
function objectAt(kind: Kind, i: number): Record<string, unknown> {
  return (kind === "pods"
    ? pod(i, i + 1)
    : configMap(i, { version: i + 1 })) as unknown as Record<string, unknown>;
}

/** The k-th watch event's object: object k % objects, changed. */
function changedAt(
  kind: Kind,
  objects: number,
  k: number,
): Record<string, unknown> {
  const i = k % objects;
  const version = objects + k + 1;
  if (kind === "pods") {
    return pod(i, version, Math.floor(k / objects) + 1) as Record<
      string,
      unknown
    >;
  }
  const object = objectAt(kind, i);
  const metadata = object.metadata as Record<string, unknown>;
  metadata.resourceVersion = String(version);
  (object.data as Record<string, string>).color = `c-${
    String(k).padStart(7, "0")
  }`;
  return object;
}

function encode(
  form: "full" | "meta",
  kind: Kind,
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
    const text = JSON.stringify(shape(objectAt(kind, i)));
    itemBytes += text.length;
    if (mode === "paged") {
      page.push(text);
      if (page.length === pageSize || i === objects - 1) {
        pages.push(encoder.encode(`,"items":[${page.join(",")}]}`));
        page = [];
      }
    } else lines.push(`{"type":"ADDED","object":${text}}\n`);
  }
  const bookmark = {
    type: "BOOKMARK",
    object: {
      kind: form === "full" ? LIST_KIND[kind] : "PartialObjectMetadata",
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
    const object = changedAt(kind, objects, k);
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
  kind?: Kind;
  meta?: boolean;
  pageSize?: number;
}): ReplayData {
  const pageSize = options.pageSize ?? 500;
  const kind = options.kind ?? "configmaps";
  const full = encode(
    "full",
    kind,
    options.objects,
    options.events,
    pageSize,
    options.mode,
  );
  const meta = options.meta
    ? encode(
      "meta",
      kind,
      options.objects,
      options.events,
      pageSize,
      options.mode,
    )
    : undefined;
  return {
    objects: options.objects,
    events: options.events,
    pageSize,
    mode: options.mode,
    kind,
    itemBytes: full.itemBytes,
    full,
    meta,
  };
}

/** What the server saw of the relist after its 410 (paged mode). */
export interface Relist {
  /** performance.now() when the 410 was sent; NaN before. */
  expiredAt: number;
  /** From the 410 to the first list page asked again. */
  waitMs: number;
  /** From the 410 to the next watch from the relist's version. */
  relistMs: number;
  /** List pages served after the 410. */
  pages: number;
  /** Watches answered with a 410 again (from a version the 410 ended). */
  expiredWatches: number;
  /** Resolves when the relist is complete (the next watch came). */
  done: Promise<void>;
}

/** The driver's hooks: each awaited before the server goes on. */
export interface Hooks {
  /** The peer posted `/_replay/go`: the watch events start after this. */
  onGo?: () => Promise<void> | void;
  /** The peer posted `/_replay/done`: the 410 is sent after this. */
  onDone?: () => Promise<void> | void;
  /** The relist is complete (see {@linkcode Relist}). */
  onRelisted?: () => Promise<void> | void;
}

/** A running replay server. */
export interface Replay extends AsyncDisposable {
  url: string;
  log: LoggedRequest[];
  relist: Relist;
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

/** The ERROR watch event kube-apiserver sends for a version too old. */
function expiredEvent(version: string): Bytes {
  return encoder.encode(
    JSON.stringify({
      type: "ERROR",
      object: {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: `too old resource version: ${version} (${
          Number(version) + 1
        })`,
        reason: "Expired",
        code: 410,
      },
    }) + "\n",
  );
}

/** Starts a fresh server (its own log and state) on the built bytes. */
export function serve(data: ReplayData, rate = 0, hooks: Hooks = {}): Replay {
  const log: LoggedRequest[] = [];
  const go = Promise.withResolvers<void>();
  const streams = new Set<ReadableStreamDefaultController<Bytes>>();
  let watched = false;
  const closed = new AbortController();
  const path = `/api/v1/${data.kind}`;
  const listVersion = String(data.objects);
  // The newest version, the last event's: the relist's pages carry it.
  const newest = String(data.objects + data.events);
  const relisted = Promise.withResolvers<void>();
  const relist: Relist = {
    expiredAt: NaN,
    waitMs: NaN,
    relistMs: NaN,
    pages: 0,
    expiredWatches: 0,
    done: relisted.promise,
  };
  /** The watch the events went to, to end with the 410. */
  let eventWatch: ReadableStreamDefaultController<Bytes> | undefined;
  /** Every page was read again after the 410. */
  let allPagesAgain = false;

  function eventSource(form: Encoded, initial: boolean): ReadableStream {
    const sendEvents = !watched;
    watched = true;
    let ctl: ReadableStreamDefaultController<Bytes>;
    return new ReadableStream<Bytes>({
      async start(controller): Promise<void> {
        ctl = controller;
        streams.add(controller);
        if (sendEvents) eventWatch = controller;
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

  /** Ends the events' watch with the 410 and starts timing the relist. */
  function expire(): void {
    const watch = eventWatch;
    if (watch === undefined || data.mode !== "paged") return;
    relist.expiredAt = performance.now();
    try {
      watch.enqueue(expiredEvent(listVersion));
      watch.close();
    } catch {
      // The peer already went away: no relist to time.
    }
    streams.delete(watch);
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
      const again = !Number.isNaN(relist.expiredAt);
      if (again) {
        if (relist.pages === 0) {
          relist.waitMs = performance.now() - relist.expiredAt;
        }
        relist.pages++;
        if (page === form.pages.length - 1) allPagesAgain = true;
      }
      const body = pageBody(data, form, page, again ? newest : listVersion);
      return new Response(body, {
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
  }, async (request): Promise<Response> => {
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
    const answer = await route(request, url);
    entry.status = answer.status;
    return answer;
  });

  async function route(request: Request, url: URL): Promise<Response> {
    if (url.pathname === "/_replay/go" && request.method === "POST") {
      await hooks.onGo?.();
      go.resolve();
      return new Response("ok\n");
    }
    if (url.pathname === "/_replay/done" && request.method === "POST") {
      await hooks.onDone?.();
      // After this answer is on its way, so that the peer's line is not
      // held up by the relist.
      setTimeout(expire, 0);
      return new Response("ok\n");
    }
    if (url.pathname !== path || request.method !== "GET") {
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
    if (!Number.isNaN(relist.expiredAt) && !initial) {
      const from = query.get("resourceVersion") ?? "";
      if (from !== newest || !allPagesAgain) {
        // A version the 410 ended (or none): expired again.
        relist.expiredWatches++;
        return new Response(expiredEvent(from || listVersion), {
          headers: { "content-type": "application/json" },
        });
      }
      if (Number.isNaN(relist.relistMs)) {
        relist.relistMs = performance.now() - relist.expiredAt;
        await hooks.onRelisted?.();
        relisted.resolve();
      }
    }
    return new Response(eventSource(form, initial), {
      headers: { "content-type": "application/json" },
    });
  }

  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    log,
    relist,
    async [Symbol.asyncDispose](): Promise<void> {
      closed.abort();
      go.resolve();
      relisted.resolve();
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
