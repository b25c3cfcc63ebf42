// The latency bench's server, a process of its own: it holds N ConfigMaps
// (pre-serialised pages of 500, as the scale bench's replay server), then,
// phase by phase, streams MODIFIED events at a steady rate on the open
// watch. Each event carries the wall-clock time it was handed to the
// socket, so that an operator in another process on the same machine (the
// same clock) can time change → reconcile start.
//
//   deno run --allow-net=127.0.0.1 bench/latency/_server.ts \
//     --objects=100000 --rates=1000,2000,5000 --seconds=5
//
// It prints one line, `{"url": …}`, once it listens. The operator then
// posts `/_replay/go?phase=k` when it is ready for phase k (synced and
// idle); the answer says how many events the phase sends, at what rate,
// the counter of its first event and how many watches were open (`{"done":
// true}` past the last). The phase starts once a watch is open (an
// operator can be synced before its watch reaches the server), and a watch
// is sent the events after its resourceVersion, as an API server's watch
// cache replays them: no change is lost to a watch that opened late. It
// serves discovery (`/api`, `/apis`, `/api/v1`: v1 ConfigMaps only), which
// a controller-runtime manager reads before it starts its cache. `GET
// /_replay/log` answers the request log, `GET /_replay/watches` the watches
// opened and replayed to, `POST /_replay/quit` ends the process.
//
// An event's object is ConfigMap `c % N` for a counter `c` that runs on
// across phases, with a new resourceVersion and the annotation
// `bench.liken.dev/sent: "<phase> <ms since the epoch>"`. A phase sends at
// most N events, so no key changes twice in one phase and no queue
// deduplication hides an event.
import { build, type LoggedRequest, pageBody } from "../scale/_replay.ts";
import { configMap } from "../_shared.ts";

/** The annotation an event's stamp travels in. */
export const SENT = "bench.liken.dev/sent";

type Bytes = Uint8Array<ArrayBuffer>;

const PATH = "/api/v1/configmaps";
const encoder = new TextEncoder();
const RV = "@@rv@@";
const STAMP = "@@stamp@@";

function flag(name: string): string | undefined {
  const prefix = `--${name}=`;
  return Deno.args.find((a) => a.startsWith(prefix))?.slice(prefix.length);
}

