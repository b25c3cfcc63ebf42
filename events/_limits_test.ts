import assert from "node:assert/strict";
import { cut, MAX_MESSAGE, MAX_REASON, namespaceOf } from "./_limits.ts";

const bytes = (text: string): number => new TextEncoder().encode(text).length;

Deno.test("cut keeps a text within the limit unchanged", () => {
  assert.equal(cut("", 10), "");
  assert.equal(cut("0123456789", 10), "0123456789");
  // 4 characters, 12 bytes: within a limit of 12 despite the byte count.
  assert.equal(cut("日本語の", 12), "日本語の");
});

Deno.test("cut shortens ASCII to the limit with an ellipsis", () => {
  const cutText = cut("a".repeat(2000), MAX_MESSAGE);
  assert.equal(bytes(cutText), MAX_MESSAGE);
  assert.ok(cutText.endsWith("…"));
  assert.equal(cutText, "a".repeat(MAX_MESSAGE - 3) + "…");
});

Deno.test("cut backs up to a character boundary inside a multi-byte character", () => {
  // "é" is 2 bytes; limit 10 leaves 7 bytes before the 3-byte ellipsis,
  // which falls inside the 4th "é" (bytes 6 and 7): keep 3 of them.
  assert.equal(cut("éééééééé", 10), "ééé…");
  assert.equal(bytes(cut("éééééééé", 10)), 9);
  // "😀" is 4 bytes (a surrogate pair in UTF-16): never split it.
  const emoji = cut("😀".repeat(300), MAX_MESSAGE);
  assert.equal(emoji, "😀".repeat(255) + "…");
  assert.ok(bytes(emoji) <= MAX_MESSAGE);
  assert.ok(!emoji.includes("\uFFFD"));
  // A 3-byte character ending exactly at the cut is kept.
  assert.equal(cut("日".repeat(50), 12), "日日日…");
});

Deno.test("cut never exceeds the limit for any boundary position", () => {
  const text = "aé日😀".repeat(100);
  for (let limit = 3; limit <= 60; limit++) {
    const out = cut(text, limit);
    assert.ok(bytes(out) <= limit, `limit ${limit}: ${bytes(out)} bytes`);
    assert.ok(out.endsWith("…"));
    assert.ok(!out.includes("\uFFFD"), `limit ${limit} split a character`);
    assert.ok(text.startsWith(out.slice(0, -1)));
  }
});

Deno.test("cut reasons at 128 bytes", () => {
  const reason = cut("R".repeat(200), MAX_REASON);
  assert.equal(bytes(reason), 128);
});

Deno.test("namespaceOf puts cluster-scoped objects in default", () => {
  assert.equal(namespaceOf({ kind: "Node", name: "n" }), "default");
  assert.equal(
    namespaceOf({ kind: "Node", name: "n", namespace: "" }),
    "default",
  );
  assert.equal(
    namespaceOf({ kind: "Pod", name: "p", namespace: "apps" }),
    "apps",
  );
});
