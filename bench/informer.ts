// The informer beside "the limit" (fetch + line split + JSON.parse + Map.set
// of the same bytes), in one run:
//
//   deno run --allow-net=127.0.0.1 --v8-flags=--expose-gc bench/informer.ts
//
// 10,000 ConfigMaps of about 1 KB each (managedFields included) and 100,000
// MODIFIED events, all on loopback:
// - first sync on the fake API server served by `server.serve()`: the
//   informer (streaming list, and paginated list) against the limit's one
//   plain list of the collection;
// - watch throughput on a small dedicated Deno.serve that answers the same
//   pre-encoded bytes to both sides (the fake's own per-event work would
//   otherwise be most of what is measured), one HTTP chunk per event as the
//   API server flushes, and in 64 KiB chunks;
// - the heap the cached objects take, after a full GC.
import { Client } from "../apiclient/mod.ts";
import type { KubeObject } from "../apiclient/types.ts";
import { type Collection, start } from "../informer/mod.ts";
import { FakeApiServer } from "../testing/mod.ts";

const OBJECTS = 10_000;
const EVENTS = 100_000;
const RUNS = 5;

const gc = (globalThis as { gc?: () => void }).gc;

function configMap(i: number, version: number): KubeObject {
  const name = `cm-${String(i).padStart(5, "0")}`;
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name,
      namespace: `ns-${i % 10}`,
      uid: crypto.randomUUID(),
      resourceVersion: String(version),
      creationTimestamp: "2026-12-02T11:00:00Z",
      labels: { app: "bench", shard: String(i % 16) },
      managedFields: [{
        manager: "kubectl-client-side-apply",
        operation: "Update",
        apiVersion: "v1",
        time: "2026-12-02T11:00:00Z",
        fieldsType: "FieldsV1",
        fieldsV1: {
          "f:data": { ".": {}, "f:color": {}, "f:payload": {} },
          "f:metadata": {
            "f:labels": { ".": {}, "f:app": {}, "f:shard": {} },
          },
        },
      }],
    },
    data: { color: "blue", payload: "x".repeat(430) },
  } as KubeObject;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function heapUsed(): number {
  gc?.();
  gc?.();
  return Deno.memoryUsage().heapUsed;
}

