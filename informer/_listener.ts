// One registration's queue on a shared collection: the collection hands
// each change to every queue without waiting, and each queue feeds its own
// handler in order, awaiting its promises, so a slow handler delays only
// its own registration (client-go's processorListener).
import type { KubeObject } from "../apiclient/types.ts";
import { DeletedFinalStateUnknown } from "./tombstone.ts";
import type { Handler } from "./types.ts";

/** One thing a registration is told, in order. */
export type Note<T extends KubeObject> =
  | { kind: "add"; object: T }
  | { kind: "update"; old: T; object: T }
  | { kind: "delete"; object: T | DeletedFinalStateUnknown<T> }
  | { kind: "synced" }
  | { kind: "relisted" };

/** What a listener calls for its notes. */
export interface ListenerCalls<T extends KubeObject> {
  handler?: Handler<T> | undefined;
  synced?: (() => void | Promise<void>) | undefined;
  relisted?: (() => void) | undefined;
  /** Hears a call that threw or rejected: the error, the call, the key. */
  failed(error: unknown, call: string, object?: KubeObject): void;
  /** Runs once the `synced` note was handled. */
  reached(): void;
}

function isPromise(value: unknown): value is Promise<unknown> {
  return typeof (value as Promise<unknown> | undefined)?.then === "function";
}

/** An unbounded queue of notes and the task that drains it. */
export class Listener<T extends KubeObject> {
  #calls: ListenerCalls<T>;
  #queue: (Note<T> | undefined)[] = [];
  #head = 0;
  #draining: Promise<void> | undefined;
  #stopped = false;

  constructor(calls: ListenerCalls<T>) {
    this.#calls = calls;
  }

  /** Notes waiting for their call (the call in progress not counted). */
  pending(): number {
    return this.#queue.length - this.#head;
  }

  /** Queues a note; never waits and never runs a call itself. */
  push(note: Note<T>): void {
    if (this.#stopped) return;
    this.#queue.push(note);
    if (this.#draining === undefined) {
      this.#draining = Promise.resolve().then(() => this.#drain());
    }
  }

  /** Drops the waiting notes and settles when the call in progress ends. */
  stop(): Promise<void> {
    this.#stopped = true;
    this.#queue = [];
    this.#head = 0;
    return this.#draining ?? Promise.resolve();
  }

  async #drain(): Promise<void> {
    try {
      while (!this.#stopped && this.#head < this.#queue.length) {
        const note = this.#queue[this.#head]!;
        this.#queue[this.#head++] = undefined;
        if (this.#head >= 1024 && this.#head * 2 >= this.#queue.length) {
          this.#queue = this.#queue.slice(this.#head);
          this.#head = 0;
        }
        const pending = this.#call(note);
        if (pending !== undefined) await pending;
      }
    } finally {
      this.#draining = undefined;
    }
  }

  #call(note: Note<T>): Promise<void> | undefined {
    const calls = this.#calls;
    const handler = calls.handler;
    let name: string;
    let object: KubeObject | undefined;
    let run: (() => void | Promise<void>) | undefined;
    switch (note.kind) {
      case "add": {
        name = "handler.add";
        object = note.object;
        const add = handler?.add;
        if (add !== undefined) run = () => add.call(handler, note.object);
        break;
      }
      case "update": {
        name = "handler.update";
        object = note.object;
        const update = handler?.update;
        if (update !== undefined) {
          run = () => update.call(handler, note.old, note.object);
        }
        break;
      }
      case "delete": {
        name = "handler.delete";
        const given = note.object;
        object = given instanceof DeletedFinalStateUnknown
          ? given.object
          : given;
        const remove = handler?.delete;
        if (remove !== undefined) run = () => remove.call(handler, given);
        break;
      }
      case "synced": {
        name = "synced";
        const synced = calls.synced;
        // The registration counts as synced before its callback runs, as a
        // Collection's `synced()` is true inside its `synced` callback.
        calls.reached();
        run = synced;
        break;
      }
      case "relisted":
        name = "relisted";
        run = calls.relisted;
        break;
    }
    if (run === undefined) return undefined;
    let result: unknown;
    try {
      result = run();
    } catch (error) {
      calls.failed(error, name, object);
      return undefined;
    }
    if (!isPromise(result)) return undefined;
    return result.then(() => {}, (error) => calls.failed(error, name, object));
  }
}
