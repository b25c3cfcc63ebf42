/**
 * Status conditions: the `metav1.Condition` shape that `kubectl wait
 * --for=condition=Ready` and `kubectl describe` read, and a setter that keeps
 * `lastTransitionTime` meaningful.
 *
 * A condition says what is true now, for automation; an Event (see
 * `@liken/kubernetes/events`) says what just happened, for a person. This
 * module imports nothing, so an API types module can declare conditions
 * without pulling in the HTTP client.
 *
 * @example Set a condition and find it again
 * ```ts
 * import assert from "node:assert/strict";
 * import { type Condition, find, set } from "@liken/kubernetes/conditions";
 *
 * const conditions: Condition[] = [];
 * assert.equal(set(conditions, { type: "Ready", status: "True", reason: "Serving", message: "" }), true);
 * assert.equal(find(conditions, "Ready")?.status, "True");
 * ```
 *
 * @module
 */
export * from "./conditions.ts";
