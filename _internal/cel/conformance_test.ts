// The engine against the cel-spec conformance data (`@bufbuild/cel-spec`),
// section by section: the sections the engine claims, run through
// `compile` and `run` as the fake uses them. A test that needs protocol
// buffer messages (a container, a message literal or value, an enum) is
// skipped: the API server's CEL has none. `conformance.json` holds what was
// measured per section: how many pass and are skipped, and the failing
// tests by name; any change (a regression, or a test that now passes) fails
// here until the file is written again:
//
//   deno run --allow-read=. --allow-write=_internal/cel/conformance.json \
//     _internal/cel/conformance_test.ts
import assert from "node:assert/strict";
import { tests } from "@bufbuild/cel-spec/testdata/conformance.js";
import { type CelType, compile } from "./mod.ts";
import recorded from "./conformance.json" with { type: "json" };

/** What one section measures. */
interface Outcome {
  passed: number;
  skipped: number;
  /** The failing tests, `suite/test`, in the data's order. */
  failed: string[];
}

interface Value {
  nullValue?: unknown;
  boolValue?: boolean;
  int64Value?: string;
  uint64Value?: string;
  doubleValue?: number | string;
  stringValue?: string;
  bytesValue?: string;
  listValue?: { values?: Value[] };
  mapValue?: { entries?: { key: Value; value: Value }[] };
  typeValue?: string;
  objectValue?: unknown;
  enumValue?: unknown;
}

interface TypeSpec {
  primitive?: string;
  listType?: { elemType: TypeSpec };
  mapType?: { keyType: TypeSpec; valueType: TypeSpec };
  wellKnown?: string;
}

interface Test {
  name: string;
  expr: string;
  value?: Value;
  evalError?: unknown;
  typeEnv?: { name: string; ident?: { type: TypeSpec } }[];
  bindings?: Record<string, { value: Value }>;
  disableCheck?: boolean;
  checkOnly?: boolean;
  container?: string;
  typedResult?: { result?: Value };
}

interface Suite {
  name: string;
  suites?: Suite[];
  tests?: { original: Test }[];
}

const Unsigned = (compile("0u", { variables: {} }).run({}) as object)
  .constructor as new (value: bigint) => { value: bigint };

function needsProto(test: Test): boolean {
  const text = JSON.stringify([test.value, test.bindings, test.typeEnv]);
  return test.container !== undefined || /objectValue|enumValue|messageType/
    .test(text) ||
    /google\.protobuf\.|TestAllTypes|NestedTestAllTypes|\bAny\b/.test(
      test.expr,
    );
}

function native(value: Value): unknown {
  if ("nullValue" in value) return null;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.int64Value !== undefined) return BigInt(value.int64Value);
  if (value.uint64Value !== undefined) {
    return new Unsigned(BigInt(value.uint64Value));
  }
  if (value.doubleValue !== undefined) return Number(value.doubleValue);
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.bytesValue !== undefined) {
    return Uint8Array.from(atob(value.bytesValue), (c) => c.charCodeAt(0));
  }
  if (value.listValue) return (value.listValue.values ?? []).map(native);
  if (value.mapValue) {
    return new Map(
      (value.mapValue.entries ?? []).map((
        e,
      ) => [native(e.key), native(e.value)]),
    );
  }
  if (value.typeValue !== undefined) return { typeName: value.typeValue };
  return undefined;
}

function celType(spec: TypeSpec | undefined): CelType {
  const primitives: Record<string, CelType> = {
    INT64: "int",
    UINT64: "uint",
    DOUBLE: "double",
    STRING: "string",
    BOOL: "bool",
    BYTES: "bytes",
  };
  if (!spec) return "dyn";
  if (spec.primitive) return primitives[spec.primitive] ?? "dyn";
  if (spec.listType) return { list: celType(spec.listType.elemType) };
  if (spec.mapType?.keyType.primitive === "STRING") {
    return { map: celType(spec.mapType.valueType) };
  }
  if (spec.wellKnown === "TIMESTAMP") return "timestamp";
  if (spec.wellKnown === "DURATION") return "duration";
  return "dyn";
}

