/**
 * The `Greeting` custom resource of the example operator, defined once: its
 * spec names a message; its status names the ConfigMap that holds the
 * message and carries a `Ready` condition. Its TypeScript type, its
 * `Resource` and its CRD all come from {@linkcode GREETING}.
 *
 * @module
 */
import {
  CONDITIONS_SCHEMA,
  defineResource,
  type ObjectOf,
} from "../resource/mod.ts";

/** The label the operator puts on every ConfigMap it makes. */
export const MANAGED_BY = "app.kubernetes.io/managed-by";
/** The value of {@linkcode MANAGED_BY}. */
export const OPERATOR = "greeting-operator";
/** The labels of every ConfigMap the operator makes. */
export const LABELS: Readonly<Record<string, string>> = {
  [MANAGED_BY]: OPERATOR,
};
/** The label selector of the ConfigMaps the operator made. */
export const SELECTOR = `${MANAGED_BY}=${OPERATOR}`;

/**
 * The `Greeting` custom resource, defined once: its type, its `Resource`
 * and its CRD (`examples/manifests/crd.yaml` is generated from it by `deno
 * task manifests`, and the gate checks that the committed file matches).
 */
export const GREETING = defineResource({
  group: "demo.liken.dev",
  version: "v1alpha1",
  kind: "Greeting",
  plural: "greetings",
  scope: "Namespaced",
  shortNames: ["greet"],
  status: true,
  printerColumns: [
    { name: "Message", type: "string", jsonPath: ".spec.message" },
    {
      name: "Ready",
      type: "string",
      jsonPath: '.status.conditions[?(@.type=="Ready")].status',
    },
    { name: "ConfigMap", type: "string", jsonPath: ".status.configMap" },
    { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
  ],
  schema: {
    type: "object",
    required: ["spec"],
    properties: {
      spec: {
        type: "object",
        required: ["message"],
        properties: { message: { type: "string", maxLength: 4096 } },
        // A CEL rule the API server (and the fake) enforces on every write.
        "x-kubernetes-validations": [{
          rule: "self.message.lowerAscii() != 'goodbye'",
          messageExpression:
            "'a Greeting greets: ' + self.message + ' is a farewell'",
        }],
      },
      status: {
        type: "object",
        properties: {
          observedGeneration: { type: "integer", format: "int64" },
          configMap: { type: "string" },
          conditions: CONDITIONS_SCHEMA,
        },
      },
    },
  },
});

/** A `Greeting` object, as the definition decodes it. */
export type Greeting = ObjectOf<typeof GREETING>;

// The built-in ConfigMap, typed from the API server's own OpenAPI.
export { type ConfigMap, CONFIGMAPS } from "../api/core/v1/mod.ts";

/**
 * The name of the ConfigMap a Greeting owns.
 *
 * @param greeting The Greeting's name.
 * @returns The ConfigMap's name.
 */
export function configMapName(greeting: string): string {
  return `${greeting}-greeting`;
}