/** The limit's reader: BYOB into one reused buffer, split lines, parse. */
async function readLines(
  body: ReadableStream<Uint8Array>,
  onLine: (value: unknown) => boolean,
): Promise<void> {
  const reader = body.getReader({ mode: "byob" });
  const decoder = new TextDecoder();
  let view = new Uint8Array(256 * 1024);
  let pending = "";
  try {
    for (;;) {
      const { value, done } = await reader.read(view);
      if (done) return;
      pending += decoder.decode(value, { stream: true });
      view = new Uint8Array(value!.buffer);
      let start = 0;
      let end: number;
      while ((end = pending.indexOf("\n", start)) !== -1) {
        const stop = onLine(JSON.parse(pending.slice(start, end)));
        start = end + 1;
        if (stop) return;
      }
      pending = pending.slice(start);
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

function keyOf(object: KubeObject): string {
  return `${object.metadata.namespace}/${object.metadata.name}`;
}

// ------------------------------------------------------------ first sync

async function firstSync(): Promise<{
  limitList: number;
  limitStream: number;
  stream: number;
  pages: number;
  heapLimit: number;
  heapInformer: number;
  listBytes: number;
}> {
  const server = new FakeApiServer();
  for (let i = 0; i < OBJECTS; i++) {
    const object = configMap(i, 0);
    server.put(
      `/api/v1/namespaces/${object.metadata.namespace}/configmaps/${object.metadata.name}`,
      object,
    );
  }
  await using served = await server.serve();
  const listUrl = `${served.url}/api/v1/configmaps`;
  const client = new Client(served.url, { timeout: 120_000 });
  let listBytes = 0;

  const limitRuns: number[] = [];
  const limitStreamRuns: number[] = [];
  const streamRuns: number[] = [];
  const pageRuns: number[] = [];
  let heapLimit = 0;
  let heapInformer = 0;
  // The retained heap is what a full GC frees once the copy is dropped.
  for (let run = 0; run < RUNS; run++) {
    // The limit: one list, parse, Map.set.
    {
      const t0 = performance.now();
      const response = await fetch(listUrl);
      const text = await response.text();
      let map: Map<string, KubeObject> | undefined = new Map();
      for (const item of (JSON.parse(text) as { items: KubeObject[] }).items) {
        map.set(keyOf(item), item);
      }
      limitRuns.push(performance.now() - t0);
      listBytes = text.length;
      if (map.size !== OBJECTS) throw new Error(`limit held ${map.size}`);
      if (run === 0) {
        const held = heapUsed();
        map = undefined;
        heapLimit = held - heapUsed();
      }
    }
    // The limit reading the streaming list the informer reads.
    {
      const controller = new AbortController();
      const t0 = performance.now();
      const response = await fetch(
        `${listUrl}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`,
        { signal: controller.signal },
      );
      const map = new Map<string, unknown>();
      await readLines(response.body!, (value) => {
        const event = value as { type: string; object: KubeObject };
        if (event.type === "BOOKMARK") return true;
        map.set(keyOf(event.object), event.object);
        return false;
      });
      limitStreamRuns.push(performance.now() - t0);
      controller.abort();
    }
    // The informer, streaming list.
    {
      const t0 = performance.now();
      const synced = Promise.withResolvers<void>();
      let collection: Collection | undefined = start(client, {
        version: "v1",
        resource: "configmaps",
      }, { synced: synced.resolve });
      await synced.promise;
      streamRuns.push(performance.now() - t0);
      if (collection.store.size !== OBJECTS) throw new Error("store short");
      await collection.stop();
      if (run === 0) {
        const held = heapUsed();
        collection = undefined;
        heapInformer = held - heapUsed();
      }
    }
    // The informer, paginated lists (a server without streaming lists).
    {
      const refusal = server.refuse({ watch: true, status: 422, count: 1 });
      const t0 = performance.now();
      const synced = Promise.withResolvers<void>();
      const collection = start(client, {
        version: "v1",
        resource: "configmaps",
      }, {
        synced: synced.resolve,
      });
      await synced.promise;
      pageRuns.push(performance.now() - t0);
      await collection.stop();
      refusal.allow();
    }
  }
  await server[Symbol.asyncDispose]();
  return {
    limitList: median(limitRuns),
    limitStream: median(limitStreamRuns),
    stream: median(streamRuns),
    pages: median(pageRuns),
    heapLimit,
    heapInformer,
    listBytes,
  };
}

// ------------------------------------------------------------ throughput

interface Feed {
  initial: Uint8Array[];
  events: Uint8Array[];
  bytes: number;
}

function encodeFeed(): Feed {
  const encoder = new TextEncoder();
  const initial: Uint8Array[] = [];
  for (let i = 0; i < OBJECTS; i++) {
    initial.push(
      encoder.encode(
        JSON.stringify({ type: "ADDED", object: configMap(i, i + 1) }) + "\n",
      ),
    );
  }
  initial.push(encoder.encode(
    JSON.stringify({
      type: "BOOKMARK",
      object: {
        kind: "ConfigMap",
        apiVersion: "v1",
        metadata: {
          resourceVersion: String(OBJECTS),
          annotations: { "k8s.io/initial-events-end": "true" },
        },
      },
    }) + "\n",
  ));
  const events: Uint8Array[] = [];
  let bytes = 0;
  const templates = Array.from({ length: OBJECTS }, (_, i) => configMap(i, 0));
  for (let n = 0; n < EVENTS; n++) {
    const object = templates[n % OBJECTS]!;
    object.metadata.resourceVersion = String(OBJECTS + 1 + n);
    const line = encoder.encode(
      JSON.stringify({ type: "MODIFIED", object }) + "\n",
    );
    bytes += line.length;
    events.push(line);
  }
  return { initial, events, bytes };
}

function batches(lines: Uint8Array[], size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let parts: Uint8Array[] = [];
  let length = 0;
  const flush = (): void => {
    const chunk = new Uint8Array(length);
    let at = 0;
    for (const part of parts) {
      chunk.set(part, at);
      at += part.length;
    }
    out.push(chunk);
    parts = [];
    length = 0;
  };
  for (const line of lines) {
    parts.push(line);
    length += line.length;
    if (length >= size) flush();
  }
  if (length > 0) flush();
  return out;
}

/**
 * Serves the streaming list (initial events, bookmark), then, once `go()`
 * runs, the MODIFIED events on the same stream, which then stays open.
 */
interface FeedServer {
  url: string;
  go(): void;
  reset(): void;
  close(): Promise<void>;
}

function feedServer(feed: Feed, chunked: boolean): FeedServer {
  const events = chunked ? batches(feed.events, 64 * 1024) : feed.events;
  const initial = chunked ? batches(feed.initial, 64 * 1024) : feed.initial;
  let go = Promise.withResolvers<void>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen(): void {} },
    (request) => {
      const url = new URL(request.url);
      if (url.searchParams.get("sendInitialEvents") !== "true") {
        // A plain watch after the stream ended: stay quiet.
        return new Response(
          new ReadableStream({ start(): void {} }),
          { headers: { "content-type": "application/json" } },
        );
      }
      const started = go.promise;
      let i = 0;
      let sentInitial = 0;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller): Promise<void> {
          if (sentInitial < initial.length) {
            controller.enqueue(initial[sentInitial++]!);
            return;
          }
          await started;
          if (i < events.length) controller.enqueue(events[i++]!);
        },
      }, { highWaterMark: 0 });
      return new Response(body, {
        headers: { "content-type": "application/json" },
      });
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    go: () => go.resolve(),
    reset: () => {
      go = Promise.withResolvers<void>();
    },
    close: () => server.shutdown(),
  };
}

