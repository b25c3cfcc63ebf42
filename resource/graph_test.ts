// The CEL engine stays out of an operator's module graph (issue 46): the
// in-cluster entry points and the example operator reach neither the
// engine nor the rules that load it, by any import `deno info` or `deno
// compile` would follow (static ones, and dynamic ones of a literal).
// `decode` loads them only through `validationRules()`, whose import is
// computed.
import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);
const ENGINE = [/^_internal\/cel\//, /^_internal\/schema\/rules\.ts$/];
const IMPORT =
  /(?:^|[\s;])(?:import|export)\s(?:[^"';]*?\sfrom\s*)?["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;

/** Every file and bare specifier reached from `entry`, relative to the root. */
function graph(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (path: string): void => {
    if (seen.has(path)) return;
    seen.add(path);
    if (!path.endsWith(".ts")) return;
    const text = Deno.readTextFileSync(new URL(path, ROOT));
    for (const match of text.matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2]!;
      if (!specifier.startsWith(".")) {
        seen.add(specifier);
        continue;
      }
      const url = new URL(specifier, new URL(path, ROOT));
      visit(url.href.slice(ROOT.href.length));
    }
  };
  visit(entry);
  return seen;
}

for (const entry of ["mod.ts", "resource/mod.ts", "examples/main.ts"]) {
  Deno.test(`${entry} does not load the CEL engine`, () => {
    const reached = [...graph(entry)];
    assert.ok(reached.length > 20, `only ${reached.length} modules`);
    assert.deepEqual(
      reached.filter((path) =>
        ENGINE.some((pattern) => pattern.test(path)) ||
        path.includes("cel-js")
      ),
      [],
    );
  });
}

Deno.test("the fake's graph does reach the engine (the walk finds it)", () => {
  assert.ok(graph("testing/mod.ts").has("_internal/schema/rules.ts"));
});
