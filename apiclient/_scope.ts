// Where a handle's call goes: the namespace rules of ResourceClient and
// StatusClient, in one place. A handle without a namespace takes an object's
// own; one with a namespace refuses an object of another; a cluster-scoped
// resource has none; a namespaced one needs one to name an object.
import type { ObjectRef, Resource } from "./resource.ts";
import type { KubeObject } from "./types.ts";
import { collectionName } from "../_internal/names.ts";

/** A copy of `resource`, refused when it is cluster-scoped yet names a namespace. */
export function checked(resource: Resource): Resource {
  if (resource.namespaced === false && resource.namespace) {
    throw new TypeError(
      `The resource ${
        describe(resource)
      } is cluster-scoped (namespaced: false): it has no namespace "${resource.namespace}"`,
    );
  }
  return { ...resource };
}

/** The resource's name in a message: `configmaps`, `greetings.example.com`. */
export function describe(resource: Resource): string {
  return collectionName({ ...resource, namespace: undefined });
}

/** The object `name` names through the handle of `resource`. */
export function named(
  resource: Resource,
  name: string,
  call: string,
): ObjectRef {
  if (typeof name !== "string" || name === "") {
    throw new TypeError(
      `A ${call} of ${describe(resource)} needs the object's name`,
    );
  }
  if (!resource.namespace && resource.namespaced === true) {
    throw new TypeError(
      `A ${call} of ${
        describe(resource)
      } "${name}" needs a namespace: the handle spans all namespaces (call .namespace() first)`,
    );
  }
  return { ...resource, name };
}

/**
 * The collection an object goes to through the handle of `resource`: the
 * handle's namespace, else the object's own; a difference is refused.
 */
export function placed(
  resource: Resource,
  object: KubeObject,
  call: string,
): Resource {
  const own = object?.metadata?.namespace || undefined;
  const name = object?.metadata?.name ?? object?.metadata?.generateName ?? "";
  const what = `${describe(resource)} "${name}"`;
  if (resource.namespaced === false) return resource;
  if (resource.namespace) {
    if (own !== undefined && own !== resource.namespace) {
      throw new TypeError(
        `A ${call} of ${what} is refused: the object's namespace "${own}" is not the handle's "${resource.namespace}"`,
      );
    }
    return resource;
  }
  if (own !== undefined) return { ...resource, namespace: own };
  if (resource.namespaced === true) {
    throw new TypeError(
      `A ${call} of ${what} needs a namespace: neither the handle nor the object's metadata.namespace names one`,
    );
  }
  return resource;
}

/** The object `metadata.name` names, placed as `placed` does. */
export function target(
  resource: Resource,
  object: KubeObject,
  call: string,
): ObjectRef {
  const name = object?.metadata?.name;
  if (typeof name !== "string" || name === "") {
    throw new TypeError(
      `A ${call} of ${describe(resource)} needs the object's metadata.name`,
    );
  }
  return { ...placed(resource, object, call), name };
}
