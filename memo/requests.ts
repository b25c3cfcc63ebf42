// The requests whose answers the memo notes. None of them reads a watch's
// store, so a program that only writes can use them without an informer.
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
   * Composes the status from the copy it is given, sets it on that copy,
   * and answers whether the copy needs the write. It may run twice: on the
   * held copy, and again on a fresh one.
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
 * Reads one object from the API server and notes its version, so the next
 * pass knows a store's copy older than this one is stale. A failed read
 * (such as a 404) notes the empty version and rejects.
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
 * Reads a collection from the API server and notes the version of each
 * object it answers (see {@linkcode Versions.prototype.sendList}): a pass
 * that lists before the watch's store is ready must not later take the
 * store's older copies as current. A write noted while the list is in
 * flight keeps its own version; a failed list notes nothing.
 *
 * The list must be answered by etcd: send no `resourceVersion` (above all
 * not `resourceVersion=0`). The notes replace versions noted before the list
 * was sent, which is right only when the list holds every write the server
 * answered before it. A list with `resourceVersion=0` is served from the API
 * server's watch cache, which can run behind such a write, and its older
 * version would then count as current.
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
 * Sends one request that answers an object (a create, an update, an apply, a
 * patch) and notes the version of the copy the server answered. Requests
 * about one object through one memo run one at a time, so their notes keep
 * the server's order. A failed request answers no copy, and notes that the
 * operator holds no current one: the write may have landed even so.
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
    return answer.metadata.resourceVersion ?? "";
  }, signal === undefined ? {} : { signal });
  return answer!;
}

/**
 * Writes the status that `apply` sets, and settles on the server's copy.
 *
 * `apply` runs on `held` (changing it), and answers whether it needs the
 * write; only then is the status written. A write refused because `held` is
 * older than the server's copy (409), or because the object is gone (404),
 * reads the object again, copies the fresh copy into `held`, applies again,
 * and writes once more if the fresh copy still needs it: another writer may
 * have changed the object meanwhile, but may also have written the same
 * status already. A read that finds the object gone rejects with
 * `NotFoundError`, which a caller treats as an absent object. A second
 * refusal rejects as well; the next pass tries again.
 *
 * After an error, `held` still carries the status `apply` set, which the
 * server did not take. Each copy the server answers is noted in `versions`.
 * Use the answered `object`, not `held`, for the next write: it carries the
 * new resourceVersion.
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
 * @param held The caller's copy; `apply` changes it, and a refused write
 *   replaces its contents with a copy of the server's.
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
