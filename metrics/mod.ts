/**
 * Metrics, health and readiness for an operator in a pod: counters, gauges
 * and histograms in the Prometheus text exposition format (0.0.4), wired to
 * the client, the informer's collections, the election, the Event recorder
 * and the controller with one call each, and `/healthz`, `/readyz` and
 * `/metrics` on `Deno.serve`. The names are client-go's and
 * controller-runtime's where they have one, so shared dashboards and alerts
 * work. No runtime dependency. Every other part is fed through its hooks;
 * only the controller's `Manager` imports this module, to serve its
 * `probes`.
 *
 * @example An operator's probes and metrics
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client } from "@liken/kubernetes/apiclient";
 * import { Collection } from "@liken/kubernetes/informer";
 * import { Metrics, ProbeServer } from "@liken/kubernetes/metrics";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const metrics = new Metrics();
 * const client = metrics.client(new Client(server.url, { fetch: server.fetch }));
 * const source = { version: "v1", resource: "configmaps" };
 * await using configMaps = new Collection(client, source, {
 *   ...metrics.collection(source),
 * });
 * metrics.healthCheck("configmaps watch", configMaps);
 * // In a pod: new ProbeServer(metrics) listens on 0.0.0.0:8080.
 * await using probes = new ProbeServer(metrics, { hostname: "127.0.0.1", port: 0 });
 * const base = `http://127.0.0.1:${probes.port}`;
 * let ready = await fetch(`${base}/readyz`);
 * while (ready.status !== 200) {
 *   await ready.body?.cancel();
 *   await new Promise((resolve) => setTimeout(resolve, 5));
 *   ready = await fetch(`${base}/readyz`);
 * }
 * await ready.body?.cancel();
 * const text = await (await fetch(`${base}/metrics`)).text();
 * assert.match(text, /^informer_synced\{collection="configmaps"\} 1$/m);
 * ```
 *
 * @module
 */

export * from "./metrics.ts";
export * from "./probes.ts";
export * from "./registry.ts";
export * from "./types.ts";
