// The CEL engine is not loaded by an operator (issue 46): the in-cluster
// entry points and the example operator reach neither the engine nor the
// rules that use it by static imports, which load with the module. Only
// `validationRules()` reaches them, by a dynamic import of a literal (so
// that `deno compile` and JSR still see it), when an author asks.
import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);
const ENGINE = [/^_internal\/cel\//, /^_internal\/schema\/rules\.ts$/];
const IMPORT =
  /(?:^|[\s;])(?:import|export)\s(?:[^"';]*?\sfrom\s*)?["']([^"']+)["']/g;
const DYNAMIC = /\bimport\(\s*["']([^"']+)["']\s*\)/g;

/**
 * Every file and bare specifier reached from `entry`, relative to the root:
 * by static imports, and with `dynamic` by literal dynamic imports too.
 */
function graph(entry: string, dynamic = false): Set<string> {
  const seen = new Set<string>();
  const visit = (path: string): void => {
    if (seen.has(path)) return;
    seen.add(path);
    if (!path.endsWith(".ts")) return;
    const text = Deno.readTextFileSync(new URL(path, ROOT));
    const specifiers = [...text.matchAll(IMPORT)].map((match) => match[1]!);
    if (dynamic) {
      specifiers.push(...[...text.matchAll(DYNAMIC)].map((match) => match[1]!));
    }
    for (const specifier of specifiers) {
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

const engine = (reached: Iterable<string>): string[] =>
  [...reached].filter((path) =>
    ENGINE.some((pattern) => pattern.test(path)) || path.includes("cel-js")
  );

for (const entry of ["mod.ts", "resource/mod.ts", "examples/main.ts"]) {
  Deno.test(`${entry} does not load the CEL engine`, () => {
    const reached = graph(entry);
    assert.ok(reached.size > 20, `only ${reached.size} modules`);
    assert.deepEqual(engine(reached), []);
  });
}

Deno.test("validationRules() reaches the engine by a dynamic import that deno compile sees", () => {
  assert.ok(graph("resource/mod.ts", true).has("_internal/schema/rules.ts"));
  assert.ok(engine(graph("resource/mod.ts", true)).length > 1);
});

Deno.test("the fake's graph does reach the engine (the walk finds it)", () => {
  assert.ok(graph("testing/mod.ts").has("_internal/schema/rules.ts"));
});
