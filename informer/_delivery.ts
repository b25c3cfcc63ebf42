// Delivery of a collection's changes: each object is trimmed, transformed
// and decoded, written to the store, and only then handed to the handler, so
// the store always holds at least what a handler was told.
import type { KubeObject } from "../apiclient/types.ts";
import { objectKey as keyOf, objectRef } from "../apiclient/resource.ts";
import {
  DecodeError,
  EventHandlerError,
  ObjectRefusedError,
} from "./errors.ts";
import type { Source } from "./source.ts";
import { compareKeys, MemoryStore } from "./_store.ts";
import { DeletedFinalStateUnknown } from "./tombstone.ts";
import { deepFreeze } from "./_freeze.ts";
import { Decoder, Encoded, storesText } from "./_bytes.ts";
import type { CollectionOptions, Handler } from "./types.ts";

export function versionOf(object: KubeObject): string {
  const version = (object as KubeObject | null)?.metadata?.resourceVersion;
  return typeof version === "string" ? version : "";
}

/**
 * Why an object cannot be held in a store, or `undefined` when it can: it
 * must be an object with `metadata`, a non-empty string `metadata.name`, and
 * a string `metadata.namespace` if any. Anything else would be held under a
 * key such as `""` or `"5"` that stands for no object.
 */
export function malformed(raw: unknown): string | undefined {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return "it is not an object";
  }
  const meta = (raw as { metadata?: unknown }).metadata;
  if (typeof meta !== "object" || meta === null || Array.isArray(meta)) {
    return "it has no metadata";
  }
  const { name, namespace } = meta as { name?: unknown; namespace?: unknown };
  if (typeof name !== "string" || name === "") {
    return `its metadata.name is ${shown(name)}, not a non-empty string`;
  }
  if (namespace !== undefined && typeof namespace !== "string") {
    return `its metadata.namespace is ${shown(namespace)}, not a string`;
  }
  return undefined;
}

