/**
 * The elector's requests on its Lease, and the renewal clock they move.
 *
 * @module
 */

import type { Client } from "../apiclient/mod.ts";
import type { ResourceClient } from "../apiclient/handle.ts";
import type { ObjectRef } from "../apiclient/resource.ts";
import { bounded } from "../_internal/signals.ts";
import { type Lease, type LeaseRecord, withRecord } from "./_lease.ts";
import { REQUEST_TIMEOUT } from "./timings.ts";

/**
 * Reads and writes one Lease. Every write is conditional on the
 * `resourceVersion` of the Lease last read or written.
 */
export class LeaseRequests {
  /**
   * The renewal clock: when the newest accepted write that names this
   * process was sent; `-Infinity` before the first.
   */
  renewed = -Infinity;

  #client: Client;
  #ref: ObjectRef;
  #identity: string;
  #onRenewed: () => void;
  #labels: Readonly<Record<string, string>> | undefined;
  // The Lease last read or written, whose resourceVersion the next write
  // names.
  #cached: Lease | undefined;

  /**
   * @param client Reaches the API server (no write guard).
   * @param ref The Lease.
   * @param identity This process's identity, which the renewal clock follows.
   * @param onRenewed Called when the renewal clock moved.
   * @param labels The labels of the Lease when this process creates it.
   */
  constructor(
    client: Client,
    ref: ObjectRef,
    identity: string,
    onRenewed: () => void = () => {},
    labels?: Readonly<Record<string, string>>,
  ) {
    this.#client = client;
    this.#ref = ref;
    this.#identity = identity;
    this.#onRenewed = onRenewed;
    this.#labels = labels;
  }

  /** Reads the Lease, bounded by the request timeout. */
  async get(signal: AbortSignal): Promise<Lease> {
    const name = this.#ref.name;
    const lease = await this.#send(
      (leases, s) => leases.get(name, { signal: s }),
      signal,
    );
    this.#cached = lease;
    return lease;
  }

  /** Creates the Lease with `record`. */
  async create(record: LeaseRecord, signal: AbortSignal): Promise<void> {
    const body = withRecord({
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: {
        name: this.#ref.name,
        namespace: this.#ref.namespace ?? "",
        ...(this.#labels === undefined ? {} : { labels: { ...this.#labels } }),
      },
    }, record);
    const sent = Date.now();
    this.#cached = await this.#send(
      (leases, s) => leases.create(body, { signal: s }),
      signal,
    );
    this.#mark(sent, record);
  }

  /** Writes `record` over the copy last read or written. */
  async update(record: LeaseRecord, signal: AbortSignal): Promise<void> {
    if (!this.#cached) {
      throw new TypeError("The Lease was not read before a write");
    }
    const body = withRecord(this.#cached, record);
    const sent = Date.now();
    this.#cached = await this.#send(
      (leases, s) => leases.replace(body, { signal: s }),
      signal,
    );
    this.#mark(sent, record);
  }

  /**
   * Reads the Lease for the second release, bounded by `signal` only; the
   * copy is not kept.
   */
  read(signal: AbortSignal): Promise<Lease> {
    return this.#leases(signal).get(this.#ref.name, { signal });
  }

  /**
   * Writes `lease` as is for the second release, bounded by `signal` only;
   * neither the copy nor the renewal clock change.
   */
  async replace(lease: Lease, signal: AbortSignal): Promise<void> {
    await this.#leases(signal).replace(lease, { signal });
  }

  /**
   * Each request, with its waits after a 429, ends at the request timeout or
   * with the signal (a renewal round's deadline).
   */
  async #send<T>(
    request: (leases: ResourceClient<Lease>, signal: AbortSignal) => Promise<T>,
    signal: AbortSignal,
  ): Promise<T> {
    const bound = bounded(REQUEST_TIMEOUT, "The Lease request", signal);
    try {
      return await request(this.#leases(bound.signal), bound.signal);
    } finally {
      bound.clear();
    }
  }

  /**
   * The Lease's handle on a client whose waits after a 429 end with
   * `signal`; it builds every path from the ref.
   */
  #leases(signal: AbortSignal): ResourceClient<Lease> {
    return this.#client.withWaitSignal(signal).resource<Lease>(this.#ref);
  }

  /** The renewal clock moves on each accepted write that names this process. */
  #mark(sent: number, record: LeaseRecord): void {
    if (record.holderIdentity !== this.#identity) return;
    this.renewed = Math.max(this.renewed, sent);
    this.#onRenewed();
  }
}
