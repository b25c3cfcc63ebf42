// The gate of "one name per idea" (issue 42): no two entry points export
// different things under one name. Two entry points may export the same
// thing (a re-export of one declaration, as `StopTimeoutError` is), never
// two declarations that share a name.
//
// It follows each entry point's exports through `export … from` and
// `export * from` to the file that declares them, reading the files as text
// (the code is formatted by `deno fmt`, so a declaration starts a line). It
// needs read permission on the library folders, as the layer test does.
import assert from "node:assert/strict";

const ENTRY_POINTS = [
  "apiclient/mod.ts",
  "log/mod.ts",
  "conditions/mod.ts",
  "memo/mod.ts",
  "informer/mod.ts",
  "election/mod.ts",
  "events/mod.ts",
  "controller/mod.ts",
  "metrics/mod.ts",
  "kubeconfig/mod.ts",
  "resource/mod.ts",
  "manifests/mod.ts",
  "webhook/mod.ts",
  "shard/mod.ts",
  "testing/mod.ts",
  // The hand-written part of api/; its generated group-versions are
  // versioned namespaces, as k8s.io/api's packages are (autoscaling/v1 and
  // v2 both declare HorizontalPodAutoscaler, meta/v1 the full ObjectMeta).
  "api/mod.ts",
] as const;

/** Where an exported name is declared: `file#name`. */
type Origin = string;

function code(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
}

function resolve(from: string, specifier: string): string {
  return new URL(specifier, `file:///${from}`).pathname.slice(1);
}

const DECLARATION =
  /^export\s+(?:declare\s+)?(?:default\s+)?(?:abstract\s+)?(?:async\s+)?(?:function\*?|class|interface|type|const|let|var|enum)\s+([A-Za-z_$][\w$]*)/gm;
const NAMED =
  /^export\s+(type\s+)?\{([^}]*)\}(?:\s+from\s+["']([^"']+)["'])?/gm;
const STAR = /^export\s+\*\s+from\s+["']([^"']+)["']/gm;
const IMPORTED =
  /^import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+["']([^"']+)["']/gm;

/** The names a file exports, each with where it is declared. */
export function exportsOf(
  path: string,
  read: (path: string) => string,
  seen: Set<string> = new Set(),
): Map<string, Origin> {
  const out = new Map<string, Origin>();
  if (seen.has(path)) return out;
  seen.add(path);
  const source = code(read(path));
  for (const match of source.matchAll(DECLARATION)) {
    out.set(match[1]!, `${path}#${match[1]}`);
  }
  // Names imported into the file, for `export { x }` without `from`.
  const imported = new Map<string, { from: string; name: string }>();
  for (const match of source.matchAll(IMPORTED)) {
    for (const part of match[1]!.split(",")) {
      const [name, alias] = part.replace(/^\s*type\s+/, "").split(/\s+as\s+/)
        .map((s) => s.trim());
      if (name) {
        imported.set(alias ?? name, {
          from: resolve(path, match[2]!),
          name,
        });
      }
    }
  }
  for (const match of source.matchAll(NAMED)) {
    const from = match[3] === undefined ? undefined : resolve(path, match[3]);
    const inner = from === undefined
      ? undefined
      : exportsOf(from, read, new Set(seen));
    for (const part of match[2]!.split(",")) {
      const [name, alias] = part.replace(/^\s*type\s+/, "").split(/\s+as\s+/)
        .map((s) => s.trim());
      if (!name) continue;
      let origin: Origin | undefined;
      if (inner !== undefined) origin = inner.get(name);
      else {
        const source = imported.get(name);
        origin = source === undefined
          ? `${path}#${name}`
          : exportsOf(source.from, read, new Set(seen)).get(source.name);
      }
      out.set(alias ?? name, origin ?? `${from ?? path}#${name}`);
    }
  }
  for (const match of source.matchAll(STAR)) {
    const from = resolve(path, match[1]!);
    for (const [name, origin] of exportsOf(from, read, new Set(seen))) {
      if (!out.has(name)) out.set(name, origin);
    }
  }
  return out;
}

/** Names two entry points export with different origins. */
export function clashes(
  entries: ReadonlyMap<string, ReadonlyMap<string, Origin>>,
): string[] {
  const byName = new Map<string, Map<Origin, string[]>>();
  for (const [entry, names] of entries) {
    for (const [name, origin] of names) {
      const origins = byName.get(name) ?? new Map<Origin, string[]>();
      origins.set(origin, [...(origins.get(origin) ?? []), entry]);
      byName.set(name, origins);
    }
  }
  const found: string[] = [];
  for (const [name, origins] of byName) {
    if (origins.size < 2) continue;
    const where = [...origins].map(([origin, at]) =>
      `${at.join(", ")} (${origin})`
    );
    found.push(`${name}: ${where.join(" vs ")}`);
  }
  return found.sort();
}

const ROOT = new URL("../", import.meta.url);

Deno.test("one name: exports are followed through re-exports to their declaration", () => {
  const files: Record<string, string> = {
    "a/mod.ts": 'export * from "./x.ts";\nexport { y as z } from "./y.ts";',
    "a/x.ts": "export class Thing {}\nexport interface Shape {}",
    "a/y.ts": 'import { Thing } from "./x.ts";\nexport { Thing as y };',
    "b/mod.ts":
      'export { Thing } from "../a/x.ts";\nexport type { Shape } from "./s.ts";',
    "b/s.ts": "export type Shape = { b: true };",
  };
  const read = (path: string): string => files[path]!;
  const a = exportsOf("a/mod.ts", read);
  assert.equal(a.get("Thing"), "a/x.ts#Thing");
  assert.equal(a.get("z"), "a/x.ts#Thing");
  const b = exportsOf("b/mod.ts", read);
  // The same class through two entry points is fine; two Shapes are not.
  assert.deepEqual(clashes(new Map([["a", a], ["b", b]])), [
    "Shape: a (a/x.ts#Shape) vs b (b/s.ts#Shape)",
  ]);
});

Deno.test("one name: no two entry points export different things under one name", () => {
  const read = (path: string): string => {
    try {
      return Deno.readTextFileSync(new URL(path, ROOT));
    } catch (error) {
      throw new Error(
        `The one-name test reads every library folder: run it with read permission on them (see test:unit in deno.json)`,
        { cause: error },
      );
    }
  };
  const entries = new Map(
    ENTRY_POINTS.map((entry) => [entry, exportsOf(entry, read)]),
  );
  const total = [...entries.values()].reduce((n, names) => n + names.size, 0);
  assert.ok(total > 300, `only ${total} exports were found`);
  assert.deepEqual(clashes(entries), []);
});
