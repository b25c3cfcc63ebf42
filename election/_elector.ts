/**
 * The elector loop with client-go's semantics: acquire, renew, release, and
 * this library's exit on loss.
 *
 * @module
 */

import { microTime } from "../_internal/time.ts";
import { NotFoundError } from "../apiclient/mod.ts";
import { bounded } from "../_internal/signals.ts";
import { sleep } from "../_internal/sleep.ts";
import {
  type Lease,
  type LeaseRecord,
  parseMicroTime,
  recordOf,
} from "./_lease.ts";
import { release } from "./_release.ts";
import type { ElectionState } from "./_state.ts";
import {
  CallbackError,
  type CallbackName,
  ElectionError,
  LeaseRequestError,
  NotLeadingError,
} from "./errors.ts";
import { LEASE_DURATION, RENEW_DEADLINE, RETRY_PERIOD } from "./timings.ts";
import type { LeadOptions } from "./types.ts";
import { JITTER_FACTOR } from "./_jitter.ts";

/** The hooks of the elector. */
export type Hooks =
  & Pick<
    LeadOptions,
    "onStartedLeading" | "onStoppedLeading" | "onNewLeader"
  >
  & { exit: (code: number) => void };

/** Runs one election from its construction until it ends. */
export class Elector {
  #state: ElectionState;
  #hooks: Hooks;
  #lead: AbortController | undefined;
  #reportedLeader = "";
  #lastError = "";
  #started = Promise.withResolvers<void>();
  #done = Promise.withResolvers<void>();
  #failure: ElectionError | undefined;

  /**
   * Starts the loop.
   *
   * @param state The election.
   * @param hooks The exit and the callbacks.
   */
  constructor(state: ElectionState, hooks: Hooks) {
    this.#state = state;
    this.#hooks = hooks;
    this.#loop().then(
      () => this.#done.resolve(),
      (error) => {
        this.#failure = new ElectionError(state.subject, error);
        state.logger.error(this.#failure, "Election failed");
        this.#done.resolve();
      },
    );
  }

  /** Resolves when this process starts to lead. */
  get started(): Promise<void> {
    return this.#started.promise;
  }

  /** Resolves when the loop has ended, after the release and the exit call. */
  get done(): Promise<void> {
    return this.#done.promise;
  }

  /** Why the loop failed, once it has; `undefined` while it has not. */
  get failure(): ElectionError | undefined {
    return this.#failure;
  }

