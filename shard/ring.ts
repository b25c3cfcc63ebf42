// Which member owns an object: rendezvous hashing of the object's key over
// the members of a ring.
import { fnv1a64, type Hash64, hex64, ownerIndex } from "./_ring.ts";

/**
 * The label value that names a member on its Lease and on the objects it
 * owns: the 16 hex digits of the FNV-1a 64-bit hash of its identity (a pod
 * name can be 253 characters long; a label value at most 63).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { memberHash } from "@liken/kubernetes/shard";
 *
 * assert.equal(memberHash("greeting-0"), memberHash("greeting-0"));
 * assert.match(memberHash("greeting-0"), /^[0-9a-f]{16}$/);
 * ```
 *
 * @param identity The member's identity, such as its pod's name.
 * @returns 16 lowercase hex digits.
 */
export function memberHash(identity: string): string {
  return hex64(fnv1a64(identity));
}

/** What names an object for the ring: its kind and where it lives. */
export interface ShardKeyParts {
  /** The API group; `""` or absent for the core group. */
  group?: string | undefined;
  /** The kind, such as `Greeting`. */
  kind: string;
  /** The namespace; `""` or absent for a cluster-scoped object. */
  namespace?: string | undefined;
  /** The name. */
  name: string;
}

/**
 * The key the ring hashes: `group/kind/namespace/name`. It names the object
 * (never its uid), so a child hashed with its owner's parts lands with its
 * owner, and an object made again under the same name keeps its member.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { shardKey } from "@liken/kubernetes/shard";
 *
 * assert.equal(
 *   shardKey({ group: "example.com", kind: "Greeting", namespace: "default", name: "hello" }),
 *   "example.com/Greeting/default/hello",
 * );
 * assert.equal(shardKey({ kind: "Namespace", name: "web" }), "/Namespace//web");
 * ```
 *
 * @param parts The object's group, kind, namespace and name.
 * @returns The key.
 */
export function shardKey(parts: ShardKeyParts): string {
  return `${parts.group ?? ""}/${parts.kind}/${
    parts.namespace ?? ""
  }/${parts.name}`;
}

/**
 * A set of members and the rule that gives each object one of them:
 * rendezvous (highest-random-weight) hashing. Each object goes to the member
 * with the highest weight for it, a 32-bit mix of the FNV-1a 64-bit hashes
 * of the object's key and of the member (ties, about one in four billion,
 * go to the smaller member). So a member that joins takes only the objects
 * it now weighs highest for (about 1/(N+1) of them), and one that leaves
 * gives away only its own, spread over the others; no table of virtual
 * nodes is needed for the balance (measured: with 10,000 objects and 1 to
 * 6 members over 1,000 sets of names, the largest share stays within
 * 1.09× of the mean).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Ring, memberHash } from "@liken/kubernetes/shard";
 *
 * const ring = new Ring([memberHash("op-0"), memberHash("op-1"), memberHash("op-2")]);
 * const owner = ring.owner("example.com/Greeting/default/hello");
 * assert.ok(owner !== undefined && ring.members.includes(owner));
 * // One member fewer: only that member's objects move.
 * const smaller = new Ring(ring.members.filter((m) => m !== owner));
 * assert.notEqual(smaller.owner("example.com/Greeting/default/hello"), owner);
 * assert.equal(new Ring([]).owner("anything"), undefined);
 * ```
 */
export class Ring {
  /** The members, sorted, without duplicates. */
  readonly members: readonly string[];
  #hashes: Hash64[];

  /**
   * Makes a ring of the given members.
   *
   * @param members The members (such as their {@linkcode memberHash} label
   * values); duplicates count once.
   */
  constructor(members: Iterable<string>) {
    this.members = Object.freeze([...new Set(members)].sort());
    this.#hashes = this.members.map(fnv1a64);
  }

  /**
   * The member that owns an object.
   *
   * @param key The object's {@linkcode shardKey}.
   * @returns The member, or `undefined` when the ring is empty.
   */
  owner(key: string): string | undefined {
    return this.members[ownerIndex(fnv1a64(key), this.#hashes)];
  }
}
