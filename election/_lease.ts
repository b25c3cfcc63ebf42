/**
 * The Lease object, its MicroTime fields, and the election record client-go
 * compares between two reads.
 *
 * @module
 */

import type { KubeObject } from "../apiclient/types.ts";
import type { ObjectRef } from "../apiclient/resource.ts";

/**
 * Which Lease: the {@linkcode ObjectRef} of a `coordination.k8s.io/v1`
 * Lease, from which every path of the election is derived.
 *
 * @param lease The Lease's namespace and name.
 * @returns Its reference.
 */
export function leaseRef(
  lease: { namespace: string; name: string },
): ObjectRef {
  return {
    group: "coordination.k8s.io",
    version: "v1",
    resource: "leases",
    namespace: lease.namespace,
    name: lease.name,
  };
}

/** The spec of a `coordination.k8s.io/v1` Lease. */
export interface LeaseSpec {
  /** The identity of the holder; empty or absent when nobody holds it. */
  holderIdentity?: string;
  /** How long a waiting candidate waits, from its own observation. */
  leaseDurationSeconds?: number;
  /** When the current holder took the Lease (MicroTime). */
  acquireTime?: string;
  /** When the holder last renewed the Lease (MicroTime). */
  renewTime?: string;
  /** How many times the Lease changed holder. */
  leaseTransitions?: number;
  /** Fields of the Lease this library does not use, kept as read. */
  [field: string]: unknown;
}

/** A `coordination.k8s.io/v1` Lease. */
export interface Lease extends KubeObject {
  /** The Lease's spec. */
  spec?: LeaseSpec;
}

/**
 * What client-go's elector reads out of a Lease: the five spec fields, in a
 * fixed order, so two reads compare by their JSON text.
 */
export interface LeaseRecord {
  /** The holder, or `""`. */
  holderIdentity: string;
  /** The duration in seconds, 0 when absent. */
  leaseDurationSeconds: number;
  /** The acquire time as the server stored it, `""` when absent. */
  acquireTime: string;
  /** The renew time as the server stored it, `""` when absent. */
  renewTime: string;
  /** The number of holder changes. */
  leaseTransitions: number;
}

/**
 * Parses a Kubernetes time (MicroTime or Time) into epoch milliseconds.
 *
 * @param text The stored text, with or without fractional seconds.
 * @returns Epoch milliseconds, or 0 when absent or unreadable, the zero time
 * a Go client reads then (so such a record counts as expired).
 */
export function parseMicroTime(text: string | undefined): number {
  if (!text) return 0;
  // Date.parse needs at most millisecond digits on every engine.
  const ms = Date.parse(text.replace(/(\.\d{3})\d+/, "$1"));
  return Number.isFinite(ms) ? ms : 0;
}

/**
 * Reads the election record out of a Lease.
 *
 * @param lease The Lease as the server answered it.
 * @returns The record, with absent fields as empty or zero.
 */
export function recordOf(lease: Lease): LeaseRecord {
  const spec = lease.spec ?? {};
  return {
    holderIdentity: typeof spec.holderIdentity === "string"
      ? spec.holderIdentity
      : "",
    leaseDurationSeconds: typeof spec.leaseDurationSeconds === "number"
      ? spec.leaseDurationSeconds
      : 0,
    acquireTime: typeof spec.acquireTime === "string" ? spec.acquireTime : "",
    renewTime: typeof spec.renewTime === "string" ? spec.renewTime : "",
    leaseTransitions: typeof spec.leaseTransitions === "number"
      ? spec.leaseTransitions
      : 0,
  };
}

/**
 * Writes a record into a Lease's spec, keeping spec fields the record does
 * not name (such as `strategy`).
 *
 * @param lease The Lease last read or written, whose metadata (and
 * `resourceVersion`) the write keeps, so the write is conditional.
 * @param record The record to write.
 * @returns A new Lease object to send.
 */
export function withRecord(lease: Lease, record: LeaseRecord): Lease {
  const spec: LeaseSpec = {
    ...lease.spec,
    holderIdentity: record.holderIdentity,
    leaseDurationSeconds: record.leaseDurationSeconds,
    leaseTransitions: record.leaseTransitions,
  };
  // An empty time is absent on the wire, as Go's nil pointer is.
  if (record.acquireTime) spec.acquireTime = record.acquireTime;
  else delete spec.acquireTime;
  if (record.renewTime) spec.renewTime = record.renewTime;
  else delete spec.renewTime;
  return { ...lease, spec };
}
