// The informer's own per-object path (issue #48, item 1), without the
// network: the scale bench's watch lines JSON.parse'd, then handed to the
// delivery that a Collection uses (trim, transform, store, handler), against
// the same lines parsed and put in a Map with nothing else (the floor). The
// difference is what the informer adds an event, GC of what it keeps
// included. The same for a sync: a page's items into a new read, then the
// store replaced.
//
//   deno run --allow-read --v8-flags=--expose-gc bench/scale/path.ts \
//     [--objects=100000] [--events=200000] [--meta] [--rounds=5] \
//     [--kind=pods] [--handlers]
//
// `--handlers` measures instead the CPU an event of a handler that reads
// its objects, on each store (issue #48): today's store of objects (frozen,
// as a controller's shared `Collections` keeps them, and not), and the
// store of bytes opening its copies whole and frozen (the store before lazy
// copies), lazily (the default: every field but apiVersion and kind parsed
// when first read), with metadata parsed at once, and whole below 1 KiB
// of text but lazily past it; each with a controller's
// `meaningfulChange(old, object)`, a handler that reads `data` (a Pod's
// `spec`), and one
// that reads nothing. `--only=text` runs the variants whose name holds it.
import process from "node:process";
import { build } from "./_replay.ts";
import { Delivery } from "../../informer/_delivery.ts";
import { scanEvent, type Scanned, scanPage } from "../../informer/_scan.ts";
import type { KubeObject } from "../../apiclient/types.ts";
import {
  type CopyMode,
  parseLine,
  parsePage,
  setCopyMode,
} from "../../informer/_bytes.ts";
import { meaningfulChange } from "../../controller/changes.ts";

function flag(name: string, fallback: string): string {
  const prefix = `--${name}=`;
  return Deno.args.find((a) => a.startsWith(prefix))?.slice(prefix.length) ??
    fallback;
}
const objects = Number(flag("objects", "100000"));
const events = Number(flag("events", "200000"));
const rounds = Number(flag("rounds", "5"));
const meta = Deno.args.includes("--meta");
const kind = flag("kind", "configmaps") as "configmaps" | "pods";
/** CPU time of this process (every thread), in ms: less moved by the
 * other processes of a shared machine than the wall clock. */
function now(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}
const gc = (globalThis as { gc?: () => void }).gc;
const decoder = new TextDecoder();

const data = build({ objects, events, mode: "paged", meta, kind });
const form = meta ? data.meta! : data.full;
const pages = form.pages.map((p) =>
  `{"kind":"List","metadata":{}${decoder.decode(p)}`
);
const text = decoder.decode(form.events);
const lines: string[] = [];
let from = 0;
for (const end of form.ends) {
  lines.push(text.slice(from, end - 1));
  from = end;
}

function delivery(): Delivery<KubeObject> {
  let updates = 0;
  return new Delivery<KubeObject>({
    source: { version: "v1", resource: "configmaps" },
    metadataOnly: meta,
    signal: new AbortController().signal,
    onError: (e) => {
      throw e;
    },
    handler: { update: () => void updates++ },
  });
}

function syncFloor(): Map<string, KubeObject> {
  const items = new Map<string, KubeObject>();
  for (const page of pages) {
    for (const item of JSON.parse(page).items as KubeObject[]) {
      items.set(`${item.metadata.namespace}/${item.metadata.name}`, item);
    }
  }
  return items;
}

async function syncOurs(d: Delivery<KubeObject>): Promise<void> {
  const read = d.newRead();
  for (const page of pages) {
    for (const item of JSON.parse(page).items as KubeObject[]) read.add(item);
  }
  await d.replace(read);
}

function watchFloor(items: Map<string, KubeObject>): void {
  for (const line of lines) {
    const object = JSON.parse(line).object as KubeObject;
    items.set(`${object.metadata.namespace}/${object.metadata.name}`, object);
  }
}

function watchOurs(d: Delivery<KubeObject>): void {
  for (const line of lines) d.apply(JSON.parse(line).object);
}

// What a store of bytes would do instead (issue #48, item 3, estimated):
// scan, then keep the object's text and the scanned fields under its key;
// nothing is parsed until read. The text is a slice of the page or line
// (a real store must copy it, or it keeps the whole read alive).
interface Held {
  text: string;
  fields: Scanned;
}

function syncScan(): Map<string, Held> {
  const items = new Map<string, Held>();
  for (const page of pages) {
    for (const fields of scanPage(page)) {
      const key = fields.namespace
        ? `${fields.namespace}/${fields.name}`
        : fields.name!;
      items.set(key, { text: page.slice(fields.start, fields.end), fields });
    }
  }
  return items;
}

function watchScan(items: Map<string, Held>): void {
  let updates = 0;
  for (const line of lines) {
    const { object: fields } = scanEvent(line);
    const key = fields.namespace
      ? `${fields.namespace}/${fields.name}`
      : fields.name!;
    const previous = items.get(key);
    items.set(key, { text: line.slice(fields.start, fields.end), fields });
    if (previous !== undefined) updates++;
  }
}

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}

