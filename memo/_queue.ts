/** The queue of one key's tasks. */
interface Chain {
  /** Settles when every task queued so far has ended. */
  tail: Promise<void>;
  /** Tasks queued or running; the chain is dropped at zero. */
  pending: number;
}

/**
 * Runs tasks one at a time per key, in the order they were queued; tasks of
 * other keys never wait. This stands in for a mutex per key, and holds a key
 * only while a task of it is queued or running, so memory does not grow
 * with every key that was ever used.
 */
export class KeyedQueue {
  #chains = new Map<string, Chain>();

  /** Keys with a task queued or running. */
  get size(): number {
    return this.#chains.size;
  }

  /**
   * Runs `task` once every earlier task of `key` has ended. A signal that
   * aborts during that wait rejects with its reason, and `task` never runs.
   */
  async run<T>(
    key: string,
    task: () => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    signal?.throwIfAborted();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => release = resolve);
    let chain = this.#chains.get(key);
    let previous: Promise<void> | undefined;
    if (chain === undefined) {
      chain = { tail: mine, pending: 1 };
      this.#chains.set(key, chain);
    } else {
      previous = chain.tail;
      // The next task waits for the previous one as well as for this one,
      // so a task that gives up waiting lets nobody jump the queue.
      chain.tail = previous.then(() => mine);
      chain.pending++;
    }
    try {
      if (previous !== undefined) await waitFor(previous, signal);
      return await task();
    } finally {
      release();
      chain.pending--;
      // A drop may already have replaced this chain with a newer one.
      if (chain.pending === 0 && this.#chains.get(key) === chain) {
        this.#chains.delete(key);
      }
    }
  }

  /**
   * Forgets the key's queue: tasks already queued still run in order, but a
   * task queued after this does not wait for them.
   */
  drop(key: string): void {
    this.#chains.delete(key);
  }
}

/** Waits for a promise that never rejects, or until the signal aborts. */
function waitFor(
  promise: Promise<void>,
  signal: AbortSignal | undefined,
): Promise<void> {
  if (signal === undefined) return promise;
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    });
  });
}
