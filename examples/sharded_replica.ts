/**
 * One replica of the example operator, sharded: the Greeting controller
 * with `shards` instead of a single leader (it holds its own member Lease
 * and watches only the Greetings labelled with its shard), and a
 * `Sharder`, which does its work only while it holds the ring's sharder
 * Lease. `deno task demo:sharded` (`sharded.ts`) starts three of these as
 * separate processes against the embedded fake.
 *
 * `--server=<url> --identity=<pod name>`; it prints one line per event,
 * prefixed with its identity, and on SIGTERM stops and releases its member
 * Lease, so its Greetings move at once.
 *
 * Permissions: `--allow-net=127.0.0.1`.
 *
 * @module
 */
import { Client } from "../apiclient/mod.ts";
import { Controller } from "../controller/mod.ts";
import { REQUEST_TIMEOUT } from "../election/mod.ts";
import { discardLogger, type Logger, textLogger } from "../log/mod.ts";
import { Sharder } from "../shard/mod.ts";
import { GREETING, type Greeting } from "./greeting.ts";
import { greetingController } from "./operator.ts";

/** The ring's name and the namespace of its Leases. */
export const RING = "greeting";
/** The operator's namespace in the sharded demo. */
export const RING_NAMESPACE = "default";

/** What {@linkcode shardedReplica} takes. */
export interface ShardedReplicaOptions {
  /** The pod's name: its member identity and the sharder's candidate. */
  identity: string;
  /** The namespace of the ring's Leases. Default {@linkcode RING_NAMESPACE}. */
  leaseNamespace?: string | undefined;
  /** Watch only this namespace's Greetings. Default: every namespace. */
  namespace?: string | undefined;
  /** Called when a Lease (member or sharder) is lost, as a pod exits. */
  exit: (code: number) => void;
  /** The controller's and the sharder's logger. Default: none. */
  logger?: Logger | undefined;
  /** Stops both. */
  signal?: AbortSignal | undefined;
}

/**
 * The parts of one replica: the sharded Greeting controller and the
 * ring's sharder (the real-server chaos family runs three of these).
 *
 * @example Build one, then stop it (on the fake)
 * ```ts
 * import { Client } from "@liken/kubernetes/apiclient";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 * import { GREETING, type Greeting } from "./greeting.ts";
 * import { shardedReplica } from "./sharded_replica.ts";
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * await client.create(
 *   "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
 *   GREETING.crd(),
 * );
 * const { controller, sharder } = shardedReplica(client, {
 *   identity: "replica-0",
 *   exit: () => {},
 * });
 * await Promise.all([controller.stop(), sharder.stop()]);
 * ```
 *
 * @param client The replica's client (requests end in `REQUEST_TIMEOUT`).
 * @param options Its identity, namespaces, exit and signal.
 * @returns The controller and the sharder, both running.
 */
export function shardedReplica(
  client: Client,
  options: ShardedReplicaOptions,
): { controller: Controller<Greeting>; sharder: Sharder } {
  const { identity, exit, signal, namespace } = options;
  const leaseNamespace = options.leaseNamespace ?? RING_NAMESPACE;
  const greeting = greetingController({ pod: identity, namespace });
  const controller = new Controller(client, {
    ...greeting,
    wiring: {
      shards: { ring: RING, namespace: leaseNamespace, identity, exit },
    },
    logger: options.logger ?? discardLogger(),
    signal,
  });
  const sharder = new Sharder(client, {
    ring: RING,
    namespace: leaseNamespace,
    for: { ...GREETING, namespace },
    // Its children (the ConfigMaps) carry their Greeting's shard.
    owns: greeting.owns,
    pod: identity,
    resync: 2_000,
    exit,
    logger: options.logger?.with({ sharder: RING }) ?? discardLogger(),
    signal,
  });
  return { controller, sharder };
}

function arg(name: string): string {
  const found = Deno.args.find((a) => a.startsWith(`--${name}=`));
  if (found === undefined) throw new TypeError(`Missing --${name}=`);
  return found.slice(name.length + 3);
}

if (import.meta.main) {
  const server = arg("server");
  const identity = arg("identity");
  const say = (line: string): void => {
    // deno-lint-ignore no-console
    console.log(`[${identity}] ${line}`);
  };
  const client = new Client(server, { timeout: REQUEST_TIMEOUT });
  const stop = new AbortController();
  const exit = (code: number): void => {
    say(`member Lease lost: exit ${code}`);
    Deno.exit(code);
  };
  const { controller, sharder } = shardedReplica(client, {
    identity,
    exit,
    logger: textLogger({ write: say }),
    signal: stop.signal,
  });
  void sharder.lead.leading().then(
    () => say("sharder: leading"),
    () => {},
  );
  const onSignal = (): void => {
    say("SIGTERM: leaving the ring");
    stop.abort();
  };
  Deno.addSignalListener("SIGTERM", onSignal);
  await new Promise((resolve) =>
    stop.signal.addEventListener("abort", resolve, { once: true })
  );
  await Promise.all([controller.stop(), sharder.stop()]);
  Deno.removeSignalListener("SIGTERM", onSignal);
  say("stopped; member Lease released");
}
