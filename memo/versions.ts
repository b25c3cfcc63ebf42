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
 * A memo, per store key, of the resourceVersion the API server last handed
 * this operator for an object, whether as the answer to a write or to a read.
 *
 * Why it exists: a watch lags. The operator's own write reaches its cache
 * only after the server has answered it, and not at all while the watch is
 * reconnecting. Acting on the cached copy in that gap would redo work the
 * operator has already done, or judge "nothing to do" from a status that
 * is no longer true. With the memo, a pass trusts a cached copy only when
 * its version is the one noted here, and otherwise fetches the object; the
 * cache catches up as soon as the watch delivers the write.
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
  /** A running count of notes; `sendList` compares it to spot later notes. */
  #notes = 0;
  /** One request at a time per object. */
  #requests = new KeyedQueue();

  /**
   * Whether a cached copy at `version` may be acted on: true unless the memo
   * holds a different version for the key. Keys it never noted pass at any
   * version, so objects this operator never wrote or read cost nothing.
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
   * Stores `version` as the newest one seen for `key`. Pass `""` when the
   * operator no longer knows the server's copy (the object vanished, or a
   * write failed and may still have been applied): no cached copy carries
   * an empty version, so every read of the key goes to the server until a
   * real version is noted.
   *
   * Most callers want {@linkcode Versions.prototype.send} instead, which
   * also serialises requests per key; bare notes from overlapping requests
   * can land in the wrong order.
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
   * Lists the keys the memo knows at a real version but the cache lacks,
   * typically objects created an instant ago that the watch has yet to
   * deliver. A pass that only walks the cache would overlook them and, say,
   * create them a second time.
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
   * Sends `request` (which resolves to a resourceVersion) and notes its
   * answer.
   *
   * Sends for one key form a line: each starts after the previous one has
   * ended, first come first served, while other keys proceed in parallel.
   * That line is what keeps the memo truthful. If two overlapping writes of
   * one object were allowed, the reply to the earlier write could be
   * processed after the later one, and the memo would end up blessing the
   * older version.
   *
   * On failure the key is noted as `""` and the error is rethrown. The
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
   * Sends a list request (resolving to version by key) and notes every
   * entry.
   *
   * Why note a list at all: a pass may list straight from the server while
   * its cache is still filling. The cache's initial read can be served by
   * the API server's watch cache, which trails etcd, so the cache may
   * settle on versions older than the list's. Without these notes the next
   * pass would accept those older copies.
   *
   * Keys noted by some other request after this list was sent are left
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
   * Clears the keys that are missing both from a fresh list of the same
   * selection and from the cache: the object is gone on the server and the
   * watch has already removed it. Call it after each list when objects are
   * short-lived (one per job, per run), so the memo does not grow with
   * every name the process has ever touched.
   *
   * Keys the cache still holds stay noted on purpose: the cached copy of a
   * deleted object must stay untrusted until the watch drops it.
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
   * Clears one key, typically after the server answered 404 for it, so that
   * later lookups of the name trust the cache again instead of asking the
   * server every time.
   *
   * The key's line of sends is cleared too. Sends already in that line
   * still finish and note, but a send made after this call starts a new
   * line and may overlap them, so notes can land out of order. Call it only
   * when no send for the key is running or waiting.
   *
   * @param key The object's store key.
   */
  forget(key: string): void {
    this.#drop(key);
  }

  /**
   * Whether the key is noted at all, `""` included. This lets a cache that
   * holds a full selection answer "absent" with confidence: a key missing
   * from the cache but noted here was just created by this operator, or its
   * last request failed, so the cache's silence proves nothing.
   *
   * @param key The object's store key.
   * @returns `true` when the key has a record.
   */
  noted(key: string): boolean {
    return this.#records.has(key);
  }

  /**
   * Clears the key only if it is noted at exactly `version`, the version the
   * cache now holds. Once the watch has caught up with the noted version,
   * whatever it delivers next is newer, so the note protects nothing; left
   * in place, it would turn every later change by someone else into an
   * extra read. Test and clear happen together, so a newer note made in the
   * meantime survives. `""` never matches.
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
