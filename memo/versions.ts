import { KeyedQueue } from "./_queue.ts";

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
  signal?: AbortSignal;
}

/** One object's record: the version last noted and when it was noted. */
interface Entry {
  version: string;
  /** The value of the note counter at this note (see `sendList`). */
  at: number;
}

/**
 * The resourceVersion of the newest copy of each object that the operator
 * wrote or read from the API server, by store key.
 *
 * An operator reads objects from a watch's store, and the store can hold a
 * copy older than the operator's own last write: the watch delivers a write
 * a moment after the API server answers it, and much later while the watch
 * is down. A pass that acts on such a copy repeats a change it already
 * made, or misses one the older copy hides. So every answer from the API
 * server is noted here, and a store's copy counts as current only when it
 * has the noted version; otherwise the object is read from the API server.
 * Once the watch delivers the write, the versions match again.
 *
 * Versions are compared only for equality, because the API server promises
 * no order between them. Functions that take `Versions | undefined` treat an
 * absent memo as one that records nothing, for which every copy is current.
 *
 * @example Note a write, then judge the store's copies
 * ```ts
 * import assert from "node:assert/strict";
 * import { Versions } from "@liken/kubernetes/memo";
 *
 * const versions = new Versions();
 * assert.equal(versions.current("default/web", "7"), true); // never noted
 *
 * // A write answered version 9; the watch still holds version 7.
 * await versions.send("default/web", () => Promise.resolve("9"));
 * assert.equal(versions.current("default/web", "7"), false);
 * assert.equal(versions.current("default/web", "9"), true);
 * ```
 */
export class Versions {
  #records = new Map<string, Entry>();
  /** Counts every note, so a list can tell which notes came while it ran. */
  #notes = 0;
  /** One request at a time per object. */
  #requests = new KeyedQueue();

  /**
   * Whether a store's copy at `version` is at least as new as every copy
   * the operator wrote or read. An object never noted is current at any
   * version, so a memo costs nothing for objects the operator never touched.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Versions } from "@liken/kubernetes/memo";
   *
   * const versions = new Versions();
   * versions.note("web", "5");
   * assert.equal(versions.current("web", "5"), true);
   * assert.equal(versions.current("web", "4"), false);
   * ```
   *
   * @param key The object's store key.
   * @param version The `metadata.resourceVersion` of the store's copy.
   * @returns `true` when the copy may be acted on.
   */
  current(key: string, version: string): boolean {
    const record = this.#records.get(key);
    return record === undefined || record.version === version;
  }

  /**
   * Records the version of a copy the API server answered. The empty
   * version stands for "no copy of the server's": the object is gone, or a
   * write failed and may or may not have landed. No store copy matches it,
   * so the next read goes to the API server.
   *
   * Prefer {@linkcode Versions.prototype.send}: a bare note does not keep
   * the notes of concurrent requests in the server's order.
   *
   * @param key The object's store key.
   * @param version The answered `metadata.resourceVersion`, or `""`.
   */
  note(key: string, version: string): void {
    this.#notes++;
    const record = this.#records.get(key);
    if (record === undefined) {
      this.#records.set(key, { version, at: this.#notes });
    } else {
      record.version = version;
      record.at = this.#notes;
    }
  }

  /**
   * The keys noted at a real version that the store does not hold: objects
   * the operator created or wrote a moment ago, which the watch has not
   * delivered yet. A pass that walks the store alone would miss them.
   *
   * @param store The watch's store (a `Map` will do).
   * @returns The keys, in the order they were first noted.
   */
  unheld(store: KeyedStore): string[] {
    const keys: string[] = [];
    for (const [key, record] of this.#records) {
      if (record.version !== "" && !store.has(key)) keys.push(key);
    }
    return keys;
  }

