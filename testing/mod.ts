/**
 * Test helpers: an in-memory Kubernetes API server that answers the way the
 * real one does, faults to inject into it, fake time, test certificates and
 * a fake ServiceAccount directory.
 *
 * {@linkcode FakeApiServer} serves the REST API in memory through its
 * `fetch` (no sockets, so a test on fake time is deterministic), or over
 * HTTP and HTTPS on 127.0.0.1 with {@linkcode FakeApiServer.serve}. A test
 * injects faults ({@linkcode FakeApiServer.down}, {@linkcode FakeApiServer.refuse},
 * {@linkcode FakeApiServer.latency}, {@linkcode FakeApiServer.cutWatches},
 * {@linkcode FakeApiServer.corruptNextWatchLine},
 * {@linkcode FakeApiServer.compact}) and reads what the server received in
 * {@linkcode FakeApiServer.requests}.
 *
 * Permissions: none in memory; `--allow-net=127.0.0.1` to serve over the
 * network; `--allow-read` and `--allow-write` on the temp directory for
 * {@linkcode fakeServiceAccount}.
 *
 * @example A test of code that writes, waits on the clock, and writes again
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client, type KubeObject } from "@liken/kubernetes/apiclient";
 * import { FakeApiServer, installFakeTime } from "@liken/kubernetes/testing";
 *
 * interface ConfigMap extends KubeObject {
 *   data: Record<string, string>;
 * }
 *
 * // The code under test: create a ConfigMap, then mark it done 5 s later.
 * async function work(client: Client): Promise<void> {
 *   const path = "/api/v1/namespaces/default/configmaps";
 *   await client.create(path, { metadata: { name: "job" }, data: { state: "started" } });
 *   await new Promise((resolve) => setTimeout(resolve, 5_000));
 *   await client.patch(`${path}/job`, { data: { state: "done" } }, { type: "merge" });
 * }
 *
 * using time = installFakeTime({ now: Date.UTC(2030, 0, 1) });
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 *
 * const done = work(client);
 * await time.settle(); // the create is answered; the code waits on its timer
 * assert.equal(server.count({ method: "PATCH" }), 0);
 * await time.tick(5_000); // five fake seconds, no real waiting
 * await done;
 *
 * assert.deepEqual(server.requests.map((r) => r.method), ["POST", "PATCH"]);
 * assert.deepEqual(server.requests[1]!.body, { data: { state: "done" } });
 * assert.equal(server.requests[1]!.time, Date.UTC(2030, 0, 1, 0, 0, 5));
 * const stored = server.object<ConfigMap>(
 *   "/api/v1/namespaces/default/configmaps/job",
 * );
 * assert.equal(stored?.data.state, "done");
 * ```
 *
 * @module
 */
export * from "./fake_server.ts";
export * from "./fake_time.ts";
export * from "./certs.ts";
export * from "./service_account.ts";
