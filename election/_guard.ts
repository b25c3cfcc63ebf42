/**
 * The write guard: whether this process can show that it holds a current
 * Lease.
 *
 * @module
 */

import type { ElectionState } from "./_state.ts";
import { NotLeadingError } from "./errors.ts";
import { RENEW_DEADLINE } from "./timings.ts";

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