async function throughput(feed: Feed, chunked: boolean): Promise<{
  limit: number;
  informer: number;
  limitSync: number;
  informerSync: number;
  client: number;
}> {
  const served = feedServer(feed, chunked);
  const path =
    "/api/v1/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true";
  const limitRuns: number[] = [];
  const informerRuns: number[] = [];
  const limitSyncs: number[] = [];
  const informerSyncs: number[] = [];
  const clientRuns: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    // The limit.
    {
      served.reset();
      const map = new Map<string, unknown>();
      const controller = new AbortController();
      const t0 = performance.now();
      const response = await fetch(served.url + path, {
        signal: controller.signal,
      });
      let seen = 0;
      let synced = 0;
      let t1 = 0;
      await readLines(response.body!, (value) => {
        const event = value as { type: string; object: KubeObject };
        if (event.type === "BOOKMARK") {
          synced = performance.now() - t0;
          served.go();
          t1 = performance.now();
          return false;
        }
        map.set(keyOf(event.object), event.object);
        if (event.type === "MODIFIED" && ++seen === EVENTS) return true;
        return false;
      });
      limitRuns.push(performance.now() - t1);
      limitSyncs.push(synced);
      controller.abort();
    }
    // The client's own watch stream into a Map, for attribution.
    {
      served.reset();
      const client = new Client(served.url, { timeout: 120_000 });
      const stream = await client.watch(path, { idleTimeout: 330_000 });
      const map = new Map<string, unknown>();
      let seen = 0;
      let t1 = 0;
      for await (const event of stream) {
        if (event.type === "BOOKMARK") {
          served.go();
          t1 = performance.now();
          continue;
        }
        map.set(keyOf(event.object as KubeObject), event.object);
        if (event.type === "MODIFIED" && ++seen === EVENTS) break;
      }
      clientRuns.push(performance.now() - t1);
    }
    // The informer.
    {
      served.reset();
      const client = new Client(served.url, { timeout: 120_000 });
      let seen = 0;
      let t1 = 0;
      const all = Promise.withResolvers<void>();
      const t0 = performance.now();
      let synced = 0;
      const collection = start(client, {
        version: "v1",
        resource: "configmaps",
      }, {
        handler: {
          update: () => {
            if (++seen === EVENTS) all.resolve();
          },
        },
        synced: () => {
          synced = performance.now() - t0;
          t1 = performance.now();
          served.go();
        },
      });
      await all.promise;
      informerRuns.push(performance.now() - t1);
      informerSyncs.push(synced);
      await collection.stop();
    }
  }
  await served.close();
  return {
    limit: median(limitRuns),
    informer: median(informerRuns),
    limitSync: median(limitSyncs),
    informerSync: median(informerSyncs),
    client: median(clientRuns),
  };
}

