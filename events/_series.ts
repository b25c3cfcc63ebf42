import type { Event } from "./types.ts";

/**
 * Milliseconds since a series last fired within which an identical Event is
 * folded into it (count + 1) instead of written anew. After a longer quiet
 * spell the problem has, for a reader, come back rather than gone on, and a
 * separate Event marks when. Ten minutes matches client-go's recorder.
 */
export const SERIES_WINDOW = 10 * 60_000;

/**
 * The cap on series kept in memory, so a component that reports on many
 * objects cannot grow without bound. When full, the least recently used
 * series is evicted; if it fires again, it simply starts a new Event. 4096
 * is client-go's figure as well.
 */
export const SERIES_LIMIT = 4096;

/** The Event a series patches. */
export interface SeriesEntry {
  /** The Event's name, as the API server chose it. */
  name: string;
  /** The count the Event holds. */
  count: number;
  /** The time of the series' last repeat, in epoch milliseconds. */
  last: number;
}

/**
 * Identifies a series: two Events fold together only when kind, namespace,
 * name, UID, field path, type, reason and message all agree (client-go's
 * `getEventKey` includes the field path: a container's Events are not the
 * Pod's). The UID is included so
 * that an object recreated under the same name opens a fresh series.
 * Fields are joined with NUL, which none of them can contain, so no two
 * different field lists share a key.
 */
export function keyOf(event: Event): string {
  const o = event.involvedObject;
  return [
    o.kind,
    o.namespace ?? "",
    o.name,
    o.uid ?? "",
    o.fieldPath ?? "",
    event.type,
    event.reason,
    event.message,
  ].join("\0");
}

/**
 * The Events of the open series, by key, least recently used forgotten first.
 * A `Map` keeps insertion order, so moving a key to the end on each use makes
 * the first key the oldest.
 */
export class Series {
  #entries = new Map<string, SeriesEntry>();
  #limit: number;

  constructor(limit: number = SERIES_LIMIT) {
    this.#limit = limit;
  }

  /** How many series are remembered. */
  get size(): number {
    return this.#entries.size;
  }

  /** Answers the entry of a series and marks it used. */
  get(key: string): SeriesEntry | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry;
  }

  /** Remembers the entry of a series, forgetting the oldest past the limit. */
  put(key: string, entry: SeriesEntry): void {
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    if (this.#entries.size > this.#limit) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
  }

  /** Forgets a series. */
  remove(key: string): void {
    this.#entries.delete(key);
  }
}
