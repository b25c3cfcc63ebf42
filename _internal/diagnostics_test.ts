// deno-lint-ignore-file no-console -- the test replaces the default error sink to read it.
import assert from "node:assert/strict";
import { diagnostics } from "./diagnostics.ts";

Deno.test("diagnostics: lines default to none, errors to stderr, and neither callback's throw escapes", () => {
  const lines: string[] = [];
  const errors: unknown[] = [];
  const quiet = diagnostics("Thing", {});
  quiet.log("nobody hears this"); // no default sink, no throw
  const routed = diagnostics("Thing", {
    log: (line) => void lines.push(line),
    onError: (error) => void errors.push(error),
  });
  routed.log("one");
  const failure = new Error("two");
  routed.onError(failure);
  assert.deepEqual(lines, ["one"]);
  assert.deepEqual(errors, [failure]);
  const throwing = diagnostics("Thing", {
    log: () => {
      throw new Error("log broke");
    },
    onError: () => {
      throw new Error("sink broke");
    },
  });
  throwing.log("x");
  throwing.onError(new Error("y"));
});

Deno.test("diagnostics: the default error sink names the object", () => {
  const original = console.error;
  const seen: unknown[][] = [];
  console.error = (...args: unknown[]) => void seen.push(args);
  try {
    diagnostics("Watching default/configmaps", {}).onError(new Error("gone"));
  } finally {
    console.error = original;
  }
  assert.deepEqual(seen, [["Watching default/configmaps: gone"]]);
});
