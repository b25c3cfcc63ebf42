/**
 * The errors of the election: those a caller's code meets
 * ({@linkcode NotLeadingError} from the write guard; from `Lead.leading`,
 * {@linkcode StoppedError} for a stop, {@linkcode LeaseLostError} for a
 * loss and {@linkcode ElectionError} for a failure), and the three the
 * election logs as errors.
 *
 * @module
 */

import { describe } from "../_internal/errors.ts";

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
 * `Lead.leading` was answered by a stop (`Lead.stop`, the election's
 * signal, or the signal given to `leading`) that came before this process
 * led: it holds nothing, and the operator can end with success. An
 * election that ended without a stop rejects with
 * {@linkcode LeaseLostError} (lost) or {@linkcode ElectionError} (failed)
 * instead.
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

/**
 * `Lead.leading` was answered by a loss: this process led, then no renewal
 * of the Lease succeeded within the renew deadline (the API server was out
 * of reach, or another holder took it), and the election ended without a
 * stop. Unlike a {@linkcode StoppedError}, it is a reason to exit with
 * failure (the default `exit` already does on a loss).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LeaseLostError } from "@liken/kubernetes/election";
 *
 * const error = new LeaseLostError("Lease default/op");
 * assert.equal(error.name, "LeaseLostError");
 * assert.equal(error.lease, "Lease default/op");
 * assert.equal(
 *   error.message,
 *   "This process lost Lease default/op: no renewal succeeded within the renew deadline",
 * );
 * ```
 */
export class LeaseLostError extends Error {
  /** Names the Lease, such as `Lease default/op`. */
  readonly lease: string;

  /**
   * Makes the error.
   *
   * @param lease Names the Lease, such as `Lease default/op`.
   */
  constructor(lease: string) {
    super(
      `This process lost ${lease}: no renewal succeeded within the renew deadline`,
    );
    this.name = "LeaseLostError";
    this.lease = lease;
  }
}

/**
 * A request of the election on its Lease failed, logged as an error. The
 * message says what the election was doing, such as `Renewing Lease
 * default/op: …`; `cause` is the client's error (such as its
 * `ForbiddenError` when the pod's account may not write Leases). A waiting
 * copy that fails the same way on every retry hands it over once.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LeaseRequestError } from "@liken/kubernetes/election";
 *
 * const error = new LeaseRequestError("reading Lease default/op", new Error("403 Forbidden"));
 * assert.equal(error.name, "LeaseRequestError");
 * assert.equal(error.message, "Reading Lease default/op: 403 Forbidden");
 * ```
 */
export class LeaseRequestError extends Error {
  /**
   * Makes the error.
   *
   * @param doing What the election was doing, in lower case, such as
   * `renewing Lease default/op`.
   * @param cause The request's error.
   */
  constructor(doing: string, cause: unknown) {
    super(`${sentence(doing)}: ${describe(cause)}`, { cause });
    this.name = "LeaseRequestError";
  }
}

/**
 * The callbacks a {@linkcode CallbackError} names.
 *
 * @example
 * ```ts
 * import type { CallbackName } from "@liken/kubernetes/election";
 *
 * const name: CallbackName = "onNewLeader";
 * void name;
 * ```
 */
export type CallbackName =
  | "onStartedLeading"
  | "onStoppedLeading"
  | "onNewLeader";

/**
 * A callback of the election threw, logged as an error; the election went
 * on as if it had returned.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CallbackError } from "@liken/kubernetes/election";
 *
 * const error = new CallbackError("onNewLeader", "Lease default/op", new Error("oops"));
 * assert.equal(error.callback, "onNewLeader");
 * assert.equal(error.message, "A callback of Lease default/op threw: oops");
 * ```
 */
export class CallbackError extends Error {
  /** The callback that threw. */
  readonly callback: CallbackName;

  /**
   * Makes the error.
   *
   * @param callback The callback that threw.
   * @param lease Names the Lease, such as `Lease default/op`.
   * @param cause What it threw.
   */
  constructor(callback: CallbackName, lease: string, cause: unknown) {
    super(`A callback of ${lease} threw: ${describe(cause)}`, { cause });
    this.name = "CallbackError";
    this.callback = callback;
  }
}

/**
 * The elector itself failed (such as an `exit` callback that threw), given
 * logged as an error: the election has ended. `Lead.leading` rejects with it too
 * when the failure, not a stop, ended the election.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ElectionError } from "@liken/kubernetes/election";
 *
 * const error = new ElectionError("Lease default/op", new Error("exit failed"));
 * assert.equal(error.message, "The election of Lease default/op failed: exit failed");
 * ```
 */
export class ElectionError extends Error {
  /**
   * Makes the error.
   *
   * @param lease Names the Lease, such as `Lease default/op`.
   * @param cause What ended the elector.
   */
  constructor(lease: string, cause: unknown) {
    super(`The election of ${lease} failed: ${describe(cause)}`, { cause });
    this.name = "ElectionError";
  }
}

function sentence(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
