// A connection black-holed at the TCP level (the fault proxy accepts, holds
// every byte both ways and never closes): over HTTP/2 one Deno.HttpClient
// holds one connection for every request and watch, and its pool would send
// every later request down the dead one. A client given a function for its
// httpClient replaces the pool after a request timeout or a silent watch.
// The fake API server served over HTTPS (h2 by ALPN), real sockets.
import assert from "node:assert/strict";
import { Client, RequestTimeoutError, WatchIdleError } from "./mod.ts";
import { FakeApiServer } from "../testing/fake_server.ts";
import { FaultProxy } from "../testing/real/_fault_proxy.ts";

const CM = "/api/v1/namespaces/default/configmaps";
const TIMEOUT = 20_000;

async function setUp(): Promise<{
  server: FakeApiServer;
  proxy: FaultProxy;
  client: Client;
  made: () => number;
  [Symbol.asyncDispose](): Promise<void>;
}> {
  const server = new FakeApiServer();
  const served = await server.serve({ tls: true });
  const proxy = FaultProxy.start(served.url);
  let made = 0;
  const client = new Client(proxy.url, {
    httpClient: () => {
      made++;
      return Deno.createHttpClient({ caCerts: [served.caCert!] });
    },
    timeout: 1_000,
  });
  return {
    server,
    proxy,
    client,
    made: () => made,
    async [Symbol.asyncDispose](): Promise<void> {
      client[Symbol.dispose]();
      await proxy.close();
      await served[Symbol.asyncDispose]();
      await server.stop();
    },
  };
}

/** Black-holes every open connection (both ways, never closed). */
function stallAll(proxy: FaultProxy): void {
  for (const id of proxy.connections()) {
    proxy.set({ stalled: true }, { connection: id });
  }
}

Deno.test({
  name:
    "dead connection: one HTTP/2 connection carries watches and requests; after a request timeout the next request dials a new one",
  timeout: TIMEOUT,
  async fn(): Promise<void> {
    await using env = await setUp();
    const { proxy, client } = env;
    await using watch = await client.watch(`${CM}?watch=1`);
    await client.get<{ items: unknown[] }>(CM);
    await client.create(CM, { metadata: { name: "a" } });
    // HTTP/2: the watch and both requests share one TCP connection.
    assert.equal(proxy.counts.accepted, 1);
    stallAll(proxy);
    // Two requests stuck on the dead connection replace the pool once.
    const stuck = await Promise.allSettled([
      client.get(`${CM}/a`),
      client.get(`${CM}/a`),
    ]);
    for (const result of stuck) {
      assert.equal(result.status, "rejected");
      assert.ok(result.reason instanceof RequestTimeoutError);
    }
    assert.equal(env.made(), 2);
    // The next request goes down a new connection and is answered.
    const read = await client.get<{ metadata: { name: string } }>(`${CM}/a`);
    assert.equal(read.metadata.name, "a");
    assert.equal(proxy.counts.accepted, 2);
    await watch.cancel();
  },
});

Deno.test({
  name:
    "dead connection: a watch silent past its idle limit replaces the pool; the relist dials a new connection",
  timeout: TIMEOUT,
  async fn(): Promise<void> {
    await using env = await setUp();
    const { proxy, client, server } = env;
    server.put(`${CM}/a`, { metadata: {} });
    await using watch = await client.watch(`${CM}?watch=1`, {
      idleTimeout: 500,
    });
    const events = watch[Symbol.asyncIterator]();
    assert.equal((await events.next()).value?.type, "ADDED");
    assert.equal(proxy.counts.accepted, 1);
    stallAll(proxy);
    await assert.rejects(events.next(), WatchIdleError);
    // No request timed out: the silent watch alone replaced the pool.
    assert.equal(env.made(), 2);
    const list = await client.get<{ items: unknown[] }>(CM);
    assert.equal(list.items.length, 1);
    assert.equal(proxy.counts.accepted, 2);
  },
});

Deno.test({
  name:
    "dead connection: a caller's time limit (a TimeoutError, as the elector's on each Lease request) replaces the pool; a plain abort does not",
  timeout: TIMEOUT,
  async fn(): Promise<void> {
    await using env = await setUp();
    const { proxy, client } = env;
    await client.create(CM, { metadata: { name: "a" } });
    stallAll(proxy);
    const aborted = new AbortController();
    const plain = client.get(`${CM}/a`, { signal: aborted.signal });
    aborted.abort();
    await assert.rejects(plain);
    assert.equal(env.made(), 1);
    // Shorter than the client's own timeout (1 s), as the elector's are.
    const limit = new AbortController();
    const timer = setTimeout(
      () => limit.abort(new DOMException("Too slow", "TimeoutError")),
      200,
    );
    await assert.rejects(
      client.get(`${CM}/a`, { signal: limit.signal }),
      { name: "TimeoutError" },
    );
    clearTimeout(timer);
    assert.equal(env.made(), 2);
    const read = await client.get<{ metadata: { name: string } }>(`${CM}/a`);
    assert.equal(read.metadata.name, "a");
    assert.equal(proxy.counts.accepted, 2);
    // A timeout on the new pool within MIN_REPLACE_INTERVAL (5 s) of the
    // replacement keeps it: short limits on a slow server do not dial a
    // connection per request.
    stallAll(proxy);
    const again = new AbortController();
    const timer2 = setTimeout(
      () => again.abort(new DOMException("Too slow", "TimeoutError")),
      200,
    );
    await assert.rejects(
      client.get(`${CM}/a`, { signal: again.signal }),
      { name: "TimeoutError" },
    );
    clearTimeout(timer2);
    assert.equal(env.made(), 2);
  },
});

Deno.test({
  name:
    "dead connection: a Deno.HttpClient given as is is kept (the caller's to replace)",
  timeout: TIMEOUT,
  async fn(): Promise<void> {
    await using server = new FakeApiServer();
    await using served = await server.serve({ tls: true });
    await using proxy = FaultProxy.start(served.url);
    using client = new Client(proxy.url, {
      httpClient: Deno.createHttpClient({ caCerts: [served.caCert!] }),
      timeout: 500,
    });
    await client.get<{ items: unknown[] }>(CM);
    stallAll(proxy);
    await assert.rejects(
      client.get<{ items: unknown[] }>(CM),
      RequestTimeoutError,
    );
    // The pool sends the next request down the dead connection again.
    await assert.rejects(
      client.get<{ items: unknown[] }>(CM),
      RequestTimeoutError,
    );
    assert.equal(proxy.counts.accepted, 1);
  },
});

Deno.test({
  name:
    "dead connection: a watch cancelled for silence by its caller (a WatchIdleError, as the informer's heartbeat) replaces the pool; a plain cancel does not",
  timeout: TIMEOUT,
  async fn(): Promise<void> {
    await using env = await setUp();
    const { client } = env;
    const plain = await client.watch(`${CM}?watch=1`);
    await plain.cancel();
    assert.equal(env.made(), 1);
    const silent = await client.watch(`${CM}?watch=1`);
    await silent.cancel(new WatchIdleError(CM, 1_000));
    assert.equal(env.made(), 2);
  },
});
