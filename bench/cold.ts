// The informer's first sync and watch in a fresh process, beside what plain
// `fetch` + `JSON.parse` does with the same bytes in a fresh process:
//
//   deno run --allow-net=127.0.0.1 --allow-read --allow-run bench/cold.ts \
//     [runs=9] [objects=10000] [row to profile]
//
// (`--allow-read` only for `Deno.execPath()`; a row named third, such as
// `stream`, runs its children with `--cpu-prof` into .tmp/prof.) Each repetition starts a new
// Deno process (`deno run --allow-net=127.0.0.1 bench/cold.ts child …`), so
// every row pays what an operator pays at start or failover: code that is not
// yet compiled, a heap that is not yet grown. A child times from just before
// its first request (imports already loaded) to its end and prints the
// figure; the parent takes the median of RUNS, rounds interleaved so a noisy
// neighbour hits every row alike.
//
// The API server is this file's own, in the parent, on 127.0.0.1: it answers
// from bytes encoded before the clock starts (10,000 ConfigMaps of ~1.1 KB
// with managedFields, the object of `bench/informer.ts`), in chunks of at most
// 64 KiB as an API server flushes a burst of events. It serves:
//
// - a streaming list (`sendInitialEvents=true`): the ADDED events, the
//   initial-events-end bookmark, then nothing until `/go`, which releases
//   100,000 MODIFIED events on that stream;
// - an unpaged list, and lists in pages of 500 with continue tokens;
// - a watch from a version: open and silent.
//
// Rows:
//   first sync, streaming   informer start → synced       vs one unpaged list
//   the same, timer loaded  as above, a setTimeout before the clock
//   the same                informer                      vs a bare streaming
//                                                          reader: the same
//                                                          request, split +
//                                                          parse + Map.set
//   bare streaming reader   as just above                 vs one unpaged list
//   first sync, paginated   informer (streaming refused)  vs one unpaged list
//   watch, 100k MODIFIED    informer, events/s            vs split + JSON.parse
//                                                          of the same stream
//   the same                                              vs split + parse +
//                                                          Map.set (a store)
import { Client } from "../apiclient/mod.ts";
import type { KubeObject } from "../apiclient/types.ts";
import { Collection } from "../informer/mod.ts";
import { configMap, median, readLines } from "./_shared.ts";

// Arguments: `[runs] [objects] [row to profile]`; a child gets
// `child <row> <url> <objects>`.
const CHILD = Deno.args[0] === "child";
const OBJECTS = Number((CHILD ? Deno.args[3] : Deno.args[1]) ?? 10_000) ||
  10_000;
const EVENTS = 100_000;
const PAGE = 500;
const CHUNK = 64 * 1024;
const RUNS = CHILD ? 0 : Number(Deno.args[0] ?? 9) || 9;
/** A row whose child writes a CPU profile into .tmp/prof, if any. */
const PROFILE = CHILD ? undefined : Deno.args[2];
const PATH = "/api/v1/configmaps";

// ------------------------------------------------------------------ child

/** A child's figure: wall time in ms. */
interface Figure {
  ms: number;
}

