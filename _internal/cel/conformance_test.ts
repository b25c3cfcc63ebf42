// The engine against the cel-spec conformance data (`@bufbuild/cel-spec`),
// section by section: the sections the engine claims, run through
// `compile` and `run` as the fake uses them. A test that needs protocol
// buffer messages (a container, a message literal or value, an enum) is
// skipped: the API server's CEL has none. The table holds the passing
// counts measured; a change that lowers one fails here.
import assert from "node:assert/strict";
import { tests } from "@bufbuild/cel-spec/testdata/conformance.js";
import { type CelType, compile } from "./mod.ts";

/** Passed and skipped per claimed section, as measured. */
const EXPECTED: Record<string, { passed: number; skipped: number }> = {
  basic: { passed: 40, skipped: 0 },
  comparisons: { passed: 321, skipped: 72 },
  conversions: { passed: 101, skipped: 0 },
  fields: { passed: 43, skipped: 0 },
  "fp_math": { passed: 30, skipped: 0 },
  "integer_math": { passed: 62, skipped: 0 },
  lists: { passed: 34, skipped: 0 },
  logic: { passed: 25, skipped: 0 },
  macros: { passed: 42, skipped: 0 },
  macros2: { passed: 41, skipped: 0 },
  optionals: { passed: 31, skipped: 11 },
  parse: { passed: 168, skipped: 26 },
  plumbing: { passed: 5, skipped: 0 },
  string: { passed: 51, skipped: 0 },
  "string_ext": { passed: 127, skipped: 78 },
  timestamps: { passed: 57, skipped: 3 },
  "type_deductions": { passed: 20, skipped: 21 },
};

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

for (const section of (tests as Suite).suites ?? []) {
  if (!CLAIMED.includes(section.name)) continue;
  Deno.test(`cel-spec conformance: ${section.name}`, () => {
    let passed = 0;
    let skipped = 0;
    const failed: string[] = [];
    for (const suite of section.suites ?? []) {
      for (const { original } of suite.tests ?? []) {
        const outcome = runOne(original);
        if (outcome === "pass") passed++;
        else if (outcome === "skip") skipped++;
        else failed.push(`${suite.name}/${original.name}: ${outcome}`);
      }
    }
    const expected = EXPECTED[section.name];
    const summary =
      `${section.name}: ${passed} passed, ${skipped} skipped, ${failed.length} failed, recorded ${
        JSON.stringify(expected)
      }\n${failed.join("\n")}`;
    assert.ok(expected && passed >= expected.passed, summary);
    assert.equal(skipped, expected.skipped, summary);
  });
}
