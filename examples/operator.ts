/**
 * The example operator: for each `Greeting`, a ConfigMap that holds its
 * message, and a status that names the ConfigMap and says `Ready`.
 *
 * It is one reconcile function on the library's `Controller`, which brings
 * the rest:
 *
 * - `election`: one acting copy; the controller reconciles only while it
 *   leads, and its client carries the write guard.
 * - `informer`: watches on Greetings and on the ConfigMaps it made (by label,
 *   mapped to their owner), and reads (`context.read`) that never answer a
 *   copy older than the operator's own writes.
 * - `memo`: `written` notes each write; `settleStatus` writes the status.
 * - `conditions` and `events`: the `Ready` condition, and one Event per
 *   transition and per ConfigMap written.
 *
 * Shutdown order ({@linkcode GreetingOperator.stop}, done by the
 * controller): stop the watches and the reconciles in flight, write the
 * queued Events, then release the Lease, last, because the release must
 * come after the last write and the recorder's writes pass the write guard.
 *
 * @module
 */
import {
  type Client,
  objectKey,
  type OwnerReference,
} from "../apiclient/mod.ts";
import { type Condition, set } from "../conditions/mod.ts";
import {
  Controller,
  type ReconcileContext,
  ReconcileError,
} from "../controller/mod.ts";
import { Lead, REQUEST_TIMEOUT } from "../election/mod.ts";
import { Recorder, transition } from "../events/mod.ts";
import type { Metrics } from "../metrics/mod.ts";
import type { ObjectReference } from "../events/mod.ts";
import { settleStatus, written } from "../memo/mod.ts";
import {
  API_VERSION,
  type ConfigMap,
  configMapName,
  CONFIGMAPS,
  type Greeting,
  GREETINGS,
  KIND,
  MANAGED_BY,
  OPERATOR,
} from "./greeting.ts";

export { REQUEST_TIMEOUT };

/** Options of {@linkcode GreetingOperator.start}. */
export interface GreetingOperatorOptions {
  /** The pod's name: the election's candidate and the Events' instance. */
  pod: string;
  /** The namespace of the Lease (the operator's own namespace). */
  leaseNamespace: string;
  /** The Lease's name. Default `greeting-operator`. */
  leaseName?: string | undefined;
  /** The namespace to watch. Default: every namespace. */
  namespace?: string | undefined;
  /** Receives one line per thing the operator does. Default: none. */
  log?: ((line: string) => void) | undefined;
  /** Ends the process after a lost Lease. Default `Deno.exit`. */
  exit?: ((code: number) => void) | undefined;
  /** Milliseconds before a failed reconcile runs again. Default 5 s. */
  retryDelay?: number | undefined;
  /**
   * The metrics to wire: the client's requests, the election, the recorder,
   * the controller and its watches (serve them with a `ProbeServer`).
   * Default: none.
   */
  metrics?: Metrics | undefined;
  /** Ends the wait for the Lease. */
  signal?: AbortSignal | undefined;
}

/** What the operator did so far, for the demo and the tests. */
export interface OperatorCounts {
  /** Reconciles that ran to the end. */
  passes: number;
  /** Reconciles that failed (and were scheduled again). */
  failures: number;
  /** ConfigMaps created. */
  created: number;
  /** ConfigMaps replaced. */
  updated: number;
  /** Status writes that landed. */
  statuses: number;
}

const READY = "Ready";

/**
 * A running Greeting operator: it leads, watches, and reconciles until
 * {@linkcode GreetingOperator.stop}.
 */
export class GreetingOperator implements AsyncDisposable {
  /** The election's identity of this process. */
  readonly identity: string;
  /** What the operator did so far. */
  readonly counts: OperatorCounts = {
    passes: 0,
    failures: 0,
    created: 0,
    updated: 0,
    statuses: 0,
  };
  /** The controller that runs the reconciles. */
  readonly controller: Controller<Greeting>;

  #recorder: Recorder;
  #log: (line: string) => void;

