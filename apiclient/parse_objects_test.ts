import assert from "node:assert/strict";
import { WatchStream } from "./mod.ts";
import { decodeJson } from "./_decode.ts";
import { spyOnParse } from "../_internal/_parse_test_util.ts";

// The texts JSON.parse was called with during `run`.
async function parsesOf(run: () => Promise<void> | void): Promise<string[]> {
  using spy = spyOnParse();
  await run();
  return spy.texts;
}

Deno.test("a watch line is parsed with its version left out, and equals JSON.parse's answer", async () => {
  const lines = [
    '{"type":"ADDED","object":{"kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"17"},"data":{"k":"v"}}}',
    '{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","reason":"Expired","code":410}}',
  ];
  const events: unknown[] = [];
  const texts = await parsesOf(async () => {
    const body = new Response(lines.join("\n") + "\n").body!;
    const stream = new WatchStream(body, { method: "GET", path: "/x" });
    for await (const event of stream) events.push(event);
  });
  assert.deepStrictEqual(texts, [lines[0]!.replace('"17"', '""'), lines[1]]);
  assert.deepStrictEqual(events, lines.map((line) => JSON.parse(line)));
});

Deno.test("a list page is parsed with its versions left out, and equals JSON.parse's answer", async () => {
  const page =
    '{"kind":"ConfigMapList","metadata":{"resourceVersion":"9"},"items":[{"metadata":{"name":"a","resourceVersion":"5"}},{"metadata":{"name":"b","resourceVersion":"6"}}]}';
  let answer: unknown;
  const texts = await parsesOf(() => {
    answer = decodeJson(new TextEncoder().encode(page), 200, "GET", "/x");
  });
  // Each version has its own stand-in, the first an empty string.
  assert.deepStrictEqual(texts, [
    page.replace('"9"', '""').replace('"5"', '"v1"').replace('"6"', '"v2"'),
  ]);
  assert.deepStrictEqual(answer, JSON.parse(page));
});
