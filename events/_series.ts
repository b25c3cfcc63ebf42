import type { Event } from "./types.ts";

/**
 * How long after the last Event of a series a repeat still patches that Event,
 * in milliseconds. A repeat after a longer gap is a new occurrence, and a new
 * Event shows where it began. client-go's recorder uses the same 10 minutes.
 */
export const SERIES_WINDOW = 10 * 60_000;

/**
 * How many series the recorder remembers. Past this, the series used longest
 * ago is forgotten and its next repeat starts a new Event. client-go's
 * recorder uses the same 4096.
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
 * Answers the key of an Event's series: the object (with its UID, which tells
 * apart an object and a later one of the same name), the type, the reason and
 * the message.
 */
export function keyOf(event: Event): string {
  const o = event.involvedObject;
  return [
    o.kind,
    o.namespace ?? "",
    o.name,
    o.uid ?? "",
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
