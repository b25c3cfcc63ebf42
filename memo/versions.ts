import {
  type ObjectRef,
  objectRef,
  type Resource,
} from "../apiclient/resource.ts";
import { KeyedQueue } from "./_queue.ts";
import { ByObject, keyOf, split } from "./_records.ts";

/**
 * Anything that answers whether it holds an object under a store key. A
 * `Map` satisfies it, and so does the informer's store.
 */
export interface KeyedStore {
  /**
   * Whether the store holds an object under this key.
   *
   * @param key The store key (`namespace/name`, or `name` when cluster-scoped).
   * @returns `true` when the store holds a copy under the key.
   */
  has(key: string): boolean;
}

/** Options of {@linkcode Versions.prototype.send}. */
export interface SendOptions {
  /**
   * Ends the wait for the object's earlier requests. Once the request runs,
   * only the request itself can honour a signal, so pass it there too.
   */
  signal?: AbortSignal | undefined;
}

/** Options of {@linkcode Versions.prototype.forgetGone}. */
export interface ForgetGoneOptions {
  /** The store keys a list of the same selection answered. */
  listed: ReadonlySet<string>;
  /** The watch's store (a `Map` will do). */
  store: KeyedStore;
}

/** One object's record: the version last noted and when it was noted. */
interface Entry {
  version: string;
  /** The value of the note counter at this note (see `sendList`). */
  at: number;
}

/** A note must name an object: a ref without a name names none. */
function refuseNameless(ref: ObjectRef): void {
  if (typeof ref.name !== "string" || ref.name === "") {
    const kind = ref.group ? `${ref.resource}.${ref.group}` : ref.resource;
    throw new TypeError(
      `The memo names an object by its name: ${kind} has none`,
    );
  }
}

/**
 * A memo, per object, of the resourceVersion the API server last handed this
 * operator for it, whether as the answer to a write or to a read.
 *
 * Why it exists: a watch lags. The operator's own write reaches its cache
 * only after the server has answered it, and not at all while the watch is
 * reconnecting. Acting on the cached copy in that gap would redo work the
 * operator has already done, or judge "nothing to do" from a status that
 * is no longer true. With the memo, a pass trusts a cached copy only when
 * its version is the one noted here, and otherwise fetches the object; the
 * cache catches up as soon as the watch delivers the write.
 *
 * Objects are named by an `ObjectRef` (from `@liken/kubernetes/apiclient`):
 * the memo files each under its group, resource, namespace and name (not its
 * API version), so one memo serves every kind an operator touches, and a
 * ConfigMap `default/web` and a Greeting `default/web` have a note each.
 * Within one collection the store key (`namespace/name`) names the object,
 * as the informer's store does.
 *
 * resourceVersions are opaque strings (the API contract forbids ordering
 * them), so the memo only ever tests them for equality. Helpers that accept
 * `Versions | undefined` treat `undefined` as a memo that never objects: it
 * notes nothing and calls every copy current.
 *
 * @example Note a write, then judge the store's copies
 * ```ts
 * import assert from "node:assert/strict";
 * import { Versions } from "@liken/kubernetes/memo";
 *
 * const versions = new Versions();
 * const web = { version: "v1", resource: "configmaps", namespace: "default", name: "web" };
 * assert.equal(versions.current(web, "7"), true); // never noted
 *
 * // A write answered version 9; the watch still holds version 7.
 * await versions.send(web, () => Promise.resolve("9"));
 * assert.equal(versions.current(web, "7"), false);
 * assert.equal(versions.current(web, "9"), true);
 * // Another kind's object of the same name has a note of its own.
 * assert.equal(versions.current({ ...web, resource: "secrets" }, "7"), true);
 * ```
 */
export class Versions {
  /**
   * Records by group, resource, namespace and name. The API version is left
   * out on purpose: one object read through two versions of its group has
   * one `resourceVersion`.
   */
  #records = new ByObject<Entry>();
  /** A running count of notes; `sendList` compares it to spot later notes. */
  #notes = 0;
  /** One request at a time per object. */
  #requests = new KeyedQueue();

  /**
   * Whether a cached copy at `version` may be acted on: true unless the memo
   * holds a different version for the object. Objects it never noted pass at
   * any version, so objects this operator never wrote or read cost nothing.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Versions } from "@liken/kubernetes/memo";
   *
   * const versions = new Versions();
   * const web = { version: "v1", resource: "configmaps", namespace: "default", name: "web" };
   * versions.note(web, "5");
   * assert.equal(versions.current(web, "5"), true);
   * assert.equal(versions.current(web, "4"), false);
   * ```
   *
   * @param ref The object.
   * @param version The `metadata.resourceVersion` of the store's copy.
   * @returns `true` when the copy may be acted on.
   */
  current(ref: ObjectRef, version: string): boolean {
    const record = this.#records.get(ref);
    return record === undefined || record.version === version;
  }

