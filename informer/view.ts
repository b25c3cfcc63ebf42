import type { KubeObject } from "../apiclient/types.ts";
import type { Source, View, ViewOptions, Watched } from "./types.ts";

/**
 * The view the cached reads take (their `view` option): a running watch's
 * store, or (given a bare {@linkcode Source}) no store at all, which is
 * never ready and so sends every read to the API server. A read with no
 * watch can as well leave `view` out.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { view } from "@liken/kubernetes/informer";
 *
 * const none = view({ version: "v1", resource: "configmaps" });
 * assert.equal(none.ready(), false);
 * assert.equal(none.store, undefined);
 * ```
 *
 * @typeParam T The kind of the watched objects.
 * @param watched A running watch (such as a `Collection`), or the source
 * to read from the API server only.
 * @param options Whether the watch holds every object of its kind.
 * @returns The view.
 */
export function view<T extends KubeObject = KubeObject>(
  watched: Watched<T> | Source,
  options: ViewOptions = {},
): View<T> {
  if (!isWatched(watched)) {
    return {
      source: { ...watched },
      store: undefined,
      ready: () => false,
      whole: false,
    };
  }
  const source = watched.source;
  const { namespace, namespaces, labelSelector, fieldSelector } = source;
  return {
    source,
    store: watched.store,
    ready: () => watched.synced(),
    whole: options.whole ??
      (!namespace && namespaces === undefined && !labelSelector &&
        !fieldSelector),
    metadataOnly: watched.metadataOnly === true,
  };
}

function isWatched<T extends KubeObject>(
  value: Watched<T> | Source,
): value is Watched<T> {
  return "store" in value && typeof value.synced === "function";
}
