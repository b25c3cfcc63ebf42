/**
 * The Lease elector with client-go's semantics, and four additions of this
 * library: the renewal clock behind the write guard, exit on loss, the take
 * of this pod's own expired Lease, and a second release after a step-down.
 *
 * @module
 */

import { type Client, ConflictError, NotFoundError } from "../apiclient/mod.ts";
import {
  formatMicroTime,
  type Lease,
  type LeaseRecord,
  parseMicroTime,
  recordOf,
  withRecord,
} from "./_lease.ts";
import { sleep, within } from "../_internal/sleep.ts";
import { bounded } from "../_internal/signals.ts";
import { describe } from "../_internal/errors.ts";

/**
 * How long a waiting copy waits before it takes a Lease whose record did not
 * change, in milliseconds: 30 s, twice client-go's default. The extra time
 * is the safety margin: a leader that last renewed at T stops writing at
 * T+10 s (the write guard), gives up at T+15 s and exits by T+29 s, while
 * another copy can take the Lease only after T+30 s.
 */
export const LEASE_DURATION = 30_000;

/**
 * How long a leader keeps trying to renew before it gives up, in
 * milliseconds: 10 s, as in client-go. The write guard refuses once the last
 * accepted renewal is this old.
 */
export const RENEW_DEADLINE = 10_000;

/**
 * The pause between two renewals of a leader, and the base of a waiting
 * copy's retry, in milliseconds: 5 s (client-go uses 2 s). It sets the load on
 * the API server; an operator does not need faster failover.
 */
export const RETRY_PERIOD = 5_000;

/**
 * The jitter factor of a waiting copy's retry: it reads the Lease every
 * `RETRY_PERIOD` plus up to 1.2 periods, 5 to 11 s, so copies that started
 * together do not stay in step.
 */
export const JITTER_FACTOR = 1.2;

/**
 * The longest request the operator's client may send while it leads, in
 * milliseconds: pass it as the client's `timeout`. A write the guard allowed
 * just before T+10 s is given up by T+25 s: before another copy can take
 * an unreleased Lease (T+30 s), and before the elector releases it after a
 * loss (it waits for T+25 s). The timeout ends the client's wait, not the
 * write: the API server can still commit a request after the client gave up,
 * so a write that must not land late names a precondition (a
 * `resourceVersion`) that the next leader moves.
 */
export const REQUEST_TIMEOUT = LEASE_DURATION - RENEW_DEADLINE - RETRY_PERIOD;

/** Options of a {@linkcode Lead}: the Lease, the pod, and the hooks. */
export interface LeadOptions {
  /** The Lease's name. */
  name: string;
  /** The Lease's namespace. */
  namespace: string;
  /**
   * The name of the pod this process runs in, without `_`. The Lease names
   * the holder as `<pod>_<8 hex digits>`: the pod is readable in the Lease's
   * `holderIdentity`, and each start of the container competes afresh.
   */
  pod: string;
  /**
   * Gets a line for each change of state (holding, waiting for another
   * holder, lost, released) and for each failed request of the Lease (a
   * failure that repeats is told once). Prefix it and log it as you like.
   * Default: the lines are dropped.
   */
  report?: (line: string) => void;
  /**
   * Called with code 1 when a lead ends without a step-down. The default,
   * `Deno.exit`, kills whatever work is still running, which must not go on
   * once another copy may hold the Lease; the kubelet then starts the
   * container again and it competes anew. Tests pass their own.
   */
  exit?: (code: number) => void;
  /**
   * Called when this process starts to lead. The signal aborts when the
   * lead ends, before the release, so work stops first.
   */
  onStartedLeading?: (signal: AbortSignal) => void;
  /**
   * Called when a lead of this process ended (lost or stepped down), after
   * the release. Unlike client-go, which calls it whenever its run returns,
   * a process that never led does not get it.
   */
  onStoppedLeading?: () => void;
  /**
   * Called when the Lease names another holder than last seen, including
   * this process and `""` (nobody).
   */
  onNewLeader?: (identity: string) => void;
}

/** Options of {@linkcode Lead.start}. */
export interface StartOptions extends LeadOptions {
  /**
   * The stop: when it aborts before this process leads, the election ends
   * and `start` rejects with {@linkcode StoppedError}.
   */
  signal?: AbortSignal;
}