if (Deno.args.includes("--handlers")) {
  await handlers();
  Deno.exit(0);
}

/** One store and handler of `--handlers`. */
interface Variant {
  name: string;
  storage: "objects" | "bytes";
  freeze?: boolean;
  mode?: CopyMode;
  reads: "changed" | "data" | "nothing";
}

async function handlers(): Promise<void> {
  const variants: Variant[] = [];
  for (const reads of ["changed", "data", "nothing"] as const) {
    variants.push(
      { name: `objects, ${reads}`, storage: "objects", reads },
      {
        name: `objects+freeze, ${reads}`,
        storage: "objects",
        reads,
        freeze: true,
      },
      {
        name: `bytes whole (before), ${reads}`,
        storage: "bytes",
        mode: "whole",
        reads,
      },
      {
        name: `bytes sized, ${reads}`,
        storage: "bytes",
        mode: "sized",
        reads,
      },
      {
        name: `bytes metadata eager, ${reads}`,
        storage: "bytes",
        mode: "metadata",
        reads,
      },
      {
        name: `bytes lazy (default), ${reads}`,
        storage: "bytes",
        mode: "lazy",
        reads,
      },
    );
  }
  // The field a reading handler reads: a Pod has no data.
  const body = kind === "pods" ? "spec" : "data";
  // `--only=text`: the variants whose name holds it.
  const only = flag("only", "");
  const chosen = variants.filter((v) => v.name.includes(only));
  const results = new Map<string, number[]>();
  let sink = 0;
  for (let r = 0; r < rounds; r++) {
    for (const v of chosen) {
      gc?.();
      setCopyMode(v.mode ?? "lazy");
      const d = new Delivery<KubeObject & { data?: unknown; spec?: unknown }>({
        source: { version: "v1", resource: kind },
        metadataOnly: meta,
        storage: v.storage,
        freeze: v.freeze,
        signal: new AbortController().signal,
        onError: (e) => {
          throw e;
        },
        handler: {
          update: v.reads === "changed"
            ? (old, object) =>
              void (sink += meaningfulChange(old, object) ? 1 : 0)
            : v.reads === "data"
            ? (_old, object) =>
              void (sink += object[body] === undefined ? 0 : 1)
            : (_old, _object) => void sink++,
        },
      });
      const bytes = v.storage === "bytes";
      const read = d.newRead();
      for (const page of pages) {
        const items = (bytes ? parsePage(page) : JSON.parse(page)) as {
          items: KubeObject[];
        };
        for (const item of items.items) read.add(item);
      }
      await d.replace(read);
      gc?.();
      const t0 = now();
      for (const line of lines) {
        const event = (bytes ? parseLine(line) : JSON.parse(line)) as {
          object: KubeObject;
        };
        d.apply(event.object);
      }
      const perEvent = (now() - t0) * 1000 / events;
      results.set(v.name, [...(results.get(v.name) ?? []), perEvent]);
    }
  }
  setCopyMode("lazy");
  const out = [...results].map(([name, values]) =>
    `${name}: ${median(values).toFixed(2)} µs/event (${
      Math.min(...values).toFixed(2)
    }–${Math.max(...values).toFixed(2)})`
  );
  // deno-lint-ignore no-console
  console.log(
    `handlers that read, ${objects} ${kind}, ${events} events, ${rounds} rounds, ${
      sink > 0 ? "" : "nothing read, "
    }load ${Deno.loadavg().map((l) => l.toFixed(2)).join(" ")}\n${
      out.join("\n")
    }`,
  );
}

const figures: Record<string, number[]> = {
  "sync floor": [],
  "sync ours": [],
  "watch floor": [],
  "watch ours": [],
  "sync scan store": [],
  "watch scan store": [],
};
for (let r = 0; r < rounds; r++) {
  // Alternated, each from an empty heap, so that load hits both alike.
  gc?.();
  let t0 = now();
  const floor = syncFloor();
  figures["sync floor"]!.push((now() - t0) * 1000 / objects);
  t0 = now();
  watchFloor(floor);
  figures["watch floor"]!.push((now() - t0) * 1000 / events);
  floor.clear();
  gc?.();
  const d = delivery();
  t0 = now();
  await syncOurs(d);
  figures["sync ours"]!.push((now() - t0) * 1000 / objects);
  t0 = now();
  watchOurs(d);
  figures["watch ours"]!.push((now() - t0) * 1000 / events);
  gc?.();
  t0 = now();
  const scanned = syncScan();
  figures["sync scan store"]!.push((now() - t0) * 1000 / objects);
  t0 = now();
  watchScan(scanned);
  figures["watch scan store"]!.push((now() - t0) * 1000 / events);
  scanned.clear();
}
const out = Object.entries(figures).map(([name, values]) =>
  `${name}: ${median(values).toFixed(2)} µs/object (${
    Math.min(...values).toFixed(2)
  }–${Math.max(...values).toFixed(2)})`
);
// deno-lint-ignore no-console
console.log(
  `${
    meta ? "metadata-only" : "whole objects"
  }, ${objects} objects, ${events} events, ${rounds} rounds\n${out.join("\n")}`,
);
