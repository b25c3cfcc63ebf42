/**
 * `@liken/kubernetes`: write Kubernetes operators in Deno that run as pods.
 *
 * The core runtime modules (`apiclient`, `conditions`, `controller`,
 * `election`, `events`, `informer`, `log` and `memo`) are re-exported here under
 * their own namespaces; the others (`api/…`, `kubeconfig`, `manifests`,
 * `metrics`, `resource`, `shard`, `webhook`) are imported by their paths only,
 * as are the core ones to keep an import graph small (such as
 * `@liken/kubernetes/apiclient`). The fake API server lives in
 * `@liken/kubernetes/testing`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { apiclient, conditions } from "@liken/kubernetes";
 *
 * assert.equal(typeof apiclient.Client, "function");
 * assert.equal(typeof conditions.set, "function");
 * ```
 *
 * @module
 */
export * as apiclient from "./apiclient/mod.ts";
export * as conditions from "./conditions/mod.ts";
export * as controller from "./controller/mod.ts";
export * as election from "./election/mod.ts";
export * as events from "./events/mod.ts";
export * as informer from "./informer/mod.ts";
export * as log from "./log/mod.ts";
export * as memo from "./memo/mod.ts";
