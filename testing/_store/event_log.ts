/**
 * The Events a server stores, as the helpers read them: in creation order,
 * about one object, or expired at once (as their time to live would).
 *
 * @module
 */
import { clone } from "../_verbs/patch.ts";
import { BUILT_IN_RESOURCES } from "./registry.ts";
import { resourceKey } from "./objects.ts";
import type { ServerState } from "./state.ts";
import type { EventObject, EventsAboutOptions } from "../types.ts";

function eventsKey(): string {
  return resourceKey(BUILT_IN_RESOURCES.find((r) => r.resource === "events")!);
}

/** Deletes every stored Event. */
export function expireEvents(state: ServerState): void {
  const key = eventsKey();
  for (const [name] of state.store.all(key)) state.store.delete(key, name);
}

/** Copies of the stored Events, oldest first (by creation, not by name). */
export function storedEvents(state: ServerState): EventObject[] {
  return state.store.all(eventsKey())
    .map(([, e]) => e as EventObject)
    .sort((a, b) =>
      (state.created.get(a.metadata.uid ?? "") ?? 0) -
      (state.created.get(b.metadata.uid ?? "") ?? 0)
    )
    .map((e) => clone(e));
}

/** The Events about one object, in the order given. */
export function eventsAbout(
  events: EventObject[],
  options: EventsAboutOptions,
): EventObject[] {
  return events.filter((e) =>
    e.involvedObject?.kind === options.kind &&
    e.involvedObject?.name === options.name &&
    (options.namespace === undefined ||
      (e.involvedObject?.namespace ?? "") === options.namespace)
  );
}
