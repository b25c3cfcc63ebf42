/**
 * The {@linkcode Lead}: this process's part in the election, the facade over
 * the elector loop, the releases and the write guard.
 *
 * @module
 */

import type { Client } from "../apiclient/mod.ts";
import { loggerOf } from "../_internal/log.ts";
import { bounded, stopOnAbort } from "../_internal/signals.ts";
import { MAX_TIMER, within } from "../_internal/sleep.ts";
import type { StopOptions } from "../_internal/stop_timeout.ts";
import { Elector } from "./_elector.ts";
import { leaseRef } from "./_lease.ts";
import { clearIfHeld } from "./_release.ts";
import { ElectionState } from "./_state.ts";
import { LeaseLostError, StoppedError } from "./errors.ts";
import { RENEW_DEADLINE } from "./timings.ts";
import type { LeadingOptions, LeadOptions } from "./types.ts";

/**
 * This process's part in the election of one acting copy, on a
 * `coordination.k8s.io/v1` Lease. `new Lead(client, options)` starts
 * campaigning; {@linkcode Lead.leading} waits until this process holds the
 * Lease; {@linkcode Lead.stop} (or `await using`, or aborting
 * {@linkcode LeadOptions.signal}) ends it and releases the Lease.
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
 * The timings are constants, not options, because the write guard's safety
 * rests on their ratios: for a leader that last renewed at T, the guard
 * refuses at T+10 s ({@linkcode RENEW_DEADLINE}), the elector gives up at
 * T+15 s, a write the guard allowed is given up by T+25 s (the client's
 * timeout, `REQUEST_TIMEOUT`), and another copy can take the Lease only
 * after T+30 s (`LEASE_DURATION`). Changing one could break that order.
 *
 * Give the elector a client without a write guard, and guard the operator's
 * own client with {@linkcode Lead.mayWrite}.
 *
 * The election is not fencing: a write sent before the guard refused can
 * still land later. See `REQUEST_TIMEOUT`.
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
 * const lead = new Lead(client, {
 *   lease: { namespace: "default", name: "demo-operator" },
 *   pod: "demo-operator-7d9f-x2x4b",
 * });
 * await lead.leading();
 * assert.ok(lead.leads());
 * lead.mayWrite(); // does not throw while this process leads
 * await lead.stop();
 * assert.throws(() => lead.mayWrite(), { name: "NotLeadingError" });
 * ```
 */
export class Lead implements AsyncDisposable {
  /** The identity this process holds the Lease under: `<pod>_<suffix>`. */
  readonly identity: string;
  /** The Lease this election runs on. */
  readonly lease: { readonly namespace: string; readonly name: string };

  #state: ElectionState;
  #elector: Elector;
  #ending: Promise<void> | undefined;
  #done: Promise<void>;
  #unlink: () => void = () => {};

