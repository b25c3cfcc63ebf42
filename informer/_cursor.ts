// A watch stream's batches, walked one event at a time.
import type { KubeObject, WatchEvent } from "../apiclient/types.ts";

/**
 * The events of one watch, one at a time. `next` answers at once while the
 * last network read's batch lasts, and a promise only when it must read: the
 * first sync of a big collection then costs one await per read, not per
 * object.
 */
export interface Events<T extends KubeObject> {
  next():
    | IteratorResult<WatchEvent<T>, undefined>
    | Promise<IteratorResult<WatchEvent<T>, undefined>>;
}

/** Walks the batches of a watch stream one event at a time. */
export function cursor<T extends KubeObject>(
  batches: AsyncIterator<WatchEvent<T>[]>,
): Events<T> {
  let batch: WatchEvent<T>[] = [];
  let index = 0;
  const more = async (): Promise<IteratorResult<WatchEvent<T>, undefined>> => {
    for (;;) {
      const read = await batches.next();
      if (read.done) return { done: true, value: undefined };
      batch = read.value;
      index = 0;
      if (batch.length > 0) return { done: false, value: batch[index++]! };
    }
  };
  return {
    next: () =>
      index < batch.length ? { done: false, value: batch[index++]! } : more(),
  };
}

export interface Open<T extends KubeObject> {
  events: Events<T>;
  cancel(): Promise<void>;
}