  private constructor(
    lead: Lead,
    client: Client,
    options: GreetingOperatorOptions,
  ) {
    this.identity = lead.identity;
    const log = this.#log = options.log ?? (() => {});
    const retryDelay = options.retryDelay ?? 5_000;
    const metrics = options.metrics;
    // The recorder writes through the guard too: no Event after the Lease.
    this.#recorder = new Recorder(
      client.withWriteGuard(lead.mayWrite),
      OPERATOR,
      {
        instance: options.pod,
        ...metrics?.recorder(OPERATOR),
        log: (line) => log(`events: ${line}`),
        onError: (error) => log(`events: ${message(error)}`),
      },
    );
    const namespace = options.namespace;
    const controllerMetrics = metrics?.controller("greeting");
    this.controller = new Controller<Greeting>(client, {
      name: "greeting",
      for: { ...GREETINGS, namespace, kind: KIND },
      owns: [{
        ...CONFIGMAPS,
        namespace,
        labelSelector: `${MANAGED_BY}=${OPERATOR}`,
      }],
      lead,
      recorder: this.#recorder,
      reconcile: (context) => this.#reconcile(context),
      errorPolicy: () => retryDelay,
      observer: {
        reconciled: (result, seconds) => {
          if (result === "error") this.counts.failures += 1;
          else this.counts.passes += 1;
          controllerMetrics?.reconciled(result, seconds);
        },
      },
      ...(metrics === undefined ? {} : {
        queue: { observer: controllerMetrics!.queue },
        instrument: (source, hooks) => metrics.collection(source, hooks),
      }),
      log: (line) => log(`controller: ${line}`),
      onError: (error) => {
        if (error instanceof ReconcileError) {
          log(
            `pass ${error.key} failed: ${message(error.cause)}; again in ${
              retryDelay / 1000
            } s`,
          );
        } else log(`controller: ${message(error)}`);
      },
    });
  }

  /**
   * Waits for the Lease, then starts the controller.
   *
   * @param client A client without a write guard, with requests that end
   * within the election's `REQUEST_TIMEOUT`.
   * @param options The pod, the Lease, the namespace to watch, and the log.
   * @returns The running operator.
   */
  static async start(
    client: Client,
    options: GreetingOperatorOptions,
  ): Promise<GreetingOperator> {
    const log = options.log ?? (() => {});
    log(`${options.pod}: waiting for the Lease`);
    // Every request of the operator (the election's too) is counted.
    if (options.metrics !== undefined) client = options.metrics.client(client);
    const lead = new Lead(client, {
      lease: {
        namespace: options.leaseNamespace,
        name: options.leaseName ?? OPERATOR,
      },
      pod: options.pod,
      log: (line) => log(`election: ${line}`),
      onError: (error) => log(`election: ${message(error)}`),
      exit: options.exit,
    });
    options.metrics?.lead(lead);
    await lead.leading({ signal: options.signal });
    log(`leading as ${lead.identity}`);
    return new GreetingOperator(lead, client, options);
  }

  /** Whether every watch holds its first read. */
  get synced(): boolean {
    return this.controller.synced();
  }

  /**
   * Resolves once no reconcile runs and none is queued (retries may be
   * waiting).
   *
   * @returns A promise that resolves when the queue is empty.
   */
  idle(): Promise<void> {
    return this.controller.idle();
  }

  /**
   * Stops in the documented order (see the module doc). Safe to call more
   * than once.
   *
   * @returns A promise that resolves when the Lease is released.
   */
  stop(): Promise<void> {
    return this.controller.stop();
  }

  /** Stops the operator (for `await using`). */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }

  /** Makes the world match one Greeting. */
  async #reconcile(context: ReconcileContext<Greeting>): Promise<void> {
    const { key, ref: greetingRef, client, versions, signal } = context;
    const { namespace = "", name } = greetingRef;
    const greeting = context.object;
    // Gone: the API server's garbage collector deletes its ConfigMap,
    // which names the Greeting as its owner.
    if (greeting === undefined) return;
    if (greeting.metadata.deletionTimestamp) return;
    const uid = greeting.metadata.uid ?? "";
    const ref: ObjectReference = {
      apiVersion: API_VERSION,
      kind: KIND,
      namespace,
      name,
      uid,
    };
    const cmName = configMapName(name);
    const cmRef = { ...CONFIGMAPS, namespace, name: cmName };
    const cmKey = objectKey(cmRef);
    const configMaps = client.resource<ConfigMap>(CONFIGMAPS).namespace(
      namespace,
    );
    const configMap = await context.read<ConfigMap>(cmRef);
    const message = greeting.spec?.message ?? "";
    let ready: Condition;
    const ownerRef: OwnerReference = {
      apiVersion: API_VERSION,
      kind: KIND,
      name,
      uid,
      controller: true,
    };
    const controller = configMap?.metadata.ownerReferences?.find((r) =>
      r.controller
    );
    if (configMap && controller?.uid !== uid) {
      ready = {
        type: READY,
        status: "False",
        reason: "ConfigMapTaken",
        message: `ConfigMap ${cmName} exists and this Greeting does not own it`,
      };
    } else {
      if (configMap === undefined) {
        await written(
          cmRef,
          () =>
            configMaps.create({
              apiVersion: "v1",
              kind: "ConfigMap",
              metadata: {
                name: cmName,
                namespace,
                labels: { [MANAGED_BY]: OPERATOR },
                ownerReferences: [ownerRef],
              },
              data: { message },
            }, { signal }),
          { versions: versions, signal },
        );
        this.counts.created += 1;
        this.#log(`created ConfigMap ${cmKey}`);
        this.#recorder.normal(ref, {
          reason: "ConfigMapCreated",
          message: `Created ConfigMap ${cmName}`,
        });
      } else if (
        configMap.data?.message !== message ||
        configMap.metadata.labels?.[MANAGED_BY] !== OPERATOR
      ) {
        const next: ConfigMap = structuredClone(configMap);
        next.data = { ...next.data, message };
        next.metadata.labels = {
          ...next.metadata.labels,
          [MANAGED_BY]: OPERATOR,
        };
        // The store's copy names its resourceVersion: a copy changed since
        // is refused (409) and the pass runs again.
        await written(
          cmRef,
          () => configMaps.replace(next, { signal }),
          { versions: versions, signal },
        );
        this.counts.updated += 1;
        this.#log(`updated ConfigMap ${cmKey}`);
        this.#recorder.normal(ref, {
          reason: "ConfigMapUpdated",
          message: `Updated ConfigMap ${cmName} to the new message`,
        });
      }
      ready = {
        type: READY,
        status: "True",
        reason: "MessagePublished",
        message: `ConfigMap ${cmName} holds the message`,
      };
    }
    const generation = greeting.metadata.generation;
    if (generation !== undefined) ready.observedGeneration = generation;
    const owned = ready.status === "True";
    let transitioned = false;
    // settleStatus changes the copy it is given: never the store's.
    const settled = await settleStatus(
      client,
      greetingRef,
      {
        held: structuredClone(greeting),
        versions: versions,
        signal,
        apply: (copy) => {
          const before = JSON.stringify(copy.status ?? {});
          const status = copy.status ??= {};
          status.conditions ??= [];
          transitioned = set(status.conditions, { ...ready });
          if (generation !== undefined) status.observedGeneration = generation;
          if (owned) status.configMap = cmName;
          else delete status.configMap;
          return JSON.stringify(status) !== before;
        },
      },
    );
    if (settled.landed) {
      this.counts.statuses += 1;
      this.#log(
        `status of ${key}: ${READY}=${ready.status} (${ready.reason})`,
      );
      if (transitioned) {
        transition(this.#recorder, ref, { condition: ready, bad: "False" });
      }
    }
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
