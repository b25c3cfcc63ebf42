import type { KubeObject } from "../apiclient/types.ts";
import type { Indexers, Store } from "./store.ts";

/** Compares strings by code unit, as the API server orders keys. */
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The entries of a map whose key is in one namespace. */
function inNamespace<V>(
  map: Map<string, V>,
  namespace: string,
): Map<string, V> {
  const prefix = `${namespace}/`;
  const found = new Map<string, V>();
  for (const [key, value] of map) {
    if (key.startsWith(prefix)) found.set(key, value);
  }
  return found;
}

/** One named index: its function, and what it holds. */
interface Index<T> {
  indexer: (object: T) => readonly string[];
  /** index value → keys. */
  keys: Map<string, Set<string>>;
  /** key → the values it is indexed under, as the indexer answered them. */
  values: Map<string, readonly string[]>;
}

/** An object held without a value: it exists but did not decode. */
export interface Undecodable<T> {
  /** The version of the copy that did not decode. */
  version: string;
  /** The last copy of it that did decode, if any. */
  last: T | undefined;
}

/**
 * The store behind a collection. The reflector writes it; everyone else
 * reads it through {@linkcode Store}.
 */
export class MemoryStore<T extends KubeObject> implements Store<T> {
  #items = new Map<string, T>();
  /** Objects that exist but did not decode, with their last decoded copy. */
  #undecodable = new Map<string, Undecodable<T>>();
  /** The indexes by name. */
  #indexes = new Map<string, Index<T>>();
  /** Hears an indexer that threw: its error, its name, the object's key. */
  #onError: (error: unknown, name: string, key: string) => void;
  /**
   * The object a held item stands for: itself, or its parsed copy when the
   * store keeps text (`_bytes.ts`).
   */
  readonly open: (item: T) => T;

  constructor(
    indexers: Indexers<T> | undefined,
    onError: (error: unknown, name: string, key: string) => void,
    open: (item: T) => T = (item) => item,
  ) {
    this.#onError = onError;
    this.open = open;
    if (indexers !== undefined) this.addIndexers(indexers);
  }

  /**
   * Adds indexes, each built at once from the objects already held. A name
   * already held with the very same function is left as it is; with
   * another function, nothing is added and the `TypeError` names the index.
   */
  addIndexers(indexers: Indexers<T>): void {
    const added = Object.entries(indexers).filter(([name, indexer]) => {
      const held = this.#indexes.get(name)?.indexer;
      if (held === undefined) return true;
      if (held === indexer) return false;
      throw new TypeError(
        `The index ${name} is already another function; give one index name one function (define it once and pass the same function), or use another name`,
      );
    });
    for (const [name, indexer] of added) {
      const index: Index<T> = { indexer, keys: new Map(), values: new Map() };
      this.#indexes.set(name, index);
      for (const [key, item] of this.#items) {
        this.#indexIn(name, index, key, item);
      }
    }
  }

  /** The function of an index, or `undefined` when there is no such index. */
  indexer(name: string): ((object: T) => readonly string[]) | undefined {
    return this.#indexes.get(name)?.indexer;
  }

  get size(): number {
    return this.#items.size;
  }

  get(key: string): T | undefined {
    const item = this.#items.get(key);
    return item === undefined ? undefined : this.open(item);
  }

  has(key: string): boolean {
    return this.#items.has(key) || this.#undecodable.has(key);
  }

  version(key: string): string | undefined {
    const item = this.#items.get(key);
    if (item !== undefined) return item.metadata?.resourceVersion ?? "";
    return this.#undecodable.get(key)?.version;
  }

  /** The last decoded copy of a key, held or not decoded since (as held). */
  lastDecoded(key: string): T | undefined {
    return this.#items.get(key) ?? this.#undecodable.get(key)?.last;
  }