  /**
   * Stores `version` as the newest one seen for the object. Pass `""` when
   * the operator no longer knows the server's copy (the object vanished, or
   * a write failed and may still have been applied): no cached copy carries
   * an empty version, so every read of the object goes to the server until
   * a real version is noted.
   *
   * Most callers want {@linkcode Versions.prototype.send} instead, which
   * also serialises requests per object; bare notes from overlapping
   * requests can land in the wrong order.
   *
   * @param ref The object.
   * @param version The answered `metadata.resourceVersion`, or `""`.
   * @throws {TypeError} When the ref has no name.
   */
  note(ref: ObjectRef, version: string): void {
    refuseNameless(ref);
    this.#note(ref, ref.namespace ?? "", ref.name, version);
  }

  #note(
    resource: Resource,
    namespace: string,
    name: string,
    version: string,
  ): void {
    this.#notes++;
    const names = this.#records.names(resource, namespace);
    const record = names.get(name);
    if (record === undefined) {
      names.set(name, { version, at: this.#notes });
    } else {
      record.version = version;
      record.at = this.#notes;
    }
  }

  /**
   * Lists the objects of a collection the memo knows at a real version but
   * the cache lacks, typically objects created an instant ago that the watch
   * has yet to deliver. A pass that only walks the cache would overlook them
   * and, say, create them a second time. Only objects of the collection's
   * resource (and of its namespace, when it has one) are listed, grouped by
   * namespace.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Versions } from "@liken/kubernetes/memo";
   *
   * const configMaps = { version: "v1", resource: "configmaps" };
   * const versions = new Versions();
   * versions.note({ ...configMaps, namespace: "default", name: "new" }, "3");
   * versions.note({ version: "v1", resource: "secrets", namespace: "default", name: "other" }, "4");
   * assert.deepEqual(versions.unheld(configMaps, new Map()), [
   *   { ...configMaps, namespace: "default", name: "new" },
   * ]);
   * ```
   *
   * @param resource The collection the store holds.
   * @param store The watch's store (a `Map` will do).
   * @returns The objects, each namespace's in the order they were first
   *   noted.
   */
  unheld(resource: Resource, store: KeyedStore): ObjectRef[] {
    const refs: ObjectRef[] = [];
    for (const [namespace, names] of this.#records.of(resource)) {
      for (const [name, record] of names) {
        if (record.version === "") continue;
        const key = keyOf(namespace, name);
        if (!store.has(key)) refs.push(objectRef(resource, key));
      }
    }
    return refs;
  }

  /**
   * Sends `request` (which resolves to a resourceVersion) and notes its
   * answer for the object.
   *
   * Sends for one object form a line: each starts after the previous one has
   * ended, first come first served, while other objects proceed in
   * parallel. That line is what keeps the memo truthful. If two overlapping
   * writes of one object were allowed, the reply to the earlier write could
   * be processed after the later one, and the memo would end up blessing
   * the older version.
   *
   * On failure the object is noted as `""` and the error is rethrown. The
   * reasoning: a 404 or 409 means the operator's copy is not the server's,
   * and a timeout leaves it unknown whether the write took effect, so only
   * a fresh read can be trusted. A send whose signal aborts while it is
   * still in line neither sends nor notes anything.
   *
   * @example Two writers of one object
   * ```ts
   * import assert from "node:assert/strict";
   * import { Versions } from "@liken/kubernetes/memo";
   *
   * const versions = new Versions();
   * const web = { version: "v1", resource: "configmaps", namespace: "default", name: "web" };
   * const order: string[] = [];
   * const first = versions.send(web, async () => {
   *   order.push("first");
   *   return "2";
   * });
   * const second = versions.send(web, async () => {
   *   order.push("second");
   *   return "3";
   * });
   * await Promise.all([first, second]);
   * assert.deepEqual(order, ["first", "second"]);
   * assert.equal(versions.current(web, "3"), true);
   * ```
   *
   * @param ref The object the request reads or writes.
   * @param request Sends the request and answers the copy's resourceVersion.
   * @param options A signal that ends the wait for earlier requests.
   * @returns Settles once the answer is noted; rejects with the request's
   *   error, the signal's reason, or a `TypeError` for a ref without a name.
   */
  send(
    ref: ObjectRef,
    request: () => Promise<string>,
    options: SendOptions = {},
  ): Promise<void> {
    try {
      refuseNameless(ref);
    } catch (error) {
      return Promise.reject(error);
    }
    // Taken now: a caller that reuses its ref object cannot move the line.
    const { group, resource, name } = ref;
    const namespace = ref.namespace ?? "";
    const line = { group, version: "", resource, namespace, name };
    return this.#requests.run(line, async () => {
      let version: string;
      try {
        version = await request();
      } catch (error) {
        this.#note(line, namespace, name, "");
        throw error;
      }
      this.#note(line, namespace, name, version);
    }, options);
  }

  /**
   * Sends a list request of one collection (resolving to version by store
   * key) and notes every entry.
   *
   * Why note a list at all: a pass may list straight from the server while
   * its cache is still filling. The cache's initial read can be served by
   * the API server's watch cache, which trails etcd, so the cache may
   * settle on versions older than the list's. Without these notes the next
   * pass would accept those older copies.
   *
   * Objects noted by some other request after this list was sent are left
   * alone. The list cannot be ordered against that request's answer, and
   * letting its possibly older copy win could bless a stale version. If the
   * request's copy was in fact the older one, the only cost is one extra
   * read of that object later.
   *
   * Overwriting notes taken before the list was sent is sound only when the
   * list comes from etcd (a quorum read, with no `resourceVersion=0`), since
   * such a list reflects every write already answered. A failed list leaves
   * the memo untouched: it reported nothing about any object.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Versions } from "@liken/kubernetes/memo";
   *
   * const configMaps = { version: "v1", resource: "configmaps" };
   * const versions = new Versions();
   * await versions.sendList(configMaps, () =>
   *   Promise.resolve(new Map([["default/a", "10"], ["default/b", "11"]]))
   * );
   * assert.equal(versions.current({ ...configMaps, namespace: "default", name: "a" }, "9"), false);
   * assert.equal(versions.current({ ...configMaps, namespace: "default", name: "b" }, "11"), true);
   * ```
   *
   * @param resource The listed collection.
   * @param request Sends the list and answers each object's version by its
   *   store key.
   * @returns Settles once the versions are noted; rejects with the list's error.
   */
  async sendList(
    resource: Resource,
    request: () => Promise<ReadonlyMap<string, string>>,
  ): Promise<void> {
    const start = this.#notes;
    const listed = await request();
    for (const [key, version] of listed) {
      const [namespace, name] = split(key);
      const at = this.#records.names(resource, namespace).get(name)?.at ?? 0;
      if (at <= start) this.#note(resource, namespace, name, version);
    }
  }

  /**
   * Clears the objects of a collection that are missing both from a fresh
   * list of the same selection and from the cache: the object is gone on
   * the server and the watch has already removed it. Call it after each list
   * when objects are short-lived (one per job, per run), so the memo does not
   * grow with every name the process has ever touched. Only objects of the
   * collection's resource (and of its namespace, when it has one) are
   * cleared; other kinds' notes stay.
   *
   * Objects the cache still holds stay noted on purpose: the cached copy of
   * a deleted object must stay untrusted until the watch drops it.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Versions } from "@liken/kubernetes/memo";
   *
   * const configMaps = { version: "v1", resource: "configmaps" };
   * const gone = { ...configMaps, namespace: "default", name: "gone" };
   * const versions = new Versions();
   * versions.note(gone, "3");
   * versions.forgetGone(configMaps, { listed: new Set(), store: new Map() });
   * assert.equal(versions.noted(gone), false);
   * ```
   *
   * @param resource The listed collection.
   * @param options The keys the list answered, and the watch's store.
   */
  forgetGone(resource: Resource, options: ForgetGoneOptions): void {
    const { listed, store } = options;
    const gone: [string, string][] = [];
    for (const [namespace, names] of this.#records.of(resource)) {
      for (const name of names.keys()) {
        const key = keyOf(namespace, name);
        if (!listed.has(key) && !store.has(key)) gone.push([namespace, name]);
      }
    }
    for (const [namespace, name] of gone) {
      this.#drop({ ...resource, namespace, name });
    }
  }

  /**
   * Clears one object, typically after the server answered 404 for it, so
   * that later lookups of the name trust the cache again instead of asking
   * the server every time.
   *
   * The object's line of sends is cleared too. Sends already in that line
   * still finish and note, but a send made after this call starts a new
   * line and may overlap them, so notes can land out of order. Call it only
   * when no send for the object is running or waiting.
   *
   * @param ref The object.
   */
  forget(ref: ObjectRef): void {
    this.#drop(ref);
  }

  /**
   * Whether the object is noted at all, `""` included. This lets a cache
   * that holds a full selection answer "absent" with confidence: an object
   * missing from the cache but noted here was just created by this operator,
   * or its last request failed, so the cache's silence proves nothing.
   *
   * @param ref The object.
   * @returns `true` when the object has a record.
   */
  noted(ref: ObjectRef): boolean {
    return this.#records.get(ref) !== undefined;
  }

  /**
   * Clears the object only if it is noted at exactly `version`, the version
   * the cache now holds. Once the watch has caught up with the noted
   * version, whatever it delivers next is newer, so the note protects
   * nothing; left in place, it would turn every later change by someone
   * else into an extra read. Test and clear happen together, so a newer note
   * made in the meantime survives. `""` never matches.
   *
   * @param ref The object.
   * @param version The `metadata.resourceVersion` of the store's copy.
   */
  forgetAt(ref: ObjectRef, version: string): void {
    if (version === "") return;
    if (this.#records.get(ref)?.version === version) this.#drop(ref);
  }

  #drop(ref: ObjectRef): void {
    this.#records.delete(ref);
    this.#requests.drop(ref);
  }
}