async function child(mode: string, base: string): Promise<Figure> {
  const key = (o: KubeObject): string =>
    `${o.metadata.namespace}/${o.metadata.name}`;
  if (mode === "list") {
    const t0 = performance.now();
    const response = await fetch(`${base}${PATH}`);
    const list = JSON.parse(await response.text()) as { items: KubeObject[] };
    const map = new Map<string, KubeObject>();
    for (const item of list.items) map.set(key(item), item);
    const figure = { ms: performance.now() - t0 };
    if (map.size !== OBJECTS) throw new Error(`list held ${map.size}`);
    return figure;
  }
  if (mode === "stream-floor") {
    // What any JavaScript reader of the streaming list pays: the informer's
    // request, split + parsed by the limit's reader, each object set in a Map.
    const t0 = performance.now();
    const controller = new AbortController();
    const response = await fetch(
      `${base}${PATH}?watch=true&sendInitialEvents=true`,
      { signal: controller.signal },
    );
    const map = new Map<string, KubeObject>();
    await readLines<{ type: string; object: KubeObject }>(
      response.body!,
      (event) => {
        if (event.type === "BOOKMARK") return true;
        map.set(key(event.object), event.object);
        return false;
      },
    );
    const figure = { ms: performance.now() - t0 };
    controller.abort();
    if (map.size !== OBJECTS) throw new Error(`stream held ${map.size}`);
    return figure;
  }
  if (mode === "floor" || mode === "floor-map") {
    // The watch floor: the informer's stream, split + parsed, no store (or,
    // for floor-map, each object set in a Map as a store would hold it).
    const controller = new AbortController();
    const response = await fetch(
      `${base}${PATH}?watch=true&sendInitialEvents=true`,
      { signal: controller.signal },
    );
    const synced = Promise.withResolvers<void>();
    let modified = 0;
    const map = mode === "floor-map"
      ? new Map<string, KubeObject>()
      : undefined;
    const read = readLines<{ type: string; object: KubeObject }>(
      response.body!,
      (event) => {
        if (event.type === "BOOKMARK") synced.resolve();
        else map?.set(key(event.object), event.object);
        return event.type === "MODIFIED" && ++modified === EVENTS;
      },
    );
    await synced.promise;
    const t0 = performance.now();
    await fetch(`${base}/go`).then((r) => r.body?.cancel());
    await read;
    const figure = { ms: performance.now() - t0 };
    controller.abort();
    return figure;
  }
  // The informer: streaming or paginated is the server's choice.
  if (mode === "stream-timer") {
    // The process's first setTimeout loads Deno's timers (part of its Node
    // compatibility layer) once: here before the clock, as in a process that
    // set a timer before its first sync.
    clearTimeout(setTimeout(() => {}, 1));
  }
  const client = new Client(base, { timeout: 120_000 });
  const synced = Promise.withResolvers<void>();
  const all = Promise.withResolvers<void>();
  let seen = 0;
  const t0 = performance.now();
  const collection = new Collection(client, {
    version: "v1",
    resource: "configmaps",
  }, {
    synced: synced.resolve,
    handler: mode === "watch"
      ? { update: () => void (++seen === EVENTS && all.resolve()) }
      : undefined,
  });
  await synced.promise;
  let figure = { ms: performance.now() - t0 };
  if (collection.store.size !== OBJECTS) throw new Error("store short");
  if (mode === "watch") {
    const t1 = performance.now();
    await fetch(`${base}/go`).then((r) => r.body?.cancel());
    await all.promise;
    figure = { ms: performance.now() - t1 };
  }
  await collection.stop();
  client[Symbol.dispose]();
  return figure;
}

// ----------------------------------------------------------------- server

interface Served {
  url: string;
  /** Whether a streaming list is refused (as a server without it does). */
  refuseStreaming: boolean;
  bytes: number;
  close(): Promise<void>;
}

const encoder = new TextEncoder();

/** A body that sends `bytes` in chunks of at most 64 KiB, as pulled. */
function chunked(parts: Uint8Array[], hold?: Promise<unknown>): BodyInit {
  let part = 0;
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller): Promise<void> {
      if (part === parts.length) {
        if (hold !== undefined) await hold;
        controller.close();
        return;
      }
      const bytes = parts[part]!;
      const end = Math.min(offset + CHUNK, bytes.length);
      controller.enqueue(bytes.subarray(offset, end));
      offset = end;
      if (offset === bytes.length) {
        part++;
        offset = 0;
      }
    },
  });
}

