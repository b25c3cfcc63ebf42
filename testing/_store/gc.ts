/**
 * The garbage collector: what the API server's garbage collector does with
 * `ownerReferences`, run on the (possibly fake) clock a short delay after
 * a change that concerns it.
 *
 * - An object whose owners (by uid) are all gone is deleted (Background).
 * - An object with some owners gone and some left loses the references to
 *   the gone ones.
 * - An owner deleted with `propagationPolicy: Foreground` keeps its
 *   `foregroundDeletion` finalizer until no dependent with
 *   `blockOwnerDeletion: true` is left; its dependents are deleted.
 * - An owner deleted with `propagationPolicy: Orphan` keeps its `orphan`
 *   finalizer until its dependents no longer name it.
 *
 * @module
 */
import type { KubeObject, OwnerReference } from "../../apiclient/types.ts";
import { clone } from "../_verbs/patch.ts";
import { resourceKey } from "./objects.ts";
import { FOREGROUND, ORPHAN, removeStored } from "../_verbs/delete.ts";
import type { Change } from "./store.ts";
import {
  finishNamespaces,
  isNamespaces,
  terminating,
} from "../_admission/namespaces.ts";
import type { ServerState } from "./state.ts";
import type { RegisteredResource } from "../types.ts";

/** Milliseconds between a change and the collection it causes, by default. */
export const GC_DELAY = 10;

interface Held {
  resource: RegisteredResource;
  key: string;
  object: KubeObject;
}

/**
 * Watches the store's changes and collects garbage `delay` ms after one
 * that concerns an owner or a dependent; each round may cause the next (a
 * dependent's own dependents), one delay apart.
 */
export class GarbageCollector {
  #state: ServerState;
  #delay: number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #unsubscribe: () => void;
  /** Every stored object's uid, with how many references name it. */
  #uids = new Set<string>();
  #named = new Map<string, number>();
  /** The uids of the owners marked with the foreground or orphan finalizer. */
  #marked = new Set<string>();
  #stopped = false;

  /** Collects for `state`, `delay` ms (bounded to 0..60 000) after a change. */
  constructor(state: ServerState, delay: number = GC_DELAY) {
    this.#state = state;
    this.#delay = Number.isFinite(delay)
      ? Math.min(Math.max(0, delay), 60_000)
      : GC_DELAY;
    this.#unsubscribe = state.store.subscribe((change) => this.#note(change));
  }

