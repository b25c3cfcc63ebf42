/**
 * Paths and objects for the example's tests and demo: the operator itself
 * sends through `client.resource(...)` and never builds a path.
 *
 * @module
 */
import { collectionPath, objectPath, type Resource } from "../apiclient/mod.ts";
import { CONFIGMAPS, GREETING, type Greeting } from "./greeting.ts";

/**
 * The path of the Greetings of `namespace`, or of one Greeting.
 *
 * @param namespace The namespace.
 * @param name The Greeting's name; absent for the collection.
 * @returns The API path.
 */
export function greetingPath(namespace: string, name?: string): string {
  return pathOf(GREETING, namespace, name);
}

/**
 * The path of the ConfigMaps of `namespace`, or of one ConfigMap.
 *
 * @param namespace The namespace.
 * @param name The ConfigMap's name; absent for the collection.
 * @returns The API path.
 */
export function configMapPath(namespace: string, name?: string): string {
  return pathOf(CONFIGMAPS, namespace, name);
}

function pathOf(resource: Resource, namespace: string, name?: string): string {
  const { group, version } = resource;
  const base: Resource = group
    ? { group, version, resource: resource.resource }
    : { version, resource: resource.resource };
  return name === undefined
    ? collectionPath({ ...base, namespace })
    : objectPath({ ...base, namespace, name });
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
    apiVersion: GREETING.apiVersion,
    kind: GREETING.kind,
    metadata: { name },
    spec: { message },
  } as Greeting;
}