function serve(): Served {
  const objects = Array.from(
    { length: OBJECTS },
    (_, i) => configMap(i, { payload: 550, version: i + 1 }),
  );
  const listVersion = String(OBJECTS);
  const list = encoder.encode(JSON.stringify({
    kind: "ConfigMapList",
    apiVersion: "v1",
    metadata: { resourceVersion: listVersion },
    items: objects,
  }));
  const pages: Uint8Array[] = [];
  for (let at = 0; at < OBJECTS; at += PAGE) {
    const more = at + PAGE < OBJECTS;
    pages.push(encoder.encode(JSON.stringify({
      kind: "ConfigMapList",
      apiVersion: "v1",
      metadata: {
        resourceVersion: listVersion,
        ...(more ? { continue: String(at + PAGE) } : {}),
      },
      items: objects.slice(at, at + PAGE),
    })));
  }
  const initial = encoder.encode(
    objects.map((object) => JSON.stringify({ type: "ADDED", object }) + "\n")
      .join("") +
      JSON.stringify({
        type: "BOOKMARK",
        object: {
          kind: "ConfigMap",
          apiVersion: "v1",
          metadata: {
            resourceVersion: listVersion,
            annotations: { "k8s.io/initial-events-end": "true" },
          },
        },
      }) + "\n",
  );
  const modified: string[] = [];
  for (let n = 0; n < EVENTS; n++) {
    const object = configMap(n % OBJECTS, {
      payload: 550,
      version: OBJECTS + 1 + n,
    }) as KubeObject & {
      data: Record<string, string>;
    };
    object.data.color = `c-${String(n).padStart(6, "0")}`;
    modified.push(JSON.stringify({ type: "MODIFIED", object }) + "\n");
  }
  const events = encoder.encode(modified.join(""));
  let go = Promise.withResolvers<void>();
  const status = (code: number, reason: string): Response =>
    Response.json({
      kind: "Status",
      apiVersion: "v1",
      status: "Failure",
      reason,
      code,
    }, { status: code });
  const served: Served = {
    url: "",
    refuseStreaming: false,
    bytes: list.length,
    close: async () => await server.shutdown(),
  };
  const forever = new Promise<void>(() => {});
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: () => {},
  }, (request) => {
    const url = new URL(request.url);
    if (url.pathname === "/go") {
      go.resolve();
      return new Response("ok");
    }
    if (url.pathname !== PATH) return status(404, "NotFound");
    const query = url.searchParams;
    if (query.get("watch") === "true") {
      const json = { headers: { "content-type": "application/json" } };
      if (query.get("sendInitialEvents") !== "true") {
        return new Response(chunked([], forever), json);
      }
      if (served.refuseStreaming) return status(422, "Invalid");
      // A new streaming list: its MODIFIED events wait for the next /go.
      go = Promise.withResolvers<void>();
      const released = go.promise;
      let sentInitial = false;
      let sentEvents = false;
      let offset = 0;
      return new Response(
        new ReadableStream<Uint8Array>({
          async pull(controller): Promise<void> {
            const bytes = sentInitial ? events : initial;
            if (sentInitial && !sentEvents && offset === 0) await released;
            if (sentEvents) {
              await forever;
              return;
            }
            const end = Math.min(offset + CHUNK, bytes.length);
            controller.enqueue(bytes.subarray(offset, end));
            offset = end;
            if (offset === bytes.length) {
              offset = 0;
              if (sentInitial) sentEvents = true;
              sentInitial = true;
            }
          },
        }),
        json,
      );
    }
    const limit = query.get("limit");
    const json = { headers: { "content-type": "application/json" } };
    if (limit === null) return new Response(chunked([list]), json);
    const from = Number(query.get("continue") ?? 0);
    return new Response(chunked([pages[from / PAGE]!]), json);
  });
  served.url = `http://127.0.0.1:${server.addr.port}`;
  return served;
}

async function spawn(mode: string, url: string): Promise<Figure> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net=127.0.0.1",
      ...(PROFILE === mode
        ? ["--cpu-prof", "--cpu-prof-dir=.tmp/prof", "--cpu-prof-interval=250"]
        : []),
      new URL(import.meta.url).pathname,
      "child",
      mode,
      url,
      String(OBJECTS),
    ],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (!output.success) throw new Error(`child ${mode} failed`);
  return JSON.parse(new TextDecoder().decode(output.stdout));
}

