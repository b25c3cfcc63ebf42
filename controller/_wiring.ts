// The `wiring` option: what a controller wires itself to.
import type { Client } from "../apiclient/client.ts";
import { Recorder } from "../events/recorder.ts";
import type { Source } from "../informer/types.ts";
import type { WorkQueueObserver, WorkQueueOptions } from "./queue.ts";
import type {
  ControllerObserver,
  ControllerOptions,
  WatchHooks,
} from "./types.ts";

/** The parts of a controller that its options wire. */
export interface Wiring {
  /** The client, counted by the metrics (before the write guard). */
  client: Client;
  /** The controller's observer. */
  observer: ControllerObserver | undefined;
  /** The work queue's options. */
  queue: WorkQueueOptions | undefined;
  /** The watches' instrument. */
  instrument: ((source: Source, hooks: WatchHooks) => WatchHooks) | undefined;
}

/**
 * Wires the client, the observers and the watches to `options.metrics`,
 * after (or around) the ones the options give.
 */
export function wire(
  client: Client,
  // deno-lint-ignore no-explicit-any
  options: ControllerOptions<any>,
): Wiring {
  const { queue } = options;
  const { metrics, observer, instrument } = options.wiring ?? {};
  if (
    options.wiring?.recorder !== undefined &&
    options.wiring?.events !== undefined
  ) {
    throw new TypeError(
      `The controller ${options.name} takes a recorder or events, not both`,
    );
  }
  if (metrics === undefined) return { client, observer, queue, instrument };
  const series = metrics.controller(options.name);
  const mine = queue?.observer;
  const queueObserver: WorkQueueObserver = mine === undefined ? series.queue : {
    added: (depth) => (series.queue.added(depth), mine.added(depth)),
    taken: (waited, depth) => (
      series.queue.taken(waited, depth), mine.taken(waited, depth)
    ),
    finished: (worked) => (
      series.queue.finished(worked), mine.finished(worked)
    ),
    retried: () => (series.queue.retried(), mine.retried()),
  };
  // A manager wires its client, its election and its shared caches once.
  const inManager = options.wiring?.managed === true;
  const lead = options.wiring?.lead;
  if (lead !== undefined && !inManager) metrics.lead(lead);
  return {
    client: inManager ? client : metrics.client(client),
    observer: {
      reconciled: (result, seconds) => {
        series.reconciled(result, seconds);
        observer?.reconciled(result, seconds);
      },
    },
    queue: { ...queue, observer: queueObserver },
    instrument: inManager ? instrument : (source, hooks) =>
      metrics.collection(
        source,
        instrument === undefined ? hooks : instrument(source, hooks),
      ),
  };
}

/**
 * The recorder of the `recorder` option, or the one the `events` option
 * makes (through `client`, counted by the metrics).
 */
export function recorderOf(
  client: Client,
  // deno-lint-ignore no-explicit-any
  options: ControllerOptions<any>,
): Recorder | undefined {
  const { events, recorder, metrics } = options.wiring ?? {};
  if (events === undefined) return recorder;
  const { component = options.name, ...rest } = events;
  const observer = metrics === undefined
    ? rest.observer
    : metrics.recorder(component, rest.observer).observer;
  return new Recorder(client, component, {
    ...rest,
    logger: rest.logger ?? options.logger,
    observer,
  });
}