function shown(value: unknown): string {
  if (value === undefined) return "missing";
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

function isPromise(value: unknown): value is Promise<unknown> {
  return typeof (value as Promise<unknown> | undefined)?.then === "function";
}

/** A whole read of the collection, decoded as it arrives. */
export interface Read<T extends KubeObject> {
  items: Map<string, T>;
  /** Keys whose copy did not decode, with its version. */
  undecodable: Map<string, string>;
  add(raw: KubeObject): void;
  remove(key: string): void;
}

/** What a {@linkcode Delivery} needs: the store's shape and the handler. */
export type DeliveryOptions<T extends KubeObject> =
  & Pick<
    CollectionOptions<T>,
    | "handler"
    | "transform"
    | "decode"
    | "indexers"
    | "metadataOnly"
    | "storage"
  >
  & {
    /** The collection, which every report names. */
    source: Source;
    /** Ends a relist's calls part-way. */
    signal: AbortSignal;
    /** Receives decode failures and handler errors. */
    onError: (error: unknown) => void;
    /** A store shared with other deliveries (one per namespace of a set). */
    store?: MemoryStore<T> | undefined;
    /**
     * The namespace whose objects this delivery's reads replace, when the
     * store is shared; absent: the whole store.
     */
    scope?: string | undefined;
    /** Deep-freeze each copy before the store holds it. */
    freeze?: boolean | undefined;
  };

/** Which call of the caller's a {@linkcode Delivery.deliver} runs. */
type Call = "handler.add" | "handler.update" | "handler.delete" | "synced";

/** One collection's store and the handler calls that follow its changes. */
export class Delivery<T extends KubeObject> {
  readonly store: MemoryStore<T>;
  #source: Source;
  #handler: Handler<T>;
  #shape: Pick<CollectionOptions<T>, "transform" | "decode">;
  #metadataOnly: boolean;
  #signal: AbortSignal;
  #onError: (error: unknown) => void;
  #scope: string | undefined;
  #freeze: boolean;
  /** The object a held item stands for (see `MemoryStore.open`). */
  #open: (item: T) => T;

  constructor(options: DeliveryOptions<T>) {
    const source = this.#source = options.source;
    this.#scope = options.scope;
    const text = storesText(options);
    // Held text is parsed into frozen copies; a copy parsed at once (an
    // odd object the scan hands over parsed) is frozen too, so no reader
    // can tell which it got.
    this.#freeze = options.freeze === true || text;
    this.store = options.store ?? new MemoryStore<T>(
      options.indexers,
      (error, name, key) =>
        options.onError(
          new EventHandlerError(source, {
            call: `indexers.${name}`,
            ref: objectRef(source, key),
            cause: error,
          }),
        ),
      text
        ? new Decoder<T>({ metadataOnly: options.metadataOnly === true }).open
        : undefined,
    );
    this.#open = this.store.open;
    this.#handler = options.handler ?? {};
    this.#shape = { transform: options.transform, decode: options.decode };
    this.#metadataOnly = options.metadataOnly ?? false;
    this.#signal = options.signal;
    this.#onError = options.onError;
  }

  /** A new, empty whole read whose objects are decoded as they arrive. */
  newRead(): Read<T> {
    const items = new Map<string, T>();
    const undecodable = new Map<string, string>();
    return {
      items,
      undecodable,
      add: (raw) => {
        const key = this.keyOf(raw);
        if (key === undefined) return;
        const item = this.#ingest(raw, key);
        if (item === undefined) {
          items.delete(key);
          undecodable.set(key, versionOf(raw));
        } else {
          if (undecodable.size > 0) undecodable.delete(key);
          items.set(key, item);
        }
      },
      remove: (key) => {
        items.delete(key);
        undecodable.delete(key);
      },
    };
  }

  /**
   * The store key of an object, or `undefined` (and a report that says why)
   * when the object cannot be held (see {@linkcode malformed}).
   */
  keyOf(raw: KubeObject): string | undefined {
    const why = malformed(raw);
    if (why === undefined) return keyOf(raw);
    const kind = (raw as KubeObject | null)?.kind;
    this.#onError(
      new ObjectRefusedError(this.#source, {
        reason: why,
        kind: typeof kind === "string" && kind !== "" ? kind : undefined,
      }),
    );
    return undefined;
  }

  /** Trims, transforms and decodes one object; undefined when it fails. */
  #ingest(raw: KubeObject, key: string): T | undefined {
    // Held as its text, managedFields already cut (`_bytes.ts`).
    if (raw instanceof Encoded) return raw as unknown as T;
    if (this.#metadataOnly && raw.kind !== "PartialObjectMetadata") {
      // A server that cannot answer metadata alone answered whole objects.
      raw = {
        apiVersion: "meta.k8s.io/v1",
        kind: "PartialObjectMetadata",
        metadata: raw.metadata,
      };
    }
    const meta = raw.metadata;
    if (meta !== undefined && meta.managedFields !== undefined) {
      // A copy without the field, not a delete: deleting a property that is
      // not the last one turns the object into a slow, larger dictionary.
      const { managedFields: _, ...rest } = meta;
      raw.metadata = rest;
    }
    const { transform, decode } = this.#shape;
    if (transform === undefined && decode === undefined) {
      return this.#freeze ? deepFreeze(raw as T) : raw as T;
    }
    try {
      const shaped = transform === undefined ? raw : transform(raw) ?? raw;
      const item = decode === undefined ? shaped as T : decode(shaped);
      return this.#freeze ? deepFreeze(item) : item;
    } catch (error) {
      // The report names the object: a copy dropped without a word would
      // leave nobody a way to learn why an edit was ignored.
      this.#onError(
        new DecodeError(this.#source, {
          ref: objectRef(this.#source, key),
          cause: error,
        }),
      );
      return undefined;
    }
  }

  /**
   * Runs one call of the caller's (`name`, about the object under `key`);
   * answers its promise only when it made one. A throw or a rejection is
   * reported as a {@linkcode EventHandlerError}.
   */
  deliver(
    fn: (() => void | Promise<void>) | undefined,
    name: Call,
    key?: string,
  ): Promise<void> | undefined {
    if (fn === undefined) return undefined;
    const failed = (error: unknown): void =>
      this.#onError(
        new EventHandlerError(this.#source, {
          call: name,
          ref: key === undefined ? undefined : objectRef(this.#source, key),
          cause: error,
        }),
      );
    let result: unknown;
    try {
      result = fn();
    } catch (error) {
      failed(error);
      return undefined;
    }
    if (!isPromise(result)) return undefined;
    return result.then(() => {}, failed);
  }

  /** Stores one added or modified object and tells the handler. */
  apply(raw: KubeObject): Promise<void> | undefined {
    const key = this.keyOf(raw);
    if (key === undefined) return undefined;
    const version = versionOf(raw);
    const item = this.#ingest(raw, key);
    if (item === undefined) {
      this.store.setUndecodable(key, version);
      return undefined;
    }
    const previous = this.store.set(key, item);
    const handler = this.#handler;
    const open = this.#open;
    if (previous !== undefined) {
      if (handler.update === undefined) return undefined;
      return this.deliver(
        () => handler.update!(open(previous), open(item)),
        "handler.update",
        key,
      );
    }
    if (handler.add === undefined) return undefined;
    return this.deliver(
      () => handler.add!(open(item)),
      "handler.add",
      key,
    );
  }

  /** Removes one deleted object and tells the handler. */
  remove(raw: KubeObject): Promise<void> | undefined {
    const key = this.keyOf(raw);
    if (key === undefined) return undefined;
    const held = this.store.has(key);
    const lastDecoded = this.store.lastDecoded(key);
    this.store.delete(key);
    const handler = this.#handler;
    if (handler.delete === undefined) return undefined;
    const final = this.#ingest(raw, key);
    const open = this.#open;
    if (final !== undefined) {
      return this.deliver(
        () => handler.delete!(open(final)),
        "handler.delete",
        key,
      );
    }
    if (!held) return undefined;
    // The final copy did not decode: hand over the last one that did.
    const last = lastDecoded === undefined ? undefined : open(lastDecoded);
    return this.deliver(
      () => handler.delete!(new DeletedFinalStateUnknown<T>(key, last)),
      "handler.delete",
      key,
    );
  }

  /**
   * Replaces the store with a whole read and tells the handler what changed:
   * adds and updates in the read's order, then a delete with a final-state-
   * unknown marker for each object that vanished while no watch was open.
   */
  async replace(read: Read<T>): Promise<void> {
    const { items: next, undecodable } = read;
    const scope = this.#scope;
    const before = this.store.entriesIn(scope);
    const beforeUndecodable = this.store.undecodableIn(scope);
    this.store.replaceIn(scope, next, undecodable);
    const handler = this.#handler;
    const open = this.#open;
    // A stop in the middle ends the calls: done must not wait for the rest
    // of a relist of thousands of objects, nor call synced after the end.
    const signal = this.#signal;
    if (handler.add || handler.update) {
      for (const [key, item] of next) {
        if (signal.aborted) return;
        const previous = before.get(key);
        let pending: Promise<void> | undefined;
        if (previous === undefined) {
          if (handler.add) {
            pending = this.deliver(
              () => handler.add!(open(item)),
              "handler.add",
              key,
            );
          }
        } else if (versionOf(previous) !== versionOf(item)) {
          if (handler.update) {
            pending = this.deliver(
              () => handler.update!(open(previous), open(item)),
              "handler.update",
              key,
            );
          }
        }
        if (pending !== undefined) await pending;
      }
    }
    if (handler.delete) {
      const gone: [string, T | undefined][] = [];
      for (const [key, previous] of before) {
        if (!next.has(key) && !undecodable.has(key)) gone.push([key, previous]);
      }
      for (const [key, { last }] of beforeUndecodable) {
        if (!next.has(key) && !undecodable.has(key)) gone.push([key, last]);
      }
      gone.sort(([a], [b]) => compareKeys(a, b));
      for (const [key, previous] of gone) {
        if (signal.aborted) return;
        const pending = this.deliver(
          () =>
            handler.delete!(
              new DeletedFinalStateUnknown<T>(
                key,
                previous === undefined ? undefined : open(previous),
              ),
            ),
          "handler.delete",
          key,
        );
        if (pending !== undefined) await pending;
      }
    }
  }
}
