import assert from "node:assert/strict";
import { first, NOT_RUN, notRunLine } from "./needs.ts";

Deno.test("a suite not run is listed with why and the command that runs it", () => {
  const line = notRunLine("fidelity", {
    why: "kubectl is not on PATH",
    how: "deno task test:unit --filter fidelity",
  });
  // tools/gate.ts collects the lines that carry this prefix.
  assert.ok(line.startsWith(NOT_RUN));
  assert.equal(
    line,
    "NOT RUN: fidelity: kubectl is not on PATH; run it with: deno task test:unit --filter fidelity",
  );
});

Deno.test("the first unmet need is the one reported", () => {
  const kubectl = { why: "kubectl is not on PATH", how: "x" };
  const node = { why: "node is not on PATH", how: "y" };
  assert.equal(first(undefined, kubectl, node), kubectl);
  assert.equal(first(undefined, undefined), undefined);
});
