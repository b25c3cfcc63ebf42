/**
 * Sharded controllers: several active replicas of one controller, each
 * reconciling its own part of the primaries, never two at once on one
 * object, after kubernetes-controller-sharding's design.
 *
 * - **Membership**: each replica holds its own Lease
 *   (`coordination.k8s.io/v1`, `<ring>-<member hash>`, labelled
 *   `shard.liken.dev/ring: <ring>`), renewed with the election's timings
 *   and write guard: the controller's `shards` option.
 * - **Assignment**: the {@linkcode Sharder} (one replica at a time, by
 *   election) labels every primary `shard.liken.dev/<ring>: <member hash>`,
 *   the member chosen by rendezvous hashing ({@linkcode Ring}).
 * - **Each replica sees only its part**: its primary watch selects its
 *   label; an object that leaves it is never reconciled there again.
 * - **Moves**: from a live member through the drain handshake; from a gone
 *   member only after the sharder took its Lease over.
 *
 * @example Which member owns an object
 * ```ts
 * import assert from "node:assert/strict";
 * import { memberHash, Ring, shardKey } from "@liken/kubernetes/shard";
 *
 * const ring = new Ring(["op-0", "op-1", "op-2"].map(memberHash));
 * const key = shardKey({ group: "example.com", kind: "Greeting", namespace: "default", name: "hello" });
 * assert.equal(ring.owner(key), ring.owner(key));
 * ```
 *
 * @module
 */
export { memberHash, Ring, shardKey, type ShardKeyParts } from "./ring.ts";
export {
  drainLabel,
  MEMBER_LABEL,
  memberLeaseName,
  RING_LABEL,
  shardLabel,
  TAKEN_PREFIX,
} from "./labels.ts";
export {
  type ShardedResource,
  Sharder,
  type SharderOptions,
} from "./sharder.ts";