/**
 * The write guard's refusal: this process cannot show that it holds a
 * current Lease. The message says why, such as how old the last renewal is.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { NotLeadingError } from "@liken/kubernetes/election";
 *
 * const error = new NotLeadingError("The last renewal was 12.0 s ago");
 * assert.equal(error.name, "NotLeadingError");
 * ```
 */
export class NotLeadingError extends Error {
  /**
   * Makes a refusal.
   *
   * @param message Why this process may not write.
   */
  constructor(message: string) {
    super(message);
    this.name = "NotLeadingError";
  }
}

/**
 * The stop came before this process led: it holds nothing, and the operator
 * can end with success.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { StoppedError } from "@liken/kubernetes/election";
 *
 * assert.match(new StoppedError().message, /before this process led/);
 * ```
 */
export class StoppedError extends Error {
  /** Makes the error. */
  constructor() {
    super("The stop came before this process led");
    this.name = "StoppedError";
  }
}

type Phase = "idle" | "waiting" | "leading" | "ended";

/**
 * This process's part in the election of one acting copy, on a
 * `coordination.k8s.io/v1` Lease.
 *
 * It follows client-go's elector: a waiting copy reads the Lease every 5 to
 * 11 s and takes it when nobody holds it, or when its record did not change
 * for a whole Lease duration measured on this process's clock from when it
 * first saw that record (never from `renewTime`, which another node's clock
 * wrote); every take and renewal is conditional on the `resourceVersion`
 * read; a leader renews every 5 s and gives up when no renewal succeeded
 * within 10 s; a lead that ends releases the Lease (empty holder,
 * `leaseDurationSeconds: 1`).
 *
 * Give the elector a client without a write guard, and guard the operator's
 * own client with {@linkcode Lead.mayWrite}.
 *
 * The election is not fencing: a write sent before the guard refused can
 * still land later. See {@linkcode REQUEST_TIMEOUT}.
 *
 * @example Leading on the fake API server
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client } from "@liken/kubernetes/apiclient";
 * import { Lead } from "@liken/kubernetes/election";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * const lead = await Lead.start(client, {
 *   name: "demo-operator",
 *   namespace: "default",
 *   pod: "demo-operator-7d9f-x2x4b",
 * });
 * assert.ok(lead.leads());
 * lead.mayWrite(); // does not throw while this process leads
 * await lead.stepDown();
 * assert.throws(() => lead.mayWrite(), { name: "NotLeadingError" });
 * ```
 */
export class Lead implements AsyncDisposable {
  /** The identity this process holds the Lease under: `<pod>_<suffix>`. */
  readonly identity: string;

  #client: Client;
  #name: string;
  #namespace: string;
  #path: string;
  #collection: string;
  #subject: string;
  #pod: string;
  #report: (line: string) => void;
  #exit: (code: number) => void;
  #callbacks: Pick<
    LeadOptions,
    "onStartedLeading" | "onStoppedLeading" | "onNewLeader"
  >;

  // client-go's bookkeeping: the record last seen, its raw form as read, and
  // when this process first saw it (on its own clock).
  #observed: LeaseRecord | undefined;
  #observedRaw = "";
  #observedTime = 0;
  #reportedLeader = "";
  // The Lease last read or written, whose resourceVersion the next write
  // names.
  #cached: Lease | undefined;
  // The renewal clock: when the newest accepted write that names this
  // process was sent.
  #renewed = -Infinity;
  #lastError = "";

  #phase: Phase = "idle";
  #running = false;
  #stepping = false;
  #stop = new AbortController();
  #lead: AbortController | undefined;
  #started = Promise.withResolvers<void>();
  #done = Promise.withResolvers<void>();
  #ending: Promise<void> | undefined;

