// The schema formats decode checks on values from outside (date-time, date,
// uuid, byte, ipv4) and the string helpers finish on 100,000 characters of
// the worst input for their patterns: each pattern is anchored and has no
// nested or overlapping quantifier. The bound (1 s each) is 20x or more
// what a linear match takes on a loaded machine.
import assert from "node:assert/strict";
import { stringFormat } from "./schema/formats.ts";
import { decodeWith } from "./schema/decode.ts";
import { withoutTrailing } from "./strings.ts";

const N = 100_000;
const BOUND = 1000;

function timed<T>(name: string, run: () => T): T {
  const started = Date.now();
  const value = run();
  const took = Date.now() - started;
  assert.ok(took < BOUND, `${name}: ${took} ms`);
  return value;
}

Deno.test("schema formats reject 100k hostile characters in linear time", () => {
  const cases: [string, string][] = [
    ["date-time", "2030-01-01T00:00:00." + "1".repeat(N) + "!"],
    ["date-time", "2030-01-01T00:00:00" + "Z".repeat(N)],
    ["date", "2030-" + "1".repeat(N)],
    ["uuid", "a".repeat(N)],
    ["uuid", "a-".repeat(N / 2)],
    ["byte", "A".repeat(N) + "!"],
    ["byte", "AA==".repeat(N / 4)],
    ["byte", "A".repeat(N - 2) + "="],
    ["ipv4", "1.".repeat(N / 2)],
    ["ipv4", "25".repeat(N / 2)],
  ];
  for (const [format, value] of cases) {
    assert.equal(
      timed(
        `${format} ${value.slice(0, 24)}`,
        () => stringFormat(format, value),
      ),
      false,
    );
  }
  // And the long valid ones pass.
  assert.ok(stringFormat("byte", "AAAA".repeat(N / 4)));
  assert.ok(
    stringFormat("date-time", "2030-01-01T00:00:00." + "1".repeat(N) + "Z"),
  );
});

Deno.test("decode of 100k hostile characters under a format is linear", () => {
  const schema = {
    type: "object",
    properties: {
      spec: {
        type: "object",
        properties: { when: { type: "string", format: "date-time" } },
      },
    },
  } as const;
  const { causes } = timed(
    "decode",
    () =>
      decodeWith(schema, {
        spec: { when: "2030-01-01T00:00:00." + "9".repeat(N) },
      }),
  );
  assert.equal(causes.length, 1);
});

Deno.test("withoutTrailing drops the run at the end only, in linear time", () => {
  assert.equal(withoutTrailing("https://h/a///", "/"), "https://h/a");
  assert.equal(withoutTrailing("////", "/"), "");
  assert.equal(withoutTrailing("a/b", "/"), "a/b");
  const hostile = "/".repeat(10 * N) + "x";
  assert.equal(timed("slashes", () => withoutTrailing(hostile, "/")), hostile);
});

Deno.test("set and map lists of 20k items are checked for duplicates in linear time", () => {
  const schema = {
    type: "object",
    properties: {
      spec: {
        type: "object",
        properties: {
          s: {
            type: "array",
            "x-kubernetes-list-type": "set",
            items: { type: "string" },
          },
          m: {
            type: "array",
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["k", "n"],
            items: {
              type: "object",
              properties: {
                k: { type: "string" },
                n: { type: "integer" },
                x: { type: "integer" },
              },
            },
          },
        },
      },
    },
  } as const;
  const n = 20_000;
  const s = Array.from({ length: n }, (_, i) => `v${i}`);
  const m = Array.from({ length: n }, (_, i) => ({ n: i, k: `v${i}` }));
  // Each took seconds when every item was compared with all before it.
  const { causes } = timed(
    "lists",
    () => decodeWith(schema, { spec: { s, m } }),
  );
  assert.equal(causes.length, 0);
  // Duplicates are still found, each after its first, keys in any order.
  const dup = decodeWith(schema, {
    spec: {
      s: ["a", "b", "a", "a"],
      m: [{ k: "a", n: 1, x: 1 }, { n: 1, k: "a", x: 2 }, { k: "a" }],
    },
  }).causes;
  assert.deepEqual(dup.map((c) => c.field), [
    "spec.m[1]",
    "spec.s[2]",
    "spec.s[3]",
  ]);
});