function same(got: unknown, want: unknown): boolean {
  if (want !== null && typeof want === "object" && "typeName" in want) {
    return String((got as { name?: string })?.name ?? got) ===
      (want as { typeName: string }).typeName;
  }
  if (typeof want === "number" && Number.isNaN(want)) {
    return typeof got === "number" && Number.isNaN(got);
  }
  if (want instanceof Unsigned) {
    return got instanceof Unsigned && got.value === want.value;
  }
  if (want instanceof Uint8Array) {
    return got instanceof Uint8Array && got.length === want.length &&
      got.every((x, i) => x === want[i]);
  }
  if (Array.isArray(want)) {
    return Array.isArray(got) && got.length === want.length &&
      want.every((item, i) => same(got[i], item));
  }
  if (want instanceof Map) {
    const entries = got instanceof Map
      ? [...got]
      : got !== null && typeof got === "object"
      ? Object.entries(got)
      : undefined;
    if (!entries || entries.length !== want.size) return false;
    return [...want].every(([k, v]) =>
      entries.some(([k2, v2]) => same(k2, k) && same(v2, v))
    );
  }
  return Object.is(got, want);
}

/** "pass", "skip", or why it failed. */
function runOne(test: Test): string {
  if (needsProto(test)) return "skip";
  const variables: Record<string, CelType> = {};
  for (const declaration of test.typeEnv ?? []) {
    if (declaration.ident) {
      variables[declaration.name] = celType(declaration.ident.type);
    }
  }
  const activation: Record<string, unknown> = {};
  for (const [name, binding] of Object.entries(test.bindings ?? {})) {
    variables[name] ??= "dyn";
    activation[name] = native(binding.value);
  }
  let got: unknown;
  try {
    const program = compile(test.expr, {
      variables,
      homogeneousLiterals: false,
    });
    if (test.checkOnly) return "pass";
    got = program.run(activation);
  } catch (error) {
    return test.evalError ? "pass" : `error: ${(error as Error).message}`;
  }
  if (test.evalError) return `no error: ${String(got)}`;
  const want = test.value ?? test.typedResult?.result;
  if (!want) return "skip";
  return same(got, native(want)) ? "pass" : `got ${String(got)}`;
}

/** Sections the engine claims: the API server's CEL, without protobuf. */
const CLAIMED = [
  "basic",
  "comparisons",
  "conversions",
  "fields",
  "fp_math",
  "integer_math",
  "lists",
  "logic",
  "macros",
  "macros2",
  "optionals",
  "parse",
  "plumbing",
  "string",
  "string_ext",
  "timestamps",
  "type_deductions",
];

function measure(section: Suite): Outcome {
  const outcome: Outcome = { passed: 0, skipped: 0, failed: [] };
  for (const suite of section.suites ?? []) {
    for (const { original } of suite.tests ?? []) {
      const result = runOne(original);
      if (result === "pass") outcome.passed++;
      else if (result === "skip") outcome.skipped++;
      else outcome.failed.push(`${suite.name}/${original.name}`);
    }
  }
  return outcome;
}

const claimed = ((tests as Suite).suites ?? []).filter((section) =>
  CLAIMED.includes(section.name)
);

if (import.meta.main) {
  // `deno run` writes the measured outcomes (`Deno.test` does nothing).
  const outcomes = Object.fromEntries(
    claimed.map((section) => [section.name, measure(section)]),
  );
  Deno.writeTextFileSync(
    new URL("./conformance.json", import.meta.url),
    JSON.stringify(outcomes, null, 2) + "\n",
  );
}

for (const section of claimed) {
  Deno.test(`cel-spec conformance: ${section.name}`, () => {
    const expected = (recorded as Record<string, Outcome>)[section.name];
    const actual = measure(section);
    const gone = expected?.failed.filter((n) => !actual.failed.includes(n));
    const added = actual.failed.filter((n) => !expected?.failed.includes(n));
    assert.deepEqual(
      actual,
      expected,
      `${section.name} changed: now failing ${JSON.stringify(added)}, ` +
        `now passing ${JSON.stringify(gone)}; write conformance.json again`,
    );
  });
}