  /**
   * Starts campaigning for the Lease in the background.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client } from "@liken/kubernetes/apiclient";
   * import { Lead } from "@liken/kubernetes/election";
   * import { type LogRecord, sinkLogger } from "@liken/kubernetes/log";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const client = new Client(server.url, { fetch: server.fetch });
   * const records: LogRecord[] = [];
   * await using lead = new Lead(client, {
   *   lease: { namespace: "default", name: "demo-operator" },
   *   pod: "demo-operator-7d9f-x2x4b",
   *   logger: sinkLogger((record) => records.push(record)),
   * });
   * await lead.leading();
   * assert.equal(records[0]!.msg, "Acquired the Lease");
   * assert.equal(records[0]!.fields.lease, "default/demo-operator");
   * assert.match(String(records[0]!.fields.identity), /^demo-operator-7d9f-x2x4b_/);
   * assert.ok(records.every((record) => record.v !== undefined)); // no errors
   * ```
   *
   * @param client Reaches the API server. It must not carry this lead's
   * write guard, or a lapsed guard would refuse the renewals that restore it.
   * @param options The Lease, the pod, the signal, the logger and the
   * hooks.
   * @throws {TypeError} When the Lease's name or namespace or the pod's name
   * is empty, or the pod's name holds `_`.
   */
  constructor(client: Client, options: LeadOptions) {
    const { lease, pod } = options;
    if (!lease?.name || !lease.namespace || !pod) {
      throw new TypeError(
        "The election needs the Lease's name and namespace and the pod's name",
      );
    }
    // The prefix rule needs the underscore to end the pod's name; a pod name
    // (a DNS subdomain) never holds one.
    if (pod.includes("_")) {
      throw new TypeError(`A pod name has no underscore: ${pod}`);
    }
    const { group, version, resource } = lease;
    if (
      (group !== undefined && group !== "coordination.k8s.io") ||
      (version !== undefined && version !== "v1") ||
      (resource !== undefined && resource !== "leases")
    ) {
      throw new TypeError(
        `The election runs on a coordination.k8s.io/v1 Lease, not on ${
          group ? `${group}/` : ""
        }${version ?? "v1"} ${resource ?? "leases"}`,
      );
    }
    const ref = leaseRef(lease);
    this.#state = new ElectionState(
      client,
      ref,
      pod,
      loggerOf(options.logger, {
        lease: `${lease.namespace}/${lease.name}`,
      }),
      options.labels,
    );
    this.identity = this.#state.identity;
    this.lease = Object.freeze({
      namespace: lease.namespace,
      name: lease.name,
    });
    const signal = options.signal;
    // Stopped before the elector starts: it sends nothing.
    if (signal?.aborted) this.#halt();
    this.#elector = new Elector(this.#state, {
      exit: options.exit ?? ((code) => Deno.exit(code)),
      onStartedLeading: options.onStartedLeading,
      onStoppedLeading: options.onStoppedLeading,
      onNewLeader: options.onNewLeader,
    });
    // After a stop, done waits for the stop's second release too.
    this.#done = this.#elector.done.then(async () => {
      await this.#ending;
    });
    if (signal?.aborted) void this.#end();
    else if (signal !== undefined) {
      const onAbort = (): void => void this.#end();
      signal.addEventListener("abort", onAbort, { once: true });
      this.#unlink = () => signal.removeEventListener("abort", onAbort);
    }
  }

  /**
   * A promise that resolves when the election has ended: after the lead's
   * release and the exit call on a loss, or after a stop (by
   * {@linkcode Lead.stop}, `await using` or the signal) and its releases.
   * It never rejects.
   *
   * @example
   * ```ts
   * import { Client } from "@liken/kubernetes/apiclient";
   * import { Lead } from "@liken/kubernetes/election";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const client = new Client(server.url, { fetch: server.fetch });
   * const lead = new Lead(client, { lease: { namespace: "default", name: "op" }, pod: "op-a" });
   * const stopping = lead.stop();
   * await lead.done;
   * await stopping;
   * ```
   */
  get done(): Promise<void> {
    return this.#done;
  }

  /**
   * Waits until this process leads.
   *
   * Failed Lease requests (403 Forbidden too) do not end the wait; the copy
   * retries on its schedule and logs the failure as an error.
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
   * const lease = { namespace: "default", name: "op" };
   * await using first = new Lead(client, { lease, pod: "op-a" });
   * await first.leading();
   * // A second copy waits; its signal ends the wait and the election.
   * const second = new Lead(client, { lease, pod: "op-b" });
   * await assert.rejects(
   *   second.leading({ signal: AbortSignal.abort() }),
   *   StoppedError,
   * );
   * ```
   *
   * @param options The signal that stops the election when it aborts first.
   * @returns A promise that resolves once this process leads.
   * @throws {StoppedError} When a stop came first: this signal, the
   * election's signal, or {@linkcode Lead.stop}.
   * @throws {LeaseLostError} When this process led and lost the Lease (the
   * election ended without a stop).
   * @throws {ElectionError} When the elector failed.
   *
   * In each case the election has then ended (with the release) and this
   * process holds nothing.
   */
  async leading(options: LeadingOptions = {}): Promise<void> {
    const signal = options.signal;
    if (!signal?.aborted) {
      let onAbort = (): void => {};
      await Promise.race([
        this.#elector.started,
        this.#elector.done,
        new Promise<void>((resolve) => {
          onAbort = resolve;
          signal?.addEventListener("abort", onAbort, { once: true });
        }),
      ]);
      signal?.removeEventListener("abort", onAbort);
    }
    const state = this.#state;
    if (signal?.aborted || state.phase !== "leading") {
      // Whether a stop came first, before this one ends the election.
      const stopped = signal?.aborted || state.stopping;
      await this.#end();
      throw this.#elector.failure ??
        (stopped ? new StoppedError() : new LeaseLostError(state.subject));
    }
  }

  /**
   * Whether this process leads now: its lead started, has not ended, and it
   * is not stopping. A write also needs a fresh renewal: use
   * {@linkcode Lead.mayWrite} to guard writes.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client } from "@liken/kubernetes/apiclient";
   * import { Lead } from "@liken/kubernetes/election";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const client = new Client(server.url, { fetch: server.fetch });
   * await using lead = new Lead(client, { lease: { namespace: "default", name: "op" }, pod: "op-a" });
   * assert.equal(lead.leads(), false);
   * await lead.leading();
   * assert.equal(lead.leads(), true);
   * ```
   *
   * @returns Whether this process leads.
   */
  leads(): boolean {
    return this.#state.phase === "leading" && !this.#state.stopping;
  }

  /**
   * When the last take or renewal of the Lease that the API server accepted
   * was sent, in milliseconds since the epoch (`Date.now()`), or `undefined`
   * before the first. The write guard refuses once it is
   * {@linkcode RENEW_DEADLINE} old; a metric of its age shows how close a
   * leader runs to that.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client } from "@liken/kubernetes/apiclient";
   * import { Lead } from "@liken/kubernetes/election";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const client = new Client(server.url, { fetch: server.fetch });
   * await using lead = new Lead(client, { lease: { namespace: "default", name: "op" }, pod: "op-a" });
   * assert.equal(lead.renewedAt, undefined);
   * await lead.leading();
   * assert.ok(Date.now() - lead.renewedAt! < 1_000);
   * ```
   */
  get renewedAt(): number | undefined {
    const sent = this.#state.requests.renewed;
    return Number.isFinite(sent) ? sent : undefined;
  }

  /**
   * The Lease's `leaseTransitions` as this process last read or wrote it:
   * how many times the Lease changed hands (client-go adds one on every take
   * by another holder). 0 before the Lease was seen.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client } from "@liken/kubernetes/apiclient";
   * import { Lead } from "@liken/kubernetes/election";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const client = new Client(server.url, { fetch: server.fetch });
   * await using lead = new Lead(client, { lease: { namespace: "default", name: "op" }, pod: "op-a" });
   * await lead.leading();
   * assert.equal(lead.transitions, 0); // created the Lease: no change of hands
   * ```
   */
  get transitions(): number {
    return this.#state.observed?.leaseTransitions ?? 0;
  }

  /**
   * The write guard: returns while this process leads, is not stopping, and
   * its last accepted renewal was sent less than {@linkcode RENEW_DEADLINE}
   * ago; else throws a `NotLeadingError` that says why. It is bound, so pass
   * it as is: `client.withWriteGuard(lead.mayWrite)`.
   *
   * The renewal is timed when it was sent, never later than when another
   * copy first reads it, so the guard refuses at least 20 s before another
   * copy can take the Lease. The elector itself gives up only later, after a
   * whole renew deadline with no success.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client, WriteRefusedError } from "@liken/kubernetes/apiclient";
   * import { Lead } from "@liken/kubernetes/election";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const client = new Client(server.url, { fetch: server.fetch });
   * const lead = new Lead(client, { lease: { namespace: "default", name: "op" }, pod: "op-a" });
   * const writer = client.withWriteGuard(lead.mayWrite);
   * await lead.leading();
   * await writer.create("/api/v1/namespaces/default/configmaps", { metadata: { name: "a" } });
   * await lead.stop();
   * await assert.rejects(
   *   writer.create("/api/v1/namespaces/default/configmaps", { metadata: { name: "b" } }),
   *   WriteRefusedError,
   * );
   * ```
   *
   * @throws {NotLeadingError} When a write must not be sent.
   */
  readonly mayWrite = (): void => this.#state.mayWrite();

  /**
   * Waits until {@linkcode Lead.mayWrite} accepts, then answers a signal
   * that aborts at the first moment it refuses again (its reason is the
   * guard's `NotLeadingError`): the lifetime of work whose side effects the
   * guard cannot see, such as a call to a cloud API. A window closes at
   * the renew deadline, on a stop, on a loss, or when the Lease names
   * another holder; a renewal that lands after it closed (a slow answer)
   * opens the next one.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client } from "@liken/kubernetes/apiclient";
   * import { Lead } from "@liken/kubernetes/election";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const client = new Client(server.url, { fetch: server.fetch });
   * const lead = new Lead(client, { lease: { namespace: "default", name: "op" }, pod: "op-a" });
   * const window = await lead.writeWindow();
   * assert.equal(window?.aborted, false);
   * await lead.stop();
   * assert.equal(window?.aborted, true);
   * assert.equal(await lead.writeWindow(), undefined);
   * ```
   *
   * @param options A signal that ends the wait.
   * @returns The window's signal; `undefined` once the election has ended
   * or is stopping, or when the signal aborted first.
   */
  async writeWindow(
    options: LeadingOptions = {},
  ): Promise<AbortSignal | undefined> {
    const state = this.#state;
    const signal = options.signal;
    for (;;) {
      const window = state.writeWindow();
      if (window !== undefined) return window;
      if (state.phase === "ended" || state.stopping || signal?.aborted) {
        return undefined;
      }
      let onAbort = (): void => {};
      await Promise.race([
        state.changed(),
        new Promise<void>((resolve) => {
          onAbort = resolve;
          signal?.addEventListener("abort", onAbort, { once: true });
        }),
      ]);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  /**
   * Ends this process's part on a shutdown and releases the Lease, so a
   * waiting copy takes it on its next read. Only call it once every write
   * of the operator has returned; with a write possibly still running, exit
   * without it, and the Lease runs out only after that write is over. Safe to
   * call more than once.
   *
   * After the elector's own release, it reads the Lease again and clears it
   * if it still names this process (or an expired earlier process of this
   * pod): a renewal sent before the stop can land late, after the copy the
   * first release writes on, so that release conflicts. A conflict (that late
   * renewal again) reads again, at most 3 times within half a renew
   * deadline.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Client } from "@liken/kubernetes/apiclient";
   * import { Lead } from "@liken/kubernetes/election";
   * import { FakeApiServer } from "@liken/kubernetes/testing";
   *
   * await using server = new FakeApiServer();
   * const client = new Client(server.url, { fetch: server.fetch });
   * const lead = new Lead(client, { lease: { namespace: "default", name: "op" }, pod: "op-a" });
   * await lead.leading();
   * await lead.stop();
   * assert.equal(server.leaseHolder("default", "op"), undefined);
   * ```
   *
   * @param options A signal, and a timeout, that end the releases at once
   *   (their requests are aborted; the Lease then runs out by its duration
   *   instead): what a `Manager` whose own bound passed gives.
   * @returns A promise that resolves when the release is done, at most about
   * 16 s later (or when the signal or the timeout ends it).
   */
  stop(options: StopOptions = {}): Promise<void> {
    const cut = (reason: unknown): void => this.#state.cut.abort(reason);
    const { signal, timeout } = options;
    const unlink = stopOnAbort(signal, () => cut(signal?.reason));
    void this.#end().then(unlink);
    if (typeof timeout === "number" && timeout < MAX_TIMER) {
      const timer = setTimeout(
        () =>
          cut(
            new DOMException(
              `The stop took longer than ${timeout} ms`,
              "TimeoutError",
            ),
          ),
        Math.max(0, timeout),
      );
      void this.#end().finally(() => clearTimeout(timer));
    }
    return this.#end();
  }

  /**
   * Stops: `await using lead = new Lead(...)`.
   *
   * @returns A promise that resolves after {@linkcode Lead.stop}.
   */
  [Symbol.asyncDispose](): Promise<void> {
    return this.#end();
  }

  #end(): Promise<void> {
    this.#ending ??= this.#endOnce();
    return this.#ending;
  }

  /** Marks the stop and aborts the elector's requests and waits. */
  #halt(): void {
    const state = this.#state;
    if (state.stopping) return;
    state.stopping = true;
    state.stop.abort(
      new DOMException(
        `The election of ${state.subject} stopped`,
        "AbortError",
      ),
    );
  }

  async #endOnce(): Promise<void> {
    const state = this.#state;
    this.#unlink();
    this.#halt();
    // The elector's release is bounded by one renew deadline; should it
    // still run at this bound, it ends here: no request outlives the stop.
    if (!(await within(this.#elector.done, RENEW_DEADLINE + 1_000))) {
      state.cut.abort(
        new DOMException(
          `The stop of the election of ${state.subject} gave up waiting`,
          "TimeoutError",
        ),
      );
      return;
    }
    // A stop whose signal or timeout ended the first release ends here.
    if (state.cut.signal.aborted) return;
    const bound = bounded(
      RENEW_DEADLINE / 2,
      "The second release",
      state.cut.signal,
    );
    try {
      await clearIfHeld(state, bound.signal);
    } finally {
      bound.clear();
    }
  }
}
