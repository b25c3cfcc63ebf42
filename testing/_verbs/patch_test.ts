import assert from "node:assert/strict";
import { jsonPatch, mergePatch, PatchError } from "./patch.ts";

Deno.test("mergePatch follows the RFC 7386 examples", () => {
  const cases: [unknown, unknown, unknown][] = [
    [{ a: "b" }, { a: "c" }, { a: "c" }],
    [{ a: "b" }, { b: "c" }, { a: "b", b: "c" }],
    [{ a: "b" }, { a: null }, {}],
    [{ a: "b", b: "c" }, { a: null }, { b: "c" }],
    [{ a: ["b"] }, { a: "c" }, { a: "c" }],
    [{ a: "c" }, { a: ["b"] }, { a: ["b"] }],
    [{ a: { b: "c" } }, { a: { b: "d", c: null } }, { a: { b: "d" } }],
    [{ a: [{ b: "c" }] }, { a: [1] }, { a: [1] }],
    [["a", "b"], ["c", "d"], ["c", "d"]],
    [{ a: "b" }, ["c"], ["c"]],
    [{ a: "foo" }, null, null],
    [{ a: "foo" }, "bar", "bar"],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: "b", c: null }, { a: "b" }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  for (const [target, patch, expected] of cases) {
    assert.deepEqual(
      mergePatch(target, patch),
      expected,
      JSON.stringify(patch),
    );
  }
});

Deno.test("mergePatch does not change its input", () => {
  const target = { a: { b: 1 } };
  mergePatch(target, { a: { b: 2 } });
  assert.deepEqual(target, { a: { b: 1 } });
});

Deno.test("jsonPatch applies operations and fails as a whole", () => {
  const doc = { list: [1, 2, 3], "a/b": { "m~n": 1 } };
  assert.deepEqual(
    jsonPatch(doc, [
      { op: "add", path: "/list/1", value: 9 },
      { op: "remove", path: "/list/0" },
      { op: "replace", path: "/a~1b/m~0n", value: 2 },
      { op: "test", path: "/list", value: [9, 2, 3] },
    ]),
    { list: [9, 2, 3], "a/b": { "m~n": 2 } },
  );
  assert.deepEqual(doc.list, [1, 2, 3], "the input is not changed");
  assert.throws(
    () => jsonPatch(doc, [{ op: "test", path: "/list/0", value: 5 }]),
    PatchError,
  );
  assert.throws(
    () => jsonPatch(doc, [{ op: "remove", path: "/missing" }]),
    PatchError,
  );
  assert.throws(
    () => jsonPatch(doc, [{ op: "replace", path: "/missing", value: 1 }]),
    PatchError,
  );
  assert.throws(
    () => jsonPatch(doc, [{ op: "add", path: "/list/7", value: 1 }]),
    PatchError,
  );
  assert.throws(() => jsonPatch(doc, { op: "add" }), PatchError);
  assert.throws(() => jsonPatch(doc, [{ op: "frob", path: "/" }]), PatchError);
});
