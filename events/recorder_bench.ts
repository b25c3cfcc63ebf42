/**
 * Benchmarks of the Event recorder:
 *
 * - posts into the queue (the cost a reconcile pass pays per Event), and
 *   posts into a full queue (the drop path);
 * - Events written per second against the in-memory fake API server, as
 *   creates (distinct objects) and as series patches (repeats);
 * - the heap when the API server is down and posts keep coming: it must stay
 *   bounded by the queue, whatever the number of posts. Run with
 *   `--v8-flags=--expose-gc` for exact figures; they print at the end.
 *
 * `deno bench --v8-flags=--expose-gc --allow-net=127.0.0.1 events/recorder_bench.ts`
 *
 * @module
 */
import { Client } from "../apiclient/mod.ts";
import { FakeApiServer } from "../testing/mod.ts";
import { Recorder } from "./mod.ts";
import { QUEUE_LENGTH } from "./_options.ts";
import { testLogger } from "../_internal/_log_test_util.ts";

const note = { reason: "StepFailed", message: "The mount did not answer" };
const objects = Array.from(
  { length: QUEUE_LENGTH },
  (_, i) => ({ kind: "Machine", name: `m${i}`, uid: `u${i}` }),
);
const quiet = (): void => {};

/** A fetch that never answers until its signal ends: a write held in flight. */
const hang: typeof fetch = (_input, init) =>
  new Promise((_resolve, reject) => {
    init?.signal?.addEventListener("abort", () => reject(init.signal?.reason));
  });

/** A recorder whose every write hangs until `signal` ends it. */
function hanging(signal: AbortSignal): Recorder {
  return new Recorder(
    new Client("http://127.0.0.1:9", { fetch: hang }),
    "bench",
    { instance: "i", logger: testLogger({ onError: quiet }), signal },
  );
}

Deno.bench({
  name: "post 256 Events into an empty queue",
  group: "post",
  baseline: true,
  async fn(b): Promise<void> {
    const controller = new AbortController();
    const recorder = hanging(controller.signal);
    b.start();
    for (const object of objects) recorder.warning(object, note);
    b.end();
    controller.abort();
    await recorder.done;
  },
});

const fullController = new AbortController();
const full = hanging(fullController.signal);
for (let i = 0; i <= QUEUE_LENGTH; i++) full.warning(objects[0]!, note);

Deno.bench({
  name: "post 256 Events into a full queue (dropped)",
  group: "post",
  fn(): void {
    for (const object of objects) full.warning(object, note);
  },
});

const server = new FakeApiServer();
const client = new Client(server.url, { fetch: server.fetch });

Deno.bench({
  name: "write 256 new Events (creates) to the in-memory fake",
  group: "write",
  baseline: true,
  async fn(b): Promise<void> {
    const recorder = new Recorder(client, "bench", {
      instance: "i",
      logger: testLogger({ onError: quiet }),
    });
    b.start();
    for (const object of objects) recorder.warning(object, note);
    await recorder.stop({ timeout: Infinity });
    b.end();
    server.expireEvents();
  },
});

Deno.bench({
  name: "256 client.create calls, no recorder (the fake's own cost)",
  group: "write",
  async fn(): Promise<void> {
    for (const object of objects) {
      await client.create("/api/v1/namespaces/default/events", {
        metadata: { generateName: `${object.name}.` },
        involvedObject: object,
        ...note,
      });
    }
    server.expireEvents();
  },
});

Deno.bench({
  name: "write 256 repeats (series patches) to the in-memory fake",
  group: "write",
  async fn(b): Promise<void> {
    const recorder = new Recorder(client, "bench", {
      instance: "i",
      logger: testLogger({ onError: quiet }),
    });
    recorder.warning(objects[0]!, note); // the create the repeats patch
    await new Promise((resolve) => setTimeout(resolve, 0));
    b.start();
    for (let i = 1; i < QUEUE_LENGTH; i++) recorder.warning(objects[0]!, note);
    await recorder.stop({ timeout: Infinity });
    b.end();
    server.expireEvents();
  },
});

// The API server is down and posts keep coming: measure the retained heap.
const heap: string[] = [];
const gc = (globalThis as { gc?: () => void }).gc;
Deno.bench({
  name: "100k posts while the API server is down",
  group: "down",
  n: 5,
  warmup: 1,
  async fn(): Promise<void> {
    const down = new FakeApiServer();
    down.down();
    const controller = new AbortController();
    const recorder = new Recorder(
      new Client(down.url, { fetch: down.fetch }),
      "bench",
      {
        instance: "i",
        logger: testLogger({ onError: quiet }),
        signal: controller.signal,
      },
    );
    gc?.();
    const before = Deno.memoryUsage().heapUsed;
    const checkpoints: number[] = [];
    for (let i = 1; i <= 100_000; i++) {
      recorder.warning({ kind: "Machine", name: `m${i}`, uid: `u${i}` }, {
        reason: "StepFailed",
        message: `Attempt ${i} failed`,
      });
      if (i === 1_000 || i === 10_000 || i === 100_000) {
        gc?.();
        checkpoints.push(Deno.memoryUsage().heapUsed - before);
      }
    }
    const kib = (n: number): string => `${(n / 1024).toFixed(0)} KiB`;
    heap.push(
      `heap growth after 1k / 10k / 100k posts: ${
        checkpoints.map(kib).join(" / ")
      }; dropped ${recorder.dropped()}${
        gc ? "" : " (no --expose-gc: includes garbage)"
      }`,
    );
    controller.abort();
    await recorder.done;
    await down[Symbol.asyncDispose]();
  },
});

globalThis.addEventListener("unload", () => {
  // deno-lint-ignore no-console -- deno bench reports time only; the heap figures are the point of the last bench.
  for (const line of heap) console.log(line);
  void server[Symbol.asyncDispose]();
});
