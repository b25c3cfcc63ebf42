/**
 * The fake's storage: every object of every resource, one global
 * resourceVersion counter, and the history of changes that watches replay
 * and consistent list pages read.
 *
 * @module
 */
import type { KubeObject } from "../../apiclient/types.ts";
import { clone } from "../_verbs/patch.ts";

/** One change, as history keeps it. */
export interface Change {
  /** The resourceVersion the change made. */
  rv: number;
  /** What happened. */
  type: "ADDED" | "MODIFIED" | "DELETED";
  /** `<group>/<resource>`. */
  resource: string;
  /** `<namespace>/<name>` or `<name>`. */
  key: string;
  /** The object after the change (the last copy, for DELETED). */
  object: KubeObject;
  /** The object before the change; absent for ADDED. */
  previous: KubeObject | undefined;
}

/** Objects by resource and key, with history. Objects are never shared. */
export class Store {
  #rv = 0;
  #compacted = 0;
  #objects = new Map<string, Map<string, KubeObject>>();
  #history: Change[] = [];
  #listeners = new Set<(change: Change) => void>();

  /** The newest resourceVersion. */
  get rv(): number {
    return this.#rv;
  }

  /** The newest resourceVersion whose history was forgotten. */
  get compacted(): number {
    return this.#compacted;
  }

  /** Calls `listener` after every change; answers the unsubscribe. */
  subscribe(listener: (change: Change) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The stored copy (not cloned: callers must not change it). */
  peek(resource: string, key: string): KubeObject | undefined {
    return this.#objects.get(resource)?.get(key);
  }

  /** The objects of one resource, in key order (not cloned). */
  all(resource: string): [string, KubeObject][] {
    const map = this.#objects.get(resource);
    if (!map) return [];
    return [...map.entries()].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0);
  }

  /** Writes an object at the next resourceVersion; answers the stored copy. */
  write(resource: string, key: string, object: KubeObject): KubeObject {
    let map = this.#objects.get(resource);
    if (!map) this.#objects.set(resource, map = new Map());
    const previous = map.get(key);
    const stored = clone(object);
    stored.metadata.resourceVersion = String(++this.#rv);
    map.set(key, stored);
    this.#record({
      rv: this.#rv,
      type: previous ? "MODIFIED" : "ADDED",
      resource,
      key,
      object: stored,
      previous,
    });
    return stored;
  }

  /** Deletes an object; the DELETED change carries a new resourceVersion. */
  delete(resource: string, key: string): KubeObject | undefined {
    const map = this.#objects.get(resource);
    const previous = map?.get(key);
    if (!map || !previous) return undefined;
    map.delete(key);
    const last = clone(previous);
    last.metadata.resourceVersion = String(++this.#rv);
    this.#record({
      rv: this.#rv,
      type: "DELETED",
      resource,
      key,
      object: last,
      previous,
    });
    return last;
  }

  /** The changes of one resource after `rv`, oldest first. */
  since(resource: string, rv: number): Change[] {
    // History is ordered by rv, so a binary search finds the start.
    let lo = 0;
    let hi = this.#history.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#history[mid]!.rv <= rv) lo = mid + 1;
      else hi = mid;
    }
    return this.#history.slice(lo).filter((c) => c.resource === resource);
  }

  /**
   * The objects of one resource as they were at `rv`, in key order. Needs
   * the history after `rv`, so `rv` must not be older than `compacted`.
   */
  snapshot(resource: string, rv: number): [string, KubeObject][] {
    const at = new Map(this.all(resource));
    // Undo the changes after rv, newest first.
    const later = this.since(resource, rv);
    for (let i = later.length - 1; i >= 0; i--) {
      const change = later[i]!;
      if (change.previous) at.set(change.key, change.previous);
      else at.delete(change.key);
    }
    return [...at.entries()].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0);
  }

  /** Forgets all history: older resourceVersions become too old. */
  compact(): void {
    this.#compacted = this.#rv;
    this.#history = [];
  }

  #record(change: Change): void {
    this.#history.push(change);
    for (const listener of [...this.#listeners]) listener(change);
  }
}
