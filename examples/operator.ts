/**
 * The example operator: for each `Greeting`, a ConfigMap that holds its
 * message, and a status that names the ConfigMap and says `Ready`.
 *
 * It uses every module of the library:
 *
 * - `election`: one acting copy; its client carries the write guard
 *   (`client.withWriteGuard(lead.mayWrite)`).
 * - `informer`: watches on Greetings and on the ConfigMaps it made (by label),
 *   and cached reads (`readOne`) that never answer a copy older than its
 *   own writes.
 * - `memo`: `written` notes each write; `settleStatus` writes the status.
 * - `conditions` and `events`: the `Ready` condition, and one Event per
 *   transition and per ConfigMap written.
 *
 * Shutdown order ({@linkcode GreetingOperator.stop}): stop the watches
 * and the pass in flight, write the queued Events (`Recorder.stop`), then
 * stop the election (`Lead.stop`), last, because its release must come after
 * the last write, and the recorder's writes pass the write guard.
 *
 * @module
 */
import {
  type Client,
  collectionPath,
  NotFoundError,
  objectKey,
  objectPath,
  objectRef,
  type OwnerReference,
} from "../apiclient/mod.ts";
import { type Condition, set } from "../conditions/mod.ts";
import { Lead, REQUEST_TIMEOUT } from "../election/mod.ts";
import { Recorder, transition } from "../events/mod.ts";
import type { ObjectReference } from "../events/mod.ts";
import { Collection, finalState, readOne } from "../informer/mod.ts";
import { settleStatus, Versions, written } from "../memo/mod.ts";
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
  leaseName?: string;
  /** The namespace to watch. Default: every namespace. */
  namespace?: string;
  /** Receives one line per thing the operator does. Default: none. */
  log?: (line: string) => void;
  /** Ends the process after a lost Lease. Default `Deno.exit`. */
  exit?: (code: number) => void;
  /** Milliseconds before a failed pass runs again. Default 5 s. */
  retryDelay?: number;
  /** Ends the wait for the Lease. */
  signal?: AbortSignal;
}

