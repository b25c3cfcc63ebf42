import assert from "node:assert/strict";
import { key, pathOfKey } from "./keys.ts";

Deno.test("key: namespace/name for a namespaced object", () => {
  assert.equal(
    key({ metadata: { namespace: "demo", name: "web" } }),
    "demo/web",
  );
  assert.equal(key({ namespace: "demo", name: "web" }), "demo/web");
});

Deno.test("key: the name alone for a cluster-scoped object", () => {
  assert.equal(key({ metadata: { name: "node-1" } }), "node-1");
  assert.equal(key({ name: "node-1", namespace: "" }), "node-1");
  assert.equal(key({ metadata: {} }), "");
});

Deno.test("pathOfKey: splits at the first slash", () => {
  const seen: [string, string][] = [];
  const path = pathOfKey((namespace, name) => {
    seen.push([namespace, name]);
    return namespace ? `/ns/${namespace}/x/${name}` : `/x/${name}`;
  });
  assert.equal(path("demo/web"), "/ns/demo/x/web");
  assert.equal(path("node-1"), "/x/node-1");
  assert.deepEqual(seen, [["demo", "web"], ["", "node-1"]]);
});

Deno.test("pathOfKey: inverts key", () => {
  const path = pathOfKey((namespace, name) => `${namespace}|${name}`);
  const namespaced = { metadata: { namespace: "a", name: "b" } };
  const clustered = { metadata: { name: "c" } };
  assert.equal(path(key(namespaced)), "a|b");
  assert.equal(path(key(clustered)), "|c");
});
