// The sharder's view of a ring's member Leases: who is live, by this
// process's clock, as client-go's elector judges a Lease.
import type { KubeObject } from "../apiclient/types.ts";
import { MEMBER_LABEL, TAKEN_PREFIX } from "./labels.ts";

/** A member Lease, as far as the sharder reads it. */
export interface MemberLease extends KubeObject {
  /** The Lease's spec. */
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    leaseTransitions?: number;
    [field: string]: unknown;
  };
}

/**
 * When this process first saw each version of each member Lease. A Lease is
 * live while it names a member (not empty, not taken over) and its version
 * is younger than its duration by this clock, never by its `renewTime`,
 * which another node's clock wrote.
 */
export class MemberClocks {
  #seen = new Map<string, { version: string; at: number }>();

  /** Notes the Lease's version, first seen now if it is new. */
  #at(lease: MemberLease, now: number): number {
    const name = lease.metadata.name ?? "";
    const version = lease.metadata.resourceVersion ?? "";
    const seen = this.#seen.get(name);
    if (seen !== undefined && seen.version === version) return seen.at;
    this.#seen.set(name, { version, at: now });
    return now;
  }

  /**
   * When the Lease stops being live, or `undefined` when it is not.
   *
   * @param lease The Lease.
   * @param now The time now.
   */
  liveUntil(lease: MemberLease, now: number): number | undefined {
    const holder = lease.spec?.holderIdentity ?? "";
    if (holder === "" || holder.startsWith(TAKEN_PREFIX)) return undefined;
    const until = this.#at(lease, now) +
      (lease.spec?.leaseDurationSeconds ?? 0) * 1000;
    return until > now ? until : undefined;
  }

  /**
   * The live members of the Leases, and the next moment one may expire.
   *
   * @param leases The ring's Leases.
   * @param now The time now.
   */
  live(
    leases: readonly MemberLease[],
    now: number,
  ): { members: Set<string>; next: number } {
    const members = new Set<string>();
    let next = Infinity;
    for (const lease of leases) {
      const member = lease.metadata.labels?.[MEMBER_LABEL];
      const until = this.liveUntil(lease, now);
      if (member === undefined || until === undefined) continue;
      members.add(member);
      next = Math.min(next, until);
    }
    return { members, next };
  }
}
