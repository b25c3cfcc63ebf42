import assert from "node:assert/strict";
import { scanEvent, scanObject, scanPage } from "./_scan.ts";

// Strings that hold brackets, escaped quotes and the keys the scan looks
// for, nested where only metadata's own keys may count.
const tricky = {
  apiVersion: "v1",
  kind: "Pod",
  spec: { name: "not-this", metadata: { name: "nor-this" } },
  metadata: {
    labels: { "a/name": 'x}]"{[', b: "\\" },
    managedFields: [{ fieldsV1: { 'k:{"name":"c"}': {}, "f:[": {} } }],
    name: 'p"1',
    ownerReferences: [{ name: "owner", uid: "u", kind: "ReplicaSet" }],
    namespace: "ns",
    resourceVersion: "42",
    deletionTimestamp: "2026-12-05T00:00:00Z",
  },
  status: { resourceVersion: "no" },
};

Deno.test("scanObject takes metadata's fields, not nested look-alikes", () => {
  const text = JSON.stringify(tricky);
  const found = scanObject(text, 0);
  assert.equal(found.end, text.length);
  assert.equal(found.name, 'p\\"1'); // the JSON text of the name, unescaped later
  assert.equal(found.namespace, "ns");
  assert.equal(found.resourceVersion, "42");
  assert.equal(found.deletionTimestamp, "2026-12-05T00:00:00Z");
  assert.deepEqual(JSON.parse(found.labels!), tricky.metadata.labels);
  assert.deepEqual(
    JSON.parse(found.ownerReferences!),
    tricky.metadata.ownerReferences,
  );
});

Deno.test("scanPage finds every item's bounds", () => {
  const items = [tricky, { metadata: { name: "b" } }, { metadata: {} }];
  const text = JSON.stringify({ kind: "List", metadata: {}, items });
  const found = scanPage(text);
  assert.equal(found.length, 3);
  found.forEach((f, i) =>
    assert.deepEqual(JSON.parse(text.slice(f.start, f.end)), items[i])
  );
  assert.equal(found[1]!.name, "b");
  assert.equal(found[2]!.name, undefined);
});

Deno.test("scanEvent answers the type and the object", () => {
  const line = JSON.stringify({ type: "MODIFIED", object: tricky });
  const { type, object } = scanEvent(line);
  assert.equal(type, "MODIFIED");
  assert.deepEqual(JSON.parse(line.slice(object.start, object.end)), tricky);
  assert.equal(object.resourceVersion, "42");
});

Deno.test("scanObject refuses an object cut short", () => {
  assert.throws(() => scanObject('{"metadata":{"name":"a"', 0), SyntaxError);
  assert.throws(() => scanObject('{"metadata":{"name":"a', 0), SyntaxError);
});