  /**
   * Runs one request about one object and notes the version the API server
   * answered.
   *
   * Requests about one object run one at a time, in the order they were
   * sent, so their notes follow the order in which the API server answered.
   * Two tasks that write one object could otherwise note the older answer
   * last, and a store's copy at that older version would count as current.
   * Requests about other objects never wait.
   *
   * A failed request notes the empty version, then rethrows: after a 404 or
   * a 409 the operator holds no copy of the server's, and a write whose
   * answer was lost may have landed, so the next read must go to the API
   * server. A send aborted while it waits for earlier requests sends and
   * notes nothing.
   *
   * @example Two writers of one object
   * ```ts
   * import assert from "node:assert/strict";
   * import { Versions } from "@liken/kubernetes/memo";
   *
   * const versions = new Versions();
   * const order: string[] = [];
   * const first = versions.send("web", async () => {
   *   order.push("first");
   *   return "2";
   * });
   * const second = versions.send("web", async () => {
   *   order.push("second");
   *   return "3";
   * });
   * await Promise.all([first, second]);
   * assert.deepEqual(order, ["first", "second"]);
   * assert.equal(versions.current("web", "3"), true);
   * ```
   *
   * @param key The object's store key.
   * @param request Sends the request and answers the copy's resourceVersion.
   * @param options A signal that ends the wait for earlier requests.
   * @returns Settles once the answer is noted; rejects with the request's
   *   error, or the signal's reason.
   */
  send(
    key: string,
    request: () => Promise<string>,
    options: SendOptions = {},
  ): Promise<void> {
    return this.#requests.run(key, async () => {
      let version: string;
      try {
        version = await request();
      } catch (error) {
        this.note(key, "");
        throw error;
      }
      this.note(key, version);
    }, options);
  }

  /**
   * Runs one list request and notes the version of each object it answered.
   *
   * A pass that lists before a watch's store is ready must note these
   * versions: the store can become ready at an older version, because the
   * watch's first read may come from the API server's watch cache, which
   * runs behind etcd. Without the notes the pass would act on an object
   * older than one it already read.
   *
   * An object that a request noted while the list was in flight keeps the
   * request's version: the list may hold a copy from before that answer,
   * and noting it would make an older copy current. When the request's
   * version is the older one instead, the object is read from the API server
   * once more, which costs a request but never answers an older copy.
   *
   * A list replaces the versions noted before it was sent, which is right
   * only for a list that etcd answered (no `resourceVersion=0`): such a list
   * holds every write the API server answered before it. A failed list
   * notes nothing, because it names no object.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Versions } from "@liken/kubernetes/memo";
   *
   * const versions = new Versions();
   * await versions.sendList(() =>
   *   Promise.resolve(new Map([["default/a", "10"], ["default/b", "11"]]))
   * );
   * assert.equal(versions.current("default/a", "9"), false);
   * assert.equal(versions.current("default/b", "11"), true);
   * ```
   *
   * @param request Sends the list and answers each object's version by key.
   * @returns Settles once the versions are noted; rejects with the list's error.
   */
  async sendList(
    request: () => Promise<ReadonlyMap<string, string>>,
  ): Promise<void> {
    const start = this.#notes;
    const listed = await request();
    for (const [key, version] of listed) {
      const at = this.#records.get(key)?.at ?? 0;
      if (at <= start) this.note(key, version);
    }
  }

  /**
   * Drops the record of each object that a list did not answer and the
   * store does not hold: the API server no longer has it and the watch has
   * delivered its delete. An operator whose objects come and go calls this
   * after each list, or the memo would keep every object it ever saw for
   * the life of the process.
   *
   * A key the store still holds keeps its record, so a copy of an object
   * the server already deleted does not turn current again before the watch
   * removes it.
   *
   * @param store The watch's store (a `Map` will do).
   * @param listed The keys a list of the same selection answered.
   */
  forgetGone(store: KeyedStore, listed: ReadonlySet<string>): void {
    for (const key of this.#records.keys()) {
      if (listed.has(key) || store.has(key)) continue;
      this.#drop(key);
    }
  }

  /**
   * Drops the record of one object, such as one the API server answered 404
   * for, so the next read of the name answers from the store and sends
   * nothing.
   *
   * This also drops the object's request queue. A send already queued
   * still runs and notes its answer, but a send that starts after the forget
   * does not wait for it, so the two can note out of order. Forget an object
   * only while no request about it runs.
   *
   * @param key The object's store key.
   */
  forget(key: string): void {
    this.#drop(key);
  }

  /**
   * Whether the memo holds a record of the key at any version, the empty one
   * included. A store that holds a whole selection but not the key means no
   * such object exists, unless the operator created it a moment ago or a
   * request about it failed: the record tells those apart.
   *
   * @param key The object's store key.
   * @returns `true` when the key has a record.
   */
  noted(key: string): boolean {
    return this.#records.has(key);
  }

  /**
   * Drops the record of one object only when it holds `version`, the
   * version of the store's copy. Once the store holds the noted version,
   * every later copy it receives is newer, so the record guards nothing;
   * kept, it would make each later write by another writer cost one read
   * from the API server. A record that moved on to another version in the
   * meantime is kept. The empty version never matches.
   *
   * @param key The object's store key.
   * @param version The `metadata.resourceVersion` of the store's copy.
   */
  forgetAt(key: string, version: string): void {
    if (version === "") return;
    if (this.#records.get(key)?.version === version) this.#drop(key);
  }

  #drop(key: string): void {
    this.#records.delete(key);
    this.#requests.drop(key);
  }
}