// ------------------------------------------------------------------ main

if (CHILD) {
  const figure = await child(Deno.args[1]!, Deno.args[2]!);
  // deno-lint-ignore no-console
  console.log(JSON.stringify(figure));
} else {
  const served = serve();
  const rows = [
    "list",
    "stream",
    "stream-timer",
    "stream-floor",
    "paged",
    "floor",
    "floor-map",
    "watch",
  ] as const;
  const runs = new Map<string, Figure[]>(rows.map((row) => [row, []]));
  for (let run = 0; run < RUNS; run++) {
    for (const row of rows) {
      served.refuseStreaming = row === "paged";
      runs.get(row)!.push(await spawn(row, served.url));
    }
  }
  await served.close();
  const m = (row: string, of: keyof Figure = "ms"): number =>
    median(runs.get(row)!.map((figure) => figure[of]));
  const all = (row: string): string =>
    runs.get(row)!.map((figure) => figure.ms.toFixed(0)).join("/");
  const rate = (ms: number): string =>
    `${Math.round(EVENTS / (ms / 1000) / 1000)}k/s`;
  const ms = (value: number): string => `${value.toFixed(0)} ms`;
  const row = (
    measure: string,
    limit: string,
    informer: string,
    show: (value: number) => string,
    inverse = false,
  ): string => {
    const ratio = (a: number, b: number): number => inverse ? b / a : a / b;
    const of = (row: string): number[] =>
      runs.get(row)!.map((figure) => figure.ms);
    // The rows of one round run back to back, so the ratio within a round
    // is steadier than a ratio of medians when the machine's speed drifts;
    // the fastest runs are the ones a noisy neighbour slowed least.
    const rounds = of(informer).map((ms, i) => ratio(ms, of(limit)[i]!));
    const fastest = ratio(Math.min(...of(informer)), Math.min(...of(limit)));
    return `| ${measure} | ${show(m(limit))} | ${show(m(informer))} | ${
      ratio(m(informer), m(limit)).toFixed(2)
    }× | ${median(rounds).toFixed(2)}× | ${fastest.toFixed(2)}× | ${
      all(limit)
    }; ${all(informer)} |`;
  };
  const out = [
    `${OBJECTS} ConfigMaps (${(served.bytes / 1e6).toFixed(1)} MB as a list, ~${
      Math.round(served.bytes / OBJECTS)
    } B each); ${EVENTS} MODIFIED events; a fresh process per run; median of ${RUNS}`,
    "",
    "| measure | limit | informer | informer / limit (medians) | median of each round's ratio | ratio of the fastest runs | ms of each run (limit; informer) |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    row(
      "first sync, cold: streaming list vs one unpaged list",
      "list",
      "stream",
      ms,
    ),
    row(
      "the same, a timer set before the clock (Deno's timers loaded)",
      "list",
      "stream-timer",
      ms,
    ),
    row(
      "first sync, cold: streaming list vs a bare streaming reader (split + parse + Map.set)",
      "stream-floor",
      "stream",
      ms,
    ),
    row(
      "first sync, cold: a bare streaming reader vs one unpaged list",
      "list",
      "stream-floor",
      ms,
    ),
    row(
      `first sync, cold: ${
        Math.ceil(OBJECTS / PAGE)
      } pages of ${PAGE} vs one unpaged list`,
      "list",
      "paged",
      ms,
    ),
    row(
      `watch, ${EVENTS / 1000}k MODIFIED: events/s vs split + JSON.parse`,
      "floor",
      "watch",
      rate,
      true,
    ),
    row(
      `watch, ${EVENTS / 1000}k MODIFIED: vs split + JSON.parse + Map.set`,
      "floor-map",
      "watch",
      rate,
      true,
    ),
  ];
  // deno-lint-ignore no-console
  console.log(out.join("\n"));
}
