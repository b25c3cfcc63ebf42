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
import { discardLogger, textLogger } from "../log/mod.ts";
import { Sharder } from "../shard/mod.ts";
import { GREETING } from "./greeting.ts";
import { greetingController } from "./operator.ts";

/** The ring's name and the namespace of its Leases. */
export const RING = "greeting";
/** The operator's namespace in the sharded demo. */
export const RING_NAMESPACE = "default";

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
  const greeting = greetingController({ pod: identity });
  const controller = new Controller(client, {
    ...greeting,
    wiring: {
      shards: { ring: RING, namespace: RING_NAMESPACE, identity, exit },
    },
    logger: textLogger({ write: say }),
    signal: stop.signal,
  });
  const sharder = new Sharder(client, {
    ring: RING,
    namespace: RING_NAMESPACE,
    for: GREETING,
    // Its children (the ConfigMaps) carry their Greeting's shard.
    owns: greeting.owns,
    pod: identity,
    resync: 2_000,
    exit,
    logger: discardLogger(),
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
