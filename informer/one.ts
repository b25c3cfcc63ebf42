// Follows a single named object (a CA bundle, a serving certificate) and
// passes each new version to whoever owns it.
import type { Client } from "../apiclient/client.ts";
import type { KubeObject } from "../apiclient/types.ts";
import { objectKey, type ObjectRef } from "../apiclient/resource.ts";
import { Collection } from "./collection.ts";
import type { CollectionOptions } from "./types.ts";

/**
 * Options of {@linkcode watchOne}: the owner's callbacks, and the options of
 * {@linkcode CollectionOptions} other than the handler.
 *
 * @typeParam T The kind of the object.
 */
export interface WatchOneOptions<T extends KubeObject = KubeObject>
  extends Omit<CollectionOptions<T>, "handler" | "synced" | "indexers"> {
  /**
   * Gets every new version of the object, or `undefined` while there is
   * none. A version that fails `decode` is reported and skipped; the owner
   * keeps its previous copy, since the next version may be fine.
   */
  seen: (held: T | undefined) => void | Promise<void>;
  /**
   * Called once, right after `seen` has handled the outcome of the first
   * read (found or missing).
   */
  synced?: (() => void | Promise<void>) | undefined;
}

/**
 * Follows one object by name: a watch of its collection filtered by
 * `metadata.name=<name>` (a Role that names the object in `resourceNames` grants
 * that list and watch). Returns at once.
 *
 * `seen` gets every version of the object, and `undefined` when it does not
 * exist: once after a first read that did not find it, and after each
 * delete. A first read that found nothing is reported only when no event
 * reached the owner and the store is empty, so an object that arrives just
 * after the read is never reported absent after it was reported present.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client } from "@liken/kubernetes/apiclient";
 * import { watchOne } from "@liken/kubernetes/informer";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * const seen: (string | undefined)[] = [];
 * const { promise: synced, resolve } = Promise.withResolvers<void>();
 * await using _ = watchOne(client, {
 *   version: "v1",
 *   resource: "configmaps",
 *   namespace: "default",
 *   name: "ca",
 * }, { seen: (held) => void seen.push(held?.metadata.resourceVersion), synced: resolve });
 * await synced;
 * assert.deepEqual(seen, [undefined]);
 * ```
 *
 * @typeParam T The kind of the object.
 * @param client The API client.
 * @param ref The object.
 * @param options The owner's callbacks, and the signal that ends the watch.
 * @returns The running collection (its store holds at most the one object).
 */
export function watchOne<T extends KubeObject = KubeObject>(
  client: Client,
  ref: ObjectRef,
  options: WatchOneOptions<T>,
): Collection<T> {
  const { seen, synced, ...rest } = options;
  let arrived = false;
  // Set below, before the first event can run: the watch starts on a later
  // turn of the event loop.
  const { name: _, ...resource } = ref;
  const collection: Collection<T> = new Collection<T>(client, {
    ...resource,
    fieldSelector: `metadata.name=${ref.name}`,
  }, {
    ...rest,
    handler: {
      add: (object) => {
        arrived = true;
        return seen(object);
      },
      update: (_, object) => {
        arrived = true;
        return seen(object);
      },
      delete: () => {
        arrived = true;
        return seen(undefined);
      },
    },
    synced: async () => {
      // An object that exists but did not decode is held without a value:
      // it is not absent, so nothing is reported.
      if (!arrived && !collection.store.has(objectKey(ref))) {
        await seen(undefined);
      }
      if (synced !== undefined) await synced();
    },
  });
  return collection;
}
