// The informer beside "the limit" in one run, on the fake API server served
// on loopback:
//
//   deno run --allow-net=127.0.0.1 --v8-flags=--expose-gc bench/informer.ts
//
// 10,000 ConfigMaps of about 1 KB each (managedFields included) and 100,000
// MODIFIED events. The limit reads the very requests the informer sent (the
// same URLs, so the same bytes) with fetch + line split + JSON.parse +
// Map.set, and nothing else.
//
// The fake flushes a watch as the API server does: the events written in one
// turn go out together (chunks of at most 64 KiB), not one chunk each.
//
// The 100,000 events are written to the fake before the clock starts, so
// neither side pays for the fake's own store work; both pay the same for
// the fake's HTTP server, which runs in this process.
import { Client } from "../apiclient/mod.ts";
import type { KubeObject } from "../apiclient/types.ts";
import { Collection } from "../informer/mod.ts";
import { FakeApiServer, type RecordedRequest } from "../testing/mod.ts";
import { configMap, median, readLines } from "./_shared.ts";

const OBJECTS = 10_000;
const EVENTS = 100_000;
const RUNS = 3;

const gc = (globalThis as { gc?: () => void }).gc;

function pathOf(object: KubeObject): string {
  const { namespace, name } = object.metadata;
  return `/api/v1/namespaces/${namespace}/configmaps/${name}`;
}

function keyOf(object: KubeObject): string {
  return `${object.metadata.namespace}/${object.metadata.name}`;
}

function heapUsed(): number {
  gc?.();
  gc?.();
  return Deno.memoryUsage().heapUsed;
}

function urlOf(base: string, request: RecordedRequest): string {
  const query = request.query.toString();
  return `${base}${request.path}${query === "" ? "" : `?${query}`}`;
}

// --------------------------------------------------------------- the fake

interface Bench {
  server: FakeApiServer;
  /** The fake served on loopback. */
  url: string;
  templates: KubeObject[];
  close(): Promise<void>;
}

async function setUp(): Promise<Bench> {
  const server = new FakeApiServer({
    freshCluster: false,
    namespaceLifecycle: false,
  });
  const templates: KubeObject[] = [];
  for (let i = 0; i < OBJECTS; i++) {
    const object = configMap(i);
    templates.push(object);
    server.put(pathOf(object), object);
  }
  const served = await server.serve();
  return {
    server,
    url: served.url,
    templates,
    async close(): Promise<void> {
      await served[Symbol.asyncDispose]();
      await server[Symbol.asyncDispose]();
    },
  };
}

function modify(bench: Bench, round: number): void {
  for (let n = 0; n < EVENTS; n++) {
    const object = bench.templates[n % OBJECTS]!;
    (object as unknown as { data: Record<string, string> }).data.color =
      `c${round}-${String(n).padStart(6, "0")}`;
    bench.server.put(pathOf(object), object);
  }
}

// ------------------------------------------------------------ first sync

interface Sync {
  limit: number;
  informer: number;
  heapLimit: number;
  heapInformer: number;
  bytes: number;
}

/** The informer's first sync, by streaming list or by paginated lists. */
async function informerSync(
  bench: Bench,
  base: string,
  metadataOnly = false,
): Promise<
  { ms: number; collection: Collection; requests: RecordedRequest[] }
> {
  const since = bench.server.requests.length;
  const client = new Client(base, { timeout: 120_000 });
  const synced = Promise.withResolvers<void>();
  const t0 = performance.now();
  const collection = new Collection(client, {
    version: "v1",
    resource: "configmaps",
  }, {
    synced: synced.resolve,
    metadataOnly,
  });
  await synced.promise;
  const ms = performance.now() - t0;
  if (collection.store.size !== OBJECTS) throw new Error("store short");
  return { ms, collection, requests: bench.server.requests.slice(since) };
}

