/**
 * Measures the fake's protobuf decoder on `go run . fuzz OUT N` cases: how
 * many decode to exactly the Go types' JSON, per kind.
 *
 * deno run --allow-read tools/protobuf/measure.ts .tmp/fuzz.json
 *
 * @module
 */
import { isDeepStrictEqual } from "node:util";
import { decodeProtobufBody } from "../../testing/_protobuf/decode.ts";

interface Case {
  name: string;
  bytes: string;
  json: unknown;
}

function firstDifference(a: unknown, b: unknown, path = ""): string {
  if (isDeepStrictEqual(a, b)) return "";
  if (
    a !== null && b !== null && typeof a === "object" && typeof b === "object"
  ) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const key of keys) {
      const found = firstDifference(
        (a as Record<string, unknown>)[key],
        (b as Record<string, unknown>)[key],
        `${path}.${key}`,
      );
      if (found !== "") return found;
    }
  }
  return `${path}: ${JSON.stringify(a)?.slice(0, 80)} != ${
    JSON.stringify(b)?.slice(0, 80)
  }`;
}

const cases: Case[] = JSON.parse(await Deno.readTextFile(Deno.args[0]!));
const failures = new Map<string, string>();
let passed = 0;
const started = performance.now();
let bytes = 0;
for (const one of cases) {
  const body = Uint8Array.from(atob(one.bytes), (c) => c.charCodeAt(0));
  bytes += body.length;
  let got: unknown;
  try {
    got = decodeProtobufBody(body);
  } catch (error) {
    failures.set(one.name, `threw ${(error as Error).message}`);
    continue;
  }
  const difference = firstDifference(got, one.json);
  if (difference === "") passed++;
  else if (!failures.has(one.name)) failures.set(one.name, difference);
}
const elapsed = performance.now() - started;
// deno-lint-ignore no-console
console.log(
  `${passed}/${cases.length} cases equal the Go JSON; ${
    new Set(cases.map((c) => c.name)).size
  } kinds, ${failures.size} with a difference; ${
    (bytes / 1024).toFixed(0)
  } KiB decoded in ${elapsed.toFixed(0)} ms`,
);
// deno-lint-ignore no-console
for (const [name, why] of failures) console.log(`${name}: ${why}`);
