// The sharding bench: a sharded controller whose reconcile costs a fixed
// amount of CPU, run as 1, 2 and 4 replicas (separate processes) against
// the fake API server served from this process, each reconciling its part
// of M ConfigMaps once. Reported: reconciles per second of the ring (M over
// the first reconcile start to the last reconcile end), the speed-up over
// one replica, each replica's share of the objects and its heap after a
// GC; then the sharder's own cost, alone in its process: the time, CPU and
// heap to assign M unlabelled objects over 2 members.
//
//   deno task bench:shard [--objects=2000] [--cost=5] [--replicas=1,2,4]
//
// (the task writes bench/shard/results/). `--smoke` is the gate's run
// (`tools/gate.ts`): 200 objects, 1 ms each, 1 and 2 replicas, nothing
// written.
//
// The objects are labelled for the members before the replicas start (as
// the sharder would), so the replica rows measure the work, not the
// assignment, which the sharder row measures.
import { Client, type KubeObject } from "../../apiclient/mod.ts";
import { memberHash, Ring, shardKey, shardLabel } from "../../shard/mod.ts";
import { FakeApiServer } from "../../testing/mod.ts";
import { configMap } from "../_shared.ts";
import { CONFIGMAPS, NS, type ReplicaReport, RING } from "./_replica.ts";

function flag(name: string): string | undefined {
  return Deno.args.find((a) => a.startsWith(`--${name}=`))
    ?.slice(name.length + 3);
}

const SMOKE = Deno.args.includes("--smoke");
const OBJECTS = Number(flag("objects") ?? (SMOKE ? "200" : "2000"));
const COST = Number(flag("cost") ?? (SMOKE ? "1" : "5"));
const REPLICAS = (flag("replicas") ?? (SMOKE ? "1,2" : "1,2,4")).split(",")
  .map(Number);
const replicaPath = new URL("./_replica.ts", import.meta.url).pathname;

async function output(command: string, ...args: string[]): Promise<string> {
  try {
    const out = await new Deno.Command(command, { args, stdout: "piped" })
      .output();
    return new TextDecoder().decode(out.stdout);
  } catch {
    return "";
  }
}

