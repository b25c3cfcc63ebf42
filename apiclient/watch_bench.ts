// The watch decoder's cost:
//   deno bench apiclient/watch_bench.ts
// The fast path (many small events, one per read, as a live watch sends
// them) and one long line in 16 KiB reads against the same line in one piece
// (linear: within 2x).
import { WatchStream } from "./watch.ts";

const encoder = new TextEncoder();

function event(i: number, size: number): string {
  return JSON.stringify({
    type: "MODIFIED",
    object: {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: {
        name: `cm-${i}`,
        namespace: "default",
        resourceVersion: String(1000 + i),
      },
      data: { v: "x".repeat(size) },
    },
  }) + "\n";
}

const small = Array.from(
  { length: 2000 },
  (_, i) => encoder.encode(event(i, 300)),
);
const batched = encoder.encode(
  small.map((b) => new TextDecoder().decode(b)).join(""),
);
const long = encoder.encode(event(0, 16 << 20));

function stream(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    pull(controller): void {
      if (i < chunks.length) controller.enqueue(chunks[i++]!);
      else controller.close();
    },
  });
}

function split(bytes: Uint8Array, size: number): Uint8Array[] {
  const parts: Uint8Array[] = [];
  for (let o = 0; o < bytes.length; o += size) {
    parts.push(bytes.subarray(o, o + size));
  }
  return parts;
}

async function drain(chunks: Uint8Array[]): Promise<number> {
  let n = 0;
  const watch = new WatchStream(stream(chunks), { method: "GET", path: "/w" });
  const batches = watch.batches();
  for (;;) {
    const { value, done } = await batches.next();
    if (done) return n;
    n += value.length;
  }
}

Deno.bench({
  name: "2,000 events, one per read",
  group: "fast path",
  baseline: true,
  async fn(): Promise<void> {
    await drain(small);
  },
});

Deno.bench({
  name: "2,000 events, 16 KiB reads",
  group: "fast path",
  async fn(): Promise<void> {
    await drain(split(batched, 16 * 1024));
  },
});

Deno.bench({
  name: "16 MiB line, one piece",
  group: "long line",
  baseline: true,
  n: 10,
  async fn(): Promise<void> {
    await drain([long]);
  },
});

Deno.bench({
  name: "16 MiB line, 16 KiB reads",
  group: "long line",
  n: 10,
  async fn(): Promise<void> {
    await drain(split(long, 16 * 1024));
  },
});
