import assert from "node:assert/strict";
import { Client } from "../apiclient/mod.ts";
import { Collection } from "../informer/mod.ts";
import { Lead } from "../election/mod.ts";
import { FakeApiServer } from "../testing/mod.ts";
import { Metrics, ProbeServer } from "./mod.ts";
import { parse, value } from "./_prometheus_test_util.ts";
import { testLogger } from "../_internal/_log_test_util.ts";
import { CONTENT_TYPE } from "./_defaults.ts";

const LOOPBACK = { hostname: "127.0.0.1", port: 0 };

async function get(
  base: string,
  path: string,
  method = "GET",
): Promise<{ status: number; type: string | null; body: string }> {
  const response = await fetch(base + path, { method });
  return {
    status: response.status,
    type: response.headers.get("content-type"),
    body: await response.text(),
  };
}

/** Asks until `path` answers `status`, for at most about 10 s. */
async function until(
  base: string,
  path: string,
  status: number,
): Promise<{ status: number; type: string | null; body: string }> {
  for (let i = 0; i < 200; i++) {
    const answer = await get(base, path);
    if (answer.status === status) return answer;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${path} never answered ${status}`);
}

Deno.test({
  name:
    "probes: readiness waits for every collection, a standby is ready, metrics parse",
  timeout: 20_000,
  async fn(): Promise<void> {
    await using server = new FakeApiServer({ freshCluster: false });
    await using served = await server.serve();
    const metrics = new Metrics();
    const client = metrics.client(new Client(served.url));
    await client.create("/api/v1/namespaces/default/configmaps", {
      metadata: { name: "a" },
    });
    // The first read is refused until allowed: the copy stays unready.
    const refusal = server.refuse({ path: /configmaps/, status: 503 });
    const source = { version: "v1", resource: "configmaps" };
    await using configMaps = new Collection(client, source, {
      logger: testLogger({ onError: () => {} }),
      ...metrics.collection(source),
    });
    metrics.healthCheck("configmaps watch", configMaps);
    const lease = { namespace: "default", name: "op" };
    await using leader = new Lead(new Client(served.url), {
      lease,
      pod: "op-a",
    });
    await leader.leading();
    await using standby = new Lead(new Client(served.url), {
      lease,
      pod: "op-b",
    });
    metrics.lead(standby);
    await using probes = new ProbeServer(metrics, LOOPBACK);
    assert.equal(probes.hostname, "127.0.0.1");
    const base = `http://127.0.0.1:${probes.port}`;

    const unready = await get(base, "/readyz");
    assert.equal(unready.status, 503);
    assert.equal(
      unready.body,
      "[-]collection configmaps failed: the first read is not complete\nreadyz check failed\n",
    );
    assert.equal((await get(base, "/healthz")).status, 200);
    refusal.allow();
    const ready = await until(base, "/readyz", 200);
    assert.equal(
      ready.body,
      "[+]collection configmaps ok\nreadyz check passed\n",
    );
    const healthy = await get(base, "/healthz");
    assert.deepEqual(healthy, {
      status: 200,
      type: "text/plain; charset=utf-8",
      body: "[+]configmaps watch ok\nhealthz check passed\n",
    });

    const scraped = await get(base, "/metrics");
    assert.equal(scraped.status, 200);
    assert.equal(scraped.type, CONTENT_TYPE);
    const families = parse(scraped.body);
    assert.equal(
      value(families, "informer_synced", { collection: "configmaps" }),
      1,
    );
    assert.equal(
      value(families, "informer_objects", { collection: "configmaps" }),
      1,
    );
    assert.equal(
      value(families, "leader_election_master_status", { name: "op" }),
      0,
      "the standby does not lead, and is ready all the same",
    );
    assert.ok(
      value(families, "rest_client_requests_total", {
        code: "503",
        method: "GET",
      }) >= 1,
    );

    // A stopped informer fails liveness.
    await configMaps.stop();
    const dead = await get(base, "/healthz");
    assert.equal(dead.status, 503);
    assert.equal(
      dead.body,
      "[-]configmaps watch failed: it ended\nhealthz check failed\n",
    );
    await standby.stop();
    await leader.stop();
  },
});

Deno.test({
  name: "probes: a stuck reconcile fails liveness until it finishes",
  timeout: 10_000,
  async fn(): Promise<void> {
    const metrics = new Metrics();
    const controller = metrics.controller("greetings", { stuckAfter: 20 });
    await using probes = new ProbeServer(metrics, LOOPBACK);
    const base = `http://127.0.0.1:${probes.port}`;
    assert.equal((await get(base, "/healthz")).status, 200);
    controller.queue.added(1);
    controller.queue.taken(0, 0);
    const stuck = await until(base, "/healthz", 503);
    assert.match(
      stuck.body,
      /^\[-\]controller greetings failed: a reconcile has run for \d+ s\nhealthz check failed\n$/,
    );
    controller.reconciled("success", 0.03);
    controller.queue.finished(0.03);
    assert.equal((await get(base, "/healthz")).status, 200);
    assert.equal(
      value(
        parse((await get(base, "/metrics")).body),
        "controller_runtime_reconcile_total",
        {
          controller: "greetings",
          result: "success",
        },
      ),
      1,
    );
  },
});

