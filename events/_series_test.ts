import assert from "node:assert/strict";
import { keyOf, Series, SERIES_LIMIT } from "./_series.ts";
import type { Event } from "./types.ts";

function event(overrides: Partial<Event> = {}): Event {
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: { generateName: "m.", namespace: "default" },
    involvedObject: { kind: "Machine", name: "m", uid: "u1" },
    reason: "Failed",
    message: "It failed",
    type: "Warning",
    source: { component: "c", host: "h" },
    firstTimestamp: "2030-01-01T00:00:00Z",
    lastTimestamp: "2030-01-01T00:00:00Z",
    count: 1,
    reportingComponent: "c",
    reportingInstance: "h",
    ...overrides,
  };
}

Deno.test("keyOf tells series apart by object, UID, type, reason and message", () => {
  const base = keyOf(event());
  assert.equal(keyOf(event({ lastTimestamp: "2031-01-01T00:00:00Z" })), base);
  const others = [
    event({ involvedObject: { kind: "Pod", name: "m", uid: "u1" } }),
    event({ involvedObject: { kind: "Machine", name: "n", uid: "u1" } }),
    event({ involvedObject: { kind: "Machine", name: "m", uid: "u2" } }),
    event({
      involvedObject: { kind: "Machine", name: "m", uid: "u1", namespace: "a" },
    }),
    event({ type: "Normal" }),
    event({ reason: "Other" }),
    event({ message: "Another" }),
  ];
  const keys = new Set(others.map(keyOf));
  assert.equal(keys.size, others.length);
  assert.ok(!keys.has(base));
});

Deno.test("keyOf cannot be confused by fields that run together", () => {
  const a = keyOf(event({ reason: "ab", message: "c" }));
  const b = keyOf(event({ reason: "a", message: "bc" }));
  assert.notEqual(a, b);
});

Deno.test("Series remembers, updates and forgets entries", () => {
  const series = new Series();
  assert.equal(series.get("k"), undefined);
  series.put("k", { name: "e1", count: 1, last: 0 });
  assert.deepEqual(series.get("k"), { name: "e1", count: 1, last: 0 });
  series.put("k", { name: "e1", count: 2, last: 5 });
  assert.equal(series.get("k")?.count, 2);
  assert.equal(series.size, 1);
  series.remove("k");
  assert.equal(series.get("k"), undefined);
  assert.equal(series.size, 0);
});

Deno.test("Series holds at most its limit, forgetting the least recently used", () => {
  const series = new Series(3);
  series.put("a", { name: "a", count: 1, last: 0 });
  series.put("b", { name: "b", count: 1, last: 0 });
  series.put("c", { name: "c", count: 1, last: 0 });
  series.get("a"); // a is now the most recently used; b the least
  series.put("d", { name: "d", count: 1, last: 0 });
  assert.equal(series.size, 3);
  assert.equal(series.get("b"), undefined);
  assert.ok(series.get("a"));
  assert.ok(series.get("c"));
  assert.ok(series.get("d"));
  // Updating an entry also marks it used: now a is the oldest after c, d.
  series.put("c", { name: "c", count: 2, last: 0 });
  series.put("e", { name: "e", count: 1, last: 0 });
  assert.equal(series.get("a"), undefined);
  assert.equal(series.get("c")?.count, 2);
});

Deno.test("Series defaults to 4096 entries", () => {
  const series = new Series();
  for (let i = 0; i < SERIES_LIMIT + 10; i++) {
    series.put(`k${i}`, { name: `e${i}`, count: 1, last: 0 });
  }
  assert.equal(series.size, SERIES_LIMIT);
  assert.equal(SERIES_LIMIT, 4096);
  for (let i = 0; i < 10; i++) assert.equal(series.get(`k${i}`), undefined);
  assert.ok(series.get(`k10`));
  assert.ok(series.get(`k${SERIES_LIMIT + 9}`));
});
