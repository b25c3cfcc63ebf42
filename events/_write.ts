/** The recorder's single write of one Event, and the parts of an Event. */

import { type Client, NotFoundError, type Resource } from "../apiclient/mod.ts";
import { keyOf, type Series, SERIES_WINDOW } from "./_series.ts";
import { HostnameError } from "./errors.ts";
import type { ObjectReference } from "../apiclient/types.ts";
import type { Event } from "./types.ts";

/** The collection of core/v1 Events in a namespace. */
function events(namespace: string | undefined): Resource {
  return { version: "v1", resource: "events", namespace };
}

/**
 * Writes one Event once: patches the Event of its open series (`count` and
 * `lastTimestamp`, as client-go's event recorder does), or creates a new
 * Event when there is none or the TTL deleted it. The Events' handle builds
 * the paths, so the namespace and the name are encoded.
 */
export async function writeOnce(
  client: Client,
  series: Series,
  event: Event,
  options: { signal: AbortSignal },
): Promise<"created" | "patched"> {
  const { signal } = options;
  const key = keyOf(event);
  const last = Date.parse(event.lastTimestamp);
  const collection = client.resource<Event>(events(event.metadata.namespace));
  const held = series.get(key);
  if (held !== undefined && last - held.last < SERIES_WINDOW) {
    const count = held.count + 1;
    try {
      await collection.patch(
        held.name,
        { count, lastTimestamp: event.lastTimestamp },
        { type: "merge", signal },
      );
      series.put(key, { name: held.name, count, last });
      return "patched";
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      // The TTL deleted the Event: the series starts again.
      series.remove(key);
    }
  }
  const created = await collection.create(event, { signal });
  const name = created?.metadata?.name;
  if (name) series.put(key, { name, count: 1, last });
  return "created";
}

/** Copies the fields of a reference that are set, as Go's omitempty would. */
export function reference(object: ObjectReference): ObjectReference {
  const copy: ObjectReference = { kind: object.kind, name: object.name };
  if (object.apiVersion) copy.apiVersion = object.apiVersion;
  if (object.namespace) copy.namespace = object.namespace;
  if (object.uid) copy.uid = object.uid;
  if (object.resourceVersion) copy.resourceVersion = object.resourceVersion;
  if (object.fieldPath) copy.fieldPath = object.fieldPath;
  return copy;
}

/** The host name, the default instance. */
export function hostname(): string {
  try {
    return Deno.hostname();
  } catch (cause) {
    throw new HostnameError(cause);
  }
}
