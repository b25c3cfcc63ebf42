// With an election, no reconcile starts once the write guard refuses, and
// the reconciles in flight see their signal abort at that moment: measured
// from the guard's first refusal, not from the end of the election.
import assert from "node:assert/strict";
import { Client } from "../apiclient/mod.ts";
import { Lead, LEASE_DURATION, RENEW_DEADLINE } from "../election/mod.ts";
import {
  FakeApiServer,
  type FakeTime,
  installFakeTime,
} from "../testing/mod.ts";
import { Controller, LeaseOutlivedError, StopTimeoutError } from "./mod.ts";
import { testLogger } from "../_internal/_log_test_util.ts";

const CM = "/api/v1/namespaces/default/configmaps";
const CONFIGMAPS = { version: "v1", resource: "configmaps", kind: "ConfigMap" };
const LEASE = { namespace: "default", name: "op" };

interface Harness extends AsyncDisposable {
  time: FakeTime;
  server: FakeApiServer;
  client: Client;
  /** Holds the answers to Lease writes until the returned release is called. */
  holdLeaseWrites(): () => void;
}

function setup(): Harness {
  const time = installFakeTime({ now: Date.parse("2030-01-01T00:00:00Z") });
  const server = new FakeApiServer({ freshCluster: false });
  let hold: Promise<void> | undefined;
  const client = new Client(server.url, {
    fetch: async (input, init) => {
      const request = new Request(input, init);
      const held = hold;
      const answer = await server.fetch(request);
      if (
        held !== undefined && request.method === "PUT" &&
        /\/leases\//.test(request.url)
      ) {
        await held;
      }
      return answer;
    },
  });
  return {
    time,
    server,
    client,
    holdLeaseWrites: () => {
      const gate = Promise.withResolvers<void>();
      hold = gate.promise;
      return () => {
        hold = undefined;
        gate.resolve();
      };
    },
    async [Symbol.asyncDispose](): Promise<void> {
      await server.stop();
      time[Symbol.dispose]();
    },
  };
}

/** Reconciles that record when they start and when their signal aborts. */
function recorder(work: number): {
  starts: number[];
  aborts: number[];
  reconcile: (context: { signal: AbortSignal }) => Promise<void>;
} {
  const starts: number[] = [];
  const aborts: number[] = [];
  return {
    starts,
    aborts,
    reconcile: ({ signal }) => {
      starts.push(Date.now());
      return new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, work);
        signal.addEventListener("abort", () => {
          aborts.push(Date.now());
          clearTimeout(timer);
          resolve();
        }, { once: true });
      });
    },
  };
}

async function leadingController(
  h: Harness,
  options: { exit: (code: number) => void; work: number },
): Promise<
  {
    lead: Lead;
    controller: Controller;
    starts: number[];
    aborts: number[];
    errors: unknown[];
  }
> {
  for (const name of ["a", "b", "c"]) {
    await h.client.create(CM, { metadata: { name } });
  }
  const lead = new Lead(h.client, {
    lease: LEASE,
    pod: "op-0",
    exit: options.exit,
    logger: testLogger({ onError: () => {} }),
  });
  const { starts, aborts, reconcile } = recorder(options.work);
  const errors: unknown[] = [];
  const controller = new Controller(h.client, {
    name: "t",
    for: CONFIGMAPS,
    wiring: {
      lead,
    },
    resync: 1_000,
    concurrency: 2,
    reconcile,
    logger: testLogger({ onError: (error) => void errors.push(error) }),
  });
  await h.time.tick(3_000);
  assert.ok(starts.length > 0);
  return { lead, controller, starts, aborts, errors };
}

/** Ticks in 100 ms steps until `mayWrite` refuses; answers that moment. */
async function untilRefused(h: Harness, lead: Lead): Promise<number> {
  for (let i = 0; i < 400; i++) {
    try {
      lead.mayWrite();
    } catch {
      return Date.now();
    }
    await h.time.tick(100);
  }
  throw new Error("The guard never refused");
}

