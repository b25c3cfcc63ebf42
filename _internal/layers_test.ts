// The gate of the layer order written in ARCHITECTURE.md (issue 42): library
// files import only files of their own folder or of a lower layer, and no
// file or folder is part of an import cycle. Type-only imports count: a type
// that a lower layer needs lives in that layer.
//
// Library code is what `deno publish` ships: the `.ts` files of the folders
// below except `*_test.ts`, `*_test_util.ts` and `*_bench.ts`, and except the
// folders that publish leaves out (testing/fidelity, differential, real).
//
// It reads the folders' files, so the test run needs read permission on each
// of them (see `test:unit` in deno.json); without it the test fails saying
// so. `deno run --allow-read _internal/layers_test.ts` prints the graph's
// findings for this checkout.
import assert from "node:assert/strict";

/** Each library folder's layer: a folder may import from lower layers only. */
export const LAYERS: Readonly<Record<string, number>> = {
  _internal: 0,
  apiclient: 1,
  log: 1,
  conditions: 2,
  kubeconfig: 2,
  memo: 2,
  resource: 2,
  api: 2,
  election: 3,
  events: 3,
  informer: 3,
  metrics: 3,
  shard: 4,
  controller: 5,
  manifests: 6,
  webhook: 6,
  testing: 6,
  ".": 7,
};

/** Folders inside library folders that are not shipped. */
const SKIPPED = new Set([
  "testing/fidelity",
  "testing/differential",
  "testing/real",
]);

function isLibrary(name: string): boolean {
  return name.endsWith(".ts") && !name.endsWith("_test.ts") &&
    !name.endsWith("_test_util.ts") && !name.endsWith("_bench.ts");
}

/** The library files under `root`, as paths relative to it. */
export function libraryFiles(root: URL): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of Deno.readDirSync(new URL(dir || ".", root))) {
      const path = dir ? `${dir}${entry.name}` : entry.name;
      if (entry.isDirectory) {
        if (
          path in LAYERS || (dir !== "" && !SKIPPED.has(path) &&
            entry.name !== "testdata" && entry.name !== "node_modules")
        ) walk(`${path}/`);
      } else if (isLibrary(entry.name)) files.push(path);
    }
  };
  for (const folder of Object.keys(LAYERS)) {
    // The root holds one library file; reading the root folder itself
    // would need read permission on the whole checkout.
    if (folder === ".") files.push("mod.ts");
    else walk(`${folder}/`);
  }
  return files.sort();
}

// `import … from "x"`, `export … from "x"`, `import "x"`, `import("x")`.
const SPECIFIER =
  /(?:^|[;\s])(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;

/** The relative imports of one file's source, resolved against its path. */
export function importsOf(path: string, source: string): string[] {
  // Comments hold doc examples that import public specifiers; drop them.
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(
    /^\s*\/\/.*$/gm,
    "",
  );
  const out = new Set<string>();
  for (const match of code.matchAll(SPECIFIER)) {
    const specifier = match[1] ?? match[2]!;
    if (!specifier.startsWith(".")) continue;
    out.add(new URL(specifier, `file:///${path}`).pathname.slice(1));
  }
  return [...out].sort();
}

/** The folder (first path segment) a file belongs to; `.` for the root. */
export function folderOf(path: string): string {
  const slash = path.indexOf("/");
  return slash === -1 ? "." : path.slice(0, slash);
}

/** The strongly connected components of more than one node (cycles). */
export function cycles(
  graph: ReadonlyMap<string, Iterable<string>>,
): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next++;
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** What breaks the layer rules in a graph of file imports. */
export interface Findings {
  /** Groups of files that import each other in a cycle. */
  fileCycles: string[][];
  /** Groups of folders that import each other in a cycle. */
  folderCycles: string[][];
  /** `from -> to` imports that reach a folder of the same or a higher layer. */
  climbs: string[];
  /** Files in a folder that has no layer. */
  unlayered: string[];
}

/** Checks a graph of file imports against {@linkcode LAYERS}. */
export function check(graph: ReadonlyMap<string, readonly string[]>): Findings {
  const folders = new Map<string, Set<string>>();
  const climbs: string[] = [];
  const unlayered = new Set<string>();
  for (const [from, imports] of graph) {
    const a = folderOf(from);
    if (!(a in LAYERS)) unlayered.add(from);
    for (const to of imports) {
      const b = folderOf(to);
      if (a === b) continue;
      if (!folders.has(a)) folders.set(a, new Set());
      folders.get(a)!.add(b);
      if (!(b in LAYERS)) unlayered.add(to);
      else if (a in LAYERS && LAYERS[b]! >= LAYERS[a]!) {
        climbs.push(`${from} -> ${to}`);
      }
    }
  }
  return {
    fileCycles: cycles(graph),
    folderCycles: cycles(folders),
    climbs,
    unlayered: [...unlayered].sort(),
  };
}

/** The import graph of the library files under `root`. */
export function graphOf(root: URL): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const path of libraryFiles(root)) {
    graph.set(
      path,
      importsOf(path, Deno.readTextFileSync(new URL(path, root))),
    );
  }
  return graph;
}

