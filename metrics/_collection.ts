// The metrics of each watched collection, fed by the informer's callbacks
// and handler, and its readiness.
import type { Counter, Gauge, Registry } from "./registry.ts";
import type { CollectionHooks } from "./types.ts";

type L = "collection";

/** The informer metrics, one series per watched collection. */
export class CollectionMetrics {
  readonly objects: Gauge<L>;
  readonly synced: Gauge<L>;
  readonly relists: Counter<L>;
  readonly reopens: Counter<L>;
  readonly recoveries: Counter<L>;
  readonly listFailures: Counter<L>;
  readonly sinceEvent: Gauge<L>;
  /** Reads each collection's changes: objects held, last change (ms). */
  readonly #state = new Map<string, () => { objects: number; last: number }>();

  constructor(registry: Registry) {
    const labels = ["collection"] as const;
    this.objects = registry.gauge("informer_objects", {
      help: "Objects the collection's store holds (decoded).",
      labels,
    });
    this.synced = registry.gauge("informer_synced", {
      help: "1 once the collection's first complete read is in its store.",
      labels,
    });
    this.relists = registry.counter("informer_relists_total", {
      help:
        "Reads of the whole collection after the first (after a 410 Gone, or an absent collection's recheck).",
      labels,
    });
    this.reopens = registry.counter("informer_watch_reopens_total", {
      help: "Watches the API server opened after the first.",
      labels,
    });
    this.recoveries = registry.counter("informer_watch_recoveries_total", {
      help: "Watches opened again after a failed attempt.",
      labels,
    });
    this.listFailures = registry.counter("informer_list_failures_total", {
      help: "Reads of the whole collection that failed.",
      labels,
    });
    this.sinceEvent = registry.gauge("informer_last_event_seconds", {
      help:
        "Seconds since the collection last delivered a change (or since its watch began).",
      labels,
    });
    registry.onCollect(() => {
      const now = Date.now();
      for (const [collection, read] of this.#state) {
        const { objects, last } = read();
        this.objects.set({ collection }, objects);
        this.sinceEvent.set({ collection }, Math.max(0, now - last) / 1000);
      }
    });
  }

  /**
   * Wraps the hooks of one collection's options; `ready` is set once it
   * synced.
   */
  wrap<T>(
    collection: string,
    hooks: CollectionHooks<T>,
    onSynced: () => void,
  ): CollectionHooks<T> {
    const labels = { collection };
    const { handler, synced, reopened, recovered, relisted, listFailed } =
      hooks;
    // Plain variables on the per-event path; the gauges read them at scrape.
    let objects = 0;
    let last = Date.now();
    this.#state.set(collection, () => ({ objects, last }));
    this.objects.set(labels, 0);
    this.synced.set(labels, 0);
    this.relists.inc(labels, 0);
    this.reopens.inc(labels, 0);
    this.listFailures.inc(labels, 0);
    return {
      handler: {
        add: (object: T) => {
          objects++;
          last = Date.now();
          return handler?.add?.(object);
        },
        update: (old: T, object: T) => {
          last = Date.now();
          return handler?.update?.(old, object);
        },
        delete: (object: unknown) => {
          objects--;
          last = Date.now();
          return handler?.delete?.(object);
        },
      },
      synced: () => {
        this.synced.set(labels, 1);
        onSynced();
        return synced?.();
      },
      reopened: () => {
        this.reopens.inc(labels);
        reopened?.();
      },
      recovered: () => {
        this.recoveries.inc(labels);
        recovered?.();
      },
      relisted: () => {
        this.relists.inc(labels);
        relisted?.();
      },
      listFailed: (error: unknown) => {
        this.listFailures.inc(labels);
        listFailed?.(error);
      },
    };
  }
}
