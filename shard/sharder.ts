// The sharder: one replica of a ring at a time assigns every primary object
// to a live member, and moves objects safely when the ring changes.
import { microTime } from "../_internal/time.ts";
import type { Client } from "../apiclient/client.ts";
import { ConflictError } from "../apiclient/errors.ts";
import { objectKey, type Resource } from "../apiclient/resource.ts";
import type { KubeObject } from "../apiclient/types.ts";
import { type Logger, loggerOf } from "../_internal/log.ts";
import { sleep } from "../_internal/sleep.ts";
import type { Metrics } from "../metrics/metrics.ts";
import type { SharderCounts } from "../metrics/types.ts";
import { Lead } from "../election/lead.ts";
import { LEASE_DURATION, RETRY_PERIOD } from "../election/timings.ts";
import { Collection } from "../informer/collection.ts";
import type { Handler, Source } from "../informer/types.ts";
import { finalState } from "../informer/tombstone.ts";
import { controllerOf } from "../apiclient/owners.ts";
import {
  drainLabel,
  MEMBER_LABEL,
  RING_LABEL,
  shardLabel,
  TAKEN_PREFIX,
} from "./labels.ts";
import { MemberClocks, type MemberLease } from "./_members.ts";
import { Ring, shardKey } from "./ring.ts";
import { stopOnAbort } from "../_internal/signals.ts";

/** The primaries of a ring: a resource and the kind of its objects. */
export interface ShardedResource extends Resource {
  /** The kind, such as `Greeting` (the apply's `kind`, and the ring's key). */
  kind: string;
}

/** Options of a {@linkcode Sharder}. */
export interface SharderOptions {
  /**
   * Receives the sharder's lines and those of its election and watches,
   * with the field `ring`. Default: errors to `console.error`.
   */
  logger?: Logger | undefined;
  /** The ring's name, as the members' `shards.ring`. */
  ring: string;
  /** The namespace of the ring's Leases: the operator's own. */
  namespace: string;
  /** The primaries to assign. */
  for: ShardedResource;
  /**
   * The children's collections, as the members' `owns`: a child whose
   * controlling owner is one of the primaries is labelled with its owner's
   * shard, and relabelled when the owner moves. Default: none.
   */
  owns?: readonly Source[] | undefined;
  /** This replica's pod name (the sharder's election names it). */
  pod: string;
  /**
   * How often every assignment is checked again, in milliseconds, besides
   * every change seen. Default 60 s; at least 1 s.
   */
  resync?: number | undefined;
  /**
   * Called with code 1 when the sharder's Lease is lost (as the election's
   * `exit`). Default `Deno.exit`.
   */
  exit?: ((code: number) => void) | undefined;
  /**
   * Reports the ring's size, the objects per shard and what the sharder
   * wrote ({@linkcode Metrics.sharder}). Default: none.
   */
  metrics?: Metrics | undefined;
  /** Stops the sharder, as {@linkcode Sharder.stop} does. */
  signal?: AbortSignal | undefined;
}

/** How long the member of a deleted object is remembered: 10 min. */
const FORGET = 600_000;

const LEASES = {
  group: "coordination.k8s.io",
  version: "v1",
  resource: "leases",
} as const;

