/**
 * One lifecycle, checked on every long-lived object: aborting its `signal`
 * stops it as `stop()` does (the same effects, in the same order, at the
 * same fake times), `done` settles and nothing happens after it, a second
 * `stop()` is safe, an already aborted signal stops it at once, and
 * `await using` stops it as `stop()` does.
 *
 * Each subject makes its object with work pending that a stop must finish
 * (Events queued behind a slow write, a Lease held, a reconcile's Event in
 * flight, a probe answer in flight). A run records what happens from the
 * stop on: the requests and answers the API server sees, the errors the
 * object reports, and `done`, with what the stop left (such as the Lease's
 * holder). The fake API server's objects run on fake time; the probe
 * server binds 127.0.0.1 and runs on real time.
 *
 * @module
 */

import assert from "node:assert/strict";
import { Client } from "../apiclient/mod.ts";
import { Controller, Manager } from "../controller/mod.ts";
import { Lead } from "../election/mod.ts";
import { Recorder } from "../events/mod.ts";
import { Collection } from "../informer/mod.ts";
import { Metrics, ProbeServer } from "../metrics/mod.ts";
import {
  FakeApiServer,
  type FakeTime,
  installFakeTime,
} from "../testing/mod.ts";
import { describe } from "./errors.ts";
import { sleep } from "./sleep.ts";
import { testLogger } from "./_log_test_util.ts";

const START = Date.UTC(2030, 0, 1);
const CONFIGMAPS = "/api/v1/namespaces/default/configmaps";
const EVENTS = /\/events$/;
const LEASE = { namespace: "default", name: "lifecycle" };
const LEASE_PATH =
  "/apis/coordination.k8s.io/v1/namespaces/default/leases/lifecycle";
const EVENT_POSTED = "← POST /api/v1/namespaces/default/events 201";
const LEASE_RELEASED = `← PUT ${LEASE_PATH} 200`;
/** How long the slow requests of a subject take, in fake ms. */
const SLOW = 1_000;

/** What every long-lived object has. */
interface LongLived extends AsyncDisposable {
  readonly done: Promise<void>;
  stop(): Promise<void>;
}

/** One object made for a run. */
interface Made {
  object: LongLived;
  /** Gives the object work that its stop must finish. */
  work(): Promise<void>;
  /** What the stop left, noted when `done` settles. */
  after?(): string;
  /** Asserts that the object is stopped. */
  stopped(): Promise<void>;
  /** Ends what the run opened besides the object. */
  close?(): Promise<void>;
}

/** One long-lived object of the library. */
interface Subject {
  name: string;
  /** Runs on real time (real sockets). */
  realTime?: boolean;
  /** Makes the object with `signal` as its signal option. */
  make(world: World, signal: AbortSignal | undefined): Made | Promise<Made>;
  /** Entries a stop's trace holds, in this order (others may come between). */
  expect: readonly string[];
}

/** The fake API server, the trace, and the clock of one run. */
class World implements AsyncDisposable {
  readonly server = new FakeApiServer({ freshCluster: false });
  readonly trace: string[] = [];
  readonly time: FakeTime | undefined;
  #tracing = false;
  #stopAt = 0;
  #slow: { method: string; path: RegExp }[] = [];

  constructor(time: FakeTime | undefined) {
    this.time = time;
  }

