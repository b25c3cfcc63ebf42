// Which collection a watch follows, or a list reads: a resource and the part
// of it. Its own file so that the memo's requests can name it without the
// rest of the informer.
import type { Resource } from "../apiclient/resource.ts";
import type { KubeObject } from "../apiclient/types.ts";

/**
 * Which collection: a {@linkcode Resource} (from
 * `@liken/kubernetes/apiclient`) and the part of it that a watch follows or
 * a list reads. A selector makes the API server filter, so objects the
 * operator never reads are never sent.
 *
 * @example
 * ```ts
 * import type { Source } from "@liken/kubernetes/informer";
 *
 * const web: Source = {
 *   version: "v1",
 *   resource: "configmaps",
 *   namespace: "default",
 *   labelSelector: "app=web",
 * };
 * void web;
 * ```
 */
export interface Source<T extends KubeObject = KubeObject> extends Resource<T> {
  /** A label selector, such as `app=web`. */
  labelSelector?: string | undefined;
  /** A field selector, such as `metadata.name=web`. */
  fieldSelector?: string | undefined;
  /**
   * A set of namespaces, instead of `namespace`: a watch over it opens one
   * list and watch per namespace (never a request across all namespaces,
   * so it needs no cluster-wide permission) and merges them into one store.
   * Duplicates count once. Refused (a `TypeError`) together with
   * `namespace`, when empty or with an empty name, and for a cluster-scoped
   * resource (`namespaced: false`).
   */
  namespaces?: readonly string[] | undefined;
}
