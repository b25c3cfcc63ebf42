/**
 * `@liken/kubernetes`: write Kubernetes operators in Deno that run as pods.
 *
 * Each runtime module is re-exported here under its own namespace; import the
 * module paths (such as `@liken/kubernetes/apiclient`) to keep an import graph
 * small. The fake API server lives in `@liken/kubernetes/testing`.
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
export * as memo from "./memo/mod.ts";
