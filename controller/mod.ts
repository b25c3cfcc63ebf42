/**
 * The reconcile loop every operator needs: a work queue with client-go's
 * rules, watches that feed it (the primary collection, children through
 * their controlling owner, any collection through a mapping), workers that
 * reconcile one key at a time each, backoff and requeues, a sync gate, an
 * election gate with the write guard, the shutdown order of an operator,
 * and a finalizer helper.
 *
 * Permissions: those of the client (`--allow-net` to the API server);
 * {@linkcode stopOnSignals} needs none.
 *
 * @example A controller with an owned child
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   Client,
 *   controllerRef,
 *   type KubeObject,
 * } from "@liken/kubernetes/apiclient";
 * import { Controller } from "@liken/kubernetes/controller";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * const CONFIGMAPS = { version: "v1", resource: "configmaps", kind: "ConfigMap" };
 * const SECRETS = { version: "v1", resource: "secrets", namespaced: true };
 * await client
 *   .resource({ version: "v1", resource: "configmaps" })
 *   .namespace("default")
 *   .create({ metadata: { name: "a" } });
 * await using controller = new Controller<KubeObject>(client, {
 *   name: "mirror",
 *   for: CONFIGMAPS,
 *   owns: [SECRETS],
 *   reconcile: async ({ object, client }) => {
 *     if (object === undefined) return;
 *     const name = object.metadata.name!;
 *     try {
 *       await client.resource(SECRETS).namespace("default").create({
 *         metadata: { name, ownerReferences: [controllerRef(object, CONFIGMAPS)] },
 *       });
 *     } catch {
 *       // Already there.
 *     }
 *   },
 * });
 * await controller.idle();
 * assert.ok(server.object("/api/v1/namespaces/default/secrets/a"));
 * ```
 *
 * @example Apply a child, write the status, wire the metrics
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client, type KubeObject } from "@liken/kubernetes/apiclient";
 * import { Controller } from "@liken/kubernetes/controller";
 * import { Metrics } from "@liken/kubernetes/metrics";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * server.register({ group: "example.com", version: "v1", resource: "widgets", kind: "Widget", statusSubresource: true });
 * const client = new Client(server.url, { fetch: server.fetch });
 * const widgets = { group: "example.com", version: "v1", resource: "widgets", kind: "Widget" };
 * await client.resource(widgets).namespace("default").create({ metadata: { name: "w" } });
 * const metrics = new Metrics();
 * await using controller = new Controller<KubeObject>(client, {
 *   name: "widgets",
 *   for: widgets,
 *   owns: [{ version: "v1", resource: "configmaps" }],
 *   wiring: { metrics, events: { instance: "pod-1" } },
 *   reconcile: async (context) => {
 *     const name = context.ref.name;
 *     await context.apply({
 *       apiVersion: "v1",
 *       kind: "ConfigMap",
 *       metadata: { name, namespace: "default" },
 *     });
 *     await context.status({
 *       conditions: [{ type: "Ready", status: "True", reason: "Applied", message: "" }],
 *     });
 *   },
 * });
 * await controller.idle();
 * const child = server.object("/api/v1/namespaces/default/configmaps/w");
 * assert.equal(child?.metadata.ownerReferences?.[0]?.kind, "Widget");
 * assert.match(metrics.render(), /^controller_runtime_reconcile_total\{controller="widgets",result="success"\} \d+$/m);
 * ```
 *
 * @module
 */
export {
  CONTROLLER_UID_INDEX,
  controllerUid,
  meaningfulChange,
} from "./changes.ts";
export { Controller, type WatchedCollection } from "./controller.ts";
export {
  ApplyConflictError,
  type ApplyConflictErrorOptions,
  LeaseOutlivedError,
  ReconcileError,
  WatchMapError,
  type WatchMapErrorOptions,
} from "./errors.ts";
export {
  finalizer,
  type FinalizerOptions,
  type FinalizerTarget,
} from "./finalizer.ts";
export {
  type RetryOptions,
  type StopOptions,
  type TakeOptions,
  WorkQueue,
  type WorkQueueObserver,
  type WorkQueueOptions,
} from "./queue.ts";
export {
  Manager,
  type ManagerElection,
  type ManagerOptions,
  type ManagerShards,
  type ManagerTask,
} from "./manager.ts";
export {
  type SignalListeners,
  stopOnSignals,
  type StopOnSignalsOptions,
  type Stoppable,
} from "./signals.ts";
export { StopTimeoutError } from "../_internal/stop_timeout.ts";
export type {
  Action,
  ApplyChildOptions,
  ControllerEventsOptions,
  ControllerObserver,
  ControllerOptions,
  ControllerShards,
  ControllerWiring,
  Primary,
  Reconcile,
  ReconcileContext,
  StatusOptions,
  StatusPatch,
  Watch,
} from "./types.ts";
