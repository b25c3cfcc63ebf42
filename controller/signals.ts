// Process signals to a graceful stop: the one place an operator wires
// SIGTERM (the kubelet's stop) and SIGINT (Ctrl-C).

/** What {@linkcode stopOnSignals} stops. */
export interface Stoppable {
  /** Stops gracefully. */
  stop(): Promise<void>;
}

/** Where signal listeners are added; `Deno` by default. */
export interface SignalListeners {
  /** Adds a listener, as `Deno.addSignalListener`. */
  addSignalListener(signal: Deno.Signal, handler: () => void): void;
  /** Removes it, as `Deno.removeSignalListener`. */
  removeSignalListener(signal: Deno.Signal, handler: () => void): void;
}

/** Options of {@linkcode stopOnSignals}. */
export interface StopOnSignalsOptions {
  /** The signals that stop. Default `SIGTERM` and `SIGINT`. */
  signals?: readonly Deno.Signal[] | undefined;
  /** Where the listeners go. Default `Deno` (for tests: a fake). */
  listeners?: SignalListeners | undefined;
  /**
   * Called with the stop's promise when a signal arrives, for example to
   * exit the process once it settles. Default: none.
   */
  stopping?: ((stopped: Promise<void>) => void) | undefined;
}

/**
 * Stops `target` gracefully on the first SIGTERM or SIGINT. The kubelet
 * sends SIGTERM and waits `terminationGracePeriodSeconds` (30 s by default)
 * before SIGKILL, so the stop (watches, reconciles, queued Events, then the
 * Lease) must fit in that window. A second signal does not start a second
 * stop. Dispose the answer to remove the listeners.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { stopOnSignals } from "@liken/kubernetes/controller";
 *
 * let stops = 0;
 * using _ = stopOnSignals({ stop: async () => void stops++ });
 * assert.equal(stops, 0);
 * ```
 *
 * @param target What to stop, such as a `Controller`.
 * @param options The signals, and where the listeners go.
 * @returns A disposable that removes the listeners.
 */
export function stopOnSignals(
  target: Stoppable,
  options: StopOnSignalsOptions = {},
): Disposable {
  const listeners = options.listeners ?? Deno;
  const signals = options.signals ?? ["SIGTERM", "SIGINT"];
  let stopped: Promise<void> | undefined;
  const onSignal = (): void => {
    if (stopped !== undefined) return;
    stopped = target.stop();
    options.stopping?.(stopped);
  };
  for (const signal of signals) listeners.addSignalListener(signal, onSignal);
  return {
    [Symbol.dispose](): void {
      for (const signal of signals) {
        listeners.removeSignalListener(signal, onSignal);
      }
    },
  };
}
