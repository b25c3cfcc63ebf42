/**
 * The `Greeting` custom resource of the example operator: its spec names a
 * message; its status names the ConfigMap that holds the message and carries
 * a `Ready` condition.
 *
 * @module
 */
import {
  collectionPath,
  type KubeObject,
  objectPath,
  type Resource,
} from "../apiclient/mod.ts";
import type { Condition } from "../conditions/mod.ts";
import { defineResource, type ObjectOf } from "../resource/mod.ts";

/** A ConfigMap, as far as the example reads it. */
export interface ConfigMap extends KubeObject {
  /** The text entries. */
  data?: Record<string, string>;
}

/** The API group of `Greeting`. */
export const GROUP = "demo.liken.dev";
/** The API version of `Greeting`. */
export const VERSION = "v1alpha1";
/** The plural resource name of `Greeting`. */
export const RESOURCE = "greetings";
/** The kind. */
export const KIND = "Greeting";
/** `apiVersion` of a `Greeting`. */
export const API_VERSION = `${GROUP}/${VERSION}`;
/** The label the operator puts on every ConfigMap it makes. */
export const MANAGED_BY = "app.kubernetes.io/managed-by";
/** The value of {@linkcode MANAGED_BY}. */
export const OPERATOR = "greeting-operator";

/** What a `Greeting` asks for. */
export interface GreetingSpec {
  /** The message to publish in a ConfigMap. */
  message: string;
}

/** What the operator reports about a `Greeting`. */
export interface GreetingStatus {
  /** The generation the status was computed from. */
  observedGeneration?: number;
  /** The name of the ConfigMap that holds the message. */
  configMap?: string;
  /** The conditions; `Ready` says whether the ConfigMap holds the message. */
  conditions?: Condition[];
}

/** A `Greeting` object. */
export interface Greeting extends KubeObject {
  /** What it asks for. */
  spec: GreetingSpec;
  /** What the operator reported. */
  status?: GreetingStatus;
}

/** The schema of a status condition, as the conditions module writes it. */
const CONDITION = {
  type: "object",
  required: ["type", "status", "reason", "message", "lastTransitionTime"],
  properties: {
    type: { type: "string" },
    status: { type: "string", enum: ["True", "False", "Unknown"] },
    observedGeneration: { type: "integer", format: "int64" },
    reason: { type: "string" },
    message: { type: "string" },
    lastTransitionTime: { type: "string", format: "date-time" },
  },
} as const;

/**
 * The `Greeting` custom resource, defined once: its type, its `Resource`
 * and its CRD (`examples/manifests/crd.yaml` is generated from it by `deno
 * task manifests`, and the gate checks that the committed file matches).
 */
export const GREETING = defineResource({
  group: GROUP,
  version: VERSION,
  kind: KIND,
  plural: RESOURCE,
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
      },
      status: {
        type: "object",
        properties: {
          observedGeneration: { type: "integer", format: "int64" },
          configMap: { type: "string" },
          conditions: {
            type: "array",
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["type"],
            items: CONDITION,
          },
        },
      },
    },
  },
});

/** The Greetings collection (all namespaces). */
export const GREETINGS: Resource = {
  group: GROUP,
  version: VERSION,
  resource: RESOURCE,
};

// What the definition decodes must stay a Greeting: a schema change that
// breaks the operator's types fails the type check. (The other way round
// does not hold: the conditions module's Condition leaves
// lastTransitionTime optional, the CRD requires it.)
const _inferred: (g: ObjectOf<typeof GREETING>) => Greeting = (g) => g;
void _inferred;

/** The ConfigMaps collection (all namespaces). */
export const CONFIGMAPS: Resource = { version: "v1", resource: "configmaps" };

/**
 * The path of the Greetings of `namespace`, or of one Greeting: for tests
 * and the fake server's `object()`; the operator sends through
 * `client.resource(GREETINGS)`.
 *
 * @param namespace The namespace.
 * @param name The Greeting's name; absent for the collection.
 * @returns The API path.
 */
export function greetingPath(namespace: string, name?: string): string {
  return pathOf(GREETINGS, namespace, name);
}

/**
 * The path of the ConfigMaps of `namespace`, or of one ConfigMap: for tests
 * and the fake server's `object()`; the operator sends through
 * `client.resource(CONFIGMAPS)`.
 *
 * @param namespace The namespace.
 * @param name The ConfigMap's name; absent for the collection.
 * @returns The API path.
 */
export function configMapPath(namespace: string, name?: string): string {
  return pathOf(CONFIGMAPS, namespace, name);
}

function pathOf(resource: Resource, namespace: string, name?: string): string {
  return name === undefined
    ? collectionPath({ ...resource, namespace })
    : objectPath({ ...resource, namespace, name });
}

/**
 * The name of the ConfigMap a Greeting owns.
 *
 * @param greeting The Greeting's name.
 * @returns The ConfigMap's name.
 */
export function configMapName(greeting: string): string {
  return `${greeting}-greeting`;
}

/**
 * A new Greeting object, for a create.
 *
 * @param name The name.
 * @param message The message.
 * @returns The object.
 */
export function newGreeting(name: string, message: string): Greeting {
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    metadata: { name },
    spec: { message },
  };
}
