// Request helpers that feed the memo. They talk to the API server only and
// never touch a cache, so a writer-only program can use them with no informer.
import type { Client } from "../apiclient/client.ts";
import { isStale } from "../apiclient/errors.ts";
import type { KubeList, KubeObject } from "../apiclient/types.ts";
import { key as keyOf } from "./keys.ts";
import type { Versions } from "./versions.ts";

/** Options of {@linkcode readFresh}. */
export interface ReadFreshOptions {
  /** The memo to note the answer in; `undefined` notes nothing. */
  versions: Versions | undefined;
  /** The object's store key (`namespace/name`, or `name`). */
  key: string;
  /** The object's API path. */
  path: string;
  /** Ends the wait for the object's earlier requests, and the read. */
  signal?: AbortSignal | undefined;
}

/** Options of {@linkcode readList}. */
export interface ReadListOptions {
  /** The memo to note the answers in; `undefined` notes nothing. */
  versions: Versions | undefined;
  /**
   * The collection's API path, with the selector of the watch the list
   * stands in for, and without `resourceVersion` (see {@linkcode readList}).
   */
  path: string;
  /** Ends the list. */
  signal?: AbortSignal | undefined;
}

/** Options of {@linkcode written}. */
export interface WrittenOptions {
  /** The memo to note the answer in; absent or `undefined` notes nothing. */
  versions?: Versions | undefined;
  /**
   * Ends the wait for the object's earlier requests. Pass it to the request
   * as well to end the request itself.
   */
  signal?: AbortSignal | undefined;
}

/** Options of {@linkcode settleStatus}. */
export interface SettleStatusOptions<T extends KubeObject> {
  /** The memo to note each answer in; `undefined` notes nothing. */
  versions: Versions | undefined;
  /** The object's API path, without `/status`. */
  path: string;
  /**
   * Computes the desired status from the object it receives, stores it on
   * that object, and returns `false` when the object already had it (so no
   * write is needed). Called once, or twice when the first write was stale
   * and a fresh copy had to be fetched, so it should depend only on the
   * object it is given.
   */
  apply: (copy: T) => boolean;
  /** Ends the requests. */
  signal?: AbortSignal | undefined;
}

/** What {@linkcode settleStatus} did. */
export interface Settled<T extends KubeObject> {
  /** Whether a status write landed. */
  landed: boolean;
  /**
   * The newest copy: the server's answer to the write that landed; when none
   * was needed, the copy read from the server, or the held copy when nothing
   * was sent.
   */
  object: T;
}

/**
 * GETs one object from the server and records its version in the memo,
 * which makes any older cached copy untrusted from then on. When the GET
 * fails (a 404, say) the key is marked unknown (`""`) and the error is
 * rethrown. The read takes its turn in the key's line of sends, so it never
 * overtakes a write of the same object that is still in flight.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client } from "@liken/kubernetes/apiclient";
 * import { readFresh, Versions } from "@liken/kubernetes/memo";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * await client.create("/api/v1/namespaces/default/configmaps", { metadata: { name: "web" } });
 *
 * const versions = new Versions();
 * const fresh = await readFresh(client, {
 *   versions,
 *   key: "default/web",
 *   path: "/api/v1/namespaces/default/configmaps/web",
 * });
 * assert.equal(versions.current("default/web", fresh.metadata.resourceVersion!), true);
 * ```
 *
 * @typeParam T The object's type.
 * @param client The API client.
 * @param options The memo, the object's key and path, and a signal.
 * @returns The server's copy.
 */
export function readFresh<T extends KubeObject>(
  client: Client,
  options: ReadFreshOptions,
): Promise<T> {
  const { versions, key, path, signal } = options;
  return written(
    key,
    () => client.get<T>(path, signal === undefined ? {} : { signal }),
    { versions, signal },
  );
}

/**
 * Lists a collection from the server and records every item's version (see
 * {@linkcode Versions.prototype.sendList}), so that a cache still warming up
 * from older data cannot later pass its copies off as current. Keys written
 * while the list was in flight keep the writer's version; a failed list
 * records nothing.
 *
 * Caveat: the path must not carry a `resourceVersion`, and never
 * `resourceVersion=0`. Without one, the server answers from etcd, which
 * includes every write it has acknowledged, and only then may the list's
 * versions replace earlier notes. With `resourceVersion=0` the answer may
 * come from the server's watch cache, which can trail those writes, and the
 * memo would end up trusting an outdated copy.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client } from "@liken/kubernetes/apiclient";
 * import { readList, Versions } from "@liken/kubernetes/memo";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * await client.create("/api/v1/namespaces/default/configmaps", { metadata: { name: "a" } });
 *
 * const versions = new Versions();
 * const items = await readList(client, {
 *   versions,
 *   path: "/api/v1/namespaces/default/configmaps",
 * });
 * assert.equal(items.length, 1);
 * assert.equal(versions.noted("default/a"), true);
 * ```
 *
 * @typeParam T The type of the items.
 * @param client The API client.
 * @param options The memo, the collection's path, and a signal.
 * @returns The listed objects.
 */
export async function readList<T extends KubeObject>(
  client: Client,
  options: ReadListOptions,
): Promise<T[]> {
  const { versions, path, signal } = options;
  const get = (): Promise<KubeList<T>> =>
    client.get<KubeList<T>>(path, signal === undefined ? {} : { signal });
  if (versions === undefined) return (await get()).items ?? [];
  let items: T[] = [];
  await versions.sendList(async () => {
    items = (await get()).items ?? [];
    const listed = new Map<string, string>();
    for (const item of items) {
      listed.set(keyOf(item), item.metadata.resourceVersion ?? "");
    }
    return listed;
  });
  return items;
}

