import assert from "node:assert/strict";
import { seeded } from "../_internal/_chaos_test_util.ts";
import { fnv1a64, hex64, ownerIndex, weight } from "./_ring.ts";
import { memberHash, Ring, shardKey } from "./ring.ts";

Deno.test("fnv1a64 matches the published FNV-1a 64-bit vectors", () => {
  assert.equal(hex64(fnv1a64("")), "cbf29ce484222325");
  assert.equal(hex64(fnv1a64("a")), "af63dc4c8601ec8c");
  assert.equal(hex64(fnv1a64("foobar")), "85944171f73967e8");
  assert.equal(memberHash("a"), "af63dc4c8601ec8c");
});

function randomName(random: () => number): string {
  const letters = "abcdefghijklmnopqrstuvwxyz0123456789";
  let name = "greeting-";
  const length = 5 + Math.floor(random() * 10);
  for (let i = 0; i < length; i++) {
    name += letters[Math.floor(random() * letters.length)];
  }
  return name;
}

const OBJECTS = 10_000;
const MAX_MEMBERS = 6;
const SEEDS = 1_000;

Deno.test("balance and moves: 10,000 objects, 1 to 6 members, 1,000 seeds", () => {
  const keys = Array.from({ length: OBJECTS }, (_, i) =>
    fnv1a64(shardKey({
      group: "example.com",
      kind: "Greeting",
      namespace: `team-${i % 37}`,
      name: `greeting-${i}`,
    })));
  // The worst figures over every seed, as multiples of M/N.
  const worst = { largest: 0, join: 0, leave: 0 };
  const weights = new Uint32Array(MAX_MEMBERS);
  for (let seed = 0; seed < SEEDS; seed++) {
    const random = seeded(seed);
    const names = Array.from({ length: MAX_MEMBERS }, () => randomName(random));
    const members = names.map((name) => fnv1a64(memberHash(name)));
    // The member leaving each ring of N (2 to 6): any one of them.
    const leaving = Array.from(
      { length: MAX_MEMBERS + 1 },
      (_, n) => Math.floor(random() * n),
    );
    const sizes = Array.from(
      { length: MAX_MEMBERS + 1 },
      () => new Array<number>(MAX_MEMBERS).fill(0),
    );
    const joined = new Array<number>(MAX_MEMBERS + 1).fill(0);
    const left = new Array<number>(MAX_MEMBERS + 1).fill(0);
    for (const key of keys) {
      for (let j = 0; j < MAX_MEMBERS; j++) {
        weights[j] = weight(key, members[j]!);
      }
      let owner = -1;
      let most = -1;
      for (let n = 1; n <= MAX_MEMBERS; n++) {
        const w = weights[n - 1]!;
        // A join of member n-1 moves only what it now weighs highest for.
        if (w > most) {
          if (owner !== -1) joined[n]! += 1;
          most = w;
          owner = n - 1;
        }
        sizes[n]![owner]! += 1;
        // A leave of one member moves its objects only.
        if (n >= 2 && owner === leaving[n]) left[n]! += 1;
      }
    }
    for (let n = 1; n <= MAX_MEMBERS; n++) {
      const mean = OBJECTS / n;
      const sizesOfN = sizes[n]!.slice(0, n);
      assert.equal(sizesOfN.reduce((a, b) => a + b, 0), OBJECTS);
      worst.largest = Math.max(worst.largest, Math.max(...sizesOfN) / mean);
      if (n >= 2) {
        // Against M/N of the larger ring, the stricter bound.
        worst.join = Math.max(worst.join, joined[n]! / mean);
        worst.leave = Math.max(worst.leave, left[n]! / mean);
      }
    }
  }
  // deno-lint-ignore no-console -- the report of the worst figures
  console.log(
    `worst over ${SEEDS} seeds: largest shard ${
      worst.largest.toFixed(3)
    }× M/N, join moves ${worst.join.toFixed(3)}× M/N, leave moves ${
      worst.leave.toFixed(3)
    }× M/N`,
  );
  assert.ok(worst.largest <= 1.25, `largest ${worst.largest}`);
  assert.ok(worst.join <= 1.5, `join ${worst.join}`);
  assert.ok(worst.leave <= 1.5, `leave ${worst.leave}`);
});

Deno.test("Ring.owner agrees with the arithmetic, and only a changed member's objects move", () => {
  const names = ["op-0", "op-1", "op-2", "op-3"].map(memberHash);
  const ring = new Ring(names);
  const three = new Ring(names.slice(0, 3));
  const hashes = ring.members.map(fnv1a64);
  let moved = 0;
  for (let i = 0; i < 2_000; i++) {
    const key = shardKey({
      kind: "ConfigMap",
      namespace: "default",
      name: `cm-${i}`,
    });
    const owner = ring.owner(key);
    assert.equal(owner, ring.members[ownerIndex(fnv1a64(key), hashes)]);
    const before = three.owner(key);
    if (before !== owner) {
      moved++;
      assert.equal(owner, names[3]);
    }
  }
  assert.ok(moved > 300 && moved < 700, `moved ${moved}`);
  assert.equal(new Ring([]).owner("x"), undefined);
  assert.deepEqual(new Ring(["b", "a", "b"]).members, ["a", "b"]);
});
