/**
 * Fake time for tests, on `npm:@sinonjs/fake-timers`.
 *
 * {@linkcode installFakeTime} replaces the global `setTimeout`,
 * `clearTimeout`, `setInterval`, `clearInterval` and `Date` with a clock the
 * test moves. `queueMicrotask` and `performance` stay real: faking
 * `queueMicrotask` stalls promises and streams, and the library never reads
 * `performance.now()` for logic.
 *
 * Code under test must read those globals when it calls them (never a copy
 * taken at import) and must not use `AbortSignal.timeout()`: this clock
 * (sinon's) does not drive it, so it always runs on real time. (The
 * library's own timeouts use `setTimeout`.)
 *
 * ## With `@std/testing`'s `FakeTime`
 *
 * The library only calls the globals, so any clock that patches them drives
 * it, and it runs under `@std/testing/time`'s `FakeTime` too (which, unlike
 * this clock, also drives `AbortSignal.timeout`). Two differences matter:
 *
 * - std's `tickAsync(ms)` fires every timer due within `ms` without letting
 *   promises run between them, so a chain of waits (a timer whose promise
 *   starts the next timer, as in a backoff) is not walked by one big tick,
 *   while this clock's `tick` runs the promises between timers. Step such a
 *   chain: `nextAsync()` until the work is done, or ticks smaller than the
 *   shortest wait, then `runMicrotasks()`.
 * - Never nest the two clocks. std's `FakeTime` restores the timers it
 *   saved when it loaded, so ending it inside (or starting it under)
 *   {@linkcode installFakeTime} silently takes the globals away from the
 *   sinon clock.
 *
 * ```ts ignore
 * import { FakeTime } from "@std/testing/time";
 *
 * Deno.test("retries after a backoff", async () => {
 *   using time = new FakeTime(0);
 *   let done = false;
 *   startSomethingThatBacksOff().then(() => done = true);
 *   // One timer at a time, with the promises it resolved run in between.
 *   while (!done && await time.nextAsync()) await time.runMicrotasks();
 * });
 * ```
 *
 * `FakeTime` also fakes nothing beyond the timers and `Date`, so the same
 * rules hold: wait in real time (see {@linkcode FakeTime.waitFor}) before
 * ticking when real sockets are involved.
 *
 * @module
 */

import FakeTimers from "@sinonjs/fake-timers";

/** The timer functions that fake-timers captured when it loaded: real ones. */
const real = {
  setTimeout: FakeTimers.timers.setTimeout as (
    fn: () => void,
    ms: number,
  ) => unknown,
  setImmediate: FakeTimers.timers.setImmediate as
    | ((fn: () => void) => unknown)
    | undefined,
  now: (): number => (FakeTimers.timers.Date as DateConstructor).now(),
};

/** The globals {@linkcode installFakeTime} replaces, and nothing else. */
const TO_FAKE: FakeTimers.FakeMethod[] = [
  "setTimeout",
  "clearTimeout",
  "setInterval",
  "clearInterval",
  "Date",
];

/**
 * Waits `ms` milliseconds of real time, whether or not a fake clock is
 * installed.
 *
 * @example Waiting while the clock is fake
 * ```ts
 * import assert from "node:assert/strict";
 * import { installFakeTime, realSleep } from "@liken/kubernetes/testing";
 *
 * using time = installFakeTime({ now: 0 });
 * await realSleep(5);
 * assert.equal(time.now(), 0); // the fake clock did not move
 * ```
 *
 * @param ms Milliseconds of real time.
 * @returns A promise that resolves after that time.
 */
export function realSleep(ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    real.setTimeout(resolve, ms);
  });
}

/** Lets one real macrotask run, so real I/O and every microtask progress. */
function realMacrotask(): Promise<void> {
  return new Promise<void>((resolve) => {
    if (real.setImmediate) real.setImmediate(resolve);
    else real.setTimeout(resolve, 0);
  });
}

/** Options for {@linkcode installFakeTime}. */
export interface InstallFakeTimeOptions {
  /** The fake clock's start, as epoch milliseconds or a `Date`. Default 0. */
  now?: number | Date | undefined;
}

/** Options for {@linkcode FakeTime.settle}. */
export interface SettleOptions {
  /**
   * How many consecutive quiet rounds (a real macrotask passed and no timer
   * was due) end the settle. Default 3.
   */
  quietRounds?: number | undefined;
  /**
   * The most rounds to run before giving up with an error, which catches a
   * timer that keeps rescheduling itself for "now". Default 10 000.
   */
  maxRounds?: number | undefined;
}

/** Options for {@linkcode FakeTime.waitFor}. */
export interface WaitForOptions {
  /** Real milliseconds to wait before throwing. Default 5 000. */
  timeout?: number | undefined;
  /** Real milliseconds between two checks. Default 1. */
  interval?: number | undefined;
}

/**
 * A fake clock installed on the globals; made by {@linkcode installFakeTime}.
 * Dispose it (`using`) to put the real timers back.
 */