/**
 * Wraps any request whose response is the object itself (create, replace,
 * patch, server-side apply) so the memo records the version it returns.
 * Calls for one key through one memo take turns, which keeps the notes in
 * the order the server produced them. If the request throws, the key is
 * marked unknown (`""`): the write might still have been applied, so only
 * a fresh read can be trusted afterwards.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client } from "@liken/kubernetes/apiclient";
 * import { Versions, written } from "@liken/kubernetes/memo";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * const versions = new Versions();
 * const made = await written(
 *   "default/web",
 *   () => client.create("/api/v1/namespaces/default/configmaps", { metadata: { name: "web" } }),
 *   { versions },
 * );
 * // The watch has not delivered it yet: the memo knows it exists.
 * assert.deepEqual(versions.unheld(new Map()), ["default/web"]);
 * assert.equal(versions.current("default/web", made.metadata.resourceVersion!), true);
 * ```
 *
 * @typeParam T The object's type.
 * @param key The object's store key.
 * @param request Sends the request and answers the server's copy.
 * @param options The memo and a signal.
 * @returns The server's copy.
 */
export async function written<T extends KubeObject>(
  key: string,
  request: () => Promise<T>,
  options: WrittenOptions = {},
): Promise<T> {
  const { versions, signal } = options;
  if (versions === undefined) return await request();
  let answer: T | undefined;
  await versions.send(key, async () => {
    answer = await request();
    // A reply without metadata (some servers answer a bare Status) must not
    // turn a write that landed into a thrown TypeError.
    return answer?.metadata?.resourceVersion ?? "";
  }, signal === undefined ? {} : { signal });
  return answer!;
}

/**
 * Puts the status computed by `apply` on the `/status` subresource,
 * retrying once from a fresh copy if the first attempt was stale.
 *
 * The sequence: `apply(held)`; if it reports no change, nothing is sent.
 * Otherwise the status is PUT. A 409 (someone wrote since `held` was read)
 * or a 404 triggers one GET; the fresh object replaces the contents of
 * `held`, `apply` runs on it again, and the status is PUT once more only if
 * still needed, because the other writer may already have set the very same
 * status. If the GET finds the object deleted, the `NotFoundError` is
 * rethrown for the caller to treat like any absent object. Any other
 * error, or a second refusal, is rethrown too: the next pass will retry.
 *
 * After a write lands, `held` is overwritten with (a copy of) the server's
 * reply, so it carries the new resourceVersion; after an error it keeps the
 * status `apply` set, which the server never took. Every version the server
 * returns along the way is recorded in `versions`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client, type KubeObject } from "@liken/kubernetes/apiclient";
 * import { settleStatus, Versions } from "@liken/kubernetes/memo";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * type Pod = KubeObject & { spec: unknown; status?: { phase?: string } };
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * const pod = await client.create<Pod>("/api/v1/namespaces/default/pods", {
 *   apiVersion: "v1",
 *   kind: "Pod",
 *   metadata: { name: "p" },
 *   spec: { containers: [] },
 * });
 * const { landed, object } = await settleStatus(client, pod, {
 *   versions: new Versions(),
 *   path: "/api/v1/namespaces/default/pods/p",
 *   apply: (copy) => {
 *     if (copy.status?.phase === "Running") return false;
 *     copy.status = { phase: "Running" };
 *     return true;
 *   },
 * });
 * assert.equal(landed, true);
 * assert.equal(object.status?.phase, "Running");
 * ```
 *
 * @typeParam T The object's type.
 * @param client The API client.
 * @param held The caller's copy, changed in place: `apply` edits it, a
 *   stale write swaps in the fresh copy, and a landed write the reply. Pass
 *   a clone, never the cache's own object.
 * @param options The memo, the object's path, `apply`, and a signal.
 * @returns Whether a write landed, and the newest copy.
 */
export async function settleStatus<T extends KubeObject>(
  client: Client,
  held: T,
  options: SettleStatusOptions<T>,
): Promise<Settled<T>> {
  const { versions, path, apply, signal } = options;
  const key = keyOf(held);
  const write = (copy: T): Promise<T> =>
    written(
      key,
      () =>
        client.replaceStatus<T>(
          path,
          copy,
          signal === undefined ? {} : { signal },
        ),
      { versions, signal },
    );
  const land = async (): Promise<Settled<T>> => {
    const answer = await write(held);
    // The caller's copy follows the server's, so its next write carries the
    // new resourceVersion instead of drawing a 409.
    replaceContents(held, structuredClone(answer));
    return { landed: true, object: answer };
  };
  if (!apply(held)) return { landed: false, object: held };
  try {
    return await land();
  } catch (error) {
    if (!isStale(error)) throw error;
  }
  const fresh = await readFresh<T>(client, { versions, key, path, signal });
  // A deep copy keeps `fresh` (the answer when no write is needed) apart
  // from what `apply` changes on `held`.
  replaceContents(held, structuredClone(fresh));
  if (!apply(held)) return { landed: false, object: fresh };
  return await land();
}

/** Makes `target` hold exactly the own properties of `source`. */
function replaceContents(target: object, source: object): void {
  for (const name of Object.keys(target)) {
    delete (target as Record<string, unknown>)[name];
  }
  Object.assign(target, source);
}
