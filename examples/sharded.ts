/**
 * `deno task demo:sharded`: the example operator sharded over several
 * replicas, each a separate process (`sharded_replica.ts`), against the
 * embedded fake API server on loopback. It creates Greetings, starts three
 * replicas and prints who owns what, then a join, a crash (SIGKILL: its
 * Greetings move once the sharder took its member Lease over, after the
 * Lease's duration), a graceful leave (SIGTERM: its Lease is released and
 * its Greetings move at once) and the rebalance after each, and exits 0.
 *
 * Permissions: `--allow-net=127.0.0.1 --allow-run=deno` (the replicas are
 * `deno run` processes).
 *
 * @module
 */
import { Client, type KubeObject } from "../apiclient/mod.ts";
import {
  memberHash,
  Ring,
  RING_LABEL,
  shardKey,
  shardLabel,
  TAKEN_PREFIX,
} from "../shard/mod.ts";
import { FakeApiServer } from "../testing/mod.ts";
import { type ConfigMap, configMapName, GREETING } from "./greeting.ts";
import type { Greeting } from "./greeting.ts";
import { configMapPath, greetingPath, newGreeting } from "./samples.ts";
import { RING, RING_NAMESPACE } from "./sharded_replica.ts";

const GREETINGS = 24;
const LABEL = shardLabel(RING);
const NS = RING_NAMESPACE;
const verbose = Deno.args.includes("--verbose");

function say(line = ""): void {
  // deno-lint-ignore no-console
  console.log(line);
}

await using server = new FakeApiServer();
const admin = new Client(server.url, { fetch: server.fetch });
await admin.create(
  "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
  GREETING.crd(),
);
await using served = await server.serve();
const user = new Client(served.url).resource<Greeting>(GREETING).namespace(NS);
const names = Array.from({ length: GREETINGS }, (_, i) => `greeting-${i}`);
for (const name of names) await user.create(newGreeting(name, `Hello ${name}`));
say(`Fake API server on ${served.url}; ${GREETINGS} Greetings`);
say(
  `Look with kubectl: kubectl --server=${served.url} get leases -l ${RING_LABEL}=${RING}`,
);

/** A running replica. */
interface Replica {
  identity: string;
  child: Deno.ChildProcess;
  output: Promise<void>;
}
const replicas = new Map<string, Replica>();
const replicaUrl = new URL("./sharded_replica.ts", import.meta.url);

