// The names the ring writes on Leases and objects.
import { memberHash } from "./ring.ts";

/**
 * The label on every member Lease of a ring; its value is the ring's name.
 * `kubectl get leases -l shard.liken.dev/ring=<ring>` lists the ring.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RING_LABEL } from "@liken/kubernetes/shard";
 *
 * assert.equal(RING_LABEL, "shard.liken.dev/ring");
 * ```
 */
export const RING_LABEL = "shard.liken.dev/ring";

/**
 * The label on a member Lease that names its member: the
 * {@linkcode memberHash} of the identity.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MEMBER_LABEL } from "@liken/kubernetes/shard";
 *
 * assert.equal(MEMBER_LABEL, "shard.liken.dev/member");
 * ```
 */
export const MEMBER_LABEL = "shard.liken.dev/member";

/**
 * The label that assigns an object to a member of `ring`:
 * `shard.liken.dev/<ring>`, its value the member's hash.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { shardLabel } from "@liken/kubernetes/shard";
 *
 * assert.equal(shardLabel("greeting"), "shard.liken.dev/greeting");
 * ```
 *
 * @param ring The ring's name (at most 63 characters, a label name's part).
 * @returns The label's name.
 */
export function shardLabel(ring: string): string {
  return `shard.liken.dev/${ring}`;
}

/**
 * The label that asks a member to give an object back:
 * `drain.shard.liken.dev/<ring>: "true"`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { drainLabel } from "@liken/kubernetes/shard";
 *
 * assert.equal(drainLabel("greeting"), "drain.shard.liken.dev/greeting");
 * ```
 *
 * @param ring The ring's name.
 * @returns The label's name.
 */
export function drainLabel(ring: string): string {
  return `drain.shard.liken.dev/${ring}`;
}

/**
 * The name of a member's Lease: `<ring>-<member hash>`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { memberHash, memberLeaseName } from "@liken/kubernetes/shard";
 *
 * assert.equal(memberLeaseName("greeting", "op-0"), `greeting-${memberHash("op-0")}`);
 * ```
 *
 * @param ring The ring's name.
 * @param identity The member's identity.
 * @returns The Lease's name.
 */
export function memberLeaseName(ring: string, identity: string): string {
  return `${ring}-${memberHash(identity)}`;
}

/**
 * The holder a sharder writes into a member Lease it takes over:
 * `shard.liken.dev/taken-by=<sharder identity>`. It is never a member
 * (no pod name holds `/`), and while it holds, a paused member that wakes
 * sees another holder and stops.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TAKEN_PREFIX } from "@liken/kubernetes/shard";
 *
 * assert.equal(TAKEN_PREFIX, "shard.liken.dev/taken-by=");
 * ```
 */
export const TAKEN_PREFIX = "shard.liken.dev/taken-by=";