export interface FakeTime extends Disposable {
  /**
   * Moves the clock `ms` forward, firing every timer due on the way and
   * letting promises run after each one.
   */
  tick(ms: number): Promise<void>;
  /**
   * Runs until nothing more happens without the clock moving: fires every
   * timer due now and lets microtasks and in-memory I/O run, until a few
   * rounds in a row are quiet. Does not move the clock: a zero-delay timer
   * counts as due now even when fake-timers put it 1 ms later (which it does
   * for timers made while a tick runs).
   */
  settle(options?: SettleOptions): Promise<void>;
  /**
   * Moves the clock to the next timer and fires it synchronously, without
   * letting promises run. Does nothing if no timer is pending.
   */
  runNext(): void;
  /**
   * Moves the clock to the next timer and fires it, letting promises run
   * before and after. Does nothing if no timer is pending.
   */
  next(): Promise<void>;
  /** The fake clock's current time, in epoch milliseconds. */
  now(): number;
  /** How many fake timers are pending. */
  countTimers(): number;
  /**
   * Polls `condition` in REAL time until it is true, for tests over real
   * sockets: wait until the code under test is parked on a fake timer, then
   * tick. Throws after `timeout` real milliseconds.
   */
  waitFor(
    condition: () => boolean,
    options?: WaitForOptions,
  ): Promise<void>;
}

class FakeTimeImpl implements FakeTime {
  #clock: FakeTimers.Clock;
  #installed = true;

  constructor(clock: FakeTimers.Clock) {
    this.#clock = clock;
  }

  async tick(ms: number): Promise<void> {
    await this.#clock.tickAsync(ms);
  }

  async settle(options: SettleOptions = {}): Promise<void> {
    const quietRounds = options.quietRounds ?? 3;
    const maxRounds = options.maxRounds ?? 10_000;
    let quiet = 0;
    for (let round = 0; round < maxRounds; round++) {
      await realMacrotask();
      if (this.#dueNow()) {
        quiet = 0;
        // tickAsync(0) fires exactly the timers due at the current time.
        await this.#clock.tickAsync(0);
      } else if (++quiet >= quietRounds) {
        return;
      }
    }
    throw new Error(
      `Fake time did not settle within ${maxRounds} rounds: a timer keeps being scheduled for now`,
    );
  }

  runNext(): void {
    this.#clock.next();
  }

  async next(): Promise<void> {
    await this.#clock.nextAsync();
  }

  now(): number {
    return this.#clock.now;
  }

  countTimers(): number {
    return this.#clock.countTimers();
  }

  async waitFor(
    condition: () => boolean,
    options: WaitForOptions = {},
  ): Promise<void> {
    const timeout = options.timeout ?? 5_000;
    const interval = options.interval ?? 1;
    const start = real.now();
    while (!condition()) {
      if (real.now() - start > timeout) {
        throw new Error(`Condition not met within ${timeout} ms of real time`);
      }
      await realSleep(interval);
    }
  }

  [Symbol.dispose](): void {
    if (!this.#installed) return;
    this.#installed = false;
    this.#clock.uninstall();
  }

  /**
   * Whether a timer is due now. fake-timers schedules a zero-delay timer made
   * during a tick 1 ms later (its guard against endless loops); such a timer
   * is due now as far as settle is concerned, so it is pulled back to now.
   * Lowering the heap's first entry keeps the heap ordered.
   */
  #dueNow(): boolean {
    const clock = this.#clock;
    const first = clock.timerHeap?.peek() ??
      [...clock.timers?.values() ?? []].sort((a, b) =>
        (a.callAt ?? 0) - (b.callAt ?? 0)
      )[0];
    if (first === undefined || first.callAt === undefined) return false;
    if (first.callAt <= clock.now) return true;
    const zeroDelay = first.type === "Timeout" && !(Number(first.delay) > 0);
    if (
      zeroDelay && first.createdAt === clock.now &&
      first.callAt === clock.now + 1
    ) {
      first.callAt = clock.now;
      return true;
    }
    return false;
  }
}

/**
 * Installs fake timers on the globals `setTimeout`, `clearTimeout`,
 * `setInterval`, `clearInterval` and `Date`. Only one clock can be installed
 * at a time; dispose it (`using`) at the end of the test.
 *
 * @example Waiting a minute in no time
 * ```ts
 * import assert from "node:assert/strict";
 * import { installFakeTime } from "@liken/kubernetes/testing";
 *
 * using time = installFakeTime({ now: new Date("2030-01-01T00:00:00Z") });
 * let fired = false;
 * setTimeout(() => fired = true, 60_000);
 * await time.tick(59_999);
 * assert.equal(fired, false);
 * await time.tick(1);
 * assert.equal(fired, true);
 * assert.equal(new Date().toISOString(), "2030-01-01T00:01:00.000Z");
 * ```
 *
 * @example Settling promise chains and zero-delay timers
 * ```ts
 * import assert from "node:assert/strict";
 * import { installFakeTime } from "@liken/kubernetes/testing";
 *
 * using time = installFakeTime();
 * const steps: string[] = [];
 * Promise.resolve().then(() => {
 *   steps.push("microtask");
 *   setTimeout(() => steps.push("timer at now"), 0);
 * });
 * await time.settle();
 * assert.deepEqual(steps, ["microtask", "timer at now"]);
 * assert.equal(time.now(), 0);
 * ```
 *
 * @param options Where the clock starts.
 * @returns The installed clock.
 */
export function installFakeTime(
  options: InstallFakeTimeOptions = {},
): FakeTime {
  const clock = FakeTimers.install({
    now: options.now ?? 0,
    toFake: [...TO_FAKE],
  });
  return new FakeTimeImpl(clock);
}
