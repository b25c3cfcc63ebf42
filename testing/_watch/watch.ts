/**
 * The watch verb: which events a watch starts with, which changes it sees,
 * its bookmarks and its timeout.
 *
 * @module
 */
import type {
  KubeObject,
  ObjectMeta,
  WatchEvent,
} from "../../apiclient/types.ts";
import { badRequest, failure } from "../_verbs/status.ts";
import type { Change } from "../_store/store.ts";
import type { ListOptions } from "../_options.ts";
import { apiVersionOf, resourceKey } from "../_store/objects.ts";
import { selectorOf } from "../_verbs/reads.ts";
import type { Route } from "../_http/route.ts";
import type { ServerState } from "../_store/state.ts";
import type { Encoder } from "../_store/metadata.ts";
import { WatchStream } from "./watch_stream.ts";
import { view } from "../_http/served.ts";
import { watchConversion } from "../_crds/conversion.ts";
import type { RegisteredResource } from "../types.ts";
import { MAX_TIMER } from "../../_internal/sleep.ts";

const INITIAL_EVENTS_END = "k8s.io/initial-events-end";

/**
 * A watch: the initial events (or the changes since a version, or 410 when
 * it is compacted away), then every change, with bookmarks and the timeout,
 * as the API server's watch cache answers.
 */
export function watchObjects(
  state: ServerState,
  route: Route,
  query: URLSearchParams,
  options: ListOptions,
  signal: AbortSignal,
  table?: Encoder,
): Response {
  const { resource, namespace, name } = route;
  let selected = selectorOf(query, resource);
  if (name !== undefined) {
    const bySelector = selected;
    selected = (o) => bySelector(o) && (o as KubeObject).metadata.name === name;
  }
  const { bookmarks, sendInitialEvents } = options;
  const rvText = options.resourceVersion;
  let from: number | undefined;
  if (rvText !== "" && rvText !== "0") {
    from = Number(rvText);
    if (!Number.isInteger(from) || from < 0) {
      throw badRequest(`resourceVersion: Invalid value: "${rvText}"`);
    }
  }
  // As the watch cache decides: the current objects first when asked
  // for, or by default when no version is given; sendInitialEvents=false
  // without a version starts at the newest version, with nothing replayed.
  const initial = sendInitialEvents ?? from === undefined;
  const since = from ?? state.store.rv;
  const timeoutText = query.get("timeoutSeconds");
  const timeout = timeoutText === null ? undefined : Number(timeoutText);

  const rkey = resourceKey(resource);
  const inScope = (object: KubeObject | undefined): boolean =>
    object !== undefined &&
    (namespace === undefined || object.metadata.namespace === namespace) &&
    selected(object);

  const onAbort = (): void => watch.close();
  const watch = new WatchStream(
    () => state.takeCorruption(),
    () => {
      ended.abort();
      state.watches.delete(watch);
      signal.removeEventListener("abort", onAbort);
    },
    table,
  );
  state.watches.add(watch);
  // Through a conversion webhook, each event is converted as it goes out,
  // in order; else it is sent as it is.
  const ended = new AbortController();
  const convert = watchConversion(
    state,
    resource,
    AbortSignal.any([signal, ended.signal]),
  );
  const show = (object: KubeObject): KubeObject =>
    convert === undefined ? view(resource, object) : object;
  let queue = Promise.resolve();
  const send = (event: WatchEvent): void => {
    if (convert === undefined) return watch.send(event);
    queue = queue.then(async () => {
      try {
        watch.send(await convert(event));
      } catch { /* the watch ended */ }
    });
  };
  const events: WatchEvent[] = [];
  let open = true;
  if (initial) {
    for (const [, object] of state.store.all(rkey)) {
      if (inScope(object)) {
        events.push({ type: "ADDED", object: show(object) });
      }
    }
    // The end marker only when asked for, and only with bookmarks allowed.
    if (sendInitialEvents && bookmarks) {
      events.push(bookmark(state, resource, true));
    }
  } else if (since < state.store.compacted) {
    events.push({
      type: "ERROR",
      object: failure(
        410,
        "Expired",
        `too old resource version: ${since} (${state.store.compacted})`,
      ),
    });
    open = false;
  } else {
    for (const change of state.store.since(rkey, since)) {
      const event = translate(change, inScope, show);
      if (event) events.push(event);
    }
  }
  const response = watch.start(convert === undefined ? events : []);
  if (convert !== undefined) events.forEach(send);
  if (!open) {
    watch.close();
    return response;
  }
  watch.onChange = state.store.subscribe((change) => {
    if (change.resource !== rkey) return;
    const event = translate(change, inScope, show);
    if (event) send(event);
  });
  // timeoutSeconds=0 asks for the server's default (30 to 60 min there),
  // which the fake leaves open; so does a timeout beyond a timer's range
  // (24.8 days), which a timer would fire at once.
  const lasts = timeout !== undefined && Number.isFinite(timeout) &&
      timeout > 0 && timeout * 1000 <= MAX_TIMER
    ? timeout * 1000
    : undefined;
  if (bookmarks) {
    watch.bookmarks(
      state.bookmarkInterval,
      lasts,
      (last) => {
        // A stopped heartbeat still leaves the bookmark before the timeout.
        if (last || !state.bookmarksStopped) {
          send(bookmark(state, resource, false));
        }
      },
    );
  }
  if (lasts !== undefined) watch.closeAfter(lasts);
  if (signal.aborted) watch.close();
  else signal.addEventListener("abort", onAbort, { once: true });
  return response;
}

/** A bookmark at the newest version; `end` marks the initial events' end. */
function bookmark(
  state: ServerState,
  resource: RegisteredResource,
  end: boolean,
): WatchEvent {
  const metadata: ObjectMeta = { resourceVersion: String(state.store.rv) };
  if (end) metadata.annotations = { [INITIAL_EVENTS_END]: "true" };
  return {
    type: "BOOKMARK",
    object: {
      kind: resource.kind,
      apiVersion: apiVersionOf(resource),
      metadata,
    },
  };
}

/** What one watch sees of a change, given what it selects. */
function translate(
  change: Change,
  inScope: (object: KubeObject | undefined) => boolean,
  show: (object: KubeObject) => KubeObject,
): WatchEvent | undefined {
  const was = inScope(change.previous);
  const object = show(change.object);
  if (change.type === "DELETED") {
    return was ? { type: "DELETED", object } : undefined;
  }
  const now = inScope(change.object);
  if (now) return { type: was ? "MODIFIED" : "ADDED", object };
  // An object that stops matching leaves the watch as DELETED.
  return was ? { type: "DELETED", object } : undefined;
}
