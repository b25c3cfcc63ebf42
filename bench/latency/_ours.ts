// Our `Controller` under a steady stream of changes, in a process of its
// own against the latency server (bench/latency/_server.ts): it syncs the
// ConfigMaps, reconciles each once, then asks the server for one phase of
// events after another and times each reconcile's start against the stamp
// the server wrote into the object. Prints one JSON line; besides the
// phases it names the keys of a phase that no reconcile saw (at most 20,
// with the cache's copy of each), the reconciles of an earlier phase's
// change (`late`) and the server's open watches when each phase began.
//
//   deno run --allow-net=127.0.0.1 bench/latency/_ours.ts \
//     --url=http://127.0.0.1:PORT --objects=100000 --concurrency=4 [--bytes]
//
// `--bytes`: every collection of the controller keeps bytes (`storage:
// "bytes"`, issue #48), through the internal default the tests use too.
import { Client } from "../../apiclient/mod.ts";
import { objectKey } from "../../apiclient/resource.ts";
import { Controller } from "../../controller/mod.ts";
import { setDefaultStorage } from "../../informer/_bytes.ts";
import { configMap } from "../_shared.ts";
import { type Phase, phaseResult, SENT, wallClock } from "./_phase.ts";

function arg(name: string): string | undefined {
  const prefix = `--${name}=`;
  return Deno.args.find((a) => a.startsWith(prefix))?.slice(prefix.length);
}

const url = arg("url")!;
const objects = Number(arg("objects") ?? 0);
const concurrency = Number(arg("concurrency") ?? 1);
const timeoutMs = Number(arg("timeout") ?? 60_000);
const bytes = Deno.args.includes("--bytes");
if (bytes) setDefaultStorage("bytes");

let initial = 0;
const warm = Promise.withResolvers<void>();
/**
 * The phase being timed, and what its reconciles recorded. It is set
 * before the operator asks the server for the phase, so that a change the
 * server sends before its answer arrives is counted too; `events` is known
 * only with the answer.
 */
let current: {
  phase: number;
  events: number;
  latencies: number[];
  stamps: number[];
  lastStart: number;
  /** The keys reconciled with a change of the phase. */
  seen: Set<string>;
  /** Every key reconciled meanwhile → the stamp its copy carried. */
  touched: Map<string, string>;
  done: PromiseWithResolvers<void>;
} | undefined;
/** Reconciles that saw a change of an earlier phase. */
let late = 0;
/** Reconciles after the warm-up that saw no stamp at all. */
let unstamped = 0;

const client = new Client(url, { timeout: 600_000 });
const t0 = performance.now();
const controller = new Controller(client, {
  name: "latency",
  for: { version: "v1", resource: "configmaps", kind: "ConfigMap" },
  concurrency,
  reconcile: ({ key, object }): void => {
    const start = wallClock();
    const sent = object?.metadata.annotations?.[SENT];
    current?.touched.set(
      key,
      sent ?? (object === undefined ? "(no object)" : "(no stamp)"),
    );
    if (sent === undefined) {
      if (++initial === objects) warm.resolve();
      else if (initial > objects) unstamped += 1;
      return;
    }
    const space = sent.indexOf(" ");
    const phase = Number(sent.slice(0, space));
    const stamp = Number(sent.slice(space + 1));
    const now = current;
    if (now === undefined || now.phase !== phase) {
      late += 1; // a change of an earlier phase reconciled late
      return;
    }
    now.latencies.push(start - stamp);
    now.stamps.push(stamp);
    now.seen.add(key);
    now.lastStart = start;
    if (now.latencies.length === now.events) now.done.resolve();
  },
});
await warm.promise;
const readyMs = performance.now() - t0;
await controller.idle();

// Queue depth, sampled every 10 ms: a queue that grows without bound shows
// here before the latencies do.
let depth = 0;
const sampler = setInterval(() => {
  depth = Math.max(depth, controller.queue.length + controller.queue.working);
}, 10);

/** A phase's keys that no reconcile saw, and what the cache holds of them. */
interface Missing {
  phase: number;
  key: string;
  /** The stamp in the cached copy, and its resourceVersion. */
  cached: string | undefined;
  resourceVersion: string | undefined;
  /** What the key's last reconcile during the phase saw, if any ran. */
  reconciled: string | undefined;
}
const missing: Missing[] = [];
/** The server's open watches when each phase began (0: not open yet). */
const watchesAtGo: number[] = [];

const phases: Phase[] = [];
for (let phase = 0;; phase++) {
  depth = 0;
  const record: NonNullable<typeof current> = {
    phase,
    events: Infinity,
    latencies: [],
    stamps: [],
    lastStart: 0,
    seen: new Set(),
    touched: new Map(),
    done: Promise.withResolvers<void>(),
  };
  current = record;
  const answer = await (await fetch(`${url}/_replay/go?phase=${phase}`, {
    method: "POST",
  })).json() as {
    done?: boolean;
    rate: number;
    events: number;
    first: number;
    watches: number;
  };
  if (answer.done) break;
  watchesAtGo.push(answer.watches);
  record.events = answer.events;
  if (record.latencies.length >= record.events) record.done.resolve();
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    record.done.promise,
    new Promise<void>((resolve) => timer = setTimeout(resolve, timeoutMs)),
  ]);
  clearTimeout(timer);
  const result = phaseResult(
    answer.rate,
    answer.events,
    Float64Array.from(record.latencies),
    Float64Array.from(record.stamps),
    record.lastStart,
  );
  result.maxDepth = depth;
  phases.push(result);
  if (record.latencies.length < record.events) {
    // Name the keys of the phase no reconcile saw, with the cache's copy.
    for (let i = 0; i < answer.events; i++) {
      const key = objectKey(configMap((answer.first + i) % objects));
      if (record.seen.has(key) || missing.length >= 20) continue;
      const copy = controller.primary.store.get(key);
      missing.push({
        phase,
        key,
        cached: copy?.metadata.annotations?.[SENT],
        resourceVersion: copy?.metadata.resourceVersion,
        reconciled: record.touched.get(key),
      });
    }
  }
  current = undefined;
  // Past its rate the queue only grows: higher rates would tell nothing.
  if (!result.sustained) break;
  await controller.idle();
}
clearInterval(sampler);
current = undefined;

const line = JSON.stringify({
  peer: bytes ? "ours (bytes)" : "ours",
  version: `@liken/kubernetes, deno ${Deno.version.deno}`,
  concurrency,
  objects: controller.primary.store.size,
  readyMs,
  late,
  unstamped,
  missing,
  watchesAtGo,
  watches: await (await fetch(`${url}/_replay/watches`)).json(),
  queue: { length: controller.queue.length, working: controller.queue.working },
  phases,
});
await Deno.stdout.write(new TextEncoder().encode(line + "\n"));
Deno.exit(0);