function start(identity: string): void {
  const child = new Deno.Command("deno", {
    args: [
      "run",
      "--allow-net=127.0.0.1",
      replicaUrl.href,
      `--server=${served.url}`,
      `--identity=${identity}`,
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const output = (async () => {
    const lines = child.stdout.pipeThrough(new TextDecoderStream());
    let buffer = "";
    for await (const chunk of lines) {
      buffer += chunk;
      let at: number;
      while ((at = buffer.indexOf("\n")) !== -1) {
        const line = buffer.slice(0, at);
        buffer = buffer.slice(at + 1);
        if (verbose || /sharder: leading|SIGTERM|stopped|lost/i.test(line)) {
          say(`  ${line}`);
        }
      }
    }
  })();
  replicas.set(identity, { identity, child, output });
}

async function end(identity: string, signal: Deno.Signal): Promise<void> {
  const replica = replicas.get(identity)!;
  replicas.delete(identity);
  replica.child.kill(signal);
  await replica.child.status;
  await replica.output;
}

/** The member each Greeting is labelled with, by identity. */
function owners(): Map<string, string> {
  const byHash = new Map<string, string>();
  for (const identity of everyone) byHash.set(memberHash(identity), identity);
  const out = new Map<string, string>();
  for (const name of names) {
    const g = server.object<Greeting>(greetingPath(NS, name));
    const hash = g?.metadata.labels?.[LABEL];
    out.set(name, hash === undefined ? "-" : byHash.get(hash) ?? hash);
  }
  return out;
}

/**
 * Whether every Greeting is labelled with the member the ring of `live`
 * picks for it, and its ConfigMap and status are up to date.
 */
function settled(live: readonly string[]): boolean {
  const owner = owners();
  const ring = new Ring(live.map(memberHash));
  const { group, kind } = GREETING;
  return names.every((name) => {
    const want = ring.owner(shardKey({ group, kind, namespace: NS, name }));
    if (memberHash(owner.get(name)!) !== want) return false;
    const g = server.object<Greeting>(greetingPath(NS, name));
    const cm = server.object<ConfigMap>(
      configMapPath(NS, configMapName(name)),
    );
    return cm?.data?.message === g?.spec.message &&
      g?.status?.observedGeneration === g?.metadata.generation;
  });
}

async function until(what: string, check: () => boolean): Promise<number> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > 60_000) {
      throw new Error(`Timed out waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return Date.now() - started;
}

let previous = new Map<string, string>();
const leases = admin.resource({
  group: "coordination.k8s.io",
  version: "v1",
  resource: "leases",
}).namespace(NS);

async function show(live: readonly string[], took: number): Promise<void> {
  const owner = owners();
  const moved = names.filter((n) =>
    previous.has(n) && previous.get(n) !== owner.get(n)
  );
  say(`  settled in ${(took / 1000).toFixed(1)} s; ${moved.length} moved`);
  for (const identity of live) {
    const mine = names.filter((n) => owner.get(n) === identity);
    say(
      `  ${identity}: ${String(mine.length).padStart(2)} ${
        mine.map((n) => n.replace("greeting-", "#")).join(" ")
      }`,
    );
  }
  const members = (await leases.list({
    labelSelector: `${RING_LABEL}=${RING}`,
  })).items;
  say("  member Leases (kubectl get leases -l shard.liken.dev/ring=greeting):");
  for (const lease of members) {
    const holder = (lease as { spec?: { holderIdentity?: string } }).spec
      ?.holderIdentity;
    say(`    ${lease.metadata.name}: holder ${holder || "(released)"}`);
  }
  previous = owner;
}

const everyone = ["op-0", "op-1", "op-2", "op-3"];
try {
  say();
  say("1. Three replicas join");
  for (const identity of ["op-0", "op-1", "op-2"]) start(identity);
  let live = ["op-0", "op-1", "op-2"];
  await show(live, await until("three shards", () => settled(live)));

  say();
  say("2. op-3 joins: objects move to it through the drain handshake");
  start("op-3");
  live = [...live, "op-3"];
  await show(live, await until("four shards", () => settled(live)));

  say();
  say(
    "3. op-1 crashes (SIGKILL): its objects move after its Lease expires (30 s)",
  );
  say("   and the sharder took it over");
  await end("op-1", "SIGKILL");
  live = live.filter((r) => r !== "op-1");
  const crashed = Date.now();
  const lease = `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases/${RING}-${
    memberHash("op-1")
  }`;
  await until(
    "the takeover of op-1's Lease",
    () =>
      server.object<{ spec?: { holderIdentity?: string } } & KubeObject>(lease)
        ?.spec?.holderIdentity?.startsWith(TAKEN_PREFIX) === true,
  );
  say(
    `  op-1's Lease taken over ${
      ((Date.now() - crashed) / 1000).toFixed(1)
    } s after the crash`,
  );
  await show(live, await until("op-1's objects to move", () => settled(live)));

  say();
  say("4. op-2 leaves gracefully (SIGTERM): its Lease is released, and its");
  say("   objects move at once");
  await end("op-2", "SIGTERM");
  live = live.filter((r) => r !== "op-2");
  await show(live, await until("op-2's objects to move", () => settled(live)));
} finally {
  say();
  say("5. Stopping the rest");
  for (const identity of [...replicas.keys()]) await end(identity, "SIGTERM");
}
