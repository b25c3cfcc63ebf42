// Family (c), light: an informer whose watch goes silent at the TCP level
// (the proxy holds its connection's bytes, the connection stays open) on the
// real server. Measures the time to notice (the heartbeat: the watch cache
// sends a bookmark about once a minute) and whether the informer recovers
// while that connection stays stalled: Deno's fetch speaks HTTP/2, so the
// next list and watch may ride the same dead connection. Slow (about
// 3 to 5 min): it runs with `--slow` (deno task test:failover), not in the
// gate. The time to notice is measured, not asserted: with the plane's
// shared Deno.HttpClient two runs gave 57 s (a WatchError, then a new
// connection) and nothing within 190 s (no new connection; the heartbeat
// arms only once a periodic bookmark was seen). The client here has a pool
// of its own, which the heartbeat's WatchIdleError replaces: noticed at
// 55.6 s, the change seen 0.2 s later over a new connection. Asserted:
// after the faults stop (the stalled connection reset), the store equals
// the server's list.
import assert from "node:assert/strict";
import { Client } from "../../apiclient/mod.ts";
import { Collection } from "../../informer/mod.ts";
import { suite } from "./_plane.ts";
import { eventually } from "./_eventually.ts";
import { FaultProxy } from "./_fault_proxy.ts";
import { testLogger } from "../../_internal/_log_test_util.ts";

const SLOW = Deno.args.includes("--slow");
/** Silence that ends a watch once bookmarks were seen (default 150 s). */
const HEARTBEAT = 70_000;

if (SLOW) {
  suite("silent watch (family c)", [
    [
      "an informer notices a watch stalled at the TCP level and converges",
      async ({ plane, namespace }) => {
        await using proxy = FaultProxy.start(plane.server, { seed: 3 });
        // A client with a pool of its own that it may replace, as one from
        // a kubeconfig or the in-cluster configuration.
        const token = plane.ready.token;
        using client = new Client(proxy.url, {
          httpClient: () => Deno.createHttpClient({ caCerts: [plane.caPem] }),
          authorization: () => Promise.resolve(`Bearer ${token}`),
        });
        const admin = plane.client();
        const path = `/api/v1/namespaces/${namespace}/configmaps`;
        const errors: { at: number; name: string; message: string }[] = [];
        const { promise: synced, resolve } = Promise.withResolvers<void>();
        await using configMaps = new Collection(client, {
          version: "v1",
          resource: "configmaps",
          namespace,
        }, {
          synced: resolve,
          heartbeatTimeout: HEARTBEAT,
          logger: testLogger({
            onError: (error) =>
              void errors.push({
                at: Date.now(),
                name: (error as Error).name,
                message: (error as Error).message.slice(0, 300),
              }),
          }),
        });
        await synced;
        // Let the first periodic bookmark arrive (about a minute), which
        // arms the heartbeat.
        await new Promise((r) => setTimeout(r, 75_000));
        const stalled = proxy.connections();
        const start = Date.now();
        for (const id of stalled) {
          proxy.set({ stalled: true }, { connection: id });
        }
        await admin.create(path, {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: "during" },
        });
        const seen = await eventually(
          "the informer to see a change made during the stall",
          () => configMaps.store.get(`${namespace}/during`) && Date.now(),
          HEARTBEAT + 120_000,
        ).catch(() => undefined);
        const noticed = errors.find((e) => e.at >= start);
        const figures = {
          noticedMs: noticed && noticed.at - start,
          noticedAs: noticed && `${noticed.name}: ${noticed.message}`,
          recoveredMs: seen && seen - start,
          newConnections: proxy.connections().filter((id) =>
            !stalled.includes(id)
          ).length,
        };
        // deno-lint-ignore no-console -- the family's figures
        console.log(`silent watch: ${JSON.stringify(figures)}`);
        await proxy.clear();
        proxy.reset();
        // After the faults: the store equals the server's list.
        const converged = await eventually(
          "the store to equal the server's",
          async () => {
            const list = await admin.get<
              {
                items: {
                  metadata: { name: string; resourceVersion: string };
                }[];
              }
            >(path);
            const want = list.items.map((o) =>
              `${o.metadata.name}@${o.metadata.resourceVersion}`
            ).sort();
            const have = configMaps.store.values().map((o) =>
              `${o.metadata.name}@${o.metadata.resourceVersion}`
            ).sort();
            return JSON.stringify(want) === JSON.stringify(have) &&
              have.some((key) => key.startsWith("during@"));
          },
          120_000,
        );
        assert.equal(converged, true);
      },
    ],
  ], { timeout: 600_000 });
}
