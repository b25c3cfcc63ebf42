import assert from "node:assert/strict";
import { celObjects } from "./policy_syntax.ts";

Deno.test("policy syntax: object constructions become maps of dyn, strings and maps stay", () => {
  assert.equal(
    celObjects("Object{metadata: Object.metadata{labels: {'a': 'b'}}}"),
    "{'metadata': dyn( {'labels': dyn( {'a': 'b'})})}",
  );
  assert.equal(
    celObjects("[JSONPatch{op: 'add', path: '/x', value: c ? 1 : 2}]"),
    "[{'op': dyn( 'add'), 'path': dyn( '/x'), 'value': dyn( c ? 1 : 2)}]",
  );
  // Text in strings, map keys and plain expressions are left alone.
  for (
    const text of [
      "'Object{a: b}' + r\"JSONPatch{x: y}\"",
      "{'a': Objects.x}",
      "object.spec.x == 1",
    ]
  ) {
    assert.equal(celObjects(text), text);
  }
  assert.equal(
    celObjects("'/metadata/labels/' + jsonpatch.escapeKey('a/b~c')"),
    "'/metadata/labels/' + ('a/b~c').replace('~', '~0').replace('/', '~1')",
  );
});