/**
 * The sharder of a ring: run one in every replica; the one that holds the
 * Lease `<ring>-sharder` (the `election` module's rules and write guard)
 * watches the ring's member Leases and the metadata of every primary, and
 * labels each primary `shard.liken.dev/<ring>: <member hash>` by
 * server-side apply as the field manager `<ring>-sharder`, the member
 * chosen by rendezvous hashing ({@linkcode Ring}) over the live members.
 * Every write names the resourceVersion it was decided on.
 *
 * - A new object (or one whose label was stripped) is assigned as the
 *   sharder sees it.
 * - An object that must leave a live member is first marked draining
 *   (`drain.shard.liken.dev/<ring>: "true"`); the member finishes its
 *   reconcile, stops, and removes both labels; only then is the object
 *   assigned to its new member.
 * - An object of a member that is gone (its Lease released, or unchanged
 *   for its duration by this process's clock) moves only after the sharder
 *   took that Lease over (holder `shard.liken.dev/taken-by=…`, conditional
 *   on the version it judged): a paused member that wakes sees another
 *   holder, its write guard refuses and its lead ends. A released Lease is
 *   taken at once, so a graceful leave moves its objects at once.
 *
 * - A child (of the `owns` collections) carries its controlling owner's
 *   shard: the owner's label, or for an owner not (or no longer) seen, the
 *   member its group, kind, namespace and name hash to (never its uid).
 *   A member labels the children it applies itself; the sharder labels the
 *   others, and relabels them when their owner moves, so each member's
 *   child watch holds only its own. With a namespace in `for`, children
 *   in other namespaces are left alone (their owners are not the ring's).
 * - An object made again under the name of one deleted within 10 min goes
 *   first to the member the deleted one had (a reconcile of the old object
 *   may still run there), and moves from it as above.
 *
 * @example Assign two objects to the only member
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client } from "@liken/kubernetes/apiclient";
 * import { Controller } from "@liken/kubernetes/controller";
 * import { memberHash, Sharder } from "@liken/kubernetes/shard";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * const configMaps = { version: "v1", resource: "configmaps", kind: "ConfigMap" };
 * const handle = client.resource(configMaps).namespace("default");
 * await handle.create({ metadata: { name: "a" } });
 * await handle.create({ metadata: { name: "b" } });
 * const seen = new Set<string>();
 * await using member = new Controller(client, {
 *   name: "demo",
 *   for: configMaps,
 *   wiring: { shards: { ring: "demo", namespace: "default", identity: "op-0" } },
 *   reconcile: ({ key }) => void seen.add(key),
 * });
 * await using sharder = new Sharder(client, {
 *   ring: "demo",
 *   namespace: "default",
 *   for: configMaps,
 *   pod: "op-0",
 * });
 * while (seen.size < 2) await new Promise((r) => setTimeout(r, 5));
 * const a = await handle.get("a");
 * assert.equal(a.metadata.labels?.["shard.liken.dev/demo"], memberHash("op-0"));
 * ```
 */
export class Sharder implements AsyncDisposable {
  /** The sharder's election, on the Lease `<ring>-sharder`. */
  readonly lead: Lead;
  /** Settles once the sharder has stopped. Never rejects. */
  readonly done: Promise<void>;
  /** The ring's name. */
  readonly ring: string;
  /** What this sharder wrote, counted since it started. */
  readonly counts: SharderCounts = {
    assigned: 0,
    drains: 0,
    moves: 0,
    takeovers: 0,
    children: 0,
  };
  #client: Client;
  #options: SharderOptions;
  #logger: Logger;
  #stop = new AbortController();
  #wake: () => void = () => {};
  #clocks = new MemberClocks();
  #members = new Set<string>();
  // When this sharder last wrote the takeover of each gone member's Lease.
  #taken = new Map<string, number>();
  // When this sharder last sent a takeover that was not accepted (refused,
  // or its answer lost): none is sent again within the retry period.
  #tried = new Map<string, number>();
  // Objects this sharder asked to drain: their next assignment is a move.
  #draining = new Set<string>();
  // The member each deleted object had, and when: a new object of the same
  // name goes to that member first (see #pass); forgotten after FORGET.
  #deleted = new Map<string, { member: string; at: number }>();
  #leases: Collection<MemberLease> | undefined;
  #objects: Collection<KubeObject> | undefined;
  #children: Collection<KubeObject>[] = [];
  #stopped: Promise<void> | undefined;

  /**
   * Starts campaigning for the sharder's Lease; assigns once it leads.
   *
   * @param client The API client, without a write guard (the sharder adds
   * its election's).
   * @param options The ring, its primaries, the pod and the tunables.
   */
  constructor(client: Client, options: SharderOptions) {
    this.#client = client;
    this.#options = options;
    this.ring = options.ring;
    this.#logger = loggerOf(options.logger, { ring: options.ring });
    this.lead = new Lead(client, {
      lease: { namespace: options.namespace, name: `${options.ring}-sharder` },
      pod: options.pod,
      exit: options.exit,
      logger: this.#logger,
    });
    this.done = this.#run();
    const unlink = stopOnAbort(options.signal, () => void this.stop());
    void this.done.then(unlink, unlink);
    options.metrics?.sharder(this);
  }

