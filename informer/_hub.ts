// The reflectors behind one collection: one for a namespace, for every
// namespace or a cluster-scoped kind, or one per namespace of a set, all
// writing one store. Across a set, handler calls take turns, so the
// handler still sees one call at a time.
import { Decoder, storesText } from "./_bytes.ts";
import type { Client } from "../apiclient/client.ts";
import type { KubeObject } from "../apiclient/types.ts";
import { objectRef } from "../apiclient/resource.ts";
import { CollectionError, EventHandlerError } from "./errors.ts";
import { members } from "./_namespaces.ts";
import { Reflector } from "./_reflector.ts";
import { MemoryStore } from "./_store.ts";
import type { CollectionOptions, Handler, Source } from "./types.ts";

/** What a {@linkcode Hub} needs beyond a collection's options. */
export type HubOptions<T extends KubeObject> = CollectionOptions<T> & {
  signal: AbortSignal;
  onError: (error: unknown) => void;
  /** Deep-freeze each copy before the store holds it. */
  freeze?: boolean | undefined;
};

function isPromise(value: unknown): value is Promise<unknown> {
  return typeof (value as Promise<unknown> | undefined)?.then === "function";
}

/**
 * Runs calls one at a time: a call made while another's promise is pending
 * waits for it. Answers a promise only when the call made one or waited.
 */
export class Turns {
  #tail: Promise<void> | undefined;

  run(fn: () => void | Promise<void>): void | Promise<void> {
    if (this.#tail === undefined) {
      const result = fn();
      if (!isPromise(result)) return undefined;
      return this.#track(result as Promise<void>);
    }
    return this.#track(this.#tail.then(fn));
  }

  #track(promise: Promise<void>): Promise<void> {
    const tail: Promise<void> = promise.then(() => {}, () => {}).then(() => {
      if (this.#tail === tail) this.#tail = undefined;
    });
    this.#tail = tail;
    return promise;
  }
}

function takingTurns<T extends KubeObject>(
  handler: Handler<T> | undefined,
  turns: Turns,
): Handler<T> | undefined {
  if (handler === undefined) return undefined;
  const { add, update, delete: remove } = handler;
  return {
    ...(add === undefined
      ? {}
      : { add: (object) => turns.run(() => add.call(handler, object)) }),
    ...(update === undefined ? {} : {
      update: (old, object) =>
        turns.run(() => update.call(handler, old, object)),
    }),
    ...(remove === undefined
      ? {}
      : { delete: (object) => turns.run(() => remove.call(handler, object)) }),
  };
}

/** One collection's reflectors and their store. */
export class Hub<T extends KubeObject> {
  readonly source: Source;
  readonly store: MemoryStore<T>;
  /** Settles when every reflector ended and no call is running. */
  readonly done: Promise<void>;
  #reflectors: Reflector<T>[];

  /** `source` must be normalized (see `_namespaces.ts`). */
  constructor(client: Client, source: Source, options: HubOptions<T>) {
    this.source = source;
    const parts = members(source);
    const { onError } = options;
    if (source.namespaces === undefined) {
      const reflector = new Reflector<T>(client, parts[0]!, options);
      this.#reflectors = [reflector];
      this.store = reflector.store;
    } else {
      const { namespaces: _, ...bare } = source;
      const store = this.store = new MemoryStore<T>(
        options.indexers,
        (error, name, key) =>
          onError(
            new EventHandlerError(bare, {
              call: `indexers.${name}`,
              ref: objectRef(bare, key),
              cause: error,
            }),
          ),
        storesText(options)
          ? new Decoder<T>({ metadataOnly: options.metadataOnly === true }).open
          : undefined,
      );
      const turns = new Turns();
      const handler = takingTurns(options.handler, turns);
      let waiting = parts.length;
      const synced = options.synced;
      // Each namespace's first read is in and handled; the last one calls
      // `synced`, in turn after every call before it.
      const memberSynced = (): void | Promise<void> => {
        waiting--;
        if (waiting > 0 || synced === undefined) return undefined;
        return turns.run(synced);
      };
      this.#reflectors = parts.map((part) =>
        new Reflector<T>(client, part, {
          ...options,
          handler,
          synced: memberSynced,
          store,
          scope: part.namespace,
        })
      );
    }
    this.done = Promise.all(
      this.#reflectors.map((reflector, at) =>
        reflector.run().catch((error) =>
          onError(new CollectionError(parts[at]!, { cause: error }))
        )
      ),
    ).then(() => {});
  }

  /** Every reflector's first read is in, and none is unready. */
  synced(): boolean {
    return this.#reflectors.every((reflector) => reflector.synced());
  }

  /** Every reflector keeps its part current. */
  current(): boolean {
    return this.#reflectors.every((reflector) => reflector.current());
  }

  /** Every reflector's first read is in the store and handled. */
  get firstRead(): boolean {
    return this.#reflectors.every((reflector) => reflector.firstRead);
  }
}
