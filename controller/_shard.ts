// A sharded controller's side of the ring: its member Lease, the selection
// of its primaries, and the drain handshake.
import type { Client } from "../apiclient/client.ts";
import { objectKey, type ObjectRef } from "../apiclient/resource.ts";
import type { KubeObject } from "../apiclient/types.ts";
import type { Logger } from "../_internal/log.ts";
import { Lead } from "../election/lead.ts";
import {
  drainLabel,
  MEMBER_LABEL,
  memberLeaseName,
  RING_LABEL,
  shardLabel,
} from "../shard/labels.ts";
import { memberHash } from "../shard/ring.ts";
import type { Source } from "../informer/types.ts";
import type { ControllerOptions } from "./types.ts";

/** What a sharded reconcile gets instead of an object that is not its own. */
export const SKIP: unique symbol = Symbol("not this member's");

/** The member's identity: the option, else the host's name. */
// deno-lint-ignore no-explicit-any
function identityOf(options: ControllerOptions<any>): string {
  return options.wiring?.shards?.identity ?? Deno.hostname();
}

/**
 * A collection a controller watches, the primaries (`for`) or children
 * (`owns`): with `shards`, only the objects labelled with this member's
 * shard. The sharder labels primaries; children carry the label of the
 * member that applied them, and the sharder labels the others and
 * relabels them when their owner moves.
 */
export function shardSource<S extends Source>(
  // deno-lint-ignore no-explicit-any
  options: ControllerOptions<any>,
  source: S,
): S {
  const shards = options.wiring?.shards;
  if (shards === undefined) return source;
  const mine = `${shardLabel(shards.ring)}=${memberHash(identityOf(options))}`;
  const given = source.labelSelector;
  return { ...source, labelSelector: given ? `${given},${mine}` : mine };
}

/** What a {@linkcode ShardGate} needs. */
export interface ShardGateOptions {
  /** The controller's options (`wiring.shards` given, `wiring.lead` not). */
  // deno-lint-ignore no-explicit-any
  controller: ControllerOptions<any>;
  /** Whether the primary watch holds a key. */
  held: (key: string) => boolean;
  /** The controller's logger. */
  logger: Logger;
}

/**
 * One member of a ring: its Lease, and what it may reconcile. A DELETED of
 * the primary watch is never reconciled: the object left this member's
 * selection ("no longer mine"), or was deleted, and which one cannot be
 * told from the event (the API server's watch cache sends the previous
 * copy, labels and all, when an object stops matching). A deletion needs
 * no reconcile of the gone object: a finalizer's work is done while the
 * object still exists (its deletion arrives as an update, to its member),
 * and the garbage collector removes the children.
 */
export class ShardGate {
  /** The member's election on its own Lease. */
  readonly lead: Lead;
  /** The label every child this member applies carries: its shard. */
  readonly childLabels: Readonly<Record<string, string>>;
  #label: string;
  #drain: string;
  #hash: string;
  #held: (key: string) => boolean;
  #manager: string;

  /**
   * @param client The client, without a write guard.
   * @param options The controller's options, its store, its logger.
   */
  constructor(client: Client, options: ShardGateOptions) {
    const { controller, logger } = options;
    const shards = controller.wiring!.shards!;
    if (controller.wiring?.lead !== undefined) {
      throw new TypeError(
        `The controller ${controller.name} takes shards or lead, not both`,
      );
    }
    const identity = identityOf(controller);
    this.#hash = memberHash(identity);
    this.#label = shardLabel(shards.ring);
    this.#drain = drainLabel(shards.ring);
    this.#held = options.held;
    // The acknowledgement is the controller's write: named after it, as its
    // status writes are, so the audit log and managedFields tell it from a
    // user's edit.
    this.#manager = controller.name;
    this.childLabels = { [this.#label]: this.#hash };
    this.lead = new Lead(client, {
      lease: {
        namespace: shards.namespace,
        name: memberLeaseName(shards.ring, identity),
      },
      pod: identity,
      labels: { [RING_LABEL]: shards.ring, [MEMBER_LABEL]: this.#hash },
      exit: shards.exit,
      logger,
    });
  }

  /**
   * The object to reconcile, or {@linkcode SKIP}: a key the watch does not
   * hold is not read at all (so no read from the API server finds an object
   * of another member); a copy read that is gone, or names another member
   * or none, is skipped; a copy this member is asked to drain is
   * acknowledged (both labels removed, conditional on its resourceVersion,
   * through the guarded client), and skipped. The queue runs one reconcile
   * of a key at a time, so one in flight has ended before the
   * acknowledgement leaves.
   */
  async read<T extends KubeObject>(
    ref: ObjectRef,
    how: {
      read: () => Promise<T | undefined>;
      client: Client;
      signal: AbortSignal;
    },
  ): Promise<T | typeof SKIP> {
    if (!this.#held(objectKey(ref))) return SKIP;
    const object = await how.read();
    const labels = object?.metadata.labels ?? {};
    if (object === undefined || labels[this.#label] !== this.#hash) return SKIP;
    if (labels[this.#drain] === undefined) return object;
    await how.client.resource(ref).patch(ref.name, {
      metadata: {
        resourceVersion: object.metadata.resourceVersion,
        labels: { [this.#label]: null, [this.#drain]: null },
      },
    }, { type: "merge", fieldManager: this.#manager, signal: how.signal });
    return SKIP;
  }
}