  /**
   * The live members as this sharder last judged them (empty while it does
   * not lead).
   *
   * @returns The members' hashes, sorted.
   */
  members(): string[] {
    return [...this.#members].sort();
  }

  /**
   * The primaries per shard label value (`""`: none), as this sharder
   * sees them; empty while it does not lead.
   *
   * @returns Objects by member hash.
   */
  shards(): Map<string, number> {
    const counts = new Map<string, number>();
    if (!this.lead.leads()) return counts;
    const label = shardLabel(this.#options.ring);
    for (const object of this.#objects?.store.values() ?? []) {
      const shard = object.metadata.labels?.[label] ?? "";
      counts.set(shard, (counts.get(shard) ?? 0) + 1);
    }
    return counts;
  }

  /**
   * Stops watching and assigning, then releases the sharder's Lease. Safe to
   * call more than once.
   *
   * @returns Settles once stopped.
   */
  stop(): Promise<void> {
    this.#stopped ??= (async () => {
      this.#stop.abort(new DOMException("The sharder stops", "AbortError"));
      this.#wake();
      await this.done;
    })();
    return this.#stopped;
  }

  /** Stops the sharder (for `await using`). */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }

  async #run(): Promise<void> {
    const signal = this.#stop.signal;
    const logger = this.#logger;
    try {
      await this.lead.leading({ signal });
      void this.lead.done.then(() => void this.stop());
      await this.#assign(signal);
    } catch (error) {
      if (!signal.aborted) logger.error(error, "Sharder failed");
    } finally {
      await Promise.all(
        [this.#leases, this.#objects, ...this.#children].map((c) => c?.stop()),
      );
      try {
        await this.lead.stop();
      } catch (error) {
        logger.error(error, "Stopping the election failed");
      }
      logger.info("Stopped");
    }
  }

  /** While leading: watch, and check every assignment after each change. */
  async #assign(signal: AbortSignal): Promise<void> {
    const { ring, namespace } = this.#options;
    const handler = {
      add: () => this.#wake(),
      update: () => this.#wake(),
      delete: () => this.#wake(),
    };
    const synced: Promise<void>[] = [];
    const open = <T extends KubeObject>(
      source: Source,
      metadataOnly: boolean,
      hooks: Handler<KubeObject> = handler,
    ): Collection<T> => {
      const ready = Promise.withResolvers<void>();
      synced.push(ready.promise);
      return new Collection<T>(this.#client, source, {
        signal,
        metadataOnly,
        handler: hooks as Handler<T>,
        synced: ready.resolve,
        logger: this.#logger,
      });
    };
    this.#leases = open<MemberLease>(
      { ...LEASES, namespace, labelSelector: `${RING_LABEL}=${ring}` },
      false,
    );
    const label = shardLabel(ring);
    this.#objects = open<KubeObject>(this.#options.for, true, {
      ...handler,
      delete: (object) => {
        const last = finalState(object as KubeObject);
        const member = last?.metadata.labels?.[label];
        if (last !== undefined && member !== undefined) {
          this.#deleted.set(objectKey(last), { member, at: Date.now() });
        }
        this.#wake();
      },
    });
    this.#children = (this.#options.owns ?? []).map((source) =>
      open<KubeObject>(source, true)
    );
    await Promise.race([Promise.all(synced), sleep(2 ** 31 - 1, signal)]);
    const resync = Math.max(1_000, this.#options.resync ?? 60_000);
    while (!signal.aborted) {
      const woken = new Promise<void>((resolve) => (this.#wake = resolve));
      const next = await this.#pass(signal);
      const wait = Math.min(resync, Math.max(1, next - Date.now()));
      const timer = Promise.withResolvers<void>();
      const handle = setTimeout(timer.resolve, wait);
      await Promise.race([woken, timer.promise]);
      clearTimeout(handle);
    }
  }

  /**
   * One check of every assignment.
   *
   * @returns When the next check is due at the latest (a Lease may expire,
   * a write failed).
   */
  async #pass(signal: AbortSignal): Promise<number> {
    const leases = this.#leases!.store.values();
    const now = Date.now();
    const { members, next } = this.#clocks.live(leases, now);
    for (const [key, { at }] of this.#deleted) {
      if (now - at >= FORGET) this.#deleted.delete(key);
    }
    this.#members = members;
    const ring = new Ring(members);
    const label = shardLabel(this.#options.ring);
    const drain = drainLabel(this.#options.ring);
    let due = next;
    const { group, kind } = this.#options.for;
    for (const object of this.#objects!.store.values()) {
      if (signal.aborted) break;
      const { name = "", namespace, labels = {} } = object.metadata;
      const want = ring.owner(shardKey({ group, kind, namespace, name }));
      if (want === undefined) break;
      const has = labels[label];
      const draining = labels[drain] !== undefined;
      const key = objectKey(object);
      let write: Record<string, string> | undefined;
      let count: keyof SharderCounts = "assigned";
      const last = has === undefined ? this.#deleted.get(key) : undefined;
      if (has === undefined && last !== undefined && last.member !== want) {
        // Made again under a name whose last member may still be reconciling
        // the old object (or start from a stale cache): it goes back to that
        // member and moves as any other object, by drain or takeover.
        if (members.has(last.member)) {
          write = { [label]: last.member, [drain]: "true" };
          count = "drains";
        } else if (await this.#takeOver(last.member, leases, signal)) {
          write = { [label]: want };
          count = "moves";
        } else due = Math.min(due, Date.now() + RETRY_PERIOD);
      } else if (has === undefined) {
        write = { [label]: want };
        if (this.#draining.has(key)) count = "moves";
      } else if (members.has(has)) {
        if (has !== want && !draining) {
          write = { [label]: has, [drain]: "true" };
          count = "drains";
        }
      } else if (await this.#takeOver(has, leases, signal)) {
        write = { [label]: want };
        count = "moves";
      } else due = Math.min(due, Date.now() + RETRY_PERIOD);
      if (write === undefined) continue;
      if (await this.#label(object, write, signal)) {
        this.#deleted.delete(key);
        this.counts[count] += 1;
        if (count === "drains") this.#draining.add(key);
        else this.#draining.delete(key);
      } else due = Math.min(due, Date.now() + 1_000);
    }
    for (const children of this.#children) {
      if (!(await this.#follow(children, ring, signal))) {
        due = Math.min(due, Date.now() + 1_000);
      }
    }
    return due;
  }

  /**
   * Labels each child of one collection with its owner's shard.
   *
   * @returns Whether every write needed was accepted.
   */
  async #follow(
    children: Collection<KubeObject>,
    ring: Ring,
    signal: AbortSignal,
  ): Promise<boolean> {
    const label = shardLabel(this.#options.ring);
    const { group, kind, namespaced, namespace: only } = this.#options.for;
    const objects = this.#objects!.store;
    let ok = true;
    for (const child of children.store.values()) {
      if (signal.aborted) break;
      // An owner in another namespace is no primary of this ring (and the
      // ring's RBAC grants no write there).
      if (only && child.metadata.namespace !== only) continue;
      const owner = controllerOf(child, { group, kind, namespaced });
      if (owner === undefined) continue;
      const held = objects.get(owner.key);
      const [namespace, name] = owner.key.includes("/")
        ? owner.key.split("/") as [string, string]
        : [undefined, owner.key];
      // An owner without a label is between members: its children wait.
      const want = held === undefined
        ? ring.owner(shardKey({ group, kind, namespace, name }))
        : held.metadata.labels?.[label];
      const has = child.metadata.labels?.[label];
      if (want === undefined || has === want) continue;
      const { resourceVersion } = child.metadata;
      try {
        await this.#client.withWriteGuard(this.lead.mayWrite)
          .resource({
            ...children.source,
            ...(child.metadata.namespace
              ? { namespace: child.metadata.namespace }
              : {}),
          })
          .patch(child.metadata.name ?? "", {
            metadata: { resourceVersion, labels: { [label]: want } },
          }, {
            type: "merge",
            fieldManager: `${this.#options.ring}-sharder`,
            signal,
          });
        this.counts.children += 1;
      } catch (error) {
        if (!(error instanceof ConflictError) && !signal.aborted) {
          this.#logger.error(error, "Labelling a child failed");
        }
        ok = false;
      }
    }
    return ok;
  }

  /**
   * Takes over the Lease of a member that is gone, conditional on the
   * version judged; again every retry period while its objects remain.
   *
   * @returns Whether this sharder holds it now.
   */
  async #takeOver(
    member: string,
    leases: readonly MemberLease[],
    signal: AbortSignal,
  ): Promise<boolean> {
    const at = this.#taken.get(member);
    if (at !== undefined && Date.now() - at < RETRY_PERIOD) return true;
    const { ring, namespace } = this.#options;
    const lease = leases.find((l) =>
      l.metadata.labels?.[MEMBER_LABEL] === member
    );
    const tried = this.#tried.get(member);
    if (tried !== undefined && Date.now() - tried < RETRY_PERIOD) {
      // A takeover whose answer was lost may have landed: its watch event
      // (which woke this pass) shows it. Sending it again at once would
      // land again and wake the next pass, without end.
      if (lease?.spec?.holderIdentity !== TAKEN_PREFIX + this.lead.identity) {
        return false;
      }
      this.#tried.delete(member);
      this.#logger.info("Took over the Lease of a member", { member });
      this.counts.takeovers += 1;
      this.#taken.set(member, tried);
      return true;
    }
    this.#tried.set(member, Date.now());
    const now = microTime();
    const spec = {
      ...lease?.spec,
      holderIdentity: TAKEN_PREFIX + this.lead.identity,
      leaseDurationSeconds: LEASE_DURATION / 1000,
      acquireTime: now,
      renewTime: now,
      leaseTransitions: (lease?.spec?.leaseTransitions ?? 0) + 1,
    };
    const handle = this.#client.withWriteGuard(this.lead.mayWrite)
      .resource<MemberLease>({ ...LEASES, namespace });
    try {
      if (lease === undefined) {
        await handle.create({
          apiVersion: "coordination.k8s.io/v1",
          kind: "Lease",
          metadata: {
            name: `${ring}-${member}`,
            namespace,
            labels: { [RING_LABEL]: ring, [MEMBER_LABEL]: member },
          },
          spec,
        }, { signal });
      } else await handle.replace({ ...lease, spec }, { signal });
    } catch (error) {
      // A member that renewed meanwhile is live again: no move.
      if (!(error instanceof ConflictError) && !signal.aborted) {
        this.#logger.error(error, "Taking over a member's Lease failed", {
          member,
        });
      }
      return false;
    }
    this.#tried.delete(member);
    this.#logger.info("Took over the Lease of a member", { member });
    this.counts.takeovers += 1;
    this.#taken.set(member, Date.now());
    return true;
  }

  /** Applies the ring's labels to an object, conditional on its version. */
  async #label(
    object: KubeObject,
    labels: Record<string, string>,
    signal: AbortSignal,
  ): Promise<boolean> {
    const { ring, for: primary } = this.#options;
    const { name, namespace, resourceVersion } = object.metadata;
    const apiVersion = primary.group
      ? `${primary.group}/${primary.version}`
      : primary.version;
    const body: KubeObject = {
      apiVersion,
      kind: primary.kind,
      metadata: {
        name: name ?? "",
        ...(namespace ? { namespace } : {}),
        ...(resourceVersion ? { resourceVersion } : {}),
        labels,
      },
    };
    try {
      await this.#client.withWriteGuard(this.lead.mayWrite)
        .resource({ ...primary, ...(namespace ? { namespace } : {}) })
        .apply(body, { fieldManager: `${ring}-sharder`, force: true, signal });
      return true;
    } catch (error) {
      // A newer version is on its way through the watch: decide again then.
      if (!(error instanceof ConflictError) && !signal.aborted) {
        this.#logger.error(error, "Assigning a primary failed");
      }
      return false;
    }
  }
}
