/**
 * The state one election shares between its parts: who this process is,
 * where it stands, and client-go's bookkeeping of the record last seen.
 *
 * @module
 */

import type { Client } from "../apiclient/mod.ts";
import type { ObjectRef } from "../apiclient/resource.ts";
import type { Logger } from "../_internal/log.ts";
import { NotLeadingError } from "./errors.ts";
import type { LeaseRecord } from "./_lease.ts";
import { LeaseRequests } from "./_requests.ts";
import { RENEW_DEADLINE } from "./timings.ts";

/** Where this process stands: waiting for the Lease, leading, or done. */
export type Phase = "waiting" | "leading" | "ended";

/** The state of one election, read by the elector, the releases and the guard. */
export class ElectionState {
  /** The identity this process holds the Lease under: `<pod>_<suffix>`. */
  readonly identity: string;
  /** Names the Lease in lines and errors: `Lease <namespace>/<name>`. */
  readonly subject: string;
  /** The requests on the Lease, with the renewal clock. */
  readonly requests: LeaseRequests;
  /** Where lines and errors go. */
  readonly logger: Logger;
  /** Aborts on the stop. */
  readonly stop = new AbortController();
  /**
   * Aborts when the stop's wait for the elector gives up: the release still
   * running then ends, so no request outlives the stop.
   */
  readonly cut = new AbortController();

  #phase: Phase = "waiting";
  #stopping = false;
  // The write window: open while the guard accepts, aborted at its first
  // refusal; a timer rechecks it when the last renewal turns a renew
  // deadline old.
  #window: AbortController | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #changed = Promise.withResolvers<void>();

  // client-go's bookkeeping: the record last seen, its raw form as read, and
  // when this process first saw it (on its own clock).
  /** The record last seen. */
  observed: LeaseRecord | undefined;
  /** The record last read, as JSON text, to compare two reads. */
  observedRaw = "";
  #observedTime = 0;
  #prefix: string;

  /**
   * @param client Reaches the API server (no write guard).
   * @param ref The Lease.
   * @param pod The pod's name.
   * @param logger Where lines and errors go.
   * @param labels The labels of a Lease this election creates.
   */
  constructor(
    client: Client,
    ref: ObjectRef,
    pod: string,
    logger: Logger,
    labels?: Readonly<Record<string, string>>,
  ) {
    const suffix = crypto.getRandomValues(new Uint8Array(4));
    this.identity = pod + "_" +
      Array.from(suffix, (b) => b.toString(16).padStart(2, "0")).join("");
    this.#prefix = pod + "_";
    this.subject = `Lease ${ref.namespace}/${ref.name}`;
    this.requests = new LeaseRequests(
      client,
      ref,
      this.identity,
      () => this.#recheck(),
      labels,
    );
    this.logger = logger.with({ identity: this.identity });
  }

  /** Where this process stands. */
  get phase(): Phase {
    return this.#phase;
  }

  set phase(phase: Phase) {
    this.#phase = phase;
    this.#recheck();
  }

  /** Set by the stop, before anything else happens. */
  get stopping(): boolean {
    return this.#stopping;
  }

  set stopping(stopping: boolean) {
    this.#stopping = stopping;
    this.#recheck();
  }

  /**
   * The signal of the write window open now: it aborts, with the guard's
   * `NotLeadingError` as its reason, at the first moment the guard refuses.
   * `undefined` while the guard refuses.
   */
  writeWindow(): AbortSignal | undefined {
    try {
      checkMayWrite(this);
    } catch {
      return undefined;
    }
    if (this.#window === undefined || this.#window.signal.aborted) {
      this.#window = new AbortController();
      this.#arm();
    }
    return this.#window.signal;
  }

  /**
   * The write guard: returns while {@linkcode checkMayWrite} accepts. A
   * refusal also closes the window open now: the timer that closes it at
   * the renew deadline may not have run yet (a busy event loop, a process
   * that was paused), and whoever saw the refusal must not find the window
   * still open (a worker that takes a key back and looks again would spin).
   *
   * @throws {NotLeadingError} When a write must not be sent.
   */
  mayWrite(): void {
    try {
      checkMayWrite(this);
    } catch (error) {
      if (this.#window !== undefined && !this.#window.signal.aborted) {
        this.#recheck();
      }
      throw error;
    }
  }

  /** Resolves at the next change that may open or close the window. */
  changed(): Promise<void> {
    return this.#changed.promise;
  }

  /** Whether the record last seen names this process. */
  isLeader(): boolean {
    return this.observed?.holderIdentity === this.identity;
  }

  /** Whether the record last seen is younger than its duration, by this clock. */
  isLeaseValid(now: number): boolean {
    const seconds = this.observed?.leaseDurationSeconds ?? 0;
    return this.#observedTime + seconds * 1000 > now;
  }

  /** Notes `record` as seen now. */
  setObserved(record: LeaseRecord): void {
    this.observed = record;
    this.#observedTime = Date.now();
    this.#recheck();
  }

  /** Closes an open window the guard now refuses, and wakes the waiters. */
  #recheck(): void {
    const window = this.#window;
    if (window !== undefined && !window.signal.aborted) {
      try {
        checkMayWrite(this);
      } catch (error) {
        clearTimeout(this.#timer);
        this.#timer = undefined;
        window.abort(error);
      }
    }
    const changed = this.#changed;
    this.#changed = Promise.withResolvers<void>();
    changed.resolve();
  }

  /** Rechecks the window when the last renewal turns a renew deadline old. */
  #arm(): void {
    clearTimeout(this.#timer);
    const due = this.requests.renewed + RENEW_DEADLINE - Date.now();
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#recheck();
      if (this.#window !== undefined && !this.#window.signal.aborted) {
        this.#arm();
      }
    }, Math.max(0, due));
  }

  /**
   * Whether `holder` is an earlier process of this pod whose last renewal is
   * a whole Lease duration old. Such a process has ended (the kubelet starts
   * a container again only after its process ended) and wrote `renewTime`
   * with this node's clock, so comparing it with this clock is sound; without
   * this, a restart after an API server outage waits a whole duration more.
   * A copy in another pod cannot tell an ended holder from a paused one, so
   * it waits the whole duration from its own observation.
   */
  abandonedByThisPod(
    holder: string,
    renewed: number,
    seconds: number,
    now: number,
  ): boolean {
    if (holder === this.identity || !holder.startsWith(this.#prefix)) {
      return false;
    }
    return now >= renewed + seconds * 1000;
  }
}

/**
 * Returns while this process leads, is not stopping, and its last accepted
 * renewal was sent less than `RENEW_DEADLINE` ago.
 *
 * @param state The election.
 * @throws {NotLeadingError} Saying why a write must not be sent.
 */
export function checkMayWrite(state: ElectionState): void {
  if (state.stopping) {
    throw new NotLeadingError(
      `This process is stepping down from ${state.subject}`,
    );
  }
  if (state.phase !== "leading") {
    throw new NotLeadingError(`This process does not hold ${state.subject}`);
  }
  const holder = state.observed?.holderIdentity ?? "";
  if (holder !== state.identity) {
    throw new NotLeadingError(
      `${state.subject} names ${holder ? holder : "no holder"} now`,
    );
  }
  const age = Date.now() - state.requests.renewed;
  if (age >= RENEW_DEADLINE) {
    throw new NotLeadingError(
      `The last renewal of ${state.subject} was sent ${
        (Math.floor(age / 100) / 10).toFixed(1)
      } s ago, not within the renew deadline of ${RENEW_DEADLINE / 1000} s`,
    );
  }
}