/** Wall-clock milliseconds with a fraction, on the clock all peers read. */
function now(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * Each object's event line cut around its resourceVersion and stamp, so
 * that an event costs two string joins instead of a JSON.stringify.
 */
function templates(objects: number): [string, string, string][] {
  const out: [string, string, string][] = [];
  for (let i = 0; i < objects; i++) {
    const object = configMap(i, { version: i + 1 });
    object.metadata.resourceVersion = RV;
    object.metadata.annotations = { [SENT]: STAMP };
    const line = `{"type":"MODIFIED","object":${JSON.stringify(object)}}\n`;
    const [head, rest] = line.split(RV) as [string, string];
    const [middle, tail] = rest.split(STAMP) as [string, string];
    out.push([head, middle, tail]);
  }
  return out;
}

/**
 * The discovery documents of a server that holds ConfigMaps: the core group
 * at v1 and no other group, plain JSON (the unaggregated form, which
 * client-go reads when the answer is not an APIGroupDiscoveryList). A
 * controller-runtime manager maps its kinds through them, as it does
 * against a real API server; our Controller and kube-rs's are given the
 * resource and ask nothing.
 */
const DISCOVERY: Record<string, unknown> = {
  "/api": {
    kind: "APIVersions",
    versions: ["v1"],
    serverAddressByClientCIDRs: [{
      clientCIDR: "0.0.0.0/0",
      serverAddress: "127.0.0.1",
    }],
  },
  "/apis": { kind: "APIGroupList", apiVersion: "v1", groups: [] },
  "/api/v1": {
    kind: "APIResourceList",
    groupVersion: "v1",
    resources: [{
      name: "configmaps",
      singularName: "configmap",
      namespaced: true,
      kind: "ConfigMap",
      verbs: [
        "create",
        "delete",
        "deletecollection",
        "get",
        "list",
        "patch",
        "update",
        "watch",
      ],
      shortNames: ["cm"],
    }],
  },
};

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

async function main(): Promise<void> {
  const objects = Number(flag("objects") ?? 100_000);
  const rates = (flag("rates") ?? "1000").split(",").map(Number);
  const seconds = Number(flag("seconds") ?? 5);
  const data = build({ objects, events: 0, mode: "paged" });
  const lines = templates(objects);
  const log: LoggedRequest[] = [];
  const watches = new Set<ReadableStreamDefaultController<Bytes>>();
  let counter = 0;
  let version = objects;
  /**
   * The event lines of the current phase, in order, the first of them of
   * version `historyFrom + 1`: a watch that opens late from a version in
   * this range is sent what it missed, as an API server replays its watch
   * cache (the operator may be synced, and so ask for a phase, before its
   * watch reached the server). An older version answers 410 Gone.
   */
  let history: string[] = [];
  let historyFrom = objects;
  /** Watches opened, and those sent events they had missed. */
  let watchesOpened = 0;
  /** Phases that wait for a watch to open. */
  const waiting: (() => void)[] = [];
  let replayed = 0;
  let phase = -1;
  let first = 0;
  const quit = Promise.withResolvers<void>();

  /** Writes `count` events to every open watch, each stamped as it goes. */
  function send(count: number, at: number): void {
    const parts: string[] = [];
    const stamp = `${phase} ${at.toFixed(3)}`;
    for (let k = 0; k < count; k++) {
      const [head, middle, tail] = lines[counter % objects]!;
      counter += 1;
      version += 1;
      const line = head + String(version) + middle + stamp + tail;
      history.push(line);
      parts.push(line);
    }
    const bytes = encoder.encode(parts.join(""));
    for (const watch of watches) {
      try {
        watch.enqueue(bytes);
      } catch {
        watches.delete(watch);
      }
    }
  }

  /** One phase: `events` events at `rate` a second, by the clock. */
  async function run(rate: number, events: number): Promise<void> {
    const t0 = now();
    let sent = 0;
    while (sent < events) {
      // Batches as the 1 ms timer allows; each batch is stamped when it is
      // written, so a late timer shows as latency, never as a false stamp.
      const at = now();
      const due = Math.min(events, Math.floor((at - t0) * rate / 1000) + 1);
      if (due > sent) {
        send(due - sent, at);
        sent = due;
      }
      await new Promise((r) => setTimeout(r, 1));
    }
  }

  async function go(url: URL): Promise<Response> {
    const asked = Number(url.searchParams.get("phase") ?? phase + 1);
    const rate = rates[asked];
    if (rate === undefined) return Response.json({ done: true });
    const events = Math.min(objects, Math.round(rate * seconds));
    const open = watches.size;
    if (asked !== phase && open === 0) {
      // An operator is idle once synced, which may be before its watch is
      // here: the phase starts when it is (at most 10 s later), so that the
      // first events are not timed through the watch's opening. What is
      // sent before a watch opens is replayed to it all the same.
      let timer: ReturnType<typeof setTimeout> | undefined;
      await new Promise<void>((resolve) => {
        waiting.push(resolve);
        timer = setTimeout(resolve, 10_000);
      });
      clearTimeout(timer);
    }
    if (asked !== phase) {
      phase = asked;
      first = counter;
      history = [];
      historyFrom = version;
      void run(rate, events);
    }
    // `first`: the counter of the phase's first event (its object is
    // `first % N`), so that an operator can name the keys it missed.
    return Response.json({
      phase,
      rate,
      events,
      first,
      seconds: events / rate,
      /** Watches open when the operator asked (0: its watch came later). */
      watches: open,
    });
  }

  function watch(from: string | null): Response {
    // No version, or "0": from now on (every peer here gives its list's).
    const since = from === null || from === "" || from === "0"
      ? version
      : Number(from);
    if (!(since >= historyFrom && since <= version)) {
      return status(
        410,
        "Expired",
        `too old resource version: ${from} (${historyFrom})`,
      );
    }
    watchesOpened += 1;
    const missed = history.slice(since - historyFrom);
    if (missed.length > 0) replayed += 1;
    let self: ReadableStreamDefaultController<Bytes>;
    const body = new ReadableStream<Bytes>({
      start(controller): void {
        self = controller;
        if (missed.length > 0) {
          controller.enqueue(encoder.encode(missed.join("")));
        }
        watches.add(controller);
        for (const resolve of waiting.splice(0)) resolve();
      },
      cancel(): void {
        watches.delete(self);
      },
    });
    return new Response(body, {
      headers: { "content-type": "application/json" },
    });
  }

  function route(request: Request, url: URL): Response | Promise<Response> {
    if (url.pathname === "/_replay/go" && request.method === "POST") {
      return go(url);
    }
    if (url.pathname === "/_replay/log") return Response.json(log);
    if (url.pathname === "/_replay/watches") {
      return Response.json({ opened: watchesOpened, replayed });
    }
    if (url.pathname === "/_replay/quit") {
      quit.resolve();
      return new Response("bye\n");
    }
    const discovered = request.method === "GET"
      ? DISCOVERY[url.pathname]
      : undefined;
    if (discovered !== undefined) return Response.json(discovered);
    if (url.pathname !== PATH || request.method !== "GET") {
      return status(404, "NotFound", `${url.pathname} is not served here`);
    }
    const query = url.searchParams;
    if (query.get("watch") === "true" || query.get("watch") === "1") {
      if (query.get("sendInitialEvents") === "true") {
        // As a server without the WatchList feature: every peer then lists
        // by pages, the one list mode all of them share.
        return status(
          422,
          "Invalid",
          "sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled",
        );
      }
      return watch(query.get("resourceVersion"));
    }
    if (query.get("limit") !== String(data.pageSize)) {
      return status(
        400,
        "BadRequest",
        `this server serves limit=${data.pageSize} pages only`,
      );
    }
    const token = query.get("continue");
    const page = token ? Number(token) : 0;
    if (data.full.pages[page] === undefined) {
      return status(
        410,
        "Expired",
        "The provided continue parameter is too old",
      );
    }
    // The list is the objects as first built: the changes since come from
    // the watch's replay of what was sent after this version.
    return new Response(pageBody(data, data.full, page, String(objects)), {
      headers: { "content-type": "application/json" },
    });
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
    if (!url.pathname.startsWith("/_replay/")) log.push(entry);
    const answer = await route(request, url);
    entry.status = answer.status;
    return answer;
  });
  const line = JSON.stringify({
    url: `http://127.0.0.1:${server.addr.port}`,
    itemBytes: data.itemBytes,
  });
  await Deno.stdout.write(encoder.encode(line + "\n"));
  await quit.promise;
  for (const w of watches) {
    try {
      w.close();
    } catch {
      // The client went away first.
    }
  }
  await server.shutdown();
}

if (import.meta.main) await main();
