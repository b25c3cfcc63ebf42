// The terms in which a controller may start reconciles: while its write
// guard accepts (or, without an election, until the stop). A reconcile's
// other side effects (a cloud API call, a message sent) are not guarded, so
// no reconcile may start once the guard first refuses, and the ones in
// flight see their signal abort at that moment.
import type { Logger } from "../_internal/log.ts";
import { describe } from "../_internal/errors.ts";
import type { Lead } from "../election/lead.ts";
import { LEASE_DURATION } from "../election/timings.ts";
import { LeaseOutlivedError } from "./errors.ts";

/** The terms of one controller, and the reconciles in flight in each. */
export class Terms {
  #name: string;
  #stop: AbortSignal;
  #lead: Lead | undefined;
  #logger: Logger;
  #current: AbortSignal | undefined;
  #opened = Promise.withResolvers<void>();
  #ended = false;
  // Reconciles in flight, by the term they started in.
  #flights = new Map<AbortSignal, Set<string>>();
  // The reports due when another copy may lead, for the terms closed.
  #reports = new Set<
    { due: number; keys: Set<string>; timer: ReturnType<typeof setTimeout> }
  >();
  // When another copy may lead, from the closing of the last term.
  #margin: number | undefined;

  /**
   * @param name The controller's name, for errors.
   * @param stop The controller's stop.
   * @param lead The election, or none: one term until the stop.
   * @param logger Where lines and errors go.
   */
  constructor(
    name: string,
    stop: AbortSignal,
    lead: Lead | undefined,
    logger: Logger,
  ) {
    this.#name = name;
    this.#stop = stop;
    this.#lead = lead;
    this.#logger = logger;
    stop.addEventListener("abort", () => this.#end(), { once: true });
  }

  /** Opens terms as the guard accepts (without an election: one, now). */
  start(): void {
    const lead = this.#lead;
    if (lead === undefined) this.#open(this.#stop);
    else void this.#follow(lead);
  }

  /**
   * The open term's signal, waiting for one to open.
   *
   * @returns `undefined` once the controller stops.
   */
  async next(): Promise<AbortSignal | undefined> {
    for (;;) {
      if (this.#ended) return undefined;
      const current = this.#current;
      if (current !== undefined && !current.aborted) return current;
      await this.#opened.promise;
    }
  }

  /** Whether a reconcile may start now in `term`. */
  mayStart(term: AbortSignal): boolean {
    if (term.aborted) return false;
    try {
      this.#lead?.mayWrite();
      return true;
    } catch {
      return false;
    }
  }

  /** Notes a reconcile of `key` in flight in `term`; call the answer at its end. */
  begin(key: string, term: AbortSignal): () => void {
    let keys = this.#flights.get(term);
    if (keys === undefined) this.#flights.set(term, keys = new Set());
    keys.add(key);
    return () => {
      keys.delete(key);
      if (keys.size === 0) this.#flights.delete(term);
    };
  }

  /**
   * How long the stop waits for the reconciles in flight: `stopTimeout`,
   * or less once the guard refused (until another copy may lead).
   */
  stopBound(stopTimeout: number): number {
    const margin = this.#margin;
    if (margin === undefined || this.#guardAccepts()) return stopTimeout;
    return Math.min(stopTimeout, Math.max(0, margin - Date.now()));
  }

  /**
   * Clears the timers after the stop drained what it could; a report that
   * is due is made now.
   */
  clear(): void {
    for (const report of this.#reports) {
      clearTimeout(report.timer);
      if (Date.now() >= report.due) this.#report(report.keys, report.due);
    }
    this.#reports.clear();
  }

  async #follow(lead: Lead): Promise<void> {
    const stop = this.#stop;
    for (;;) {
      const window = await lead.writeWindow({ signal: stop });
      if (window === undefined || stop.aborted) return this.#end();
      const term = AbortSignal.any([stop, window]);
      this.#open(term);
      await new Promise<void>((resolve) =>
        term.addEventListener("abort", () => resolve(), { once: true })
      );
      if (stop.aborted) return this.#end();
      this.#closed(term, window.reason, lead);
    }
  }

  #open(term: AbortSignal): void {
    this.#current = term;
    this.#margin = undefined;
    const opened = this.#opened;
    this.#opened = Promise.withResolvers<void>();
    opened.resolve();
  }

  #end(): void {
    this.#ended = true;
    this.#opened.resolve();
  }

  /** A term closed by the guard: the reconciles in flight have a margin. */
  #closed(term: AbortSignal, reason: unknown, lead: Lead): void {
    const renewed = lead.renewedAt ?? Date.now();
    const margin = renewed + LEASE_DURATION;
    this.#margin = margin;
    const keys = this.#flights.get(term);
    this.#logger.info("No reconcile starts", {
      reason: describe(reason),
      inFlight: keys?.size ?? 0,
    });
    if (keys === undefined || keys.size === 0) return;
    const report = {
      due: margin,
      keys,
      timer: setTimeout(() => {
        this.#reports.delete(report);
        this.#report(keys, margin);
      }, Math.max(0, margin - Date.now())),
    };
    this.#reports.add(report);
  }

  #report(keys: Set<string>, since: number): void {
    for (const key of keys) {
      this.#logger.error(
        new LeaseOutlivedError(this.#name, key, since),
        "A reconcile outlived the Lease",
      );
    }
  }

  #guardAccepts(): boolean {
    try {
      this.#lead?.mayWrite();
      return true;
    } catch {
      return false;
    }
  }
}
