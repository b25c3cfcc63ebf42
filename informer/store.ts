import type { KubeObject } from "../apiclient/types.ts";

/**
 * Named index functions: each answers the index values of one object, such
 * as the value of a label, so {@linkcode Store.byIndex} finds every object
 * with that value without walking every object.
 *
 * @typeParam T The kind of the stored objects.
 */
export type Indexers<T> = Record<string, (object: T) => readonly string[]>;

/**
 * The objects one watch holds, by store key (`namespace/name`, or `name` for
 * a cluster-scoped object). Read-only: the watch alone writes it.
 *
 * An object whose copy failed `decode` is tracked under its key with no
 * value: {@linkcode Store.has} and {@linkcode Store.version} answer for it
 * (the object exists), while {@linkcode Store.get}, {@linkcode Store.keys},
 * {@linkcode Store.values}, {@linkcode Store.size} and the indexes leave it
 * out, so a key listed is always a key `get` answers a copy for.
 *
 * @typeParam T The kind of the stored objects.
 */
export interface Store<T extends KubeObject = KubeObject> {
  /** How many decoded objects the store holds (as many as `keys()`). */
  readonly size: number;

  /**
   * The copy held under a key.
   *
   * @param key The store key.
   * @returns The copy, or `undefined` when none is held or it did not decode.
   */
  get(key: string): T | undefined;

  /**
   * Whether the store holds an object under a key (decoded or not).
   *
   * @param key The store key.
   * @returns `true` when an object is held.
   */
  has(key: string): boolean;

  /**
   * The `resourceVersion` of the copy held under a key, decoded or not.
   *
   * @param key The store key.
   * @returns The version, or `undefined` when nothing is held.
   */
  version(key: string): string | undefined;

  /**
   * The key of every decoded object the store holds, sorted.
   *
   * @returns The keys, sorted as the API server sorts a list.
   */
  keys(): string[];

  /**
   * Every decoded copy, in no particular order.
   *
   * @returns The copies.
   */
  values(): T[];

  /**
   * The decoded copies whose index function answered `value`.
   *
   * @param index The indexer's name.
   * @param value One index value.
   * @returns The copies, sorted by key.
   */
  byIndex(index: string, value: string): T[];

  /**
   * The keys of the copies whose index function answered `value`.
   *
   * @param index The indexer's name.
   * @param value One index value.
   * @returns The keys, sorted.
   */
  indexKeys(index: string, value: string): string[];

  /**
   * Every value an index holds at least one object under.
   *
   * @param index The indexer's name.
   * @returns The values, sorted.
   */
  indexValues(index: string): string[];
}
