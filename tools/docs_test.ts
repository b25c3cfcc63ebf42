// The docs quote figures (line counts, benchmark results, defaults); each
// block that quotes them is marked with its source, and this test fails when
// a figure of the block is not in that source. A mark is an HTML comment on
// the line before the block (a paragraph, a table or a list, up to the next
// blank line):
//
//   <!-- figures: bench/latency/results/results.md -->
//
// Figures are compared as numbers ("1,004" is 1004, "10_000" is 10000), so a
// rerun that changes a result and leaves the docs behind fails here. Line
// counts come from the committed table of tools/compare/README.md (what
// `bash tools/compare/count.sh` prints; `deno task counts` checks the script
// itself), so this test needs no shell. In bench/README.md every table must
// be marked; a table of figures measured by commands rather than kept in a
// results file is marked `<!-- figures: measured by the command of each
// row -->` (each row must name its command) or `<!-- figures: measured by
// bench/x.ts -->` (the script must exist); those figures are not checked.
import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);
const MEASURED = "measured by ";
const EACH_ROW = "measured by the command of each row";
const MARK = /^<!-- figures: (.+) -->$/;
// A number not glued to a word (v1, p99, k8s) or to a dotted version's tail.
const NUMBER =
  /(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?|(?<![\w.])\d[\d_]*(?:\.\d+)?/g;

/** The Markdown files the docs are made of. */
async function docs(): Promise<string[]> {
  const files = [
    "README.md",
    "SECURITY.md",
    "CONTRIBUTING.md",
    "bench/README.md",
    "examples/README.md",
  ];
  for await (const entry of Deno.readDir(new URL("docs/", ROOT))) {
    if (entry.isFile && entry.name.endsWith(".md")) {
      files.push(`docs/${entry.name}`);
    }
  }
  return files.sort();
}

function read(path: string): Promise<string> {
  return Deno.readTextFile(new URL(path, ROOT));
}

/** The numbers of a text, as numbers. */
function numbers(text: string): number[] {
  return [...text.matchAll(NUMBER)].map((match) =>
    Number(match[0].replaceAll(/[,_]/g, ""))
  );
}

/** A block's text without what is not a quoted figure: code, link targets. */
function prose(block: string): string {
  return block
    .replaceAll(/`[^`]*`/g, "")
    .replaceAll(/\]\([^)]*\)/g, "]")
    .replaceAll(/<!--.*?-->/g, "");
}

interface Marked {
  file: string;
  line: number;
  sources: string[];
  block: string;
}

/** Every marked block of a file, and the line of each unmarked table. */
function blocks(file: string, text: string): {
  marked: Marked[];
  unmarkedTables: number[];
} {
  const lines = text.split("\n");
  const marked: Marked[] = [];
  const unmarkedTables: number[] = [];
  for (let i = 0; i < lines.length; i++) {
    const mark = lines[i]!.match(MARK);
    if (mark) {
      // `deno fmt` keeps a blank line after the comment.
      let start = i + 1;
      while (start < lines.length && lines[start]!.trim() === "") start++;
      let end = start;
      while (end < lines.length && lines[end]!.trim() !== "") end++;
      marked.push({
        file,
        line: i + 1,
        sources: mark[1]!.split(",").map((source) => source.trim()),
        block: lines.slice(start, end).join("\n"),
      });
      i = end;
    } else if (lines[i]!.startsWith("|")) {
      unmarkedTables.push(i + 1);
      while (i < lines.length && lines[i]!.startsWith("|")) i++;
    }
  }
  return { marked, unmarkedTables };
}

Deno.test("every figure of a marked block is in the source it names", async () => {
  const missing: string[] = [];
  let checked = 0;
  for (const file of await docs()) {
    for (
      const { line, sources, block } of blocks(file, await read(file)).marked
    ) {
      if (sources[0]!.startsWith(MEASURED)) continue;
      const known = new Set<number>();
      for (const source of sources) {
        for (const number of numbers(await read(source))) known.add(number);
      }
      const quoted = numbers(prose(block));
      assert.ok(
        quoted.length > 0,
        `${file}:${line}: a mark on a block with no figure`,
      );
      for (const number of quoted) {
        checked++;
        if (!known.has(number)) {
          missing.push(
            `${file}:${line}: ${number} is not in ${sources.join(", ")}`,
          );
        }
      }
    }
  }
  assert.deepEqual(missing, []);
  assert.ok(checked > 100, `only ${checked} figures checked`);
});

Deno.test("a figure not kept in a results file names the script that measures it", async () => {
  let measured = 0;
  for (const file of await docs()) {
    for (
      const { line, sources, block } of blocks(file, await read(file)).marked
    ) {
      if (!sources[0]!.startsWith(MEASURED)) continue;
      measured++;
      const scripts = sources[0] === EACH_ROW
        ? block.split("\n").slice(2).flatMap((row) => {
          // Past the header and its rule, each row names its command, or
          // says it shares the one above.
          const command = row.match(/`deno [^`]+`/)?.[0];
          assert.ok(
            command !== undefined || /\((same|first command)\)/.test(row),
            `${file}:${line}: a row that names no command: ${row}`,
          );
          return command?.match(/[\w/]+\.ts/g) ?? [];
        })
        : [sources[0]!.slice(MEASURED.length), ...sources.slice(1)];
      assert.ok(scripts.length > 0, `${file}:${line}: no script named`);
      for (const script of scripts) {
        const stat = await Deno.stat(new URL(script, ROOT)).catch(() => null);
        assert.ok(stat?.isFile, `${file}:${line}: ${script} does not exist`);
      }
    }
  }
  assert.ok(measured > 0);
});

Deno.test("every table of bench/README.md names where its figures come from", async () => {
  const file = "bench/README.md";
  assert.deepEqual(blocks(file, await read(file)).unmarkedTables, []);
});

Deno.test("the line counts quoted are those of tools/compare/README.md", async () => {
  // The comparison's own table is marked; this pins that the mark exists.
  const text = await read("docs/comparison.md");
  const { marked } = blocks("docs/comparison.md", text);
  assert.ok(
    marked.some(({ sources, block }) =>
      sources.includes("tools/compare/README.md") && block.startsWith("|")
    ),
    "docs/comparison.md's table is not marked with tools/compare/README.md",
  );
});

Deno.test("every relative link of the docs names a file that exists", async () => {
  const broken: string[] = [];
  for (const file of await docs()) {
    const text = await read(file);
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^(https?:|mailto:|#)/.test(target!)) continue;
      const path = new URL(target!.split("#")[0]!, new URL(file, ROOT));
      try {
        await Deno.stat(path);
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
        broken.push(`${file}: ${target}`);
      }
    }
  }
  assert.deepEqual(broken, []);
});

Deno.test("numbers: separators and versions", () => {
  assert.deepEqual(numbers("1,004 and 996, 10_000 ms; v1.37.2 p99 2.46×"), [
    1004,
    996,
    10000,
    2.46,
  ]);
  assert.equal(prose("`deno run a 12` [b](c/3.md) 4"), " [b] 4");
});
