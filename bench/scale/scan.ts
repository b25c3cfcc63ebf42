// Issue #48, item 2: the scan of _scan.ts against JSON.parse on the scale
// bench's own bytes (1 KB ConfigMaps and 6.7 KB Pods; list pages of 500 and
// MODIFIED watch lines), in MB/s of JSON and in bytes allocated an object.
//
//   deno run --v8-flags=--expose-gc,--min-semi-space-size=64,--max-semi-space-size=64 \
//     bench/scale/scan.ts [--rounds=7]
//
// Each path starts from the bytes (UTF-8 decoding counted) and ends with
// what the store would keep: the parsed objects, or the scanned fields and
// the object's text. Allocation: the heap grown by one page (or 500 lines)
// after a full GC, with a young generation big enough (64 MB semi-spaces)
// that no collection runs inside the measure: garbage counts too.
import process from "node:process";
import { build, type Kind } from "./_replay.ts";
import { scanEvent, scanPage } from "../../informer/_scan.ts";

const rounds = Number(
  Deno.args.find((a) => a.startsWith("--rounds="))?.slice(9) ?? 7,
);
/** CPU time of this process (every thread), in ms: less moved by the
 * other processes of a shared machine than the wall clock. */
function now(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}
const gc = (globalThis as { gc?: () => void }).gc;
const decoder = new TextDecoder();

interface Input {
  name: string;
  /** Pages or lines, each the bytes the client reads. */
  chunks: Uint8Array[];
  objects: number;
  bytes: number;
}

function inputs(kind: Kind, objects: number): Input[] {
  const data = build({ objects, events: objects, mode: "paged", kind });
  const encoder = new TextEncoder();
  // A page as the server sends it: its head, then the items.
  const head = encoder.encode('{"kind":"List","metadata":{}');
  const pages = data.full.pages.map((page) => {
    const whole = new Uint8Array(head.length + page.length);
    whole.set(head);
    whole.set(page, head.length);
    return whole;
  });
  const lines: Uint8Array[] = [];
  let from = 0;
  for (const end of data.full.ends) {
    lines.push(data.full.events.subarray(from, end));
    from = end;
  }
  const size = (chunks: Uint8Array[]): number =>
    chunks.reduce((sum, c) => sum + c.length, 0);
  return [
    { name: `${kind} pages`, chunks: pages, objects, bytes: size(pages) },
    { name: `${kind} watch lines`, chunks: lines, objects, bytes: size(lines) },
  ];
}

type Path = (chunk: Uint8Array, page: boolean) => unknown;

const PATHS: Record<string, Path> = {
  "JSON.parse": (chunk) => JSON.parse(decoder.decode(chunk)),
  "scan": (chunk, page) => {
    const text = decoder.decode(chunk);
    return page ? scanPage(text) : scanEvent(text);
  },
  // What a store of bytes keeps besides the fields: the object's own text.
  "scan + text": (chunk, page) => {
    const text = decoder.decode(chunk);
    if (page) {
      return scanPage(text).map((s) => text.slice(s.start, s.end));
    }
    const event = scanEvent(text);
    return text.slice(event.object.start, event.object.end);
  },
};

function check(input: Input): void {
  const page = input.name.endsWith("pages");
  const chunk = input.chunks[0]!;
  const parsed = JSON.parse(decoder.decode(chunk));
  const objects = page ? parsed.items : [parsed.object];
  const text = decoder.decode(chunk);
  const scanned = page ? scanPage(text) : [scanEvent(text).object];
  if (scanned.length !== objects.length) throw new Error("count");
  scanned.forEach((s, i) => {
    const m = objects[i].metadata;
    const same = s.name === m.name && s.namespace === m.namespace &&
      s.resourceVersion === m.resourceVersion &&
      JSON.stringify(JSON.parse(s.labels ?? "null")) ===
        JSON.stringify(m.labels ?? null) &&
      JSON.stringify(JSON.parse(text.slice(s.start, s.end))) ===
        JSON.stringify(objects[i]);
    if (!same) throw new Error(`scan differs at ${input.name} ${i}`);
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const rows: string[] = [
  "| input | path | MB/s median (min–max) | µs/object | allocated B/object |",
  "| --- | --- | ---: | ---: | ---: |",
];
for (
  const [kind, objects] of [["configmaps", 20_000], ["pods", 5_000]] as [
    Kind,
    number,
  ][]
) {
  for (const input of inputs(kind, objects)) {
    check(input);
    const page = input.name.endsWith("pages");
    for (const [name, path] of Object.entries(PATHS)) {
      for (const chunk of input.chunks.slice(0, 50)) path(chunk, page); // warm
      const speeds: number[] = [];
      for (let r = 0; r < rounds; r++) {
        gc?.();
        const t0 = now();
        for (const chunk of input.chunks) path(chunk, page);
        const ms = now() - t0;
        speeds.push(input.bytes / 1e3 / ms);
      }
      // Allocation: 500 objects (one page, or 500 lines) with no GC inside.
      const batch = page
        ? input.chunks.slice(0, 1)
        : input.chunks.slice(0, 500);
      const allocs: number[] = [];
      for (let r = 0; r < 3; r++) {
        const kept: unknown[] = [];
        gc?.();
        const before = Deno.memoryUsage().heapUsed;
        for (const chunk of batch) kept.push(path(chunk, page));
        allocs.push((Deno.memoryUsage().heapUsed - before) / 500);
      }
      const mbs = median(speeds);
      const perObject = input.bytes / input.objects / mbs; // µs (bytes / MB/s)
      rows.push(
        `| ${input.name} (${
          Math.round(input.bytes / input.objects)
        } B/object) | ${name} | ${mbs.toFixed(0)} (${
          Math.min(...speeds).toFixed(0)
        }–${Math.max(...speeds).toFixed(0)}) | ${perObject.toFixed(2)} | ${
          median(allocs).toFixed(0)
        } |`,
      );
    }
  }
}
// deno-lint-ignore no-console
console.log(rows.join("\n"));
