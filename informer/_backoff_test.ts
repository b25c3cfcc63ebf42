import assert from "node:assert/strict";
import {
  Backoff,
  BACKOFF_RESET,
  INITIAL_BACKOFF,
  MAX_BACKOFF,
} from "./_backoff.ts";

Deno.test("backoff doubles from 800 ms to a 30 s base", () => {
  const backoff = new Backoff(() => 0);
  const waits = Array.from({ length: 9 }, () => backoff.next(0));
  assert.deepEqual(waits, [
    800,
    1_600,
    3_200,
    6_400,
    12_800,
    25_600,
    30_000,
    30_000,
    30_000,
  ]);
  assert.equal(INITIAL_BACKOFF, 800);
  assert.equal(MAX_BACKOFF, 30_000);
});

Deno.test("jitter adds up to the whole base", () => {
  const backoff = new Backoff(() => 0.5);
  assert.equal(backoff.next(0), 1_200);
  assert.equal(backoff.next(0), 2_400);
  const top = new Backoff(() => 0.999_999);
  for (let i = 0; i < 10; i++) top.next(0);
  assert.equal(top.next(0), 60_000);
});

Deno.test("backoff resets after two minutes without a failure", () => {
  const backoff = new Backoff(() => 0);
  backoff.next(0);
  backoff.next(1_000);
  assert.equal(backoff.next(2_000), 3_200);
  assert.equal(backoff.next(2_000 + BACKOFF_RESET), 6_400); // not past it
  assert.equal(backoff.next(2_001 + 2 * BACKOFF_RESET), 800);
});

Deno.test("Backoff reads Math.random at each call, so a clock or seed installed later drives it", () => {
  const backoff = new Backoff();
  const real = Math.random;
  Math.random = () => 0;
  try {
    assert.equal(backoff.next(0), INITIAL_BACKOFF);
  } finally {
    Math.random = real;
  }
});