// ------------------------------------------------------------------ report

const sync = await firstSync();
const feed = encodeFeed();
const perEvent = await throughput(feed, false);
const chunked = await throughput(feed, true);

const rate = (ms: number): string => `${Math.round(EVENTS / (ms / 1000))}/s`;
const ms = (value: number): string => `${value.toFixed(0)} ms`;
const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;
const ratio = (a: number, b: number): string => `${(a / b).toFixed(2)}×`;

const rows: [string, string, string, string, string][] = [
  [
    "first sync, fake served (streaming list vs one list)",
    ms(sync.limitList),
    ms(sync.stream),
    ratio(sync.stream, sync.limitList),
    "≤ 1.2×",
  ],
  [
    "first sync, fake served (both read the streaming list)",
    ms(sync.limitStream),
    ms(sync.stream),
    ratio(sync.stream, sync.limitStream),
    "≤ 1.2×",
  ],
  [
    "first sync, fake served (paginated lists vs one list)",
    ms(sync.limitList),
    ms(sync.pages),
    ratio(sync.pages, sync.limitList),
    "≤ 1.2×",
  ],
  [
    "first sync, same NDJSON bytes, one chunk per event",
    ms(perEvent.limitSync),
    ms(perEvent.informerSync),
    ratio(perEvent.informerSync, perEvent.limitSync),
    "≤ 1.2×",
  ],
  [
    "first sync, same NDJSON bytes, 64 KiB chunks",
    ms(chunked.limitSync),
    ms(chunked.informerSync),
    ratio(chunked.informerSync, chunked.limitSync),
    "≤ 1.2×",
  ],
  [
    "watch, 100k MODIFIED, one chunk per event",
    rate(perEvent.limit),
    rate(perEvent.informer),
    ratio(perEvent.limit, perEvent.informer),
    "≥ 0.9×",
  ],
  [
    "(client.watch alone into a Map, one chunk per event)",
    rate(perEvent.limit),
    rate(perEvent.client),
    ratio(perEvent.limit, perEvent.client),
    "",
  ],
  [
    "watch, 100k MODIFIED, 64 KiB chunks",
    rate(chunked.limit),
    rate(chunked.informer),
    ratio(chunked.limit, chunked.informer),
    "≥ 0.9×",
  ],
  [
    "heap of 10k cached objects",
    mb(sync.heapLimit),
    mb(sync.heapInformer),
    ratio(sync.heapInformer, sync.heapLimit),
    "≤ 1×",
  ],
];
const out = [
  `${OBJECTS} ConfigMaps, list body ${
    mb(sync.listBytes)
  }; ${EVENTS} MODIFIED events, ${mb(feed.bytes)}; median of ${RUNS}${
    gc ? "" : " (no --expose-gc: heap numbers are rough)"
  }`,
  "",
  "| measure | limit | informer | informer / limit | target |",
  "| --- | --- | --- | --- | --- |",
  ...rows.map((row) => `| ${row.join(" | ")} |`),
];
// deno-lint-ignore no-console
console.log(out.join("\n"));
