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
 * {@linkcode freshList}, {@linkcode settleStatus},
 * {@linkcode Versions.prototype.send}. Writes are noted by binding the client
 * once: `client.withMemo(versions)` (from `@liken/kubernetes/apiclient`)
 * notes every write of its resource-scoped handles, so none escapes the
 * memo; a reconcile's `context.client` is bound to its controller's memo.
 *
 * Needs no permissions of its own; the client's requests need
 * `--allow-net=<api host>`.
 *
 * @example A write the watch has not delivered yet
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client, type KubeObject } from "@liken/kubernetes/apiclient";
 * import { freshGet, Versions } from "@liken/kubernetes/memo";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const versions = new Versions();
 * const client = new Client(server.url, { fetch: server.fetch }).withMemo(versions);
 * const web = { version: "v1", resource: "configmaps", namespace: "default", name: "web" };
 * const configMaps = client.resource<KubeObject & { data?: Record<string, string> }>(web);
 *
 * const made = await configMaps.create({
 *   metadata: { name: "web" },
 *   data: { mode: "a" },
 * });
 * // The store holds `made`; then the operator writes again.
 * const next = await configMaps.replace({ ...made, data: { mode: "b" } });
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