async function streamingSync(bench: Bench): Promise<Sync> {
  const limitRuns: number[] = [];
  const informerRuns: number[] = [];
  let heapLimit = 0;
  let heapInformer = 0;
  let bytes = 0;
  for (let run = 0; run < RUNS; run++) {
    const heapBefore = run === 0 ? heapUsed() : 0;
    const informer = await informerSync(bench, bench.url);
    informerRuns.push(informer.ms);
    if (run === 0) heapInformer = heapUsed() - heapBefore;
    await informer.collection.stop();
    const first = informer.requests[0]!;
    if (first.query.get("sendInitialEvents") !== "true") {
      throw new Error("the first read was no streaming list");
    }
    // The limit: the same request, read up to the end marker.
    const limitHeapBefore = run === 0 ? heapUsed() : 0;
    const controller = new AbortController();
    const t0 = performance.now();
    const response = await fetch(urlOf(bench.url, first), {
      signal: controller.signal,
    });
    const map = new Map<string, unknown>();
    bytes = 0;
    await readLines(response.body!, (value) => {
      const event = value as { type: string; object: KubeObject };
      if (event.type === "BOOKMARK") return true;
      map.set(keyOf(event.object), event.object);
      return false;
    });
    limitRuns.push(performance.now() - t0);
    controller.abort();
    if (map.size !== OBJECTS) throw new Error(`limit held ${map.size}`);
    if (run === 0) heapLimit = heapUsed() - limitHeapBefore;
    for (const object of map.values()) bytes += JSON.stringify(object).length;
  }
  return {
    limit: median(limitRuns),
    informer: median(informerRuns),
    heapLimit,
    heapInformer,
    bytes,
  };
}

/** The heap of a metadata-only informer's 10k objects, synced. */
async function metadataHeap(bench: Bench): Promise<number> {
  const before = heapUsed();
  const informer = await informerSync(bench, bench.url, true);
  const heap = heapUsed() - before;
  const held = informer.collection.store.get("ns-0/cm-00000")!;
  await informer.collection.stop();
  if (held.kind !== "PartialObjectMetadata") {
    throw new Error(`the metadata-only store held a ${held.kind}`);
  }
  return heap;
}

async function pagedSync(
  bench: Bench,
): Promise<{ limit: number; informer: number; pages: number }> {
  const limitRuns: number[] = [];
  const informerRuns: number[] = [];
  let pages = 0;
  for (let run = 0; run < RUNS; run++) {
    // A server without streaming lists: the informer lists in pages.
    const refusal = bench.server.refuse({ watch: true, status: 422, count: 1 });
    const informer = await informerSync(bench, bench.url);
    refusal.allow();
    informerRuns.push(informer.ms);
    await informer.collection.stop();
    const lists = informer.requests.filter((r) =>
      r.query.get("watch") === null
    );
    pages = lists.length;
    // The limit: the same first page, then the same continue tokens.
    const t0 = performance.now();
    const map = new Map<string, unknown>();
    let url = urlOf(bench.url, lists[0]!);
    for (;;) {
      const response = await fetch(url);
      const list = JSON.parse(await response.text()) as {
        items: KubeObject[];
        metadata: { continue?: string };
      };
      for (const item of list.items) map.set(keyOf(item), item);
      const token = list.metadata.continue;
      if (!token) break;
      const query = new URLSearchParams(lists[0]!.query);
      query.set("continue", token);
      url = `${bench.url}${lists[0]!.path}?${query}`;
    }
    limitRuns.push(performance.now() - t0);
    if (map.size !== OBJECTS) throw new Error(`limit held ${map.size}`);
  }
  return { limit: median(limitRuns), informer: median(informerRuns), pages };
}

// ------------------------------------------------------------ throughput