Deno.test({
  name: "probes: other paths and methods, HEAD, and the lifecycle",
  timeout: 10_000,
  async fn(): Promise<void> {
    const metrics = new Metrics();
    const stop = new AbortController();
    const lines: string[] = [];
    const probes = new ProbeServer(metrics, {
      ...LOOPBACK,
      signal: stop.signal,
      logger: testLogger({ log: (line) => lines.push(line) }),
    });
    const base = `http://127.0.0.1:${probes.port}`;
    assert.deepEqual(lines, [
      `"Serving /healthz, /readyz and /metrics" server="probes" address="127.0.0.1:${probes.port}"`,
    ]);
    assert.equal((await get(base, "/")).status, 404);
    assert.equal((await get(base, "/healthz/extra")).status, 404);
    const post = await fetch(`${base}/metrics`, { method: "POST" });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get("allow"), "GET, HEAD");
    await post.body?.cancel();
    const head = await get(base, "/readyz", "HEAD");
    assert.deepEqual(head, {
      status: 200,
      type: "text/plain; charset=utf-8",
      body: "",
    });
    const empty = await get(base, "/metrics");
    assert.equal(empty.body, "", "an empty registry scrapes as empty");
    assert.equal((await get(base, "/healthz")).body, "healthz check passed\n");
    // The signal stops it; stop() after that is the same stop.
    stop.abort();
    await probes.done;
    await probes.stop();
    await assert.rejects(fetch(`${base}/healthz`), TypeError);
    assert.throws(
      () => new ProbeServer(metrics, { hostname: "127.0.0.1", port: 70_000 }),
      RangeError,
    );
    // A port in use is refused at construction.
    await using first = new ProbeServer(metrics, LOOPBACK);
    assert.throws(
      () =>
        new ProbeServer(metrics, { hostname: "127.0.0.1", port: first.port }),
      Deno.errors.AddrInUse,
    );
  },
});

/** Resolves `true` when the peer closes `conn` within `ms`, else `false`. */
async function closedWithin(conn: Deno.Conn, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const buffer = new Uint8Array(16 * 1024);
  const closed = (async (): Promise<true> => {
    try {
      while (await conn.read(buffer) !== null) { /* drain */ }
    } catch { /* reset */ }
    return true;
  })();
  try {
    return await Promise.race([closed, late]);
  } finally {
    clearTimeout(timer);
    try {
      conn.close();
    } catch { /* closed */ }
    await closed;
  }
}

Deno.test({
  name:
    "probes (hostile): idle connections past the cap are closed and /healthz keeps answering",
  timeout: 20_000,
  async fn(): Promise<void> {
    await using probes = new ProbeServer(new Metrics(), {
      ...LOOPBACK,
      maxConnections: 4,
    });
    const base = `http://127.0.0.1:${probes.port}`;
    const idle: Deno.Conn[] = [];
    for (let i = 0; i < 30; i++) {
      idle.push(
        await Deno.connect({ hostname: "127.0.0.1", port: probes.port }),
      );
    }
    assert.equal((await get(base, "/healthz")).status, 200);
    const closed = await Promise.all(idle.map((c) => closedWithin(c, 500)));
    // Each connection past the cap closed the one idle longest.
    assert.ok(
      closed.filter(Boolean).length >= 26,
      `${closed.filter(Boolean).length} closed`,
    );
    // The attacker left: the server still answers.
    assert.equal((await get(base, "/healthz")).status, 200);
  },
});

Deno.test({
  name:
    "probes (hostile): dribbled headers and idle keep-alive end by their deadlines; stop() does not wait for them",
  timeout: 20_000,
  async fn(): Promise<void> {
    const probes = new ProbeServer(new Metrics(), {
      ...LOOPBACK,
      headersTimeout: 200,
      idleTimeout: 300,
    });
    const port = probes.port;
    const encoder = new TextEncoder();
    const dribbler = await Deno.connect({ hostname: "127.0.0.1", port });
    await dribbler.write(encoder.encode("GET /healthz HTTP/1.1\r\nx-a: "));
    const keeper = await Deno.connect({ hostname: "127.0.0.1", port });
    await keeper.write(
      encoder.encode("GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n"),
    );
    const [a, b] = await Promise.all([
      closedWithin(dribbler, 5_000),
      closedWithin(keeper, 5_000),
    ]);
    assert.ok(a, "dribbled headers: still open");
    assert.ok(b, "idle keep-alive: still open");
    // A half-sent request does not hold stop().
    const half = await Deno.connect({ hostname: "127.0.0.1", port });
    await half.write(encoder.encode("GET /healthz HTTP/1.1\r\n"));
    const closing = closedWithin(half, 5_000);
    await new Promise((r) => setTimeout(r, 50));
    const started = performance.now();
    await probes.stop();
    assert.ok(performance.now() - started < 2_000);
    assert.ok(await closing);
  },
});
