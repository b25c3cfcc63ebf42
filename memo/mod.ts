/**
 * The resourceVersion memo: never act on a copy older than your own last
 * write.
 *
 * Operators read from a watch cache, and that cache trails their own
 * writes: briefly in the normal case, for as long as a reconnect takes in
 * the bad one. {@linkcode Versions} keeps the resourceVersion of the last
 * server reply per object, so a pass can spot a cached copy that predates
 * its own write and fetch the object instead of acting twice. The helpers
 * ({@linkcode readFresh}, {@linkcode readList}, {@linkcode written},
 * {@linkcode settleStatus}) name the object by an `ObjectRef` (or the
 * collection by a `Resource`) from `@liken/kubernetes/apiclient` and record
 * their replies; each takes `versions` as an option, where none records
 * nothing.
 *
 * Needs no permissions of its own; the client's requests need
 * `--allow-net=<api host>`.
 *
 * @example A write the watch has not delivered yet
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   Client,
 *   collectionPath,
 *   objectKey,
 *   objectPath,
 * } from "@liken/kubernetes/apiclient";
 * import { readFresh, Versions, written } from "@liken/kubernetes/memo";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * const versions = new Versions();
 * const web = { version: "v1", resource: "configmaps", namespace: "default", name: "web" };
 *
 * const made = await client.create(collectionPath(web), {
 *   metadata: { name: "web" },
 *   data: { mode: "a" },
 * });
 * // The store holds `made`; then the operator writes again.
 * const next = await written(
 *   web,
 *   () => client.replace(objectPath(web), { ...made, data: { mode: "b" } }),
 *   { versions },
 * );
 * // The store's copy is now stale: read the object from the server.
 * const stored = made;
 * assert.equal(versions.current(objectKey(stored), stored.metadata.resourceVersion!), false);
 * const fresh = await readFresh<typeof next>(client, web, { versions });
 * assert.deepEqual(fresh.data, { mode: "b" });
 * ```
 *
 * @module
 */
export * from "./versions.ts";
export * from "./requests.ts";