  /** A client on the fake API server whose requests are traced. */
  client(): Client {
    return new Client(this.server.url, { fetch: this.#fetch });
  }

  /** Makes the matching requests take {@linkcode SLOW} fake ms. */
  slow(method: string, path: RegExp): void {
    this.#slow.push({ method, path });
  }

  /** Notes an entry, from the stop on; on fake time with its time since. */
  note(entry: string): void {
    if (!this.#tracing) return;
    const at = this.time === undefined ? "" : `+${Date.now() - this.#stopAt} `;
    this.trace.push(at + entry);
  }

  /** The onError of every object: errors land in the trace. */
  readonly onError = (error: unknown): void => {
    this.note(`error ${(error as Error)?.name}: ${describe(error)}`);
  };

  /**
   * Marks the stop, notes `done` when it settles, and drives the clock
   * until it has (the stop itself begins right after this returns).
   */
  stopping(made: Made): Promise<void> {
    this.#tracing = true;
    this.#stopAt = Date.now();
    this.note("stop");
    let settled = false;
    void made.object.done.then(() => {
      settled = true;
      const left = made.after?.();
      this.note(left === undefined ? "done" : `done: ${left}`);
    });
    return this.drive(() => settled);
  }

  /**
   * Lets the run go on until `until` holds: on fake time it fires the
   * timers in order (for at most a fake minute), on real time it waits
   * (at most 5 s). Throws when it never holds.
   */
  async drive(until: () => boolean): Promise<void> {
    const time = this.time;
    if (time === undefined) {
      for (let waited = 0; !until(); waited += 5) {
        if (waited > 5_000) throw new Error("Not settled within 5 s");
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return;
    }
    const limit = time.now() + 60_000;
    for (;;) {
      await time.settle();
      if (until()) return;
      if (time.countTimers() === 0 || time.now() > limit) {
        throw new Error("Not settled within a fake minute");
      }
      await time.next();
    }
  }

  /** Drives the run until `promise` settles, and answers it. */
  async until<T>(promise: Promise<T>): Promise<T> {
    let settled = false;
    const tracked = promise.finally(() => settled = true);
    // Handled here, answered below: a rejection while driving is no leak.
    tracked.catch(() => {});
    await this.drive(() => settled);
    return await tracked;
  }

  /** Lets a while pass after the stop: a fake minute, or 100 real ms. */
  async pass(): Promise<void> {
    if (this.time !== undefined) await this.time.tick(60_000);
    else await new Promise((resolve) => setTimeout(resolve, 100));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.server[Symbol.asyncDispose]();
  }

  #fetch: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const { method } = request;
    const path = new URL(request.url).pathname;
    this.note(`→ ${method} ${path}`);
    try {
      if (this.#slow.some((s) => s.method === method && s.path.test(path))) {
        if (!(await sleep(SLOW, request.signal))) throw request.signal.reason;
      }
      const response = await this.server.fetch(request);
      this.note(`← ${method} ${path} ${response.status}`);
      return response;
    } catch (error) {
      this.note(`← ${method} ${path} ${(error as Error)?.name}`);
      throw error;
    }
  };
}

function lead(world: World, signal?: AbortSignal | undefined): Lead {
  return new Lead(world.client(), {
    lease: LEASE,
    pod: "op-a",
    signal,
    logger: testLogger({ onError: world.onError }),
    exit: () => world.note("exit"),
  });
}

function holder(world: World): string {
  return world.server.leaseHolder(LEASE.namespace, LEASE.name) ?? "none";
}

const SUBJECTS: readonly Subject[] = [
  {
    name: "Collection",
    async make(world, signal): Promise<Made> {
      const client = world.client();
      await world.until(client.create(CONFIGMAPS, { metadata: { name: "a" } }));
      const synced = Promise.withResolvers<void>();
      const added: string[] = [];
      const collection = new Collection(client, {
        version: "v1",
        resource: "configmaps",
      }, {
        signal,
        logger: testLogger({ onError: world.onError }),
        synced: synced.resolve,
        handler: { add: (object) => void added.push(object.metadata.name!) },
      });
      return {
        object: collection,
        async work(): Promise<void> {
          await world.until(synced.promise);
          assert.deepEqual(added, ["a"]);
        },
        after: () => `open watches ${world.server.openWatches}`,
        async stopped(): Promise<void> {
          assert.equal(world.server.openWatches, 0);
          const before = added.length;
          await world.until(
            client.create(CONFIGMAPS, { metadata: { name: "late" } }),
          );
          await world.pass();
          assert.equal(added.length, before, "no handler call after the stop");
        },
      };
    },
    expect: ["done: open watches 0"],
  },
  {
    name: "Recorder",
    make(world, signal): Made {
      const recorder = new Recorder(world.client(), "lifecycle", {
        instance: "pod-1",
        signal,
        logger: testLogger({ onError: world.onError }),
      });
      const events = (): number => world.server.events().length;
      return {
        object: recorder,
        async work(): Promise<void> {
          // Three Events queued behind a slow write.
          world.slow("POST", EVENTS);
          for (const name of ["m1", "m2", "m3"]) {
            recorder.normal({ kind: "Machine", name }, {
              reason: "Started",
              message: "",
            });
          }
          await world.time?.settle();
          assert.equal(events(), 0);
        },
        after: () => `events ${events()}`,
        async stopped(): Promise<void> {
          // A post after the stop is dropped.
          const before = events();
          recorder.normal({ kind: "Machine", name: "late" }, {
            reason: "Late",
            message: "",
          });
          await world.pass();
          assert.equal(events(), before);
        },
      };
    },
    // The queued Events are written before done.
    expect: [EVENT_POSTED, EVENT_POSTED, EVENT_POSTED, "done: events 3"],
  },
  {
    name: "Lead",
    make(world, signal): Made {
      const election = lead(world, signal);
      return {
        object: election,
        async work(): Promise<void> {
          await world.until(election.leading());
          assert.equal(holder(world), election.identity);
        },
        after: () => `holder ${holder(world)}`,
        async stopped(): Promise<void> {
          assert.equal(election.leads(), false);
          assert.throws(() => election.mayWrite(), { name: "NotLeadingError" });
          await assert.rejects(world.until(election.leading()), {
            name: "StoppedError",
          });
          assert.equal(holder(world), "none");
        },
      };
    },
    // The Lease is released before done.
    expect: [LEASE_RELEASED, "done: holder none"],
  },
  {
    name: "Controller",
    async make(world, signal): Promise<Made> {
      const client = world.client();
      await world.until(client.create(CONFIGMAPS, { metadata: { name: "a" } }));
      const election = lead(world);
      const recorder = new Recorder(client, "lifecycle", {
        instance: "pod-1",
        logger: testLogger({ onError: world.onError }),
      });
      let reconciles = 0;
      const controller = new Controller(client, {
        name: "lifecycle",
        for: { version: "v1", resource: "configmaps", kind: "ConfigMap" },
        wiring: {
          lead: election,
          recorder,
        },
        signal,
        logger: testLogger({ onError: world.onError }),
        reconcile: ({ ref }): void => {
          reconciles++;
          recorder.normal(
            { kind: "ConfigMap", namespace: ref.namespace, name: ref.name },
            { reason: "Reconciled", message: "" },
          );
        },
      });
      return {
        object: controller,
        async work(): Promise<void> {
          // The reconcile's Event is in flight when the stop begins.
          world.slow("POST", EVENTS);
          await world.until(controller.idle());
          assert.equal(reconciles, 1);
          assert.equal(world.server.events().length, 0);
        },
        after: () =>
          `holder ${holder(world)}, events ${world.server.events().length}`,
        async stopped(): Promise<void> {
          assert.equal(election.leads(), false);
          assert.equal(holder(world), "none");
          const before = reconciles;
          await world.until(
            client.create(CONFIGMAPS, { metadata: { name: "late" } }),
          );
          await world.pass();
          assert.equal(reconciles, before, "no reconcile after the stop");
        },
      };
    },
    // The Lease is released after the Events are written, both before done.
    expect: [EVENT_POSTED, LEASE_RELEASED, "done: holder none, events 1"],
  },
  {
    name: "Manager",
    async make(world, signal): Promise<Made> {
      const client = world.client();
      await world.until(client.create(CONFIGMAPS, { metadata: { name: "a" } }));
      let reconciles = 0;
      const manager = new Manager(client, {
        controllers: [{
          name: "lifecycle",
          for: { version: "v1", resource: "configmaps", kind: "ConfigMap" },
          wiring: {
            events: { component: "lifecycle", instance: "pod-1" },
          },
          reconcile: (context): void => {
            reconciles++;
            context.normal({ reason: "Reconciled", message: "" });
          },
        }],
        election: { lease: LEASE, pod: "op-a", exit: () => world.note("exit") },
        signal,
        logger: testLogger({ onError: world.onError }),
      });
      return {
        object: manager,
        async work(): Promise<void> {
          // The reconcile's Event is in flight when the stop begins.
          world.slow("POST", EVENTS);
          await world.until(manager.lead!.leading());
          await world.until(manager.idle());
          assert.equal(reconciles, 1);
          assert.equal(world.server.events().length, 0);
        },
        after: () =>
          `holder ${
            holder(world)
          }, events ${world.server.events().length}, open watches ${world.server.openWatches}`,
        async stopped(): Promise<void> {
          // Stopped at once, an aborted manager never campaigned.
          assert.notEqual(manager.lead?.leads(), true);
          assert.equal(holder(world), "none");
          const before = reconciles;
          await world.until(
            client.create(CONFIGMAPS, { metadata: { name: "late" } }),
          );
          await world.pass();
          assert.equal(reconciles, before, "no reconcile after the stop");
        },
      };
    },
    // As a controller: the Events, then the Lease; the caches end too.
    expect: [
      EVENT_POSTED,
      LEASE_RELEASED,
      "done: holder none, events 1, open watches 0",
    ],
  },
  {
    name: "ProbeServer",
    realTime: true,
    make(world, signal): Made {
      const metrics = new Metrics();
      const began = Promise.withResolvers<void>();
      metrics.readyCheck("slow", async () => {
        began.resolve();
        await new Promise((resolve) => setTimeout(resolve, 50));
        world.note("check answered");
      });
      const probes = new ProbeServer(metrics, {
        hostname: "127.0.0.1",
        port: 0,
        signal,
        logger: testLogger({ onError: world.onError }),
      });
      const base = `http://127.0.0.1:${probes.port}`;
      let answer: Promise<number> | undefined;
      return {
        object: probes,
        async work(): Promise<void> {
          // A readiness probe is in flight when the stop begins.
          answer = fetch(`${base}/readyz`).then(async (response) => {
            await response.body?.cancel();
            return response.status;
          });
          await began.promise;
        },
        async stopped(): Promise<void> {
          await assert.rejects(fetch(`${base}/healthz`), TypeError);
        },
        async close(): Promise<void> {
          // The probe in flight was answered, not cut off.
          if (answer !== undefined) assert.equal(await answer, 200);
        },
      };
    },
    // The probe in flight is answered before done.
    expect: ["check answered", "done"],
  },
];

/** How a run stops its object. */
type How = "stop()" | "signal" | "await using";

/** Runs `subject` with work pending, stops it `how`, and answers the trace. */
async function run(subject: Subject, how: How): Promise<string[]> {
  using _time = subject.realTime ? undefined : installFakeTime({ now: START });
  await using world = new World(_time);
  const abort = new AbortController();
  const signal = how === "signal" ? abort.signal : undefined;
  let made: Made | undefined;
  let driving: Promise<void> | undefined;
  if (how === "await using") {
    {
      made = await subject.make(world, signal);
      await using _object = made.object;
      await made.work();
      const stopping = made;
      // Disposed first: marks the stop the object's disposal begins.
      using _mark = {
        [Symbol.dispose]: (): void => void (driving = world.stopping(stopping)),
      };
    }
    await driving;
  } else {
    made = await subject.make(world, signal);
    await made.work();
    driving = world.stopping(made);
    if (how === "signal") abort.abort(new Error("Shutting down"));
    else {
      void made.object.stop().catch((error) =>
        world.note(`stop rejected: ${describe(error)}`)
      );
    }
    await driving;
  }
  const trace = [...world.trace];
  await world.pass();
  assert.deepEqual(world.trace, trace);
  quietAfterDone(trace);
  await made.stopped();
  await made.close?.();
  return trace;
}

/** Asserts that nothing happened after `done` settled: it is the last entry. */
function quietAfterDone(trace: string[]): void {
  assert.match(
    trace.at(-1) ?? "",
    /^(\+\d+ )?done\b/,
    `something happened after done:\n${trace.join("\n")}`,
  );
}

/** Asserts that `trace` holds `expected` in order, and no error. */
function holds(trace: string[], expected: readonly string[]): void {
  const entries = trace.map((entry) => entry.replace(/^\+\d+ /, ""));
  let at = 0;
  for (const entry of expected) {
    const found = entries.indexOf(entry, at);
    assert.ok(
      found >= 0,
      `"${entry}" missing, or out of order, in:\n${trace.join("\n")}`,
    );
    at = found + 1;
  }
  assert.deepEqual(
    entries.filter((e) => /^(error|exit|stop rejected)/.test(e)),
    [],
  );
}

/**
 * A signal that counts its abort listeners: an object that stops without
 * removing its own would keep itself alive as long as the signal (often the
 * process's).
 */
function countingSignal(): { signal: AbortSignal; listening(): number } {
  const signal = new AbortController().signal;
  const live = new Set<unknown>();
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = (
    type: string,
    listener: EventListenerOrEventListenerObject,
    options?: boolean | AddEventListenerOptions,
  ): void => {
    if (type === "abort") live.add(listener);
    add(type, listener, options);
  };
  signal.removeEventListener = (
    type: string,
    listener: EventListenerOrEventListenerObject,
    options?: boolean | EventListenerOptions,
  ): void => {
    if (type === "abort") live.delete(listener);
    remove(type, listener, options);
  };
  return { signal, listening: () => live.size };
}

/** The checks, each run against every subject. */
const CHECKS: readonly {
  name: string;
  check(subject: Subject): Promise<void>;
}[] = [
  {
    name:
      "aborting its signal stops it as stop() does: same effects, order and times",
    async check(subject): Promise<void> {
      const stopped = await run(subject, "stop()");
      holds(stopped, subject.expect);
      const aborted = await run(subject, "signal");
      assert.deepEqual(aborted, stopped);
    },
  },
  {
    name: "await using stops it as stop() does",
    async check(subject): Promise<void> {
      const stopped = await run(subject, "stop()");
      assert.deepEqual(await run(subject, "await using"), stopped);
    },
  },
  {
    name:
      "after the signal's stop, done has settled and a second stop() is safe",
    async check(subject): Promise<void> {
      using _time = subject.realTime
        ? undefined
        : installFakeTime({ now: START });
      await using world = new World(_time);
      const abort = new AbortController();
      const made = await subject.make(world, abort.signal);
      await made.work();
      const driving = world.stopping(made);
      abort.abort();
      await driving;
      const trace = [...world.trace];
      quietAfterDone(trace);
      // Twice at once, and once more; then abort again.
      await world.until(Promise.all([made.object.stop(), made.object.stop()]));
      await world.until(made.object.stop());
      await world.until(made.object.done);
      abort.abort();
      await world.pass();
      assert.deepEqual(world.trace, trace, "the later stops did nothing");
      await made.stopped();
      await made.close?.();
    },
  },
  {
    name: "once stopped it leaves no listener on its signal",
    async check(subject): Promise<void> {
      using _time = subject.realTime
        ? undefined
        : installFakeTime({ now: START });
      await using world = new World(_time);
      const { signal, listening } = countingSignal();
      const made = await subject.make(world, signal);
      await made.work();
      assert.ok(listening() > 0, "it follows its signal");
      await world.until(made.object.stop());
      await world.until(made.object.done);
      assert.equal(listening(), 0, "a long-lived signal keeps no dead object");
      await made.stopped();
      await made.close?.();
    },
  },
  {
    name: "an already aborted signal stops it at once",
    async check(subject): Promise<void> {
      using _time = subject.realTime
        ? undefined
        : installFakeTime({ now: START });
      await using world = new World(_time);
      const made = await subject.make(world, AbortSignal.abort());
      const start = Date.now();
      await world.until(made.object.done);
      if (_time !== undefined) {
        assert.equal(Date.now(), start, "no fake time passed");
      }
      await made.stopped();
      await world.until(made.object.stop());
      await made.close?.();
    },
  },
];

for (const { name, check } of CHECKS) {
  for (const subject of SUBJECTS) {
    Deno.test({
      name: `${subject.name}: ${name}`,
      // Real sockets need a bound (see the notes on fake time).
      timeout: 20_000,
      fn: () => check(subject),
    });
  }
}