  async #loop(): Promise<void> {
    const state = this.#state;
    const stop = state.stop.signal;
    let led = false;
    try {
      if (!(await this.#acquire(stop))) return;
      led = true;
      state.phase = "leading";
      const lead = new AbortController();
      this.#lead = lead;
      state.logger.info("Acquired the Lease");
      this.#started.resolve();
      this.#call("onStartedLeading", () => {
        this.#hooks.onStartedLeading?.(lead.signal);
      });
      await this.#renew(stop);
      // Work stops before the release, not after it.
      state.phase = "ended";
      lead.abort(new NotLeadingError(`The lead of ${state.subject} ended`));
      await release(state, stop);
    } finally {
      state.phase = "ended";
      this.#lead?.abort(
        new NotLeadingError(`The lead of ${state.subject} ended`),
      );
      if (led) {
        this.#call("onStoppedLeading", () => this.#hooks.onStoppedLeading?.());
      }
      if (!state.stopping) {
        state.logger.info("Lost the Lease");
        this.#hooks.exit(1);
      }
    }
  }

  /** Tries at once, then every 5 to 11 s, until it leads or the stop. */
  async #acquire(stop: AbortSignal): Promise<boolean> {
    while (!stop.aborted) {
      const ok = await this.#tryAcquireOrRenew(stop);
      this.#maybeReportTransition();
      if (ok) return true;
      const wait = RETRY_PERIOD * (1 + Math.random() * JITTER_FACTOR);
      if (!(await sleep(wait, stop))) return false;
    }
    return false;
  }

  /**
   * Renews every retry period. Each round has one renew deadline to succeed,
   * retrying every retry period; its requests end at the deadline. A round
   * without success ends the lead.
   */
  async #renew(stop: AbortSignal): Promise<void> {
    while (!stop.aborted) {
      const round = bounded(RENEW_DEADLINE, "The renewal", stop);
      let ok = false;
      try {
        for (;;) {
          ok = await this.#tryAcquireOrRenew(round.signal);
          if (ok || round.signal.aborted) break;
          if (!(await sleep(RETRY_PERIOD, round.signal))) break;
        }
      } finally {
        round.clear();
      }
      this.#maybeReportTransition();
      if (!ok) return;
      if (!(await sleep(RETRY_PERIOD, stop))) return;
    }
  }

  /** client-go's tryAcquireOrRenew, with this pod's expired Lease as free. */
  async #tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const state = this.#state;
    const requests = state.requests;
    const now = Date.now();
    const record: LeaseRecord = {
      holderIdentity: state.identity,
      leaseDurationSeconds: LEASE_DURATION / 1000,
      acquireTime: microTime(now),
      renewTime: microTime(now),
      leaseTransitions: 0,
    };

    // Fast path: a leader writes on the copy it last saw.
    if (state.observed && state.isLeader() && state.isLeaseValid(now)) {
      record.acquireTime = state.observed.acquireTime;
      record.leaseTransitions = state.observed.leaseTransitions;
      if (
        await this.#wrote("renewing", requests.update(record, signal), record)
      ) {
        return true;
      }
      if (signal.aborted) return false;
    }

    let lease: Lease;
    try {
      lease = await requests.get(signal);
    } catch (error) {
      if (!(error instanceof NotFoundError)) {
        this.#failed("reading", error);
        return false;
      }
      return this.#wrote("creating", requests.create(record, signal), record);
    }

    let old = recordOf(lease);
    const raw = JSON.stringify(old);
    if (
      state.abandonedByThisPod(
        old.holderIdentity,
        parseMicroTime(old.renewTime),
        old.leaseDurationSeconds,
        Date.now(),
      )
    ) {
      old = { ...old, holderIdentity: "" };
    }
    if (raw !== state.observedRaw) {
      state.setObserved(old);
      state.observedRaw = raw;
    }
    if (old.holderIdentity && state.isLeaseValid(now) && !state.isLeader()) {
      return false;
    }
    if (state.isLeader()) {
      record.acquireTime = old.acquireTime;
      record.leaseTransitions = old.leaseTransitions;
    } else {
      record.leaseTransitions = old.leaseTransitions + 1;
    }
    return this.#wrote("writing", requests.update(record, signal), record);
  }

  /**
   * Awaits a write of `record`: on success it is the record observed, on
   * failure `what` (such as "renewing") names it in the error.
   */
  async #wrote(
    what: string,
    write: Promise<void>,
    record: LeaseRecord,
  ): Promise<boolean> {
    try {
      await write;
    } catch (error) {
      this.#failed(what, error);
      return false;
    }
    this.#state.setObserved(record);
    this.#lastError = "";
    return true;
  }

  #maybeReportTransition(): void {
    const state = this.#state;
    const holder = state.observed?.holderIdentity ?? "";
    if (holder === this.#reportedLeader) return;
    this.#reportedLeader = holder;
    if (holder && holder !== state.identity) {
      state.logger.info("Waiting for the Lease", { holder });
    }
    this.#call("onNewLeader", () => this.#hooks.onNewLeader?.(holder));
  }

  #failed(what: string, error: unknown): void {
    const state = this.#state;
    // A request the stop ended is no failure.
    if (state.stop.signal.aborted) return;
    const failure = new LeaseRequestError(`${what} ${state.subject}`, error);
    // A waiting copy that is refused fails the same way every retry.
    if (failure.message === this.#lastError) return;
    this.#lastError = failure.message;
    state.logger.error(failure, "Lease request failed");
  }

  #call(name: CallbackName, callback: () => void): void {
    try {
      callback();
    } catch (error) {
      this.#state.logger.error(
        new CallbackError(name, this.#state.subject, error),
        "Election callback failed",
      );
    }
  }
}