for (
  const [title, exitOnLoss] of [
    ["exit on loss turned off (the copy stays up)", false],
    ["exit on loss (the process exits at done)", true],
  ] as const
) {
  Deno.test(`no reconcile starts after the write guard first refuses; their signal aborts then: ${title}`, async () => {
    await using h = setup();
    const exits: number[] = [];
    const { lead, controller, starts, aborts } = await leadingController(h, {
      exit: exitOnLoss ? (code) => void exits.push(code) : () => {},
      work: 700,
    });
    // Renewals fail from now on.
    const refusal = h.server.refuse({
      method: "PUT",
      path: /\/leases\//,
      status: 500,
    });
    const renewed = lead.renewedAt!;
    const refused = await untilRefused(h, lead);
    // The guard refuses at the renew deadline; the lead still stands.
    assert.ok(refused - renewed >= RENEW_DEADLINE);
    assert.ok(refused - renewed < RENEW_DEADLINE + 100);
    assert.equal(lead.leads(), true);
    // The resync kept reconciles going right up to the refusal.
    assert.ok(starts.some((t) => t >= refused - 1_100), `${starts}`);
    let ended = false;
    void controller.done.then(() => ended = true);
    for (let i = 0; i < 60 && !ended; i++) await h.time.tick(1_000);
    assert.equal(ended, true);
    const late = starts.filter((t) => t >= refused);
    assert.deepEqual(late, [], `started after the refusal at ${refused}`);
    // The reconciles in flight saw their signal abort at the refusal (on
    // the 100 ms step the refusal was seen), not at the end of the lead.
    assert.ok(aborts.length > 0);
    assert.ok(
      aborts.every((t) => t > refused - 100 && t <= refused),
      `${aborts}`,
    );
    assert.deepEqual(exits, exitOnLoss ? [1] : []);
    if (!exitOnLoss) {
      // The copy stays up and may lead again, in a new election.
      refusal.allow();
      const again = new Lead(h.client, {
        lease: LEASE,
        pod: "op-0",
        exit: () => {},
      });
      const next = recorder(10);
      await using second = new Controller(h.client, {
        name: "t",
        for: CONFIGMAPS,
        wiring: {
          lead: again,
        },
        reconcile: next.reconcile,
      });
      for (let i = 0; i < 60 && next.starts.length < 3; i++) {
        await h.time.tick(1_000);
      }
      assert.equal(next.starts.length, 3);
      assert.ok(again.leads());
      assert.ok(second.synced());
    }
  });
}

Deno.test("after a slow renewal lands, the next term starts reconciles again", async () => {
  await using h = setup();
  const { lead, controller, starts, aborts, errors } = await leadingController(
    h,
    { exit: () => {}, work: 700 },
  );
  const release = h.holdLeaseWrites();
  const refused = await untilRefused(h, lead);
  const before = starts.length;
  await h.time.tick(1_000);
  assert.equal(starts.length, before, "nothing starts while the guard refuses");
  assert.ok(aborts.some((t) => t > refused - 100 && t <= refused));
  // The held renewal is accepted: it was sent within the deadline, so the
  // guard accepts again and reconciles resume.
  release();
  await h.time.tick(100);
  lead.mayWrite();
  const reopened = Date.now();
  await h.time.tick(2_000);
  assert.ok(starts.some((t) => t >= reopened), `${starts}`);
  assert.ok(starts.every((t) => t < refused || t >= reopened - 100));
  assert.deepEqual(errors, []);
  await controller.stop();
});

Deno.test("a reconcile that outlives the Lease's margin is reported; the stop waits no longer than that margin", async () => {
  await using h = setup();
  await h.client.create(CM, { metadata: { name: "a" } });
  const lead = new Lead(h.client, {
    lease: LEASE,
    pod: "op-0",
    exit: () => {},
    logger: testLogger({ onError: () => {} }),
  });
  const errors: unknown[] = [];
  const controller = new Controller(h.client, {
    name: "t",
    for: CONFIGMAPS,
    wiring: {
      lead,
    },
    stopTimeout: 120_000,
    // Ignores its signal and never ends.
    reconcile: () => new Promise(() => {}),
    logger: testLogger({ onError: (error) => void errors.push(error) }),
  });
  await h.time.tick(1_000);
  h.server.refuse({ method: "PUT", path: /\/leases\//, status: 500 });
  const renewed = lead.renewedAt!;
  let ended = false;
  void controller.done.then(() => ended = true);
  for (let i = 0; i < 200 && !ended; i++) await h.time.tick(500);
  assert.equal(ended, true);
  // The stop gave up at the margin (another copy may lead), not after
  // stopTimeout.
  const stopped = Date.now();
  assert.ok(
    stopped - renewed <= LEASE_DURATION + 1_000,
    `${stopped - renewed}`,
  );
  const outlived = errors.filter((e) => e instanceof LeaseOutlivedError);
  assert.equal(outlived.length, 1, errors.map(String).join("\n"));
  const error = outlived[0] as LeaseOutlivedError;
  assert.equal(error.key, "default/a");
  assert.equal(error.since, renewed + LEASE_DURATION);
  assert.ok(errors.some((e) => e instanceof StopTimeoutError));
});
