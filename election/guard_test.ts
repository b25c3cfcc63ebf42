// The write guard's rules, each on its own: the renew deadline, the holder
// the Lease names, the stop; and the write window that follows them.
import assert from "node:assert/strict";
import { Client } from "../apiclient/mod.ts";
import { FakeApiServer, installFakeTime } from "../testing/mod.ts";
import { Lead, NotLeadingError, RENEW_DEADLINE, RETRY_PERIOD } from "./mod.ts";
import { testLogger } from "../_internal/_log_test_util.ts";

const LEASE = { namespace: "default", name: "op" };

Deno.test("the write guard refuses once the Lease names another holder, well before the renew deadline", async () => {
  using time = installFakeTime({ now: Date.parse("2030-01-01T00:00:00Z") });
  await using server = new FakeApiServer();
  const client = new Client(server.url, { fetch: server.fetch });
  const errors: unknown[] = [];
  await using lead = new Lead(client, {
    lease: LEASE,
    pod: "op-0",
    exit: () => {},
    logger: testLogger({ onError: (error) => void errors.push(error) }),
  });
  await lead.leading();
  const window = await lead.writeWindow();
  assert.ok(window !== undefined && !window.aborted);
  // Another copy takes the Lease behind this one's back.
  server.holdLease({ ...LEASE, identity: "op-1_beefcafe" });
  // The next renewal conflicts, and its read shows the other holder.
  await time.tick(RETRY_PERIOD + 1_000);
  const age = Date.now() - lead.renewedAt!;
  assert.ok(age < RENEW_DEADLINE, `the last renewal is ${age} ms old`);
  assert.throws(() => lead.mayWrite(), (error: unknown) => {
    assert.ok(error instanceof NotLeadingError);
    assert.match(error.message, /names op-1_beefcafe now/);
    return true;
  });
  assert.equal(window.aborted, true);
  assert.ok(window.reason instanceof NotLeadingError);
  assert.ok(errors.length > 0, "the conflict was reported");
});

Deno.test("the write window closes at the renew deadline and a late accepted renewal opens the next", async () => {
  using time = installFakeTime({ now: Date.parse("2030-01-01T00:00:00Z") });
  await using server = new FakeApiServer();
  let hold: PromiseWithResolvers<void> | undefined;
  const client = new Client(server.url, {
    fetch: async (input, init) => {
      const request = new Request(input, init);
      const answer = await server.fetch(request);
      if (hold !== undefined && request.method === "PUT") await hold.promise;
      return answer;
    },
  });
  await using lead = new Lead(client, {
    lease: LEASE,
    pod: "op-0",
    exit: () => {},
    logger: testLogger({ onError: () => {} }),
  });
  await lead.leading();
  // The first renewal lands; the next one's answer is held.
  await time.tick(1_000);
  hold = Promise.withResolvers<void>();
  const renewed = lead.renewedAt!;
  const first = await lead.writeWindow();
  let closed = 0;
  first!.addEventListener("abort", () => closed = Date.now());
  const next = lead.writeWindow();
  assert.equal(await next, first, "the open window is the same");
  await time.tick(RENEW_DEADLINE - 1_000 + 500);
  assert.equal(closed, renewed + RENEW_DEADLINE);
  let answered = false;
  const waiting = lead.writeWindow().then((w) => {
    answered = true;
    return w;
  });
  await time.tick(100);
  assert.equal(answered, false, "no window while the guard refuses");
  const gate = hold;
  hold = undefined;
  gate.resolve();
  await time.tick(100);
  const opened = await waiting;
  assert.ok(opened !== undefined && !opened.aborted);
  assert.notEqual(opened, first);
  lead.mayWrite();
  await lead.stop();
  assert.equal(opened.aborted, true);
  assert.equal(await lead.writeWindow(), undefined);
});

Deno.test("a refusal closes the write window at once, before the renew deadline's timer has run", async () => {
  using time = installFakeTime({ now: Date.parse("2030-01-01T00:00:00Z") });
  await using server = new FakeApiServer();
  const client = new Client(server.url, { fetch: server.fetch });
  await using lead = new Lead(client, {
    lease: LEASE,
    pod: "op-0",
    exit: () => {},
    logger: testLogger({ onError: () => {} }),
  });
  await lead.leading();
  const window = await lead.writeWindow();
  assert.ok(window !== undefined && !window.aborted);
  // The clock passes the renew deadline but the timer that would close the
  // window has not run (a busy event loop, a process paused and resumed):
  // a worker that sees the refusal must not find the window still open,
  // or it takes the key back and looks again, without end.
  const now = Date.now;
  const late = now() + RENEW_DEADLINE + 1;
  Date.now = () => late;
  try {
    assert.throws(() => lead.mayWrite(), NotLeadingError);
    assert.equal(window.aborted, true);
    assert.ok(window.reason instanceof NotLeadingError);
  } finally {
    Date.now = now;
  }
  await time.tick(0);
});
