/**
 * The manifests an operator ships, derived from its code so that they
 * cannot drift: RBAC rules from the controllers' options ({@linkcode rbac},
 * {@linkcode rulesOf}), the CRD from a `defineResource` definition (its
 * `crd()`), admission policies for the operator's resources
 * ({@linkcode validatingPolicy}, {@linkcode mutatingPolicy}), written as
 * YAML ({@linkcode yaml}). A task writes the files
 * and a test compares the committed ones with what the code says, so that
 * an edit without regenerating fails the gate.
 *
 * @example A task that writes rbac.yaml
 * ```ts
 * import assert from "node:assert/strict";
 * import { rbac, yaml } from "@liken/kubernetes/manifests";
 *
 * const text = yaml(rbac({
 *   name: "web-operator",
 *   serviceAccount: { namespace: "ops", name: "web-operator" },
 *   controllers: [{
 *     name: "web",
 *     for: { version: "v1", resource: "configmaps", kind: "ConfigMap", namespace: "shop" },
 *     reconcile: () => {},
 *     wiring: { events: {} },
 *   }],
 * }));
 * // In a task: await Deno.writeTextFile("manifests/rbac.yaml", text);
 * assert.match(text, /kind: Role\n/);
 * assert.doesNotMatch(text, /ClusterRole/);
 * ```
 *
 * @module
 */
export * from "./rbac.ts";
export * from "./policies.ts";
export * from "./webhooks.ts";
export * from "./yaml.ts";
