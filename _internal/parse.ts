// An internal option of the client's reads, not part of its public API: a
// parse of a 2xx answer's text (a list page, a watch line) in place of
// JSON.parse, so the informer can keep objects as text it has only scanned
// (issue #48). Keyed by a symbol, so no caller sets it by accident and no
// public options type names it.

/** The key of the option on `GetOptions`, `ListOptions` and `WatchOptions`. */
export const PARSE: unique symbol = Symbol("liken.parse");

/**
 * Parses the text of one answer (a whole body, or one watch line). It must
 * throw a `SyntaxError` where `JSON.parse` would, and answer what the
 * caller's code expects in place of the parsed value.
 */
export type Parse = (text: string) => unknown;

/** Options that may carry the internal parse. */
export interface ParseOption {
  [PARSE]?: Parse | undefined;
}

// The key whose string values are left out of the text JSON.parse reads.
const KEY = '"resourceVersion"';
// Stand-ins for the versions left out, one per version of a text. Short
// letters, kept alive here so JSON.parse finds them already interned; never
// digits, whose string-table hashes are the numbers they spell.
const TAGS: string[] = [""];
// Past this much text between versions (an object of that size) the copy and
// the scans cost more than the version saves: Pods of 6.7 KB parsed no faster
// in pages, ConfigMaps of 1 KB 20-40 % faster (see parseObjects).
const MAX_GAP = 4096;
const tagOf = (k: number): string => {
  while (TAGS.length <= k) TAGS.push("v" + TAGS.length.toString(36));
  return TAGS[k]!;
};

/**
 * `JSON.parse` of an answer (an object, a list page, a watch line), with the
 * text of each object's `metadata.resourceVersion` left out of the parse and
 * set after. JSON.parse interns every string of up to 10 characters, and a
 * watch's versions, all new and all digits, cost ~3 µs each to intern at
 * 100k objects (bench/scale/results/issue-48-reads.md).
 *
 * The answer is always what `JSON.parse(text)` gives. A version is left out
 * only as `"resourceVersion":"<digits>"`, in a text with no `\u` escape (the
 * only escape that spells a letter) and no other `"resourceVersion"`: then
 * every key of that name in the text is one left out (a backslash before
 * one, a key that only ends in the name, is refused early). Each gets its own stand-in; the parse is kept only if every stand-in
 * is found at the `metadata.resourceVersion` of the answer, of its `object`
 * (a watch event) or of one of its `items` (a list), else the text is parsed
 * again as it is.
 *
 * @example Same as JSON.parse
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseObjects } from "./parse.ts";
 *
 * const line = '{"type":"MODIFIED","object":{"metadata":{"name":"a","resourceVersion":"42"}}}';
 * assert.deepStrictEqual(parseObjects(line), JSON.parse(line));
 * ```
 */
export function parseObjects(text: string): unknown {
  let at = text.indexOf(KEY);
  if (at === -1) return JSON.parse(text);
  const parts: string[] = [];
  const versions: string[] = [];
  let last = 0;
  do {
    const value = at + KEY.length + 2;
    if (
      text.charCodeAt(at + KEY.length) !== 58 /* : */ ||
      text.charCodeAt(value - 1) !== 34 /* " */ ||
      text.charCodeAt(at - 1) === 92 /* \ */
    ) return JSON.parse(text);
    let end = value;
    for (let c = text.charCodeAt(end); c >= 48 && c <= 57;) {
      c = text.charCodeAt(++end);
    }
    if (end === value || text.charCodeAt(end) !== 34) return JSON.parse(text);
    if (value - last > MAX_GAP) return JSON.parse(text);
    parts.push(text.slice(last, value), tagOf(versions.length));
    versions.push(text.slice(value, end));
    last = end;
    at = text.indexOf(KEY, end);
  } while (at !== -1);
  if (text.length - last > MAX_GAP || text.indexOf("\\u") !== -1) {
    return JSON.parse(text);
  }
  parts.push(text.slice(last));
  let parsed: unknown;
  try {
    parsed = JSON.parse(
      parts.length === 3 ? parts[0]! + parts[2]! : parts.join(""),
    );
  } catch {
    // The text's own error, with its own positions.
    return JSON.parse(text);
  }
  return restore(parsed, versions) ? parsed : JSON.parse(text);
}

// Sets each version at the place its stand-in landed; false if one is not at
// a place looked at.
function restore(parsed: unknown, versions: string[]): boolean {
  if (typeof parsed !== "object" || parsed === null) return false;
  const found = { count: 0 };
  const answer = parsed as Record<string, unknown>;
  if (!put(answer, versions, found)) return false;
  if (!put(answer.object, versions, found)) return false;
  const items = answer.items;
  if (Array.isArray(items)) {
    for (let k = 0; k < items.length; k++) {
      if (!put(items[k], versions, found)) return false;
    }
  }
  return found.count === versions.length;
}

// False if a stand-in is found but not placed right.
function put(
  holder: unknown,
  versions: string[],
  found: { count: number },
): boolean {
  if (typeof holder !== "object" || holder === null) return true;
  const metadata = (holder as { metadata?: unknown }).metadata;
  if (typeof metadata !== "object" || metadata === null) return true;
  const tag = (metadata as { resourceVersion?: unknown }).resourceVersion;
  if (typeof tag !== "string") return true;
  // Every version in the text is a stand-in: a string here is one of them.
  const k = tag === "" ? 0 : parseInt(tag.slice(1), 36);
  if (TAGS[k] !== tag || k >= versions.length) return false;
  // A parse is a tree: each stand-in, from one key, lands in one place.
  (metadata as { resourceVersion: string }).resourceVersion = versions[k]!;
  found.count++;
  return true;
}