  keys(): string[] {
    return [...this.#items.keys()].sort(compareKeys);
  }

  values(): T[] {
    const values = [...this.#items.values()];
    const open = this.open;
    for (let i = 0; i < values.length; i++) values[i] = open(values[i]!);
    return values;
  }

  byIndex(index: string, value: string): T[] {
    const items: T[] = [];
    for (const key of this.indexKeys(index, value)) {
      const item = this.#items.get(key);
      if (item !== undefined) items.push(this.open(item));
    }
    return items;
  }

  indexKeys(index: string, value: string): string[] {
    const keys = this.#index(index).keys.get(value);
    return keys === undefined ? [] : [...keys].sort(compareKeys);
  }

  indexValues(index: string): string[] {
    return [...this.#index(index).keys.keys()].sort(compareKeys);
  }

  /** The entries as held (see `open`), for the relist diff. */
  entries(): Map<string, T> {
    return this.#items;
  }

  /** The undecodable keys, for the relist diff. */
  undecodable(): Map<string, Undecodable<T>> {
    return this.#undecodable;
  }

  /** Holds a decoded copy; answers the copy it replaced. */
  set(key: string, item: T): T | undefined {
    const previous = this.#items.get(key);
    if (this.#indexes.size > 0) {
      if (previous !== undefined) this.#unindex(key);
      this.#indexOne(key, item);
    }
    this.#items.set(key, item);
    if (this.#undecodable.size > 0) this.#undecodable.delete(key);
    return previous;
  }

  /** Holds an object that did not decode; answers the decoded copy it replaced. */
  setUndecodable(key: string, version: string): T | undefined {
    const previous = this.#items.get(key);
    if (previous !== undefined) {
      if (this.#indexes.size > 0) this.#unindex(key);
      this.#items.delete(key);
    }
    const last = previous ?? this.#undecodable.get(key)?.last;
    this.#undecodable.set(key, { version, last });
    return previous;
  }

  /** Drops a key; answers the decoded copy it held. */
  delete(key: string): T | undefined {
    const previous = this.#items.get(key);
    if (previous !== undefined) {
      if (this.#indexes.size > 0) this.#unindex(key);
      this.#items.delete(key);
    }
    this.#undecodable.delete(key);
    return previous;
  }

  /**
   * The entries of one namespace (all of them for `undefined`), for the
   * relist diff of a collection over a namespace set.
   */
  entriesIn(namespace: string | undefined): Map<string, T> {
    if (namespace === undefined) return this.#items;
    return inNamespace(this.#items, namespace);
  }

  /** The undecodable keys of one namespace (all for `undefined`). */
  undecodableIn(
    namespace: string | undefined,
  ): Map<string, Undecodable<T>> {
    if (namespace === undefined) return this.#undecodable;
    return inNamespace(this.#undecodable, namespace);
  }

  /**
   * Replaces the content of one namespace, leaving every other namespace's
   * objects alone; `undefined` replaces the whole content.
   */
  replaceIn(
    namespace: string | undefined,
    items: Map<string, T>,
    undecodable: Map<string, string>,
  ): void {
    if (namespace === undefined) return this.replace(items, undecodable);
    const prefix = `${namespace}/`;
    for (const key of [...this.#items.keys()]) {
      if (key.startsWith(prefix) && !items.has(key)) this.delete(key);
    }
    for (const key of [...this.#undecodable.keys()]) {
      if (key.startsWith(prefix) && !undecodable.has(key)) this.delete(key);
    }
    for (const [key, version] of undecodable) {
      this.setUndecodable(key, version);
    }
    for (const [key, item] of items) this.set(key, item);
  }

  /** Replaces the whole content. */
  replace(items: Map<string, T>, undecodable: Map<string, string>): void {
    const held = new Map<string, Undecodable<T>>();
    for (const [key, version] of undecodable) {
      held.set(key, { version, last: this.lastDecoded(key) });
    }
    this.#items = items;
    this.#undecodable = held;
    for (const index of this.#indexes.values()) {
      index.keys = new Map();
      index.values = new Map();
    }
    if (this.#indexes.size > 0) {
      for (const [key, item] of items) this.#indexOne(key, item);
    }
  }

  #index(name: string): Index<T> {
    const index = this.#indexes.get(name);
    if (index === undefined) throw new RangeError(`No indexer named ${name}`);
    return index;
  }

  #indexOne(key: string, item: T): void {
    for (const [name, index] of this.#indexes) {
      this.#indexIn(name, index, key, item);
    }
  }

  #indexIn(name: string, index: Index<T>, key: string, item: T): void {
    let values: readonly string[];
    try {
      values = index.indexer(this.open(item));
    } catch (error) {
      this.#onError(error, name, key);
      return;
    }
    if (values.length === 0) return;
    index.values.set(key, values);
    for (const value of values) {
      let keys = index.keys.get(value);
      if (keys === undefined) index.keys.set(value, keys = new Set());
      keys.add(key);
    }
  }

  // The values an object was indexed under are kept, so an indexer that
  // answers differently the second time cannot leave a stale entry.
  #unindex(key: string): void {
    for (const index of this.#indexes.values()) {
      const values = index.values.get(key);
      if (values === undefined) continue;
      index.values.delete(key);
      for (const value of values) {
        const keys = index.keys.get(value);
        if (keys === undefined) continue;
        keys.delete(key);
        if (keys.size === 0) index.keys.delete(value);
      }
    }
  }
}
