import assert from "node:assert/strict";
import { parseObjects } from "./parse.ts";
import { spyOnParse } from "./_parse_test_util.ts";

// The texts JSON.parse was called with during `run`.
function parsesOf(run: () => void): string[] {
  using spy = spyOnParse();
  run();
  return spy.texts;
}

// Parses `text` both ways; answers whether the versions were left out.
function check(text: string): boolean {
  let got: unknown;
  const texts = parsesOf(() => got = parseObjects(text));
  assert.deepStrictEqual(got, JSON.parse(text));
  return texts.length === 1 && texts[0] !== text;
}

Deno.test("parseObjects leaves out a watch event's version and sets it after", () => {
  const line =
    '{"type":"MODIFIED","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"123456","uid":"u"},"data":{"k":"v"}}}';
  const texts = parsesOf(() => parseObjects(line));
  assert.deepStrictEqual(texts, [line.replace('"123456"', '""')]);
  assert.equal(check(line), true);
});

Deno.test("parseObjects answers what JSON.parse does for a bookmark, an ERROR event, an object", () => {
  assert.equal(
    check(
      '{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"99","annotations":{"k8s.io/initial-events-end":"true"}}}}',
    ),
    true,
  );
  // A Status has no version: parsed once, as it is.
  const error =
    '{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (2)","reason":"Expired","code":410}}';
  assert.deepStrictEqual(parsesOf(() => parseObjects(error)), [error]);
  assert.equal(check(error), false);
  // A version in data before metadata, escaped inside a string.
  assert.equal(
    check(
      '{"object":{"data":{"x":"{\\"resourceVersion\\":\\"9\\"}"},"metadata":{"resourceVersion":"5"}}}',
    ),
    true,
  );
  // One object, as a get answers it.
  assert.equal(
    check('{"kind":"Pod","metadata":{"name":"p","resourceVersion":"7"}}'),
    true,
  );
});

Deno.test("parseObjects leaves out every version of a list page", () => {
  const items = [];
  for (let i = 0; i < 1200; i++) {
    items.push({
      metadata: i % 7 === 3
        ? { name: `n${i}` }
        : { name: `n${i}`, resourceVersion: String(1000 + i) },
      data: { x: String(i) },
    });
  }
  const page = JSON.stringify({
    kind: "ConfigMapList",
    apiVersion: "v1",
    metadata: { resourceVersion: "5000", continue: "c" },
    items,
  });
  assert.equal(check(page), true);
  // The list's own version after its items.
  assert.equal(
    check(
      '{"items":[{"metadata":{"resourceVersion":"1"}},{"metadata":{"resourceVersion":"2"}}],"metadata":{"resourceVersion":"3"}}',
    ),
    true,
  );
});

Deno.test("parseObjects parses as it is a text it cannot prove", () => {
  const cases = [
    // A key of that name outside metadata, before it.
    '{"object":{"spec":{"resourceVersion":"7"},"metadata":{"resourceVersion":"5"}}}',
    // ...and after it.
    '{"object":{"metadata":{"resourceVersion":"5"},"involvedObject":{"resourceVersion":"7"}}}',
    // The same key spelled with an escape, later in metadata, holding "".
    '{"object":{"metadata":{"resourceVersion":"5","resourceVersio\\u006e":""}}}',
    '{"metadata":{"resourceVersio\\u006e":"","resourceVersion":"5"}}',
    // A key ending in the name, after an escaped quote.
    '{"object":{"metadata":{"x\\"resourceVersion":"4","resourceVersion":"5"}}}',
    // Versions that are not all digits, or not strings.
    '{"object":{"metadata":{"resourceVersion":"12a"}}}',
    '{"object":{"metadata":{"resourceVersion":""}}}',
    '{"object":{"metadata":{"resourceVersion":"1\\u0032"}}}',
    '{"object":{"metadata":{"resourceVersion":"1\\n"}}}',
    '{"object":{"metadata":{"resourceVersion":12}}}',
    '{"object":{"metadata":{"resourceVersion" : "12"}}}',
    // No version at all.
    '{"object":{"metadata":{"name":"a"}}}',
    // Two metadata keys, two versions in one metadata.
    '{"object":{"metadata":{"resourceVersion":"1"},"metadata":{"resourceVersion":"2"}}}',
    '{"object":{"metadata":{"resourceVersion":"1"},"metadata":{"name":"b"}}}',
    '{"object":{"metadata":{"resourceVersion":"1","resourceVersion":"2"}}}',
    '{"object":{"metadata":{"resourceVersion":"1","resourceVersion":""}}}',
    '{"metadata":{"resourceVersion":"1"},"items":[],"metadata":{"resourceVersion":"2"}}',
    // Two items lists: the first one's versions are lost.
    '{"items":[{"metadata":{"resourceVersion":"1"}}],"items":[{"metadata":{"resourceVersion":"2"}}]}',
    // Not an object, or versions deeper than looked at.
    '[{"metadata":{"resourceVersion":"1"}}]',
    '{"object":{"object":{"metadata":{"resourceVersion":"1"}}}}',
    '{"items":[[{"metadata":{"resourceVersion":"1"}}]]}',
  ];
  for (const text of cases) {
    assert.equal(check(text), false, text);
  }
});

