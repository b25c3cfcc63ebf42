// Keys from outside named like Object.prototype's members (`constructor`,
// `toString`, `valueOf`, `__proto__`) are fields like any other in the
// fake's merges, field selectors and printer-column JSONPath (the schema
// engine's side: _internal/own_keys_test.ts).
import assert from "node:assert/strict";
import { FakeApiServer } from "./fake_server.ts";
import { call } from "./_test_util.ts";
import { jsonPatch, mergePatch } from "./_verbs/patch.ts";
import { fieldSelector } from "./_verbs/selectors.ts";
import { evaluate, parsePath } from "./_tables/jsonpath.ts";

const NAMES = ["constructor", "toString", "valueOf", "__proto__"];

Deno.test("the fake's merge patch and JSON patch treat such keys as own fields", () => {
  const merged = mergePatch(
    { l: { keep: "1" } },
    JSON.parse('{"l":{"constructor":"a","__proto__":{"x":1},"toString":"c"}}'),
  ) as { l: Record<string, unknown> };
  assert.equal(Object.getPrototypeOf(merged.l), Object.prototype);
  assert.equal(
    JSON.stringify(merged),
    '{"l":{"keep":"1","constructor":"a","__proto__":{"x":1},"toString":"c"}}',
  );
  // Removing one that is not there fails, as the API server's does.
  assert.throws(
    () => jsonPatch({ l: {} }, [{ op: "remove", path: "/l/constructor" }]),
    /nonexistent key/,
  );
  assert.throws(
    () =>
      jsonPatch({ l: {} }, [{ op: "replace", path: "/l/valueOf", value: 1 }]),
    /missing key/,
  );
  const added = jsonPatch({ l: {} }, [
    { op: "add", path: "/l/__proto__", value: "p" },
  ]) as { l: Record<string, unknown> };
  assert.ok(Object.hasOwn(added.l, "__proto__"));
  assert.equal(JSON.stringify(added), '{"l":{"__proto__":"p"}}');
});

Deno.test("the fake keeps labels and data keys named constructor, toString, valueOf and __proto__ through merge, JSON and apply patches", async () => {
  await using server = new FakeApiServer({ managedFields: true });
  const CM = "/api/v1/namespaces/default/configmaps";
  assert.equal(
    (await call(server, "POST", CM, { metadata: { name: "a" } })).status,
    201,
  );
  // `__proto__` is no valid label key, but is a valid data key.
  const names = JSON.stringify(Object.fromEntries(NAMES.map((n) => [n, n])));
  const labels = JSON.stringify(
    Object.fromEntries(NAMES.slice(0, 3).map((n) => [n, n])),
  );
  const merged = await call(
    server,
    "PATCH",
    `${CM}/a`,
    `{"metadata":{"labels":${labels}},"data":${names}}`,
    "application/merge-patch+json",
  );
  assert.equal(merged.status, 200, JSON.stringify(merged.body));
  const get = async (): Promise<string> => {
    const { metadata, data } = (await call(server, "GET", `${CM}/a`)).body;
    return JSON.stringify({ labels: metadata.labels, data });
  };
  assert.equal(await get(), `{"labels":${labels},"data":${names}}`);
  const removed = await call(
    server,
    "PATCH",
    `${CM}/a`,
    [
      { op: "remove", path: "/metadata/labels/constructor" },
      { op: "remove", path: "/data/__proto__" },
      { op: "remove", path: "/data/toString" },
    ],
    "application/json-patch+json",
  );
  assert.equal(removed.status, 200, JSON.stringify(removed.body));
  assert.equal(
    await get(),
    '{"labels":{"toString":"toString","valueOf":"valueOf"},"data":{"constructor":"constructor","valueOf":"valueOf"}}',
  );
  const applied = await call(
    server,
    "PATCH",
    `${CM}/a?fieldManager=op`,
    `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","labels":{"constructor":"c"}},"data":{"__proto__":"p","toString":"t"}}`,
    "application/apply-patch+yaml",
  );
  assert.equal(applied.status, 200, JSON.stringify(applied.body));
  assert.equal(
    await get(),
    '{"labels":{"toString":"toString","valueOf":"valueOf","constructor":"c"},"data":{"constructor":"constructor","valueOf":"valueOf","__proto__":"p","toString":"t"}}',
  );
});

Deno.test("the fake's field selectors and printer-column JSONPath read own fields only", () => {
  const object = JSON.parse(
    '{"metadata":{"name":"a","labels":{"valueOf":"v"}},"spec":{"__proto__":"p"}}',
  );
  // An absent field reads as "", as the API server reads it.
  assert.equal(fieldSelector("metadata.constructor=")!(object), true);
  assert.equal(fieldSelector("metadata.toString!=")!(object), false);
  assert.equal(fieldSelector("spec.__proto__=p")!(object), true);
  assert.deepEqual(evaluate(parsePath(".metadata.constructor")!, object), []);
  assert.deepEqual(evaluate(parsePath(".metadata.labels.valueOf")!, object), [
    "v",
  ]);
  assert.deepEqual(evaluate(parsePath(".spec.__proto__")!, object), ["p"]);
});
