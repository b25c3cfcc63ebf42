/**
 * The two releases of a Lease: client-go's, when a lead ends, and this
 * library's second one after a stop, which clears the Lease when a late
 * renewal made the first conflict.
 *
 * @module
 */

import { microTime } from "../_internal/time.ts";
import { ConflictError, NotFoundError } from "../apiclient/mod.ts";
import { bounded } from "../_internal/signals.ts";
import { sleep } from "../_internal/sleep.ts";
import { type Lease, type LeaseRecord, parseMicroTime } from "./_lease.ts";
import type { ElectionState } from "./_state.ts";
import { LeaseRequestError } from "./errors.ts";
import { LEASE_DURATION, RENEW_DEADLINE, REQUEST_TIMEOUT } from "./timings.ts";

/**
 * client-go's release: reads the Lease and, when it still names this
 * process, clears that copy (a write conditional on its resourceVersion). A
 * Lease that cannot be read is left to expire, as client-go leaves it.
 *
 * After a stop at once: its caller's writes have returned. After a loss only
 * at T+25 s (T: the send time of the last accepted renewal), once every
 * write the guard allowed (until T+10 s) has ended at the client
 * (REQUEST_TIMEOUT later). client-go releases as soon as the renewal fails,
 * at T+15 s, and another copy can then act while such a write is still in
 * flight. The release on a loss ends by T+29 s, so the process exits before
 * another copy could take an unreleased Lease.
 *
 * @param state The election.
 * @param stop Aborts on the stop.
 */
export async function release(
  state: ElectionState,
  stop: AbortSignal,
): Promise<void> {
  if (!state.observed || !state.isLeader()) return;
  const requests = state.requests;
  let limit = RENEW_DEADLINE;
  if (!stop.aborted) {
    const writesEnded = requests.renewed + RENEW_DEADLINE + REQUEST_TIMEOUT;
    if (writesEnded > Date.now()) {
      await sleep(writesEnded - Date.now(), stop);
    }
    // A stop during the wait releases at once, with the full bound.
    if (!stop.aborted) {
      limit = requests.renewed + LEASE_DURATION - 1_000 - Date.now();
      if (limit <= 0) return;
    }
  }
  // Not ended by the stop (it releases after one), only by the stop's
  // own bound.
  const bound = bounded(limit, "The release", state.cut.signal);
  let record: LeaseRecord;
  try {
    // As client-go: read first, so the write names the Lease's newest
    // version (a renewal that landed late is no conflict), and a Lease that
    // cannot be read, or names someone else, is left alone to expire.
    const lease = await requests.get(bound.signal);
    const holder = lease.spec?.holderIdentity;
    if (holder !== state.identity) {
      state.logger.info("Not releasing the Lease", { holder: holder ?? "" });
      return;
    }
    const now = microTime(Date.now());
    record = {
      holderIdentity: "",
      leaseDurationSeconds: 1,
      acquireTime: now,
      renewTime: now,
      leaseTransitions: state.observed.leaseTransitions,
    };
    await requests.update(record, bound.signal);
  } catch (error) {
    state.logger.error(
      new LeaseRequestError(`releasing ${state.subject}`, error),
      "Releasing the Lease failed",
    );
    return;
  } finally {
    bound.clear();
  }
  state.setObserved(record);
  state.logger.info("Released the Lease");
}

/**
 * The second release: clears the Lease when it names this process or an
 * expired earlier process of this pod, reading again after a conflict, at
 * most 3 times. A Lease that names another process, or nobody, is left
 * alone.
 *
 * @param state The election.
 * @param signal Bounds the whole release.
 */
export async function clearIfHeld(
  state: ElectionState,
  signal: AbortSignal,
): Promise<void> {
  for (let attempt = 0; attempt < 3; attempt++) {
    let lease: Lease;
    try {
      lease = await state.requests.read(signal);
    } catch (error) {
      if (!(error instanceof NotFoundError)) {
        state.logger.error(
          new LeaseRequestError(
            `reading ${state.subject} to release it`,
            error,
          ),
          "Reading the Lease to release it failed",
        );
      }
      return;
    }
    if (!mayClear(state, lease)) return;
    const cleared: Lease = {
      ...lease,
      spec: {
        ...lease.spec,
        holderIdentity: "",
        leaseDurationSeconds: 1,
        renewTime: microTime(Date.now()),
      },
    };
    try {
      await state.requests.replace(cleared, signal);
      state.logger.info("Released the Lease");
      return;
    } catch (error) {
      if (!(error instanceof ConflictError)) {
        state.logger.error(
          new LeaseRequestError(`releasing ${state.subject}`, error),
          "Releasing the Lease failed",
        );
        return;
      }
    }
  }
}

function mayClear(state: ElectionState, lease: Lease): boolean {
  const spec = lease.spec;
  const holder = spec?.holderIdentity;
  if (!holder) return false;
  if (holder === state.identity) return true;
  if (
    typeof spec.renewTime !== "string" ||
    typeof spec.leaseDurationSeconds !== "number"
  ) {
    return false;
  }
  return state.abandonedByThisPod(
    holder,
    parseMicroTime(spec.renewTime),
    spec.leaseDurationSeconds,
    Date.now(),
  );
}