/** What the operator did so far, for the demo and the tests. */
export interface OperatorCounts {
  /** Passes that ran to the end. */
  passes: number;
  /** Passes that failed (and were scheduled again). */
  failures: number;
  /** ConfigMaps created. */
  created: number;
  /** ConfigMaps replaced. */
  updated: number;
  /** ConfigMaps deleted after their Greeting went. */
  deleted: number;
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
    deleted: 0,
    statuses: 0,
  };

  #lead: Lead;
  #client: Client;
  #recorder: Recorder;
  #versions = new Versions();
  #log: (line: string) => void;
  #retryDelay: number;
  #stop = new AbortController();
  #greetings: Collection<Greeting>;
  #configMaps: Collection<ConfigMap>;
  #queue = new Set<string>();
  #draining: Promise<void> | undefined;
  #retries = new Map<string, ReturnType<typeof setTimeout>>();
  #idle: (() => void)[] = [];
  #synced = 0;
  #shutdown: Promise<void> | undefined;

  private constructor(
    lead: Lead,
    client: Client,
    options: GreetingOperatorOptions,
  ) {
    this.#lead = lead;
    this.identity = lead.identity;
    this.#log = options.log ?? (() => {});
    this.#retryDelay = options.retryDelay ?? 5_000;
    // Every write of the operator passes the write guard; reads do not.
    this.#client = client.withWriteGuard(lead.mayWrite);
    this.#recorder = new Recorder(this.#client, OPERATOR, {
      instance: options.pod,
      log: (line) => this.#log(`events: ${line}`),
      onError: (error) => this.#log(`events: ${message(error)}`),
    });
    const signal = this.#stop.signal;
    const namespace = options.namespace;
    const onSynced = (what: string) => (): void => {
      this.#log(`synced ${what}`);
      // Passes that ran before both stores were ready read the API server;
      // that is correct, so nothing needs to run again.
      this.#synced += 1;
    };
    this.#greetings = new Collection<Greeting>(this.#client, {
      ...GREETINGS,
      namespace,
    }, {
      signal,
      synced: onSynced("Greetings"),
      handler: {
        add: (g) => this.#enqueue(objectKey(g)),
        update: (_, g) => this.#enqueue(objectKey(g)),
        delete: (g) => {
          const last = finalState(g);
          if (last) this.#enqueue(objectKey(last));
        },
      },
      onError: (error) => this.#log(`Greetings watch: ${message(error)}`),
    });
    this.#configMaps = new Collection<ConfigMap>(this.#client, {
      ...CONFIGMAPS,
      namespace,
      labelSelector: `${MANAGED_BY}=${OPERATOR}`,
    }, {
      signal,
      synced: onSynced("ConfigMaps"),
      handler: {
        add: (c) => this.#enqueueOwner(c),
        update: (_, c) => this.#enqueueOwner(c),
        delete: (c) => this.#enqueueOwner(finalState(c)),
      },
      onError: (error) => this.#log(`ConfigMaps watch: ${message(error)}`),
    });
  }

  /**
   * Waits for the Lease, then starts the watches and the passes.
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
    await lead.leading({ signal: options.signal });
    log(`leading as ${lead.identity}`);
    return new GreetingOperator(lead, client, options);
  }

  /** Whether both watches hold their first read. */
  get synced(): boolean {
    return this.#synced >= 2;
  }

  /**
   * Resolves once no pass runs and none is queued (retries may be waiting).
   *
   * @returns A promise that resolves when the queue is empty.
   */
  idle(): Promise<void> {
    if (this.#draining === undefined) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  /**
   * Stops in the documented order: the watches and the pass in flight, then
   * the Event recorder (its queue is written), then the election (the Lease
   * is released). Safe to call more than once.
   *
   * @returns A promise that resolves when the Lease is released.
   */
  stop(): Promise<void> {
    this.#shutdown ??= this.#shutdownOnce();
    return this.#shutdown;
  }

  /** Stops the operator (for `await using`). */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }

  async #shutdownOnce(): Promise<void> {
    this.#log("shutting down: stopping the watches and passes");
    this.#stop.abort(new DOMException("The operator stops", "AbortError"));
    for (const timer of this.#retries.values()) clearTimeout(timer);
    this.#retries.clear();
    this.#queue.clear();
    await Promise.all([
      this.#greetings.stop(),
      this.#configMaps.stop(),
      this.#draining,
    ]);
    this.#log("shutting down: writing the queued Events");
    await this.#recorder.stop();
    this.#log("shutting down: stepping down");
    await this.#lead.stop();
    this.#log("stopped; the Lease is released");
  }

  #enqueue(key: string): void {
    if (this.#stop.signal.aborted) return;
    this.#queue.add(key);
    this.#draining ??= this.#drain();
  }

  #enqueueOwner(configMap: ConfigMap | undefined): void {
    const owner = configMap?.metadata.ownerReferences?.find((ref) =>
      ref.controller && ref.kind === KIND && ref.apiVersion === API_VERSION
    );
    const namespace = configMap?.metadata.namespace;
    if (owner && namespace) this.#enqueue(`${namespace}/${owner.name}`);
  }

  async #drain(): Promise<void> {
    // Let the handler that woke the queue return first.
    await Promise.resolve();
    while (this.#queue.size > 0 && !this.#stop.signal.aborted) {
      const [next] = this.#queue;
      this.#queue.delete(next!);
      try {
        await this.#pass(next!);
        this.counts.passes += 1;
      } catch (error) {
        if (this.#stop.signal.aborted) break;
        this.counts.failures += 1;
        this.#log(
          `pass ${next} failed: ${message(error)}; again in ${
            this.#retryDelay / 1000
          } s`,
        );
        this.#retry(next!);
      }
    }
    this.#draining = undefined;
    for (const resolve of this.#idle.splice(0)) resolve();
  }

  #retry(key: string): void {
    clearTimeout(this.#retries.get(key));
    this.#retries.set(
      key,
      setTimeout(() => {
        this.#retries.delete(key);
        this.#enqueue(key);
      }, this.#retryDelay),
    );
  }

  /** Makes the world match one Greeting. */
  async #pass(greetingKey: string): Promise<void> {
    const signal = this.#stop.signal;
    const greetingRef = objectRef(GREETINGS, greetingKey);
    const { namespace = "", name } = greetingRef;
    let greeting: Greeting;
    try {
      greeting = await readOne<Greeting>(this.#client, greetingRef, {
        view: this.#greetings.view(),
        versions: this.#versions,
        signal,
      });
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      await this.#removeOrphan(namespace, name);
      return;
    }
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
    let configMap: ConfigMap | undefined;
    try {
      configMap = await readOne<ConfigMap>(this.#client, cmRef, {
        view: this.#configMaps.view(),
        versions: this.#versions,
        signal,
      });
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
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
            this.#client.create<ConfigMap>(collectionPath(cmRef), {
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
          { versions: this.#versions, signal },
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
          () =>
            this.#client.replace<ConfigMap>(objectPath(cmRef), next, {
              signal,
            }),
          { versions: this.#versions, signal },
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
      this.#client,
      structuredClone(greeting),
      {
        resource: GREETINGS,
        versions: this.#versions,
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
        `status of ${greetingKey}: ${READY}=${ready.status} (${ready.reason})`,
      );
      if (transitioned) {
        transition(this.#recorder, ref, { condition: ready, bad: "False" });
      }
    }
  }

  /**
   * Deletes the ConfigMap of a Greeting that is gone. In a cluster the
   * garbage collector does the same through the owner reference; the fake
   * API server has none, and the delete is harmless where it runs too.
   */
  async #removeOrphan(namespace: string, name: string): Promise<void> {
    const cm = { ...CONFIGMAPS, namespace, name: configMapName(name) };
    const cmKey = objectKey(cm);
    const held = this.#configMaps.store.get(cmKey);
    const owner = held?.metadata.ownerReferences?.find((r) =>
      r.controller && r.kind === KIND && r.name === name
    );
    if (held === undefined || owner === undefined) return;
    try {
      await this.#client.delete(objectPath(cm), {
        // Only the copy this operator made, never a later one of that name.
        body: { preconditions: { uid: held.metadata.uid } },
        signal: this.#stop.signal,
      });
    } catch (error) {
      if (error instanceof NotFoundError) return;
      throw error;
    }
    this.counts.deleted += 1;
    this.#log(`deleted ConfigMap ${cmKey}: its Greeting is gone`);
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
