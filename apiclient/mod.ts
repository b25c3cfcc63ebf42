/**
 * A client of the Kubernetes API server for operators that run as pods: it
 * needs nothing but the pod's ServiceAccount, reads the rotating token on
 * every request, maps failures to typed errors, waits out short 429s, lets a
 * write guard stop writes and observers (which add up) hear every outcome
 * with the server's `Warning` headers, and streams watches that end when
 * asked and never hang silently. Things on the server are named by a
 * {@linkcode Resource} (which collection) or an {@linkcode ObjectRef} (which
 * object); paths and store keys derive from them ({@linkcode collectionPath},
 * {@linkcode objectPath}, {@linkcode objectKey}, {@linkcode objectRef}).
 * {@linkcode Client.resource} answers the handle of a collection
 * ({@linkcode ResourceClient}: `get`, `list`, `watch`, `create`, `replace`,
 * `patch`, `apply`, `delete`, `status`), which builds every path and query;
 * the path-based calls stay for the unusual.
 *
 * Permissions: `--allow-net=<api host>`; for {@linkcode Client.inCluster} also
 * `--allow-env=KUBERNETES_SERVICE_HOST,KUBERNETES_SERVICE_PORT` and
 * `--allow-read=/var/run/secrets/kubernetes.io/serviceaccount`.
 *
 * @example In a pod
 * ```ts ignore
 * import { Client, collectionPath } from "@liken/kubernetes/apiclient";
 *
 * using client = await Client.inCluster();
 * const pods = await client.get<{ items: unknown[] }>(
 *   collectionPath({ version: "v1", resource: "pods", namespace: client.defaultNamespace }),
 * );
 * console.log(pods.items.length);
 * ```
 *
 * @example Against the fake API server
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client, collectionPath } from "@liken/kubernetes/apiclient";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * const path = collectionPath({ version: "v1", resource: "configmaps", namespace: "default" });
 * const made = await client.create(path, { metadata: { name: "a" } });
 * assert.equal(made.metadata.namespace, "default");
 * ```
 *
 * @example A handle of a collection
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client, type Resource } from "@liken/kubernetes/apiclient";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * const CONFIGMAPS: Resource = { version: "v1", resource: "configmaps", namespaced: true };
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * const configMaps = client.resource(CONFIGMAPS).namespace("default");
 * await configMaps.create({ metadata: { name: "a", labels: { app: "web" } } }, {
 *   fieldValidation: "Strict",
 * });
 * const web = await configMaps.list({ labelSelector: "app=web" });
 * assert.equal(web.items.length, 1);
 * ```
 *
 * @module
 */
export * from "./client.ts";
export * from "./errors.ts";
export * from "./handle.ts";
export * from "./options.ts";
export * from "./owners.ts";
export * from "./path_client.ts";
export * from "./resource.ts";
export * from "./rest_client.ts";
export * from "./status_handle.ts";
export * from "./types.ts";
export * from "./watch.ts";
