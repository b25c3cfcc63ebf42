// The election's signal stops it as stop() does; leading() tells a stop, a
// loss and a failure apart.
import assert from "node:assert/strict";
import { Client } from "../apiclient/mod.ts";
import { describe } from "../_internal/errors.ts";
import { FakeApiServer, installFakeTime } from "../testing/mod.ts";
import {
  ElectionError,
  Lead,
  type LeadOptions,
  LeaseLostError,
  NotLeadingError,
  StoppedError,
} from "./mod.ts";
import { testLogger } from "../_internal/_log_test_util.ts";

/** Whether a log line says the Lease default/op was released. */
const released = (line: string): boolean =>
  line.startsWith('"Released the Lease" lease="default/op"');

const LEASE = { namespace: "default", name: "op" };
const START = Date.UTC(2026, 11, 2, 12, 0, 0);
const LEASES = /\/leases(\/|$)/;

interface Copy {
  lead: Lead;
  lines: string[];
  exits: number[];
}

function copy(
  server: FakeApiServer,
  pod: string,
  options: Partial<LeadOptions> = {},
): Copy {
  const lines: string[] = [];
  const exits: number[] = [];
  const client = new Client(server.url, { fetch: server.fetch });
  const lead = new Lead(client, {
    lease: LEASE,
    pod,
    logger: testLogger({
      log: (line) => lines.push(line),
      onError: (error) => lines.push(describe(error)),
    }),
    exit: (code) => void exits.push(code),
    ...options,
  });
  return { lead, lines, exits };
}

Deno.test("aborting the election's signal releases the Lease before done settles, as stop() does", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const shutdown = new AbortController();
  let leadSignal: AbortSignal | undefined;
  const a = copy(server, "op-a", {
    signal: shutdown.signal,
    onStartedLeading: (signal) => leadSignal = signal,
  });
  await a.lead.leading();
  assert.equal(server.leaseHolder("default", "op"), a.lead.identity);
  shutdown.abort(new Error("SIGTERM"));
  assert.equal(a.lead.leads(), false, "stopping at once");
  assert.throws(() => a.lead.mayWrite(), NotLeadingError);
  await a.lead.done;
  assert.equal(leadSignal?.aborted, true);
  assert.equal(server.leaseHolder("default", "op"), undefined);
  assert.ok(a.lines.some(released), a.lines.join("\n"));
  assert.deepEqual(a.exits, [], "a stop is no loss");
  // done came after the second release: nothing more is sent.
  const sent = server.count({ path: LEASES });
  await time.tick(60_000);
  assert.equal(server.count({ path: LEASES }), sent);
  await a.lead.stop(); // a second stop joins the first
  await assert.rejects(a.lead.leading(), StoppedError);
});

Deno.test("an already aborted election signal stops it at once: it never campaigns", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const a = copy(server, "op-a", { signal: AbortSignal.abort() });
  await a.lead.done;
  assert.equal(time.now(), START);
  // The elector sent nothing; the stop's second release read the Lease.
  assert.deepEqual(
    server.requests.map((r) => `${r.method} ${r.path}`),
    ["GET /apis/coordination.k8s.io/v1/namespaces/default/leases/op"],
  );
  assert.equal(server.leaseHolder("default", "op"), undefined);
  await assert.rejects(a.lead.leading(), StoppedError);
  assert.deepEqual(a.exits, []);
});

Deno.test("the election's signal ends a waiting copy: leading() rejects with StoppedError", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const a = copy(server, "op-a");
  await a.lead.leading();
  const shutdown = new AbortController();
  const b = copy(server, "op-b", { signal: shutdown.signal });
  const waiting = b.lead.leading();
  await time.tick(1_000);
  shutdown.abort();
  const error = await waiting.then(() => undefined, (error) => error);
  assert.ok(error instanceof StoppedError);
  assert.equal(error.message, "The stop came before this process led");
  await b.lead.done;
  assert.equal(server.leaseHolder("default", "op"), a.lead.identity);
  await a.lead.stop();
});

Deno.test("leading() after a loss rejects with LeaseLostError naming the Lease", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  const a = copy(server, "op-a");
  await a.lead.leading();
  server.down();
  while (a.exits.length === 0) await time.tick(1_000);
  const error = await a.lead.leading().then(() => undefined, (e) => e);
  assert.ok(error instanceof LeaseLostError, String(error));
  assert.equal(error.name, "LeaseLostError");
  assert.equal(error.lease, "Lease default/op");
  assert.equal(
    error.message,
    "This process lost Lease default/op: no renewal succeeded within the renew deadline",
  );
  assert.ok(!(error instanceof StoppedError));
  await a.lead.done;
});

Deno.test("leading() after the elector failed rejects with its ElectionError", async () => {
  using time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  let exits = 0;
  const a = copy(server, "op-a", {
    exit: () => {
      exits++;
      throw new Error("exit failed");
    },
  });
  await a.lead.leading();
  server.down();
  while (exits === 0) await time.tick(1_000);
  await a.lead.done;
  const error = await a.lead.leading().then(() => undefined, (e) => e);
  assert.ok(error instanceof ElectionError, String(error));
  assert.equal(
    error.message,
    "The election of Lease default/op failed: exit failed",
  );
  assert.equal((error.cause as Error).message, "exit failed");
  // The same failure went to onError.
  assert.ok(a.lines.includes(error.message), a.lines.join("\n"));
});

Deno.test("the Lease is named by an ObjectRef; another resource is refused", async () => {
  await using server = new FakeApiServer();
  const client = new Client(server.url, { fetch: server.fetch });
  const ref = {
    group: "coordination.k8s.io",
    version: "v1",
    resource: "leases",
    namespace: "default",
    name: "op",
  };
  await using lead = new Lead(client, { lease: ref, pod: "op-a" });
  await lead.leading();
  assert.equal(server.leaseHolder("default", "op"), lead.identity);
  assert.throws(
    () =>
      new Lead(client, {
        lease: { ...ref, version: "v1", resource: "configmaps", group: "" },
        pod: "op-b",
      }),
    /The election runs on a coordination\.k8s\.io\/v1 Lease, not on v1 configmaps/,
  );
});
