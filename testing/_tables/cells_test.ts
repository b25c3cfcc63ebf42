import assert from "node:assert/strict";
import { humanDuration } from "./cells.ts";

Deno.test("table: humanDuration matches the API server's", () => {
  const s = 1000;
  const cases: [number, string][] = [
    [-5 * s, "<invalid>"],
    [-1 * s, "0s"],
    [0, "0s"],
    [119 * s, "119s"],
    [120 * s, "2m"],
    [125 * s, "2m5s"],
    [10 * 60 * s, "10m"],
    [179 * 60 * s, "179m"],
    [3 * 3600 * s, "3h"],
    [(3 * 3600 + 120) * s, "3h2m"],
    [8 * 3600 * s, "8h"],
    [47 * 3600 * s, "47h"],
    [48 * 3600 * s, "2d"],
    [(50 * 3600) * s, "2d2h"],
    [8 * 86400 * s, "8d"],
    [729 * 86400 * s, "729d"],
    [730 * 86400 * s, "2y"],
    [735 * 86400 * s, "2y5d"],
    [9 * 365 * 86400 * s, "9y"],
  ];
  for (const [ms, text] of cases) {
    assert.equal(humanDuration(ms), text, `${ms}`);
  }
});