  /**
   * Builds the election; {@linkcode Lead.run} starts it.
   *
   * @param client Reaches the API server. It must not carry this lead's
   * write guard, or a lapsed guard would refuse the renewals that restore it.
   * @param options The Lease, the pod, and the hooks.
   */
  constructor(client: Client, options: LeadOptions) {
    const { name, namespace, pod } = options;
    if (!name || !namespace || !pod) {
      throw new TypeError(
        "The election needs the Lease's name and namespace and the pod's name",
      );
    }
    // The prefix rule needs the underscore to end the pod's name; a pod name
    // (a DNS subdomain) never holds one.
    if (pod.includes("_")) {
      throw new TypeError(`A pod name has no underscore: ${pod}`);
    }
    this.#client = client;
    this.#name = name;
    this.#namespace = namespace;
    this.#collection = `/apis/coordination.k8s.io/v1/namespaces/${
      encodeURIComponent(namespace)
    }/leases`;
    this.#path = `${this.#collection}/${encodeURIComponent(name)}`;
    this.#subject = `Lease ${namespace}/${name}`;
    this.#pod = pod + "_";
    this.#report = options.report ?? (() => {});
    this.#exit = options.exit ?? ((code) => Deno.exit(code));
    this.#callbacks = {
      ...options.onStartedLeading && {
        onStartedLeading: options.onStartedLeading,
      },
      ...options.onStoppedLeading && {
        onStoppedLeading: options.onStoppedLeading,
      },
      ...options.onNewLeader && { onNewLeader: options.onNewLeader },
    };
    const suffix = crypto.getRandomValues(new Uint8Array(4));
    this.identity = pod + "_" +
      Array.from(suffix, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  /**
   * Builds the election, runs it, and waits until this process leads.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client } from "@liken/kubernetes/apiclient";
   * import { Lead, StoppedError } from "@liken/kubernetes/election";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const client = new Client(server.url, { fetch: server.fetch });
   * const options = { name: "op", namespace: "default", pod: "op-a" };
   * const first = await Lead.start(client, options);
   * // A second copy waits; its stop ends the wait.
   * await assert.rejects(
   *   Lead.start(client, { ...options, pod: "op-b", signal: AbortSignal.abort() }),
   *   StoppedError,
   * );
   * await first.stepDown();
   * ```
   *
   * @param client Reaches the API server (no write guard).
   * @param options The Lease, the pod, the hooks, and the stop signal.
   * @returns The lead, once this process holds the Lease.
   * @throws {StoppedError} When the stop aborts first; the election has then
   * ended and this process holds nothing.
   */
  static async start(client: Client, options: StartOptions): Promise<Lead> {
    const lead = new Lead(client, options);
    lead.run();
    if (!(await lead.await(options.signal))) throw new StoppedError();
    return lead;
  }

  /**
   * A promise that resolves when the election has ended: after the lead's
   * release and the exit call on a loss, or after a stop.
   */
  get done(): Promise<void> {
    return this.#done.promise;
  }

  /**
   * Starts the election in the background.
   *
   * @throws {Error} When it already runs or has ended.
   */
  run(): void {
    if (this.#running || this.#ending) {
      throw new Error("The election already ran");
    }
    this.#running = true;
    this.#phase = "waiting";
    this.#loop().then(
      () => this.#done.resolve(),
      (error) => {
        this.#report(`election of ${this.#subject} failed: ${describe(error)}`);
        this.#done.resolve();
      },
    );
  }