  /** Stops collecting; a pending round is dropped. */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#unsubscribe();
  }

  /** Runs one round now (the timer's work). */
  collect(): void {
    this.#timer = undefined;
    const store = this.#state.store;
    // The namespace controller's pass comes with it: the same delay.
    finishNamespaces(
      this.#state,
      (resource, key, object) =>
        removeStored(this.#state, resource, key, object, "Background"),
    );
    const byUid = new Map<string, KubeObject>();
    for (const { object } of this.#held()) {
      if (object.metadata.uid) byUid.set(object.metadata.uid, object);
    }
    const waiting = (r: OwnerReference): boolean =>
      marked(byUid.get(r.uid), FOREGROUND);
    // Dependents whose owners are gone or wait on them.
    for (const { resource, key, object } of this.#held()) {
      const refs = object.metadata.ownerReferences ?? [];
      const solid = refs.filter((r) => byUid.has(r.uid) && !waiting(r));
      if (solid.length === refs.length) continue;
      const rkey = resourceKey(resource);
      if (solid.length > 0) {
        // Owners remain: the references to the others go.
        const next = clone(object);
        next.metadata.ownerReferences = solid;
        store.write(rkey, key, next);
        continue;
      }
      if (object.metadata.deletionTimestamp) continue;
      // Every owner is gone or waits: the dependent goes, in the foreground
      // when an owner waits on it and it has dependents of its own.
      const foreground = refs.some(waiting) &&
        this.#dependents(object.metadata.uid!).length > 0;
      removeStored(
        this.#state,
        resource,
        key,
        object,
        foreground ? "Foreground" : "Background",
      );
    }
    // Owners deleted with Orphan let go of their dependents, then go;
    // owners deleted with Foreground go once nothing blocks them.
    for (const { resource, key, object } of this.#held()) {
      const uid = object.metadata.uid!;
      let drop: string | undefined;
      if (marked(object, ORPHAN)) {
        for (const dependent of this.#dependents(uid)) {
          const next = clone(dependent.object);
          const kept = next.metadata.ownerReferences!.filter((r) =>
            r.uid !== uid
          );
          if (kept.length > 0) next.metadata.ownerReferences = kept;
          else delete next.metadata.ownerReferences;
          store.write(resourceKey(dependent.resource), dependent.key, next);
        }
        drop = ORPHAN;
      } else if (marked(object, FOREGROUND)) {
        const blocked = this.#dependents(uid).some(({ object: d }) =>
          d.metadata.ownerReferences!.some((r) =>
            r.uid === uid && r.blockOwnerDeletion === true
          )
        );
        if (!blocked) drop = FOREGROUND;
      }
      if (drop === undefined) continue;
      const rkey = resourceKey(resource);
      const next = clone(store.peek(rkey, key)!);
      const left = (next.metadata.finalizers ?? []).filter((f) => f !== drop);
      if (left.length > 0) next.metadata.finalizers = left;
      else delete next.metadata.finalizers;
      store.write(rkey, key, next);
      if (left.length === 0) store.delete(rkey, key);
    }
  }

  // Every stored object, read afresh (a round changes the store as it goes).
  *#held(): Generator<Held> {
    for (const resource of this.#state.resources) {
      const rkey = resourceKey(resource);
      for (const [key] of this.#state.store.all(rkey)) {
        const object = this.#state.store.peek(rkey, key);
        if (object) yield { resource, key, object };
      }
    }
  }

  #dependents(uid: string): Held[] {
    return [...this.#held()].filter(({ object }) =>
      (object.metadata.ownerReferences ?? []).some((r) => r.uid === uid)
    );
  }

  // Keeps the indexes and schedules a round when the change concerns the
  // collector: an owner that references name went, an object names an
  // owner that is absent or marked, an owner is marked with the foreground
  // or orphan finalizer, or a dependent of a marked owner changed or went.
  #note(change: Change): void {
    const before = change.previous;
    const after = change.type === "DELETED" ? undefined : change.object;
    const uid = change.object.metadata.uid;
    let concerns = false;
    if (before?.metadata.uid) {
      this.#uids.delete(before.metadata.uid);
      this.#marked.delete(before.metadata.uid);
    }
    for (const ref of before?.metadata.ownerReferences ?? []) {
      if (this.#marked.has(ref.uid)) concerns = true;
      const n = (this.#named.get(ref.uid) ?? 1) - 1;
      if (n > 0) this.#named.set(ref.uid, n);
      else this.#named.delete(ref.uid);
    }
    if (after?.metadata.uid) {
      this.#uids.add(after.metadata.uid);
      if (marked(after, FOREGROUND) || marked(after, ORPHAN)) {
        this.#marked.add(after.metadata.uid);
        concerns = true;
      }
    }
    for (const ref of after?.metadata.ownerReferences ?? []) {
      this.#named.set(ref.uid, (this.#named.get(ref.uid) ?? 0) + 1);
      if (!this.#uids.has(ref.uid) || this.#marked.has(ref.uid)) {
        concerns = true;
      }
    }
    if (change.type === "DELETED" && uid !== undefined) {
      if (this.#named.has(uid)) concerns = true;
    }
    // A Namespace to empty, or content of one that waits for it to go.
    if (after?.kind === "Namespace" && terminating(after)) concerns = true;
    const namespace = change.object.metadata.namespace;
    if (namespace !== undefined && this.#terminating(namespace)) {
      concerns = true;
    }
    if (concerns) this.#schedule();
  }

  #terminating(name: string): boolean {
    const namespaces = this.#state.resources.find(isNamespaces)!;
    const held = this.#state.store.peek(resourceKey(namespaces), name);
    return held !== undefined && terminating(held);
  }

  #schedule(): void {
    if (this.#stopped || this.#timer !== undefined) return;
    this.#timer = setTimeout(() => this.collect(), this.#delay);
  }
}

/** Whether an object is being deleted and holds `finalizer`. */
function marked(object: KubeObject | undefined, finalizer: string): boolean {
  return object?.metadata.deletionTimestamp !== undefined &&
    (object.metadata.finalizers ?? []).includes(finalizer);
}
