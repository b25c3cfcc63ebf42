// The gate of the one-API rule (issue 26): outside `apiclient/` no library
// code builds an API path or a `?watch=` query by hand. The informer, memo,
// election, events, controller and metrics send every request through the
// handle (`client.resource(r).namespace(ns)`), which builds paths and
// queries in one place.
//
// Library code is what `deno publish` ships: every `.ts` file of the folders
// below except `*_test.ts`, `*_test_util.ts` and `*_bench.ts` (the
// publish.exclude of deno.json). Comment lines (TSDoc, `//`) are not code and
// are not read: a doc example may show a path-based call or the fake server's
// `object(path)`. Nothing is allow-listed.
//
// It reads the folders' files, so the test run needs read permission on
// them: `--allow-read=.tmp,testing/differential/golden,informer,memo,election,events,controller,metrics`.
// Without it the test fails and says so; it never passes unread.
//
// `deno run --allow-read _internal/no_paths_test.ts <root>` lists what it
// finds under another checkout (exit status 1 when anything is found).
import assert from "node:assert/strict";

/** The folders of library code that must send through the handle. */
export const FOLDERS = [
  "informer",
  "memo",
  "election",
  "events",
  "controller",
  "metrics",
] as const;

/** What building a path or a watch query by hand looks like. */
export const PATTERNS = [
  "collectionPath(",
  "objectPath(",
  '"/api/',
  "'/api/",
  "`/api",
  '"/apis/',
  "'/apis/",
  "watch=",
  "?watch",
] as const;

/** The read permission a test run needs, as one flag. */
export const READ_FLAG =
  "--allow-read=.tmp,testing/differential/golden,informer,memo,election,events,controller,metrics";

/** Whether a file is library code (shipped), not a test, test helper or bench. */
function isLibrary(name: string): boolean {
  return name.endsWith(".ts") && !name.endsWith("_test.ts") &&
    !name.endsWith("_test_util.ts") && !name.endsWith("_bench.ts") &&
    !name.endsWith(".d.ts");
}

/** Whether a line is a comment only (TSDoc or `//`), which the gate skips. */
function isComment(line: string): boolean {
  const text = line.trimStart();
  return text.startsWith("*") || text.startsWith("/*") ||
    text.startsWith("//");
}

/** The library files under `dir` (a path ending in `/`), recursively. */
async function libraryFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}${entry.name}`;
    if (entry.isDirectory) {
      if (entry.name === "testdata" || entry.name === "node_modules") continue;
      files.push(...await libraryFiles(`${path}/`));
    } else if (entry.isFile && isLibrary(entry.name)) files.push(path);
  }
  return files.sort();
}

/** Every `file:line: pattern: text` under `root` (a path ending in `/`). */
export async function findHandBuilt(root: string): Promise<string[]> {
  const found: string[] = [];
  for (const folder of FOLDERS) {
    for (const path of await libraryFiles(`${root}${folder}/`)) {
      const lines = (await Deno.readTextFile(path)).split("\n");
      lines.forEach((line, index) => {
        if (isComment(line)) return;
        for (const pattern of PATTERNS) {
          if (!line.includes(pattern)) continue;
          const file = path.slice(root.length);
          found.push(`${file}:${index + 1}: ${pattern}: ${line.trim()}`);
        }
      });
    }
  }
  return found;
}

/** The repository's root, as a path ending in `/`. */
function repositoryRoot(): string {
  return decodeURIComponent(new URL("../", import.meta.url).pathname);
}

/** The folders the run may not read, as a sentence, or `undefined`. */
function unreadable(root: string): string | undefined {
  const missing = FOLDERS.filter((folder) =>
    Deno.permissions.querySync({ name: "read", path: `${root}${folder}` })
      .state !== "granted"
  );
  if (missing.length === 0) return undefined;
  return `The gate reads the library's files but may not read ${
    missing.join(", ")
  }: run the tests with ${READ_FLAG} (the test task of deno.json needs it)`;
}

Deno.test("no library code outside apiclient/ builds an API path or a watch query by hand", async () => {
  const root = repositoryRoot();
  const refused = unreadable(root);
  if (refused !== undefined) assert.fail(refused);
  const found = await findHandBuilt(root);
  assert.deepEqual(
    found,
    [],
    `Send these through the handle (client.resource(r).namespace(ns): get, list, watch, create, replace, patch, apply, delete, status):\n${
      found.join("\n")
    }`,
  );
});

Deno.test("the gate reads shipped files only, and code lines, not comments", () => {
  assert.equal(isLibrary("_reflector.ts"), true);
  assert.equal(isLibrary("reflector_test.ts"), false);
  assert.equal(isLibrary("_harness_test_util.ts"), false);
  assert.equal(isLibrary("versions_bench.ts"), false);
  assert.equal(isComment(' * await client.create("/api/v1/x", {});'), true);
  assert.equal(isComment("  // a `?watch=true` query"), true);
  assert.equal(isComment('  const path = "/api/v1/pods";'), false);
});

if (import.meta.main) {
  const given = Deno.args[0];
  const root = given === undefined
    ? repositoryRoot()
    : given.endsWith("/")
    ? given
    : `${given}/`;
  const found = await findHandBuilt(root);
  // deno-lint-ignore no-console -- the script's output is the list.
  for (const line of found) console.log(line);
  Deno.exit(found.length === 0 ? 0 : 1);
}