/** CPU seconds a process has used so far (utime + stime of /proc). */
async function cpuSeconds(pid: number): Promise<number> {
  // Deno reads /proc only with --allow-all: cat reads it instead.
  const stat = (await output("cat", `/proc/${pid}/stat`)).split(") ")[1];
  const fields = stat?.split(" ") ?? [];
  // Fields 14 and 15 of stat(5), counted after the command's name.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** A fake with M ConfigMaps, labelled for `members` (none: unlabelled). */
async function fake(members: string[]): Promise<FakeApiServer> {
  const server = new FakeApiServer({
    freshCluster: false,
    namespaceLifecycle: false,
  });
  const client = new Client(server.url, { fetch: server.fetch });
  const handle = client.resource(CONFIGMAPS);
  const ring = new Ring(members.map(memberHash));
  const label = shardLabel(RING);
  for (let i = 0; i < OBJECTS; i++) {
    const object = configMap(i);
    object.metadata.namespace = NS;
    if (members.length > 0) {
      const name = object.metadata.name!;
      const key = shardKey({
        group: "",
        kind: "ConfigMap",
        namespace: NS,
        name,
      });
      object.metadata.labels = {
        ...object.metadata.labels,
        [label]: ring.owner(key)!,
      };
    }
    await handle.create(object);
  }
  return server;
}

/** Starts a replica process; resolves with its report line and its pid. */
function spawn(
  url: string,
  identity: string,
  extra: string[],
): { child: Deno.ChildProcess; report: Promise<unknown> } {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net=127.0.0.1",
      "--v8-flags=--expose-gc",
      replicaPath,
      `--server=${url}`,
      `--identity=${identity}`,
      `--objects=${OBJECTS}`,
      `--cost=${COST}`,
      ...extra,
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const report = (async () => {
    let buffer = "";
    for await (
      const chunk of child.stdout.pipeThrough(new TextDecoderStream())
    ) {
      buffer += chunk;
      const at = buffer.indexOf("\n");
      if (at !== -1) return JSON.parse(buffer.slice(0, at));
    }
    throw new Error(`Replica ${identity} ended without a report`);
  })();
  return { child, report };
}

async function end(child: Deno.ChildProcess): Promise<void> {
  child.kill("SIGKILL");
  await child.status;
  await child.stdout.cancel().catch(() => {});
}

interface Row {
  replicas: number;
  seconds: number;
  rate: number;
  speedup: number;
  shares: number[];
  heaps: number[];
  cpu: number[];
}

async function ring(n: number): Promise<Row> {
  const members = Array.from({ length: n }, (_, i) => `op-${i}`);
  await using server = await fake(members);
  await using served = await server.serve();
  const ringOf = new Ring(members.map(memberHash));
  const expected = new Map(members.map((m) => [memberHash(m), 0]));
  for (let i = 0; i < OBJECTS; i++) {
    const name = configMap(i).metadata.name!;
    const owner = ringOf.owner(
      shardKey({ group: "", kind: "ConfigMap", namespace: NS, name }),
    )!;
    expected.set(owner, expected.get(owner)! + 1);
  }
  const replicas = members.map((m) =>
    spawn(served.url, m, [`--expect=${expected.get(memberHash(m))}`])
  );
  const reports = await Promise.all(
    replicas.map((r) => r.report),
  ) as ReplicaReport[];
  const cpu = await Promise.all(replicas.map((r) => cpuSeconds(r.child.pid)));
  await Promise.all(replicas.map((r) => end(r.child)));
  const first = Math.min(...reports.map((r) => r.first));
  const last = Math.max(...reports.map((r) => r.last));
  const seconds = (last - first) / 1000;
  return {
    replicas: n,
    seconds,
    rate: OBJECTS / seconds,
    speedup: 0,
    shares: reports.map((r) => r.reconciled),
    heaps: reports.map((r) => r.heap),
    cpu,
  };
}

async function sharderCost(): Promise<Record<string, number>> {
  await using server = await fake([]);
  const client = new Client(server.url, { fetch: server.fetch });
  const leases = client.resource({
    group: "coordination.k8s.io",
    version: "v1",
    resource: "leases",
  }).namespace(NS);
  for (const member of ["op-0", "op-1"]) {
    await leases.create({
      metadata: {
        name: `${RING}-${memberHash(member)}`,
        labels: {
          "shard.liken.dev/ring": RING,
          "shard.liken.dev/member": memberHash(member),
        },
      },
      spec: { holderIdentity: `${member}_1`, leaseDurationSeconds: 3600 },
    } as KubeObject);
  }
  await using served = await server.serve();
  const sharder = spawn(served.url, "sharder-0", ["--sharder"]);
  const report = await sharder.report as { seconds: number; heap: number };
  const cpu = await cpuSeconds(sharder.child.pid);
  await end(sharder.child);
  return { seconds: report.seconds, cpu, heap: report.heap };
}

const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(1);
const cpuModel = (await output("lscpu")).split("\n")
  .find((l) => l.startsWith("Model name"))?.split(":")[1]?.trim() ?? "?";
const machine = `${cpuModel}, ${navigator.hardwareConcurrency} cores, ${
  (Deno.systemMemoryInfo().total / 2 ** 30).toFixed(1)
} GiB; deno ${Deno.version.deno}`;

const rows: Row[] = [];
for (const n of REPLICAS) {
  const row = await ring(n);
  row.speedup = row.rate / (rows[0]?.rate ?? row.rate);
  rows.push(row);
}
const sharder = await sharderCost();

const lines = [
  `Sharding bench, ${OBJECTS} ConfigMaps of ~1 KB, reconcile cost ${COST} ms of CPU, concurrency 1 per replica`,
  `Machine: ${machine}; date ${new Date().toISOString().slice(0, 10)}`,
  "",
  "| replicas | ring reconciles/s | speed-up | goal (0.8×N up to the cores) | objects per replica | heap per replica (MiB) | CPU per replica (s) |",
  "| -------: | ----------------: | -------: | :--------------------------- | :------------------ | :--------------------- | :------------------ |",
  ...rows.map((r) => {
    const cores = navigator.hardwareConcurrency;
    const goal = Math.min(r.replicas, cores) * 0.8;
    const met = r.replicas <= cores
      ? (r.speedup >= goal
        ? `met (≥ ${goal.toFixed(1)})`
        : `missed (< ${goal.toFixed(1)})`)
      : `beyond the ${cores} cores`;
    return `| ${r.replicas} | ${r.rate.toFixed(0)} | ${
      r.speedup.toFixed(2)
    }× | ${met} | ${r.shares.join(", ")} | ${r.heaps.map(mib).join(", ")} | ${
      r.cpu.join(", ")
    } |`;
  }),
  "",
  `Sharder alone (2 members, ${OBJECTS} unlabelled objects): ${
    sharder.seconds!.toFixed(2)
  } s to assign them all, ${sharder.cpu} s CPU, heap ${
    mib(sharder.heap!)
  } MiB.`,
];
// deno-lint-ignore no-console
console.log(lines.join("\n"));
if (Deno.args.includes("--write") && !SMOKE) {
  const dir = new URL("./results/", import.meta.url);
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(new URL("results.md", dir), lines.join("\n") + "\n");
  await Deno.writeTextFile(
    new URL("results.json", dir),
    JSON.stringify(
      { machine, objects: OBJECTS, cost: COST, rows, sharder },
      null,
      2,
    ) + "\n",
  );
}
