// Request helpers that feed the memo. They talk to the API server only and
// never touch a cache, so a writer-only program can use them with no informer.
import type { Client } from "../apiclient/client.ts";
import { isStale } from "../apiclient/errors.ts";
import type { KubeList, KubeObject } from "../apiclient/types.ts";
import {
  objectKey,
  type ObjectRef,
  type Resource,
} from "../apiclient/resource.ts";
import type { Versions } from "./versions.ts";

/**
 * What every memo request takes: the memo and a signal. Also the options of
 * {@linkcode freshGet} and {@linkcode written}.
 */
export interface MemoOptions {
  /** The memo to note the answer in; absent or `undefined` notes nothing. */
  versions?: Versions | undefined;
  /**
   * Ends the wait for the object's earlier requests, and the request (for
   * {@linkcode written}, pass it to the request as well).
   */
  signal?: AbortSignal | undefined;
}

/** Options of {@linkcode settleStatus}. */
export interface SettleStatusOptions<T extends KubeObject> extends MemoOptions {
  /**
   * The caller's copy of the object, changed in place: `apply` edits it, a
   * stale write swaps in the fresh copy, and a landed write the reply. Pass
   * a clone, never the cache's own object. Its name and namespace must be
   * those of the ref.
   */
  held: T;
  /**
   * Computes the desired status from the object it receives, stores it on
   * that object, and returns `false` when the object already had it (so no
   * write is needed). Called once, or twice when the first write was stale
   * and a fresh copy had to be fetched, so it should depend only on the
   * object it is given.
   */
  apply: (copy: T) => boolean;
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
 * fails (a 404, say) the object is marked unknown (`""`) and the error is
 * rethrown. The read takes its turn in the object's line of sends, so it
 * never overtakes a write of the same object that is still in flight.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client } from "@liken/kubernetes/apiclient";
 * import { freshGet, Versions } from "@liken/kubernetes/memo";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * const web = { version: "v1", resource: "configmaps", namespace: "default", name: "web" };
 * await client.resource(web).create({ metadata: { name: "web" } });
 *
 * const versions = new Versions();
 * const fresh = await freshGet(client, web, { versions });
 * assert.equal(versions.current(web, fresh.metadata.resourceVersion!), true);
 * ```
 *
 * @typeParam T The object's type.
 * @param client The API client.
 * @param ref The object.
 * @param options The memo and a signal.
 * @returns The server's copy.
 */
export function freshGet<T extends KubeObject>(
  client: Client,
  ref: ObjectRef,
  options: MemoOptions = {},
): Promise<T> {
  const { signal, versions } = options;
  // A client bound to the memo notes the version its get answers.
  const reader = versions === undefined ? client : client.withMemo(versions);
  return reader.resource<T>(ref).get(
    ref.name,
    signal === undefined ? {} : { signal },
  );
}

/**
 * Lists a collection from the server, with its selectors, and records every
 * item's version (see {@linkcode Versions.prototype.sendList}), so that a
 * cache still warming up from older data cannot later pass its copies off as
 * current. Objects written while the list was in flight keep the writer's
 * version; a failed list records nothing.
 *
 * The list asks for no `resourceVersion`, so the server answers from etcd,
 * which includes every write it has acknowledged; only such an answer may
 * replace earlier notes. (With `resourceVersion=0` the answer may come from
 * the server's watch cache, which can trail those writes, and the memo would
 * end up trusting an outdated copy.)
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client } from "@liken/kubernetes/apiclient";
 * import { freshList, Versions } from "@liken/kubernetes/memo";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * const configMaps = client
 *   .resource({ version: "v1", resource: "configmaps" })
 *   .namespace("default");
 * await configMaps.create({ metadata: { name: "a", labels: { app: "web" } } });
 * await configMaps.create({ metadata: { name: "b" } });
 *
 * const versions = new Versions();
 * const web = {
 *   version: "v1",
 *   resource: "configmaps",
 *   namespace: "default",
 *   labelSelector: "app=web",
 * };
 * const items = await freshList(client, web, { versions });
 * assert.deepEqual(items.map((item) => item.metadata.name), ["a"]);
 * assert.equal(versions.noted({ ...web, name: "a" }), true);
 * ```
 *
 * @typeParam T The type of the items.
 * @param client The API client.
 * @param source The collection, and its selectors.
 * @param options The memo and a signal.
 * @returns The listed objects.
 */