Deno.test("parseObjects parses large objects as they are", () => {
  const big = "x".repeat(5000);
  // Text after the version, before it, or between two versions.
  for (
    const text of [
      `{"object":{"metadata":{"resourceVersion":"1"},"data":{"a":"${big}"}}}`,
      `{"object":{"data":{"a":"${big}"},"metadata":{"resourceVersion":"1"}}}`,
      `{"items":[{"metadata":{"resourceVersion":"1"},"data":"${big}"},{"metadata":{"resourceVersion":"2"}}]}`,
    ]
  ) {
    assert.equal(check(text), false);
  }
  // Just under the limit: kept.
  const under = "x".repeat(3900);
  assert.equal(
    check(
      `{"items":[{"metadata":{"resourceVersion":"1"},"data":"${under}"},{"metadata":{"resourceVersion":"2"},"data":"${under}"}]}`,
    ),
    true,
  );
});

Deno.test("parseObjects throws JSON.parse's own error", () => {
  for (
    const text of [
      '{"object":{"metadata":{"resourceVersion":"123"}}',
      'x"resourceVersion":"1"',
      '{"a":"b"resourceVersion":"1"}',
      "",
    ]
  ) {
    let expected: unknown;
    try {
      JSON.parse(text);
    } catch (error) {
      expected = error;
    }
    assert.throws(() => parseObjects(text), expected as Error);
  }
});

Deno.test("parseObjects equals JSON.parse on generated texts with versions anywhere", () => {
  // A small deterministic generator (no Math.random: a failure replays).
  let seed = 12345;
  const next = (n: number): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const versions = ["1", "42", "", "v1", "0", "007", "99999999999", "a"];
  const keys = [
    "resourceVersion",
    "metadata",
    "items",
    "object",
    "name",
    "resourceVersio\\u006e",
  ];
  const value = (depth: number): string => {
    const pick = next(depth > 3 ? 2 : 6);
    if (pick === 0) return JSON.stringify(versions[next(versions.length)]);
    if (pick === 1) return String(next(100));
    if (pick === 2) {
      const n = next(4);
      const parts = [];
      for (let i = 0; i < n; i++) parts.push(value(depth + 1));
      return `[${parts.join(",")}]`;
    }
    const n = next(4);
    const parts = [];
    for (let i = 0; i < n; i++) {
      parts.push(`"${keys[next(keys.length)]}":${value(depth + 1)}`);
    }
    return `{${parts.join(",")}}`;
  };
  // Random pairs around a usual version, so some texts can be proved.
  const pairs = (): string[] => {
    const parts = [];
    for (let n = next(3); n > 0; n--) {
      parts.push(`"${keys[next(keys.length)]}":${value(2)}`);
    }
    return parts;
  };
  const object = (): string => {
    const metadata = [...pairs(), `"resourceVersion":"${next(1e6)}"`];
    if (next(2) === 0) metadata.reverse();
    const fields = [...pairs(), `"metadata":{${metadata.join(",")}}`];
    if (next(2) === 0) fields.reverse();
    return `{${fields.join(",")}}`;
  };
  let kept = 0;
  let parsed = 0;
  for (let i = 0; i < 3000; i++) {
    let text: string;
    const shape = next(3);
    if (shape === 0) text = value(0);
    else if (shape === 1) text = `{"type":"ADDED","object":${object()}}`;
    else {
      const items = [];
      for (let n = next(5); n > 0; n--) items.push(object());
      text = `{"metadata":{"resourceVersion":"${next(99)}"},"items":[${
        items.join(",")
      }]}`;
    }
    if (check(text)) kept++;
    else parsed++;
  }
  // Both paths ran, many times.
  assert.ok(kept > 100 && parsed > 100, `kept ${kept}, parsed ${parsed}`);
});
