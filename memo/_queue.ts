/** The queue of one key's tasks: one runs, the rest wait here in order. */
interface Chain {
  /** Wakes each waiting task, first come first served; made on first use. */
  waiters: (() => void)[] | undefined;
}

/**
 * Runs tasks one at a time per key, in the order they were queued; tasks of
 * other keys never wait. This stands in for a mutex per key. A key is held
 * only while a task of it is queued or running, so memory does not grow
 * with every key that was ever used, and a task with nobody ahead of it
 * starts at once, without a promise turn.
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
    options: { signal?: AbortSignal | undefined } = {},
  ): Promise<T> {
    const { signal } = options;
    signal?.throwIfAborted();
    let chain = this.#chains.get(key);
    if (chain === undefined) {
      chain = { waiters: undefined };
      this.#chains.set(key, chain);
    } else {
      await wait(chain, signal);
    }
    try {
      return await task();
    } finally {
      const next = chain.waiters?.shift();
      if (next !== undefined) next();
      else if (this.#chains.get(key) === chain) this.#chains.delete(key);
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

/** Waits for this task's turn in the chain, or until the signal aborts. */
function wait(chain: Chain, signal: AbortSignal | undefined): Promise<void> {
  const waiters = chain.waiters ??= [];
  if (signal === undefined) {
    return new Promise<void>((resolve) => waiters.push(resolve));
  }
  return new Promise<void>((resolve, reject) => {
    const wake = (): void => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    };
    // Leaving the line hands no turn on: the task ahead still holds it.
    const onAbort = (): void => {
      const at = waiters.indexOf(wake);
      if (at !== -1) waiters.splice(at, 1);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    waiters.push(wake);
  });
}