const ROOT = new URL("../", import.meta.url);

Deno.test("layers: the specifier scan sees every form of import and skips comments", () => {
  const source = [
    'import { a } from "./a.ts";',
    'import type { B } from "../apiclient/types.ts";',
    'export { c } from "./c.ts";',
    'export * from "../memo/mod.ts";',
    'import "./side.ts";',
    'const lazy = await import("../informer/mod.ts");',
    'import {\n  d,\n  type E,\n} from "./d.ts";',
    '// import { x } from "../controller/mod.ts";',
    '/** import { y } from "../shard/mod.ts"; */',
    'import { z } from "@liken/kubernetes/testing";',
  ].join("\n");
  assert.deepEqual(importsOf("events/recorder.ts", source), [
    "apiclient/types.ts",
    "events/a.ts",
    "events/c.ts",
    "events/d.ts",
    "events/side.ts",
    "informer/mod.ts",
    "memo/mod.ts",
  ]);
});

Deno.test("layers: a climbing import, a file cycle and a folder cycle are each found", () => {
  const graph = new Map<string, string[]>([
    ["apiclient/client.ts", ["informer/store.ts"]],
    ["informer/store.ts", ["apiclient/types.ts"]],
    ["apiclient/types.ts", []],
    ["election/_guard.ts", ["election/_state.ts"]],
    ["election/_state.ts", ["election/_guard.ts"]],
  ]);
  const found = check(graph);
  assert.deepEqual(found.climbs, ["apiclient/client.ts -> informer/store.ts"]);
  assert.deepEqual(found.folderCycles, [["apiclient", "informer"]]);
  assert.deepEqual(found.fileCycles, [[
    "election/_guard.ts",
    "election/_state.ts",
  ]]);
  // Same-layer imports between folders climb too: layers are strict.
  assert.deepEqual(
    check(new Map([["events/a.ts", ["informer/b.ts"]], ["informer/b.ts", []]]))
      .climbs,
    ["events/a.ts -> informer/b.ts"],
  );
});

Deno.test("layers: the library keeps its layers, with no file or folder cycle", () => {
  let graph: Map<string, string[]>;
  try {
    graph = graphOf(ROOT);
  } catch (error) {
    throw new Error(
      "The layer test reads every library folder: run it with read permission on them (see test:unit in deno.json)",
      { cause: error },
    );
  }
  assert.ok(graph.size > 100, `only ${graph.size} library files were read`);
  assert.deepEqual(check(graph), {
    fileCycles: [],
    folderCycles: [],
    climbs: [],
    unlayered: [],
  });
});

if (import.meta.main) {
  const found = check(graphOf(ROOT));
  // deno-lint-ignore no-console
  console.log(JSON.stringify(found, null, 2));
}
