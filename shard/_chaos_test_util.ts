/**
 * A ring of sharded replicas on the fake API server and fake time, in one
 * process: each replica has its own process (timers and answers that a
 * pause holds), link (faults of its own) and client, and runs a sharded
 * controller and a sharder. Every write that reaches the server is logged
 * with its sender and the resourceVersion it made, so a test can judge the
 * ownership epochs from the log alone (see `safety`).
 *
 * Not part of the package: tests only.
 *
 * @module
 */
import assert from "node:assert/strict";
import { Client } from "../apiclient/client.ts";
import type { KubeObject } from "../apiclient/types.ts";
import { Controller } from "../controller/controller.ts";
import { FaultyLink, Process } from "../_internal/_link_test_util.ts";
import { FakeApiServer } from "../testing/fake_server.ts";
import type { FakeTime } from "../testing/fake_time.ts";
import { drainLabel, shardLabel, TAKEN_PREFIX } from "./labels.ts";
import { memberHash, Ring, shardKey } from "./ring.ts";
import { Sharder } from "./sharder.ts";
import { testLogger } from "../_internal/_log_test_util.ts";

export const RING = "greeting";
export const NS = "default";
export const CONFIGMAPS = {
  version: "v1",
  resource: "configmaps",
  kind: "ConfigMap",
};
export const SECRETS = { version: "v1", resource: "secrets", kind: "Secret" };
export const LABEL: string = shardLabel(RING);
export const DRAIN: string = drainLabel(RING);
const SHARDER = `${RING}-sharder`;

/** One reconcile: who, which key, and where it started and ended. */
export interface Interval {
  replica: string;
  key: string;
  /** The server's resourceVersion when it started. */
  at: number;
  /** The order of its start and end among all starts and ends. */
  start: number;
  end: number;
}

/** One write that reached the server. */
export interface Write {
  /** The replica (or `user`) that sent it. */
  who: string;
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
  status: number;
  /** The resourceVersion it made (accepted writes), else `NaN`. */
  rv: number;
  /**
   * Set when the server answered it as accepted to its sender but the log
   * judged (the real server's audit log) lacks it; judged all the same.
   */
  unaudited?: boolean;
}

/** A replica: its process, link, sharded controller and sharder. */
export interface Replica {
  name: string;
  process: Process;
  link: FaultyLink;
  controller: Controller;
  sharder: Sharder;
  /** The label each reconcile saw on its object. */
  labels: string[];
  /** Set once it left for good (stopped, or its Lease was lost). */
  gone: boolean;
  /** Crashed: paused and cut off for good. */
  crashed: boolean;
}

/** What the replicas' reconciles do. */
export interface RunOptions {
  /** Milliseconds each reconcile takes (a fixed number, or drawn). */
  work?: (() => number) | undefined;
  /**
   * Whether a reconcile writes: a child Secret `<name>-child` and an
   * annotation on the primary (conditional on its resourceVersion).
   */
  writes?: boolean | undefined;
  /** The sharder's resync, in milliseconds. */
  resync?: number | undefined;
  /**
   * Start from a fresh cluster's objects (kube-system's ConfigMaps among
   * them), which the sharder assigns and the replicas reconcile before any
   * of the run's own. Default `false`: only the run's objects, which tests
   * that count them need.
   */
  freshCluster?: boolean | undefined;
}

const ANNOTATION = "example.com/reconciled";

/** A run: the server, the replicas, the write log and the reconciles. */
export class Run {
  readonly server: FakeApiServer;
  readonly replicas: Map<string, Replica> = new Map();
  readonly intervals: Interval[] = [];
  readonly writes: Write[] = [];
  /** Reconciles open now, by key: the replicas in them. */
  readonly open: Map<string, Set<string>> = new Map();
  /** Unexpected errors of replicas neither paused nor cut off. */
  readonly errors: unknown[] = [];
  /** The test's own client, as a user (its writes are logged as `user`). */
  readonly user: Client;
  #order = 0;
  #options: RunOptions;

