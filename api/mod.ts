/**
 * Every built-in kind of Kubernetes v1.37.2, typed: one module per API
 * group and version (`@liken/kubernetes/api/core/v1`,
 * `@liken/kubernetes/api/apps/v1`, `@liken/kubernetes/api/batch/v1`, …),
 * generated from the API server's own OpenAPI and discovery
 * (`tools/api/generate.ts`). Each holds:
 *
 * - a type per schema, with the API's descriptions and required fields; a
 *   kind (`Deployment`) is a `KubeObject`, with `metadata` required and
 *   literal `apiVersion` and `kind`; `Quantity` and `Time` are strings,
 *   `IntOrString` is `number | string`;
 * - its apply configuration for server-side apply (`DeploymentApply`):
 *   every field optional but the list-map keys of list items
 *   (`containers[].name`), atomic lists whole;
 * - a {@linkcode BuiltinResource} per collection (`DEPLOYMENTS`), which
 *   types what `client.resource()` reads.
 *
 * Types only, plus those small constants: a graph pulls the group-versions
 * it imports and nothing else. Beside each, `…/schemas`
 * (`@liken/kubernetes/api/batch/v1/schemas`) holds each object type's
 * schema as a CustomResourceDefinition embeds it (`JOB_TEMPLATE_SPEC`, a
 * {@linkcode BuiltinSchema}), for a `defineResource` field typed as the
 * built-in type; those are runtime objects, imported only where used. This
 * module holds the hand-written shapes they share.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client } from "@liken/kubernetes/apiclient";
 * import { type Deployment, DEPLOYMENTS } from "@liken/kubernetes/api/apps/v1";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * const deployments = client.resource(DEPLOYMENTS).namespace("default");
 * const made: Deployment = await deployments.create({
 *   metadata: { name: "web" },
 *   spec: {
 *     selector: { matchLabels: { app: "web" } },
 *     template: {
 *       metadata: { labels: { app: "web" } },
 *       spec: { containers: [{ name: "web", image: "nginx" }] },
 *     },
 *   },
 * });
 * assert.equal(made.spec.template.spec?.containers[0]?.image, "nginx");
 * ```
 *
 * @module
 */

export type { BuiltinResource, BuiltinSchema, Keyed } from "./types.ts";