export async function freshList<T extends KubeObject>(
  client: Client,
  source: Resource & {
    /** A label selector, such as `app=web`. */
    labelSelector?: string | undefined;
    /** A field selector, such as `metadata.name=web`. */
    fieldSelector?: string | undefined;
  },
  options: MemoOptions = {},
): Promise<T[]> {
  const { versions, signal } = options;
  const { labelSelector, fieldSelector } = source;
  const handle = client.resource<T>(source);
  const get = (): Promise<KubeList<T>> =>
    handle.list({
      ...(labelSelector ? { labelSelector } : {}),
      ...(fieldSelector ? { fieldSelector } : {}),
      ...(signal === undefined ? {} : { signal }),
    });
  if (versions === undefined) return (await get()).items ?? [];
  let items: T[] = [];
  await versions.sendList(source, async () => {
    items = (await get()).items ?? [];
    const listed = new Map<string, string>();
    for (const item of items) {
      listed.set(objectKey(item), item.metadata.resourceVersion ?? "");
    }
    return listed;
  });
  return items;
}

/**
 * Puts the status computed by `apply` on the `/status` subresource of the
 * object `ref` names, retrying once from a fresh copy if the first attempt
 * was stale.
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
 * returns along the way is recorded in `versions`, under `ref`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client, type KubeObject, objectRef } from "@liken/kubernetes/apiclient";
 * import { settleStatus, Versions } from "@liken/kubernetes/memo";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * type Pod = KubeObject & { spec: unknown; status?: { phase?: string } };
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * const pods = client.resource<Pod>({ version: "v1", resource: "pods" }).namespace("default");
 * const pod = await pods.create({
 *   apiVersion: "v1",
 *   kind: "Pod",
 *   metadata: { name: "p" },
 *   spec: { containers: [{ name: "app", image: "nginx" }] },
 * });
 * const ref = objectRef({ version: "v1", resource: "pods" }, pod);
 * const { landed, object } = await settleStatus(client, ref, {
 *   held: structuredClone(pod),
 *   versions: new Versions(),
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
 * @param ref The object.
 * @param options The caller's copy (`held`), `apply`, the memo, and a signal.
 * @returns Whether a write landed, and the newest copy.
 * @throws {TypeError} When `held` names another object than `ref`.
 */
export async function settleStatus<T extends KubeObject>(
  client: Client,
  ref: ObjectRef,
  options: SettleStatusOptions<T>,
): Promise<Settled<T>> {
  const { held, apply, signal } = options;
  refuseOther(ref, held);
  const { versions } = options;
  const writer = versions === undefined ? client : client.withMemo(versions);
  const status = writer.resource<T>(ref).status;
  const write = (copy: T): Promise<T> =>
    status.replace(copy, signal === undefined ? {} : { signal });
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
  const fresh = await freshGet<T>(client, ref, options);
  // A deep copy keeps `fresh` (the answer when no write is needed) apart
  // from what `apply` changes on `held`.
  replaceContents(held, structuredClone(fresh));
  if (!apply(held)) return { landed: false, object: fresh };
  return await land();
}

/** A held copy of another object than the ref names would be written there. */
function refuseOther(ref: ObjectRef, held: KubeObject): void {
  if (objectKey(held) !== objectKey(ref)) {
    throw new TypeError(
      `The held copy is ${objectKey(held)}, not ${
        objectKey(ref)
      } of ${ref.resource}`,
    );
  }
}

/** Makes `target` hold exactly the own properties of `source`. */
function replaceContents(target: object, source: object): void {
  for (const name of Object.keys(target)) {
    delete (target as Record<string, unknown>)[name];
  }
  Object.assign(target, source);
}
