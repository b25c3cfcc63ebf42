/**
 * The example operator: for each `Greeting`, a ConfigMap that holds its
 * message, and a status that names the ConfigMap and says `Ready`; with
 * `orphans.ts` in one `Manager` (one election, one watch per collection).
 * The library brings the rest: a write guard, memo-aware reads, apply,
 * status and Events in one call each, metrics in one option, and the
 * shutdown order (watches and reconciles, queued Events, then the Lease).
 *
 * @module
 */
import type { Client } from "../apiclient/mod.ts";
import {
  type ControllerOptions,
  Manager,
  type ManagerOptions,
} from "../controller/mod.ts";
import type { ReconcileContext } from "../controller/mod.ts";
import type { Condition } from "../conditions/mod.ts";
import type { Logger } from "../log/mod.ts";
import type { Metrics } from "../metrics/mod.ts";
import { type ConfigMap, configMapName, CONFIGMAPS } from "./greeting.ts";
import { SELECTOR } from "./greeting.ts";
import { orphanController } from "./orphans.ts";
import { GREETING, type Greeting, LABELS, OPERATOR } from "./greeting.ts";

/** Options of {@linkcode startOperator}. */
export interface OperatorOptions {
  /** The pod's name: the election's candidate and the Events' instance. */
  pod: string;
  /** The namespace of the Lease (the operator's own namespace). */
  leaseNamespace: string;
  /** The namespace to watch. Default: every namespace. */
  namespace?: string | undefined;
  /** Counts requests, reconciles, watches, Events and the Lease. */
  metrics?: Metrics | undefined;
  /** Receives the operator's log lines. Default: errors to stderr. */
  logger?: Logger | undefined;
  /** Ends the process after a lost Lease. Default `Deno.exit`. */
  exit?: ((code: number) => void) | undefined;
  /** Ends the wait for the Lease. */
  signal?: AbortSignal | undefined;
  /** Serves `/healthz`, `/readyz` and `/metrics` (needs `metrics`). */
  probes?: ManagerOptions["probes"];
  /** What runs on every replica beside the controllers (the webhooks). */
  tasks?: ManagerOptions["tasks"];
}

/**
 * The controller's options but its election (failed reconciles retry with
 * the queue's backoff); `rbac.yaml` is derived from them.
 *
 * @param options As {@linkcode startOperator}'s.
 * @returns The options.
 */
export function greetingController(
  options: Omit<OperatorOptions, "leaseNamespace"> = { pod: "" },
): ControllerOptions<Greeting> {
  const { namespace } = options;
  return {
    name: "greeting",
    for: { ...GREETING, namespace },
    owns: [{ ...CONFIGMAPS, namespace, labelSelector: SELECTOR }],
    wiring: {
      events: { component: OPERATOR, instance: options.pod },
    },
    reconcile,
  };
}

/**
 * The manager of both controllers, its election, probes and tasks.
 *
 * @param client Without a write guard; requests end in `REQUEST_TIMEOUT`.
 * @param options The pod, the Lease, the namespace, the logger.
 * @returns The manager; its `stop()` ends it in the order above.
 */
export function operatorManager(
  client: Client,
  options: OperatorOptions,
): Manager {
  const { namespace, logger } = options;
  const lease = { namespace: options.leaseNamespace, name: OPERATOR };
  return new Manager(client, {
    controllers: [greetingController(options), orphanController(namespace)],
    election: { lease, pod: options.pod, exit: options.exit },
    metrics: options.metrics,
    probes: options.probes,
    tasks: options.tasks,
    logger,
  });
}

/**
 * Starts the manager of both controllers, and waits for the Lease.
 *
 * @param client Without a write guard; requests end in `REQUEST_TIMEOUT`.
 * @param options The pod, the Lease, the namespace, the logger.
 * @returns The manager; its `stop()` ends it in the order above.
 */
export async function startOperator(
  client: Client,
  options: OperatorOptions,
): Promise<Manager> {
  const manager = operatorManager(client, options);
  await manager.leading({ signal: options.signal });
  return manager;
}

/** Makes the world match one Greeting. */
async function reconcile(context: ReconcileContext<Greeting>): Promise<void> {
  const greeting = context.object;
  // Gone: the garbage collector deletes the ConfigMap it owns.
  if (greeting === undefined || greeting.metadata.deletionTimestamp) return;
  const { namespace = "", uid } = greeting.metadata;
  const name = configMapName(greeting.metadata.name!);
  const ref = { ...CONFIGMAPS, namespace, name };
  const held = await context.read<ConfigMap>(ref);
  const owner = held?.metadata.ownerReferences?.find((r) => r.controller);
  if (held !== undefined && owner?.uid !== uid) {
    const taken = `ConfigMap ${name} exists and this Greeting does not own it`;
    const ready = readiness(false, "ConfigMapTaken", taken);
    await context.status({ conditions: [ready], configMap: null }, BAD);
    return;
  }
  const made = await context.apply<ConfigMap>({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace, labels: LABELS },
    data: { message: greeting.spec.message },
  });
  if (made.metadata.resourceVersion !== held?.metadata.resourceVersion) {
    const did = held ? "Updated" : "Created";
    context.normal({
      reason: `ConfigMap${did}`,
      message: `${did} ConfigMap ${name}`,
    });
    context.logger.info(`${did} the ConfigMap`, { configMap: name });
  }
  const done = `ConfigMap ${name} holds the message`;
  const ready = readiness(true, "MessagePublished", done);
  await context.status({ conditions: [ready], configMap: name }, BAD);
}

const BAD = { bad: { Ready: "False" } } as const;

function readiness(ok: boolean, reason: string, message: string): Condition {
  return { type: "Ready", status: ok ? "True" : "False", reason, message };
}