async function throughput(
  bench: Bench,
  base: string,
): Promise<{ limit: number; informer: number }> {
  const limitRuns: number[] = [];
  const informerRuns: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    // The informer: synced, then the events are written, then timed.
    {
      let seen = 0;
      const all = Promise.withResolvers<void>();
      const informer = await informerSyncWith(bench, base, () => {
        if (++seen === EVENTS) all.resolve();
      });
      modify(bench, run * 2);
      const t0 = performance.now();
      await all.promise;
      informerRuns.push(performance.now() - t0);
      await informer.collection.stop();
      bench.server.compact();
      // The limit: the informer's own first request, so the same stream.
      const controller = new AbortController();
      const response = await fetch(urlOf(base, informer.requests[0]!), {
        signal: controller.signal,
      });
      const map = new Map<string, unknown>();
      let modified = 0;
      let t1 = 0;
      const synced = Promise.withResolvers<void>();
      const read = readLines(response.body!, (value) => {
        const event = value as { type: string; object: KubeObject };
        if (event.type === "BOOKMARK") {
          synced.resolve();
          return false;
        }
        map.set(keyOf(event.object), event.object);
        return event.type === "MODIFIED" && ++modified === EVENTS;
      });
      await synced.promise;
      modify(bench, run * 2 + 1);
      t1 = performance.now();
      await read;
      limitRuns.push(performance.now() - t1);
      controller.abort();
      bench.server.compact();
    }
  }
  return { limit: median(limitRuns), informer: median(informerRuns) };
}

async function informerSyncWith(
  bench: Bench,
  base: string,
  update: () => void,
): Promise<{ collection: Collection; requests: RecordedRequest[] }> {
  const since = bench.server.requests.length;
  const client = new Client(base, { timeout: 120_000 });
  const synced = Promise.withResolvers<void>();
  const collection = new Collection(client, {
    version: "v1",
    resource: "configmaps",
  }, {
    handler: { update },
    synced: synced.resolve,
  });
  await synced.promise;
  return { collection, requests: bench.server.requests.slice(since) };
}

// ------------------------------------------------------------------ report

const bench = await setUp();
const sync = await streamingSync(bench);
const heapMetadata = await metadataHeap(bench);
const paged = await pagedSync(bench);
const watched = await throughput(bench, bench.url);
await bench.close();

const rate = (ms: number): string => `${Math.round(EVENTS / (ms / 1000))}/s`;
const ms = (value: number): string => `${value.toFixed(0)} ms`;
const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;
const ratio = (a: number, b: number): string => `${(a / b).toFixed(2)}×`;

const rows: string[][] = [
  [
    "first sync: streaming list",
    ms(sync.limit),
    ms(sync.informer),
    ratio(sync.informer, sync.limit),
    "≤ 1.2×",
  ],
  [
    `first sync: paginated list (${paged.pages} pages of 500)`,
    ms(paged.limit),
    ms(paged.informer),
    ratio(paged.informer, paged.limit),
    "≤ 1.2×",
  ],
  [
    "watch, 100k MODIFIED",
    rate(watched.limit),
    rate(watched.informer),
    ratio(watched.limit, watched.informer),
    "≥ 0.9×",
  ],
  [
    "heap of the 10k cached objects",
    mb(sync.heapLimit),
    mb(sync.heapInformer),
    ratio(sync.heapInformer, sync.heapLimit),
    "≤ 1×",
  ],
  [
    "heap of the 10k cached objects, metadataOnly (limit: the full informer)",
    mb(sync.heapInformer),
    mb(heapMetadata),
    ratio(heapMetadata, sync.heapInformer),
    "≤ 0.5×",
  ],
];
const out = [
  `${OBJECTS} ConfigMaps (${mb(sync.bytes)} as JSON, ~${
    Math.round(sync.bytes / OBJECTS)
  } B each with managedFields); ${EVENTS} MODIFIED events; median of ${RUNS}${
    gc ? "" : " (no --expose-gc: heap numbers are rough)"
  }`,
  "",
  "| measure | limit | informer | informer / limit | target |",
  "| --- | --- | --- | --- | --- |",
  ...rows.map((row) => `| ${row.join(" | ")} |`),
];
// deno-lint-ignore no-console
console.log(out.join("\n"));
