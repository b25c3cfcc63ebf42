// The patch a mutating webhook answers is computed from own keys only: labels
// and annotations named like Object.prototype's members are fields.
import assert from "node:assert/strict";
import { diff } from "./_json_patch.ts";
import { jsonPatch } from "../testing/_verbs/patch.ts";

const NAMES = ["constructor", "toString", "valueOf", "__proto__"];

function labels(names: string[]): unknown {
  // Own keys, `__proto__` too, as JSON.parse makes an admission review's.
  return JSON.parse(
    JSON.stringify({
      metadata: { labels: Object.fromEntries(names.map((n) => [n, "v"])) },
    }),
  );
}

Deno.test("deleting labels named constructor, toString, valueOf and __proto__ gives a remove for each", () => {
  const before = labels([
    "keep",
    "constructor",
    "toString",
    "valueOf",
    "__proto__",
  ]);
  const after = labels(["keep"]);
  const operations = diff(before, after);
  assert.deepEqual(
    operations.map((o) => o.op + " " + o.path).sort(),
    NAMES.map((n) => `remove /metadata/labels/${n}`).sort(),
  );
  assert.deepEqual(jsonPatch(before, operations), after);
});

Deno.test("adding annotations named constructor, toString, valueOf and __proto__ gives an add for each, never a replace", () => {
  const before = { metadata: { annotations: { a: "1" } } };
  const after = JSON.parse(
    '{"metadata":{"annotations":{"a":"1","constructor":"x","toString":"y","valueOf":"z","__proto__":"w"}}}',
  );
  const operations = diff(before, after);
  assert.deepEqual(
    operations,
    ["constructor", "toString", "valueOf", "__proto__"].map((n) => ({
      op: "add",
      path: `/metadata/annotations/${n}`,
      value: after.metadata.annotations[n],
    })),
  );
  const patched = jsonPatch(before, operations) as typeof after;
  assert.ok(Object.hasOwn(patched.metadata.annotations, "__proto__"));
  assert.equal(JSON.stringify(patched), JSON.stringify(after));
});

Deno.test("changing a label named constructor gives a replace; equal own keys give nothing", () => {
  const before = JSON.parse('{"l":{"constructor":"a","__proto__":"b"}}');
  const after = JSON.parse('{"l":{"constructor":"c","__proto__":"b"}}');
  assert.deepEqual(diff(before, after), [
    { op: "replace", path: "/l/constructor", value: "c" },
  ]);
  assert.deepEqual(diff(before, JSON.parse(JSON.stringify(before))), []);
  // Same key count, different own keys: not equal.
  assert.notDeepEqual(diff({ l: { a: 1 } }, { l: { constructor: 1 } }), []);
});
