// Waiting out a 429: the request is sent again after the wait the server
// asks for, for at most MAX_THROTTLE_WAIT_SECONDS in all (client-go also
// honours Retry-After on a 429 before it retries).
import { ThrottledError } from "./errors.ts";
import {
  type Answer,
  type Bound,
  open,
  type SendOptions,
  type Shared,
} from "./_transport.ts";
import { sleep } from "../_internal/sleep.ts";
import { join } from "../_internal/signals.ts";
import { MAX_THROTTLE_WAIT_SECONDS } from "./_limits.ts";

/**
 * Sends until an answer that is not a 429 it can wait out. A wait lasts the
 * 429's `retryAfterSeconds`, at least 1 s, and ends early (answering the 429)
 * when the client's wait signal, else its signal, or the request's signal
 * aborts. A streamed body is spent, so its 429 is answered at once.
 */
export async function send(
  shared: Shared,
  bound: Bound,
  method: string,
  path: string,
  options: SendOptions,
  mode: "json" | "bytes",
  answer: Answer,
): Promise<unknown> {
  let waited = 0;
  for (;;) {
    try {
      return await open(shared, bound, method, path, options, mode, answer);
    } catch (error) {
      if (!(error instanceof ThrottledError)) throw error;
      // A streamed body is spent: it cannot be sent again.
      if (options.body instanceof ReadableStream) throw error;
      const wait = Math.max(error.retryAfterSeconds, 1);
      if (waited + wait > MAX_THROTTLE_WAIT_SECONDS) throw error;
      const waitSignal = bound.waitSignal ?? bound.signal;
      const full = await sleep(
        wait * 1000,
        options.signal === undefined
          ? waitSignal
          : join(waitSignal, options.signal),
      );
      if (!full) throw error;
      waited += wait;
    }
  }
}
