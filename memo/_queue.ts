// One request at a time per object: the memo's lines of sends.
import type { ObjectRef } from "../apiclient/resource.ts";
import { ByObject } from "./_records.ts";

/** The queue of one object's tasks: one runs, the rest wait here in order. */
interface Chain {
  /** Wakes each waiting task, first come first served; made on first use. */
  waiters: (() => void)[] | undefined;
}

/**
 * Runs tasks one at a time per object, in the order they were queued; tasks
 * of other objects never wait. This stands in for a mutex per object. An
 * object is held only while a task of it is queued or running, so memory
 * does not grow with every object that was ever used, and a task with nobody
 * ahead of it starts at once, without a promise turn. Objects are told apart
 * by group, resource, namespace and name (not API version).
 */
export class KeyedQueue {
  #chains = new ByObject<Chain>();
  #size = 0;

  /** Objects with a task queued or running. */
  get size(): number {
    return this.#size;
  }

  /**
   * Runs `task` once every earlier task of `ref` has ended. A signal that
   * aborts during that wait rejects with its reason, and `task` never runs.
   */
  async run<T>(
    ref: ObjectRef,
    task: () => Promise<T>,
    options: { signal?: AbortSignal | undefined } = {},
  ): Promise<T> {
    const { signal } = options;
    signal?.throwIfAborted();
    const { name } = ref;
    const names = this.#chains.names(ref, ref.namespace ?? "");
    let chain = names.get(name);
    if (chain === undefined) {
      chain = { waiters: undefined };
      names.set(name, chain);
      this.#size++;
    } else {
      await wait(chain, signal);
    }
    try {
      return await task();
    } finally {
      const next = chain.waiters?.shift();
      if (next !== undefined) next();
      // `names` is the live map while it holds this chain: a drop takes the
      // chain out of it before a new line may begin elsewhere.
      else if (names.get(name) === chain) this.drop(ref);
    }
  }

  /**
   * Forgets the object's queue: tasks already queued still run in order,
   * but a task queued after this does not wait for them.
   */
  drop(ref: ObjectRef): void {
    if (this.#chains.delete(ref)) this.#size--;
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