  /**
   * Waits until this process leads. Runs the election first when
   * {@linkcode Lead.run} was not called.
   *
   * Failed Lease requests (403 Forbidden too) do not end the wait; the copy
   * retries on its schedule and reports the failure.
   *
   * @param signal The stop: when it aborts first, the election ends (with
   * the release) before the promise resolves.
   * @returns `true` once this process leads; `false` when the stop came
   * first, or the election ended without a lead. After `false`, this process
   * holds nothing.
   */
  async await(signal?: AbortSignal): Promise<boolean> {
    if (!this.#running && !this.#ending) this.run();
    if (!signal?.aborted) {
      let onAbort = (): void => {};
      await Promise.race([
        this.#started.promise,
        this.#done.promise,
        new Promise<void>((resolve) => {
          onAbort = resolve;
          signal?.addEventListener("abort", onAbort, { once: true });
        }),
      ]);
      signal?.removeEventListener("abort", onAbort);
    }
    if (signal?.aborted || this.#phase !== "leading") {
      await this.#end();
      return false;
    }
    return true;
  }

  /**
   * Whether this process leads now: its lead started, has not ended, and it
   * is not stepping down. A write also needs a fresh renewal: use
   * {@linkcode Lead.mayWrite} to guard writes.
   *
   * @returns Whether this process leads.
   */
  leads(): boolean {
    return this.#phase === "leading" && !this.#stepping;
  }

  /**
   * The write guard: returns while this process leads, is not stepping down,
   * and its last accepted renewal was sent less than {@linkcode RENEW_DEADLINE}
   * ago; else throws a {@linkcode NotLeadingError} that says why. It is
   * bound, so pass it as is: `client.withWriteGuard(lead.mayWrite)`.
   *
   * The renewal is timed when it was sent, never later than when another
   * copy first reads it, so the guard refuses at least 20 s before another
   * copy can take the Lease. The elector itself gives up only later, after a
   * whole renew deadline with no success.
   *
   * @throws {NotLeadingError} When a write must not be sent.
   */
  readonly mayWrite = (): void => {
    if (this.#stepping) {
      throw new NotLeadingError(
        `This process is stepping down from ${this.#subject}`,
      );
    }
    if (this.#phase !== "leading") {
      throw new NotLeadingError(`This process does not hold ${this.#subject}`);
    }
    const holder = this.#observed?.holderIdentity ?? "";
    if (holder !== this.identity) {
      throw new NotLeadingError(
        `${this.#subject} names ${holder ? holder : "no holder"} now`,
      );
    }
    const age = Date.now() - this.#renewed;
    if (age >= RENEW_DEADLINE) {
      throw new NotLeadingError(
        `The last renewal of ${this.#subject} was sent ${
          (Math.floor(age / 100) / 10).toFixed(1)
        } s ago, not within the renew deadline of ${RENEW_DEADLINE / 1000} s`,
      );
    }
  };

  /**
   * Ends this process's part on a shutdown and releases the Lease, so a
   * waiting copy takes it on its next read. Only call it once every write
   * of the operator has returned; with a write possibly still running, exit
   * without it, and the Lease runs out only after that write is over.
   *
   * After the elector's own release, it reads the Lease again and clears it
   * if it still names this process (or an expired earlier process of this
   * pod): a renewal sent before the stop can land late, after the copy the
   * first release writes on, so that release conflicts. A conflict (that late
   * renewal again) reads again, at most 3 times within half a renew
   * deadline.
   *
   * @returns A promise that resolves when the release is done, at most about
   * 16 s later.
   */
  stepDown(): Promise<void> {
    return this.#end();
  }

  /**
   * Steps down: `await using lead = await Lead.start(...)`.
   *
   * @returns A promise that resolves after {@linkcode Lead.stepDown}.
   */
  [Symbol.asyncDispose](): Promise<void> {
    return this.#end();
  }

  #end(): Promise<void> {
    this.#ending ??= this.#endOnce();
    return this.#ending;
  }

