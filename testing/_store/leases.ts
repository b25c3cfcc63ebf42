/**
 * Lease helpers: the Lease another process writes when it holds a lock
 * (coordination.k8s.io/v1, as client-go's `leaderelection` writes it), and
 * who holds one.
 *
 * @module
 */
import type { ObjectRef } from "../../apiclient/resource.ts";
import type { KubeObject } from "../../apiclient/types.ts";
import { microTime } from "../../_internal/time.ts";
import type { HoldLeaseOptions } from "../types.ts";

/** A Lease with the spec fields the helpers read. */
export type LeaseObject = KubeObject & { spec?: Record<string, unknown> };

/** The {@linkcode ObjectRef} of a Lease. */
export function leaseRef(namespace: string, name: string): ObjectRef {
  return {
    group: "coordination.k8s.io",
    version: "v1",
    resource: "leases",
    namespace,
    name,
  };
}

/**
 * The Lease a holder writes: `holderIdentity`, `leaseDurationSeconds`
 * (default 30), `acquireTime` and `renewTime` as MicroTime, and
 * `leaseTransitions` (given, else kept from `existing`).
 */
export function heldLease(
  options: HoldLeaseOptions,
  existing: LeaseObject | undefined,
): KubeObject {
  const renew = options.renewTime ?? Date.now();
  const spec: Record<string, unknown> = {
    holderIdentity: options.identity,
    leaseDurationSeconds: options.leaseDurationSeconds ?? 30,
    acquireTime: microTime(options.acquireTime ?? renew),
    renewTime: microTime(renew),
  };
  const transitions = options.leaseTransitions ??
    existing?.spec?.leaseTransitions;
  if (transitions !== undefined) spec.leaseTransitions = transitions;
  return { metadata: existing?.metadata ?? {}, spec } as KubeObject;
}

/** The holder a Lease names, or `undefined` when absent or empty. */
export function holderOf(lease: LeaseObject | undefined): string | undefined {
  const holder = lease?.spec?.holderIdentity as string | undefined;
  return holder === undefined || holder === "" ? undefined : holder;
}
