// A connection black-holed at the TCP level between the library and the
// real kube-apiserver (the fault proxy accepts, holds every byte both ways,
// never closes). Deno's fetch speaks HTTP/2 to the API server, so one
// Deno.HttpClient holds one connection for all of a replica's watches and
// Lease requests; its pool sends every later request down a dead one. A
// client given a function for its httpClient (as kubeconfig and in-cluster
// configurations give) replaces the pool after a timeout, so a standby
// replica whose connection died still takes over a released Lease.
import assert from "node:assert/strict";
import { Client, RequestTimeoutError } from "../../apiclient/mod.ts";
import { Lead } from "../../election/mod.ts";
import type { Context } from "./_plane.ts";
import { suite } from "./_plane.ts";
import { eventually } from "./_eventually.ts";
import { FaultProxy } from "./_fault_proxy.ts";

/** Black-holes every open connection (both ways, never closed). */
function stallAll(proxy: FaultProxy): void {
  for (const id of proxy.connections()) {
    proxy.set({ stalled: true }, { connection: id });
  }
}

/** A client of the plane through `proxy`, with its own pool. */
function through(
  { plane }: Context,
  proxy: FaultProxy,
  httpClient: Deno.HttpClient | (() => Deno.HttpClient),
  timeout: number,
): Client {
  const token = plane.ready.token;
  return new Client(proxy.url, {
    httpClient,
    timeout,
    authorization: () => Promise.resolve(`Bearer ${token}`),
  });
}

suite("dead connection", [
  [
    "one connection carries watches and the Lease; after a timeout the next request dials a new one",
    async (context) => {
      const { plane, namespace } = context;
      const cms = `/api/v1/namespaces/${namespace}/configmaps`;
      const leases =
        `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases`;
      await using proxy = FaultProxy.start(plane.server);
      using client = through(
        context,
        proxy,
        () => Deno.createHttpClient({ caCerts: [plane.caPem] }),
        2_000,
      );
      // On a cold pool each concurrent request dials its own connection
      // (measured: three); once one is up, all share it.
      await client.get(cms);
      const watches = await Promise.all(
        [0, 1, 2].map(() => client.watch(`${cms}?watch=1`)),
      );
      await client.create(leases, {
        apiVersion: "coordination.k8s.io/v1",
        kind: "Lease",
        metadata: { name: "held" },
        spec: { holderIdentity: "a" },
      });
      // HTTP/2 by ALPN: three watches and a write share one connection.
      assert.equal(proxy.counts.accepted, 1);
      stallAll(proxy);
      await assert.rejects(client.get(`${leases}/held`), RequestTimeoutError);
      const lease = await client.get<{ spec: { holderIdentity: string } }>(
        `${leases}/held`,
      );
      assert.equal(lease.spec.holderIdentity, "a");
      assert.equal(proxy.counts.accepted, 2);
      for (const watch of watches) await watch.cancel();

      // A Deno.HttpClient given as is (the measured default of Deno's
      // fetch): every later request rides the dead connection.
      await using other = FaultProxy.start(plane.server);
      using kept = through(
        context,
        other,
        Deno.createHttpClient({ caCerts: [plane.caPem] }),
        1_000,
      );
      await kept.get(`${leases}/held`);
      stallAll(other);
      for (let i = 0; i < 3; i++) {
        await assert.rejects(kept.get(`${leases}/held`), RequestTimeoutError);
      }
      assert.equal(other.counts.accepted, 1);
    },
  ],
  [
    "a standby whose connection was black-holed takes over a released Lease",
    async (context) => {
      const { plane, namespace } = context;
      const lease = { namespace, name: "dead-connection" };
      await using proxy = FaultProxy.start(plane.server);
      const exits: number[] = [];
      const leader = new Lead(plane.client(), {
        lease,
        pod: "leader",
        exit: (code) => void exits.push(code),
      });
      await leader.leading();
      // The client's own timeout (30 s) is longer than the elector's bound
      // on each Lease request (15 s): only the elector's limit fires.
      using client = through(
        context,
        proxy,
        () => Deno.createHttpClient({ caCerts: [plane.caPem] }),
        30_000,
      );
      await using standby = new Lead(client, {
        lease,
        pod: "standby",
        exit: (code) => void exits.push(code),
      });
      await eventually(
        "the standby to have read the Lease",
        () => proxy.counts.accepted >= 1 && proxy.connections().length >= 1,
        10_000,
      );
      stallAll(proxy);
      const start = Date.now();
      await leader.stop();
      const took = await eventually(
        "the standby to lead",
        () => standby.leads() && Date.now() - start,
        60_000,
      );
      // deno-lint-ignore no-console -- the figure the docs quote
      console.log(
        `dead connection: the standby led ${took} ms after the release (its connection black-holed); connections ${proxy.counts.accepted}`,
      );
      assert.ok(proxy.counts.accepted >= 2);
      assert.deepEqual(exits, []);
    },
  ],
], { timeout: 180_000 });