  async #endOnce(): Promise<void> {
    this.#stepping = true;
    this.#stop.abort(
      new DOMException(
        `The election of ${this.#subject} stopped`,
        "AbortError",
      ),
    );
    if (this.#running) {
      // The elector's release is bounded by one renew deadline.
      if (!(await within(this.#done.promise, RENEW_DEADLINE + 1_000))) return;
    } else {
      this.#phase = "ended";
      this.#done.resolve();
    }
    const bound = bounded(RENEW_DEADLINE / 2, "The second release");
    try {
      await this.#clearIfHeld(bound.signal);
    } finally {
      bound.clear();
    }
  }

  async #loop(): Promise<void> {
    const stop = this.#stop.signal;
    let led = false;
    try {
      if (!(await this.#acquire(stop))) return;
      led = true;
      this.#phase = "leading";
      this.#lead = new AbortController();
      this.#report(`holding ${this.#subject} as ${this.identity}`);
      this.#started.resolve();
      this.#call(() => this.#callbacks.onStartedLeading?.(this.#lead!.signal));
      await this.#renew(stop);
      // Work stops before the release, not after it.
      this.#phase = "ended";
      this.#lead.abort(
        new NotLeadingError(`The lead of ${this.#subject} ended`),
      );
      await this.#release(stop);
    } finally {
      this.#phase = "ended";
      this.#lead?.abort(
        new NotLeadingError(`The lead of ${this.#subject} ended`),
      );
      if (led) this.#call(() => this.#callbacks.onStoppedLeading?.());
      if (!this.#stepping) {
        this.#report(`lost ${this.#subject}`);
        this.#exit(1);
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
    const now = Date.now();
    const record: LeaseRecord = {
      holderIdentity: this.identity,
      leaseDurationSeconds: LEASE_DURATION / 1000,
      acquireTime: formatMicroTime(now),
      renewTime: formatMicroTime(now),
      leaseTransitions: 0,
    };

    // Fast path: a leader writes on the copy it last saw.
    if (this.#observed && this.#isLeader() && this.#isLeaseValid(now)) {
      record.acquireTime = this.#observed.acquireTime;
      record.leaseTransitions = this.#observed.leaseTransitions;
      if (await this.#wrote("renewing", this.#update(record, signal), record)) {
        return true;
      }
      if (signal.aborted) return false;
    }

    let lease: Lease;
    try {
      lease = await this.#get(signal);
    } catch (error) {
      if (!(error instanceof NotFoundError)) {
        this.#failed(`reading ${this.#subject}`, error);
        return false;
      }
      return this.#wrote("creating", this.#create(record, signal), record);
    }

    let old = recordOf(lease);
    const raw = JSON.stringify(old);
    if (
      this.#abandonedByThisPod(
        old.holderIdentity,
        parseMicroTime(old.renewTime),
        old.leaseDurationSeconds,
        Date.now(),
      )
    ) {
      old = { ...old, holderIdentity: "" };
    }
    if (raw !== this.#observedRaw) {
      this.#setObserved(old);
      this.#observedRaw = raw;
    }
    if (old.holderIdentity && this.#isLeaseValid(now) && !this.#isLeader()) {
      return false;
    }
    if (this.#isLeader()) {
      record.acquireTime = old.acquireTime;
      record.leaseTransitions = old.leaseTransitions;
    } else {
      record.leaseTransitions = old.leaseTransitions + 1;
    }
    return this.#wrote("writing", this.#update(record, signal), record);
  }

  /**
   * Awaits a write of `record`: on success it is the record observed, on
   * failure `what` (such as "renewing") names it in the report.
   */
  async #wrote(
    what: string,
    write: Promise<void>,
    record: LeaseRecord,
  ): Promise<boolean> {
    try {
      await write;
    } catch (error) {
      this.#failed(`${what} ${this.#subject}`, error);
      return false;
    }
    this.#setObserved(record);
    this.#lastError = "";
    return true;
  }

  /**
   * client-go's release: clears the Lease if this process last held it.
   *
   * After a step-down at once: its caller's writes have returned. After a
   * loss only at T+25 s (T: the send time of the last accepted renewal),
   * once every write the guard allowed (until T+10 s) has ended at the
   * client (REQUEST_TIMEOUT later). client-go releases as soon as the
   * renewal fails, at T+15 s, and another copy can then act while such a
   * write is still in flight. The release on a loss ends by T+29 s, so the
   * process exits before another copy could take an unreleased Lease.
   */
  async #release(stop: AbortSignal): Promise<void> {
    if (!this.#observed || !this.#isLeader()) return;
    let limit = RENEW_DEADLINE;
    if (!stop.aborted) {
      const writesEnded = this.#renewed + RENEW_DEADLINE + REQUEST_TIMEOUT;
      if (writesEnded > Date.now()) {
        await sleep(writesEnded - Date.now(), stop);
      }
      // A step-down during the wait releases at once, with the full bound.
      if (!stop.aborted) {
        limit = this.#renewed + LEASE_DURATION - 1_000 - Date.now();
        if (limit <= 0) return;
      }
    }
    const now = formatMicroTime(Date.now());
    const record: LeaseRecord = {
      holderIdentity: "",
      leaseDurationSeconds: 1,
      acquireTime: now,
      renewTime: now,
      leaseTransitions: this.#observed.leaseTransitions,
    };
    const bound = bounded(limit, "The release");
    try {
      await this.#update(record, bound.signal);
    } catch (error) {
      this.#report(`releasing ${this.#subject}: ${describe(error)}`);
      return;
    } finally {
      bound.clear();
    }
    this.#setObserved(record);
    this.#report(`released ${this.#subject}`);
  }

  /**
   * The second release: clears the Lease when it names this process or an
   * expired earlier process of this pod, reading again after a conflict.
   * A Lease that names another process, or nobody, is left alone.
   */
  async #clearIfHeld(signal: AbortSignal): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      let lease: Lease;
      try {
        lease = await this.#client.withWaitSignal(signal).get<Lease>(
          this.#path,
          { signal },
        );
      } catch (error) {
        if (!(error instanceof NotFoundError)) {
          this.#report(
            `reading ${this.#subject} to release it: ${describe(error)}`,
          );
        }
        return;
      }
      if (!this.#mayClear(lease)) return;
      const cleared: Lease = {
        ...lease,
        spec: {
          ...lease.spec,
          holderIdentity: "",
          leaseDurationSeconds: 1,
          renewTime: formatMicroTime(Date.now()),
        },
      };
      try {
        await this.#client.withWaitSignal(signal).replace<Lease>(
          this.#path,
          cleared,
          { signal },
        );
        this.#report(`released ${this.#subject}`);
        return;
      } catch (error) {
        if (!(error instanceof ConflictError)) {
          this.#report(`releasing ${this.#subject}: ${describe(error)}`);
          return;
        }
      }
    }
  }

  #mayClear(lease: Lease): boolean {
    const spec = lease.spec;
    const holder = spec?.holderIdentity;
    if (!holder) return false;
    if (holder === this.identity) return true;
    if (
      typeof spec.renewTime !== "string" ||
      typeof spec.leaseDurationSeconds !== "number"
    ) {
      return false;
    }
    return this.#abandonedByThisPod(
      holder,
      parseMicroTime(spec.renewTime),
      spec.leaseDurationSeconds,
      Date.now(),
    );
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
  #abandonedByThisPod(
    holder: string,
    renewed: number,
    seconds: number,
    now: number,
  ): boolean {
    if (holder === this.identity || !holder.startsWith(this.#pod)) {
      return false;
    }
    return now >= renewed + seconds * 1000;
  }

  #isLeader(): boolean {
    return this.#observed?.holderIdentity === this.identity;
  }

  #isLeaseValid(now: number): boolean {
    const seconds = this.#observed?.leaseDurationSeconds ?? 0;
    return this.#observedTime + seconds * 1000 > now;
  }

  #setObserved(record: LeaseRecord): void {
    this.#observed = record;
    this.#observedTime = Date.now();
  }

  #maybeReportTransition(): void {
    const holder = this.#observed?.holderIdentity ?? "";
    if (holder === this.#reportedLeader) return;
    this.#reportedLeader = holder;
    if (holder && holder !== this.identity) {
      this.#report(`waiting for ${this.#subject}, held by ${holder}`);
    }
    this.#call(() => this.#callbacks.onNewLeader?.(holder));
  }

  async #get(signal: AbortSignal): Promise<Lease> {
    const lease = await this.#send(
      (client, s) => client.get<Lease>(this.#path, { signal: s }),
      signal,
    );
    this.#cached = lease;
    return lease;
  }

  async #create(record: LeaseRecord, signal: AbortSignal): Promise<void> {
    const body = withRecord({
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: this.#name, namespace: this.#namespace },
    }, record);
    const sent = Date.now();
    this.#cached = await this.#send(
      (client, s) =>
        client.create<Lease>(this.#collection, body, { signal: s }),
      signal,
    );
    this.#mark(sent, record);
  }

  async #update(record: LeaseRecord, signal: AbortSignal): Promise<void> {
    if (!this.#cached) throw new Error("The Lease was not read before a write");
    const body = withRecord(this.#cached, record);
    const sent = Date.now();
    this.#cached = await this.#send(
      (client, s) => client.replace<Lease>(this.#path, body, { signal: s }),
      signal,
    );
    this.#mark(sent, record);
  }

  /**
   * Each request, with its waits after a 429, ends at the request timeout or
   * with the signal (a renewal round's deadline).
   */
  async #send<T>(
    request: (client: Client, signal: AbortSignal) => Promise<T>,
    signal: AbortSignal,
  ): Promise<T> {
    const bound = bounded(REQUEST_TIMEOUT, "The Lease request", signal);
    try {
      return await request(
        this.#client.withWaitSignal(bound.signal),
        bound.signal,
      );
    } finally {
      bound.clear();
    }
  }

  /** The renewal clock moves on each accepted write that names this process. */
  #mark(sent: number, record: LeaseRecord): void {
    if (record.holderIdentity !== this.identity) return;
    this.#renewed = Math.max(this.#renewed, sent);
  }

  #failed(what: string, error: unknown): void {
    // A request the stop ended is no failure.
    if (this.#stop.signal.aborted) return;
    const line = `${what}: ${describe(error)}`;
    // A waiting copy that is refused fails the same way every retry.
    if (line === this.#lastError) return;
    this.#lastError = line;
    this.#report(line);
  }

  #call(callback: () => void): void {
    try {
      callback();
    } catch (error) {
      this.#report(`a callback of ${this.#subject} threw: ${describe(error)}`);
    }
  }
}
