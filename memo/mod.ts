/**
 * The resourceVersion memo: never act on a copy older than your own last
 * write.
 *
 * Operators read from a watch cache, and that cache trails their own
 * writes: briefly in the normal case, for as long as a reconnect takes in
 * the bad one. {@linkcode Versions} keeps the resourceVersion of the last
 * server reply per object, so a pass can spot a cached copy that predates
 * its own write and fetch the object instead of acting twice.
 *
 * Every call has one shape: the client (where there is a request), then
 * which object (an `ObjectRef` from `@liken/kubernetes/apiclient`: the memo
 * files its notes under the ref's group, resource, namespace and name, so one
 * memo serves every kind) or which collection (the informer's `Source`: a
 * `Resource` and its selectors), then one options object with the memo as
 * `versions` (none records nothing) and a `signal`: {@linkcode freshGet},
 * {@linkcode freshList}, {@linkcode written}, {@linkcode settleStatus},
 * {@linkcode Versions.prototype.send}.
 *
 * Needs no permissions of its own; the client's requests need
 * `--allow-net=<api host>`.
 *
 * @example A write the watch has not delivered yet
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client, type KubeObject } from "@liken/kubernetes/apiclient";
 * import { freshGet, Versions, written } from "@liken/kubernetes/memo";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * const versions = new Versions();
 * const web = { version: "v1", resource: "configmaps", namespace: "default", name: "web" };
 * const configMaps = client.resource<KubeObject & { data?: Record<string, string> }>(web);
 *
 * const made = await configMaps.create({
 *   metadata: { name: "web" },
 *   data: { mode: "a" },
 * });
 * // The store holds `made`; then the operator writes again.
 * const next = await written(
 *   web,
 *   () => configMaps.replace({ ...made, data: { mode: "b" } }),
 *   { versions },
 * );
 * // The store's copy is now stale: read the object from the server.
 * const stored = made;
 * assert.equal(versions.current(web, stored.metadata.resourceVersion!), false);
 * const fresh = await freshGet<typeof next>(client, web, { versions });
 * assert.deepEqual(fresh.data, { mode: "b" });
 * ```
 *
 * @module
 */
export * from "./versions.ts";
export * from "./requests.ts";