  constructor(options: RunOptions = {}) {
    this.#options = options;
    this.server = new FakeApiServer({
      freshCluster: options.freshCluster ?? false,
      garbageCollectionDelay: 10,
    });
    this.user = new Client(this.server.url, { fetch: this.#logged("user") });
  }

  /** The server's fetch, logging each write as `who`'s. */
  #logged(who: string): typeof fetch {
    return async (input, init) => {
      const request = new Request(input, init);
      if (request.method === "GET") return this.server.fetch(request);
      const text = await request.text();
      const url = new URL(request.url);
      const response = await this.server.fetch(request.url, {
        method: request.method,
        headers: request.headers,
        ...(text === "" ? {} : { body: text }),
      });
      let rv = NaN;
      if (response.ok) {
        const copy = await response.clone().json().catch(() => undefined);
        rv = request.method === "DELETE"
          ? Number(this.server.resourceVersion)
          : Number(copy?.metadata?.resourceVersion);
      }
      this.writes.push({
        who,
        method: request.method,
        path: url.pathname,
        query: url.searchParams,
        body: text === "" ? undefined : JSON.parse(text),
        status: response.status,
        rv,
      });
      return response;
    };
  }

  /** Starts a replica: a sharded controller and a sharder. */
  start(name: string): Replica {
    const process = new Process();
    const link = new FaultyLink(this.#logged(name));
    link.process = process;
    const client = new Client(this.server.url, { fetch: link.fetch });
    const labels: string[] = [];
    const onError = (error: unknown): void => {
      // Candidates racing for the sharder's Lease fail some requests.
      if ((error as Error).name === "LeaseRequestError") return;
      if (!process.paused && !link.partitioned) this.errors.push(error);
    };
    const { work = () => 200, writes = false, resync = 5_000 } = this.#options;
    // A lost Lease (the sharder's or the member's) exits the process, as in
    // a pod: the replica leaves for good, controller and sharder both. (Only
    // ever called later, once `replica` is set.)
    const exit = (): void => {
      replica.gone = true;
      void replica.controller.stop();
      void replica.sharder.stop();
    };
    const [controller, sharder] = process.run(() =>
      [
        new Controller<KubeObject & { data?: Record<string, string> }>(
          client,
          {
            name: RING,
            for: CONFIGMAPS,
            owns: writes ? [SECRETS] : [],
            wiring: {
              shards: {
                ring: RING,
                namespace: NS,
                identity: name,
                exit,
              },
            },
            logger: testLogger({ onError: () => {} }),
            reconcile: async (context) => {
              const { key, object, ref } = context;
              const at = Number(this.server.resourceVersion);
              const start = ++this.#order;
              const open = this.open.get(key) ?? new Set();
              this.open.set(key, open);
              open.add(name);
              labels.push(object?.metadata.labels?.[LABEL] ?? "none");
              try {
                await new Promise((resolve) => setTimeout(resolve, work()));
                if (writes && object !== undefined) {
                  const value = object.data?.value ?? "";
                  await context.apply({
                    apiVersion: "v1",
                    kind: "Secret",
                    metadata: { name: `${ref.name}-child`, namespace: NS },
                    stringData: { value },
                  });
                  if (object.metadata.annotations?.[ANNOTATION] !== value) {
                    await context.client.resource(ref).patch(ref.name, {
                      metadata: {
                        resourceVersion: object.metadata.resourceVersion,
                        annotations: { [ANNOTATION]: value },
                      },
                    }, { type: "merge", signal: context.signal });
                  }
                }
              } finally {
                open.delete(name);
                this.intervals.push({
                  replica: name,
                  key,
                  at,
                  start,
                  end: ++this.#order,
                });
              }
            },
          },
        ),
        new Sharder(client, {
          ring: RING,
          namespace: NS,
          for: CONFIGMAPS,
          owns: writes ? [SECRETS] : [],
          pod: name,
          resync,
          exit,
          logger: testLogger({ onError }),
        }),
      ] as const
    );
    const replica: Replica = {
      name,
      process,
      link,
      controller,
      sharder,
      labels,
      gone: false,
      crashed: false,
    };
    // A lost member Lease stops the controller: it is out for good.
    void controller.done.then(() => replica.gone = true);
    this.replicas.set(name, replica);
    return replica;
  }

  /** Creates `cm-0` … `cm-<count - 1>`, as a user. */
  async create(count: number): Promise<void> {
    const handle = this.user.resource(CONFIGMAPS).namespace(NS);
    for (let i = 0; i < count; i++) {
      await handle.create({ metadata: { name: `cm-${i}` } });
    }
  }

  /** The primaries and their labels, from the server. */
  objects(): KubeObject[] {
    return Array.from(
      { length: 1_000 },
      (_, i) =>
        this.server.object(`/api/v1/namespaces/${NS}/configmaps/cm-${i}`),
    ).filter((o): o is KubeObject => o !== undefined);
  }

  /** The replicas that run (neither gone nor crashed). */
  live(): Replica[] {
    return [...this.replicas.values()].filter((r) => !r.gone && !r.crashed);
  }

  /** Whether every object carries the ring's choice among `members`. */
  settled(members: string[] = this.live().map((r) => r.name)): boolean {
    const ring = new Ring(members.map(memberHash));
    return this.objects().every((o) => {
      const labels = o.metadata.labels ?? {};
      return labels[DRAIN] === undefined &&
        labels[LABEL] ===
          ring.owner(
            shardKey({
              kind: "ConfigMap",
              namespace: NS,
              name: o.metadata.name!,
            }),
          );
    });
  }

  /**
   * Whether every object was reconciled with its latest data by its owner:
   * its child holds the value and its annotation says so.
   */
  converged(): boolean {
    if (!this.settled()) return false;
    return this.objects().every((o) => {
      const value = (o as { data?: Record<string, string> }).data?.value ?? "";
      const child = this.server.object<
        KubeObject & { data?: { value?: string } }
      >(
        `/api/v1/namespaces/${NS}/secrets/${o.metadata.name}-child`,
      );
      return o.metadata.annotations?.[ANNOTATION] === value &&
        child !== undefined &&
        atob(child.data?.value ?? "") === value &&
        child.metadata.ownerReferences?.[0]?.uid === o.metadata.uid;
    });
  }

  /**
   * Why the run has not converged, object by object (empty when it has):
   * what a failing seed prints.
   */
  unconverged(): string[] {
    const members = this.live().map((r) => r.name);
    const ring = new Ring(members.map(memberHash));
    const names = new Map(members.map((m) => [memberHash(m), m]));
    const out: string[] = [];
    for (const o of this.objects()) {
      const name = o.metadata.name!;
      const labels = o.metadata.labels ?? {};
      const want = ring.owner(
        shardKey({ kind: "ConfigMap", namespace: NS, name }),
      );
      const value = (o as { data?: Record<string, string> }).data?.value ?? "";
      const child = this.server.object<
        KubeObject & { data?: { value?: string } }
      >(
        `/api/v1/namespaces/${NS}/secrets/${name}-child`,
      );
      const problems: string[] = [];
      if (labels[DRAIN] !== undefined) {
        problems.push(`draining ${labels[DRAIN]}`);
      }
      if (labels[LABEL] !== want) {
        problems.push(
          `label ${names.get(labels[LABEL] ?? "") ?? labels[LABEL]} (want ${
            names.get(want ?? "")
          })`,
        );
      }
      if (o.metadata.annotations?.[ANNOTATION] !== value) {
        problems.push(
          `annotation ${o.metadata.annotations?.[ANNOTATION]} (want ${value})`,
        );
      }
      if (child === undefined) problems.push("no child");
      else if (atob(child.data?.value ?? "") !== value) {
        problems.push("stale child");
      } else if (child.metadata.ownerReferences?.[0]?.uid !== o.metadata.uid) {
        problems.push("child of an older object");
      }
      if (problems.length > 0) out.push(`${name}: ${problems.join(", ")}`);
    }
    return [`live ${members.join(",") || "none"}`, ...out];
  }

  /** Steps fake time until `done`, at most `ms`. */
  async until(
    time: FakeTime,
    done: () => boolean,
    ms = 120_000,
    step = 250,
  ): Promise<void> {
    for (let waited = 0; !done(); waited += step) {
      if (waited > ms) {
        throw new Error(
          `Not settled after ${ms} ms: ${this.unconverged().join("; ")}`,
        );
      }
      await time.tick(step);
    }
  }

  /** Reconciles by replica. */
  byReplica(): Map<string, Set<string>> {
    const by = new Map<string, Set<string>>();
    for (const { replica, key } of this.intervals) {
      by.set(replica, (by.get(replica) ?? new Set()).add(key));
    }
    return by;
  }

  /**
   * Stops every replica, stepping fake time while they release. A crashed
   * one stays cut off: it wakes, but nothing it sends arrives.
   */
  async stop(time: FakeTime): Promise<void> {
    for (const r of this.replicas.values()) {
      if (!r.crashed) r.link.heal();
      r.process.resume();
    }
    let done = false;
    void Promise.all(
      [...this.replicas.values()].flatMap((r) => [
        r.controller.stop(),
        r.sharder.stop(),
      ]),
    ).then(() => done = true);
    await this.until(time, () => done, 120_000);
    await this.server.stop();
  }
}

/**
 * What a judged run's objects are: the namespace, the primaries' and the
 * children's resources, and a child's primary by name. Default: this
 * file's ConfigMaps with their `<name>-child` Secrets in `default`.
 */
export interface Shape {
  namespace: string;
  primary: string;
  child: string;
  ownerOf: (child: string) => string;
}

const SHAPE: Shape = {
  namespace: NS,
  primary: "configmaps",
  child: "secrets",
  ownerOf: (child) => child.replace(/-child$/, ""),
};

/** The primary a logged path is about: `cm-3` for it and its child. */
function keyOf(write: Write, shape: Shape): string | undefined {
  // Any namespace: the replicas watch every one, so the sharder assigns (and
  // the replicas reconcile) objects outside the run's namespace too, such as
  // a cluster's own kube-system ConfigMaps.
  const match = write.path.match(/\/namespaces\/([^/]+)\/(.*)$/);
  if (match === null) return undefined;
  const [, namespace, rest] = match as unknown as [string, string, string];
  const [resource, name] = rest.split("/");
  const named = name ??
    (write.body as KubeObject | undefined)?.metadata?.name;
  if (named === undefined) return undefined;
  if (resource === shape.primary) return `${namespace}/${named}`;
  if (resource === shape.child) {
    return `${namespace}/${shape.ownerOf(named)}`;
  }
  return undefined;
}

/** An ownership epoch of one key. */
interface Epoch {
  member: string;
  /** The resourceVersion of the accepted assignment. */
  from: number;
  /** Of the accepted acknowledgement, forced move or deletion; or open. */
  to: number;
  how: "open" | "ack" | "force" | "deleted";
}

/**
 * The safety of a run, from its write log and reconciles; answers the
 * violations (empty when safe).
 *
 * - Epochs of a key run from the sharder's accepted assignment of it to a
 *   member to that member's accepted acknowledgement, or to the forced
 *   move that follows the takeover of its Lease, or to the object's
 *   deletion.
 * - Every accepted write of a replica to a primary or its child lies in an
 *   epoch of that replica's, or (a reconcile in flight at a deletion) after
 *   its epoch ended by the deletion.
 * - A forced move comes only after the takeover of the old member's Lease.
 * - No replica starts a reconcile of a key after it acknowledged it (while
 *   it is not assigned the key again).
 * - Two replicas reconcile one key at once only when the first one's epoch
 *   ended by force (it was paused or cut off and taken over).
 */
export function safety(
  run: {
    replicas: ReadonlyMap<string, unknown>;
    writes: readonly Write[];
    intervals: readonly Interval[];
  },
  shape: Shape = SHAPE,
): string[] {
  const violations: string[] = [];
  const hashes = new Map(
    [...run.replicas.keys()].map((name) => [memberHash(name), name]),
  );
  const takenAt = new Map<string, number>();
  for (const w of run.writes) {
    const body = w.body as
      | { spec?: { holderIdentity?: string }; metadata?: { name?: string } }
      | undefined;
    if (
      w.status < 300 && w.path.includes("/leases") &&
      body?.spec?.holderIdentity?.startsWith(TAKEN_PREFIX)
    ) {
      const name = w.path.split("/").at(-1) === "leases"
        ? body.metadata?.name
        : w.path.split("/").at(-1);
      const member = name?.slice(RING.length + 1) ?? "";
      if (!takenAt.has(member)) takenAt.set(member, w.rv);
    }
  }
  const accepted = run.writes.filter((w) => w.status < 300 && !isNaN(w.rv))
    .sort((a, b) => a.rv - b.rv);
  const epochs = new Map<string, Epoch[]>();
  const current = new Map<string, Epoch | undefined>();
  for (const w of accepted) {
    const key = keyOf(w, shape);
    if (key === undefined) continue;
    const list = epochs.get(key) ?? [];
    epochs.set(key, list);
    const now = current.get(key);
    const primary = w.path.includes(`/${shape.primary}`);
    const what = `${w.who} ${w.method} ${w.path} at ${w.rv}${
      w.unaudited ? " (answered, absent from the audit log)" : ""
    }`;
    if (w.who === "user") {
      if (w.method === "DELETE" && primary && now !== undefined) {
        now.to = w.rv;
        now.how = "deleted";
        current.set(key, undefined);
      }
      continue;
    }
    const labels = (w.body as KubeObject | undefined)?.metadata?.labels as
      | Record<string, string | null>
      | undefined;
    if (primary && w.query.get("fieldManager") === SHARDER) {
      const to = labels?.[LABEL];
      if (typeof to !== "string") continue;
      if (now?.member === to) continue;
      if (now !== undefined) {
        const taken = takenAt.get(now.member);
        if (taken === undefined || taken > w.rv) {
          violations.push(
            `${key}: moved from ${
              hashes.get(now.member)
            } without its acknowledgement or a takeover: ${what}`,
          );
        }
        now.to = w.rv;
        now.how = "force";
      }
      const epoch: Epoch = {
        member: to,
        from: w.rv,
        to: Infinity,
        how: "open",
      };
      list.push(epoch);
      current.set(key, epoch);
      continue;
    }
    // The sharder relabelling a child (its owner moved) is no reconcile.
    if (!primary && w.query.get("fieldManager") === SHARDER) continue;
    const member = memberHash(w.who);
    const ack = primary && w.method === "PATCH" && labels?.[LABEL] === null;
    const last = list.at(-1);
    if (now?.member === member) {
      if (ack) {
        now.to = w.rv;
        now.how = "ack";
        current.set(key, undefined);
      }
      continue;
    }
    // A reconcile in flight when the object was deleted may finish.
    if (
      now === undefined && last?.member === member && last.how === "deleted"
    ) continue;
    violations.push(
      `${key}: a write outside ${w.who}'s epochs (owner ${
        now ? hashes.get(now.member) : "none"
      }): ${what}`,
    );
  }
  const epochAt = (
    key: string,
    rv: number,
    member: string,
  ): Epoch | undefined =>
    epochs.get(key)?.findLast((e) => e.member === member && e.from <= rv);
  for (const i of run.intervals) {
    const e = epochAt(i.key, i.at, memberHash(i.replica));
    if (e === undefined) {
      violations.push(`${i.key}: ${i.replica} reconciled it, never assigned`);
    } else if (e.how === "ack" && e.to <= i.at) {
      violations.push(
        `${i.key}: ${i.replica} reconciled it at ${i.at} after its acknowledgement at ${e.to}`,
      );
    }
  }
  const byKey = Map.groupBy(run.intervals, (i) => i.key);
  for (const [key, list] of byKey) {
    list.sort((a, b) => a.start - b.start);
    for (let a = 0; a < list.length; a++) {
      for (
        let b = a + 1;
        b < list.length && list[b]!.start < list[a]!.end;
        b++
      ) {
        const [first, second] = [list[a]!, list[b]!];
        if (first.replica === second.replica) continue;
        const e = epochAt(key, first.at, memberHash(first.replica));
        // After a takeover, or after the object was deleted (the second
        // reconciles a new object of that name; the first one's writes are
        // judged above), a reconcile may overlap one of the old epoch.
        const ended = e?.how === "force" || e?.how === "deleted";
        if (e === undefined || !ended || e.to > second.at) {
          violations.push(
            `${key}: ${first.replica} and ${second.replica} reconciled it at once (${first.replica}'s epoch ${
              e ? `${e.from}..${e.to} ${e.how}` : "none"
            })`,
          );
        }
      }
    }
  }
  return violations;
}

/** Every reconcile saw the label of the replica that ran it. */
export function ownLabelsOnly(run: Run): void {
  for (const replica of run.replicas.values()) {
    for (const label of replica.labels) {
      assert.equal(label, memberHash(replica.name), replica.name);
    }
  }
}
