/**
 * The package's one CEL engine: CEL as the Kubernetes API server (1.37)
 * compiles and evaluates it, for the fake API server (CRD validation
 * rules, admission webhooks' `matchConditions`).
 *
 * ```ts ignore
 * const program = compile("self.min <= self.max", {
 *   variables: { self: { object: { min: "int", max: "int" } } },
 * });
 * program.run({ self: { min: 1, max: 2 } }); // true
 * ```
 *
 * - {@linkcode compile} type-checks an expression against declared
 *   variables; a bad one throws {@linkcode CelCompileError} whose message
 *   is cel-go's (`ERROR: <input>:1:1: undeclared reference to 'x' (in
 *   container '')` and a caret line), which the API server wraps as
 *   `compilation failed: …`.
 * - {@linkcode CelProgram.run} evaluates with JSON values (as decoded from
 *   a request), converted by the declared types (an `int` field's `1` is
 *   CEL's `1`, a `timestamp` field's string a timestamp). It returns a CEL
 *   value (`bigint` for `int`, `string`, `boolean`, arrays, ...) or throws
 *   {@linkcode CelRuntimeError} in cel-go's words (`no such key: x`), or
 *   {@linkcode CelCostError} when the cost limit is reached.
 * - {@linkcode schemaType} is the API server's CEL type of a structural
 *   schema, for `self` and `oldSelf`.
 *
 * **Engine.** The evaluator is `@marcbachmann/cel-js` (pinned in
 * deno.json), extended only through its extension points (registered
 * functions, operators, macros and types) by this folder. Measured against
 * the cel-spec conformance data (`@bufbuild/cel-spec` 0.6.1), against
 * `@bufbuild/cel` 0.6.1: Buf's engine passes more of the core sections
 * when not type-checked, but has no type checker in its API (the API server
 * refuses a rule that does not type-check when the CRD is written), no
 * optional syntax (`a.?b`, `{?k: v}`: its parser has none) and no way to
 * add macros (`cel.bind`, two-variable comprehensions), which an extension
 * cannot give it; cel-js has a checker, the optional syntax, macros as an
 * extension point, no dependency, and is maintained with frequent
 * releases. The conformance test (`conformance_test.ts`) keeps the counts.
 *
 * **Bounded evaluation.** JavaScript cannot interrupt a running function,
 * so the cost is counted inside the evaluation: every evaluated node of the
 * expression costs 1 (cel-go's runtime cost is close to that, with extra
 * cost for string and list sizes that is not counted here), and reaching
 * the limit throws `operation cancelled: actual cost limit exceeded`. The
 * API server also estimates the cost statically when a CRD is written; the
 * engine does not (a known difference).
 *
 * @module
 */

import {
  Environment,
  EvaluationError,
  ParseError,
  TypeError as EngineTypeError,
} from "@marcbachmann/cel-js";
import type { CelType } from "./_types.ts";
import { libraries } from "./_library.ts";
import {
  CelCompileError,
  CelCostError,
  celEqual,
  CelRuntimeError,
} from "./_values.ts";

export { CelCompileError, CelCostError, CelRuntimeError } from "./_values.ts";

export { schemaType, typeName } from "./_types.ts";
export type { CelType } from "./_types.ts";

/**
 * The API server's cost limit of one CRD validation rule's evaluation
 * (`celconfig.PerCallLimit`).
 */
export const PER_CALL_LIMIT = 1_000_000;

/**
 * The API server's cost budget of all the rules of one object's validation
 * (`celconfig.RuntimeCELCostBudget`).
 */
export const RUNTIME_COST_BUDGET = 10_000_000;

/** Options of {@linkcode compile}. */
export interface CompileOptions {
  /** The variables the expression may name, with their types. */
  readonly variables: { readonly [name: string]: CelType };
  /**
   * Whether list and map literals must hold one type, as the API server
   * requires (`cel.HomogeneousAggregateLiterals`). Default: true.
   */
  readonly homogeneousLiterals?: boolean;
}

/** Options of {@linkcode CelProgram.run}. */
export interface RunOptions {
  /** The most cost the evaluation may spend. Default: {@linkcode PER_CALL_LIMIT}. */
  readonly costLimit?: number;
}

/** A compiled expression. */
export interface CelProgram {
  /** The expression's text. */
  readonly expression: string;
  /** The type of its result, in CEL's notation (`bool`, `string`, `dyn`...). */
  readonly resultType: string;
  /** The cost the last {@linkcode CelProgram.run} spent. */
  readonly lastCost: number;
  /**
   * Evaluates with the variables' JSON values; a variable left out is
   * unbound (naming it is an error).
   */
  run(
    activation: { readonly [name: string]: unknown },
    options?: RunOptions,
  ): unknown;
}

let baseEnvironment: Environment | undefined;

function base(): Environment {
  baseEnvironment ??= libraries(
    new Environment({
      enableOptionalTypes: true,
      homogeneousAggregateLiterals: true,
      limits: {
        maxAstNodes: 100_000,
        maxDepth: 250,
        maxListElements: 100_000,
        maxMapEntries: 100_000,
        maxCallArguments: 32,
      },
    }),
  );
  return baseEnvironment;
}

/** The counter of the evaluation under way (evaluation is synchronous). */
let meter: { spent: number; limit: number } | undefined;

type Convert = (value: unknown) => unknown;

/**
 * Compiles (parses and type-checks) an expression.
 *
 * @throws {CelCompileError} The expression does not compile.
 */
export function compile(
  expression: string,
  options: CompileOptions,
): CelProgram {
  const environment = base().clone(
    options.homogeneousLiterals === false
      ? { homogeneousAggregateLiterals: false }
      : undefined,
  );
  const converters: Record<string, Convert> = {};
  const declared = new Declarations(environment);
  for (const [name, type] of Object.entries(options.variables)) {
    const [typeText, convert] = declared.declare(type);
    environment.registerVariable(name, typeText);
    converters[name] = convert;
  }
  let parsed;
  try {
    parsed = environment.parse(expression);
  } catch (error) {
    throw compileError(expression, error);
  }
  const checked = parsed.check();
  if (!checked.valid) throw compileError(expression, checked.error);
  meterNodes(parsed.ast);
  let lastCost = 0;
  return {
    expression,
    resultType: checked.type ?? "dyn",
    get lastCost(): number {
      return lastCost;
    },
    run(activation, options = {}): unknown {
      const context: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(activation)) {
        const convert = converters[name];
        if (convert && value !== undefined) context[name] = convert(value);
      }
      const outer = meter;
      const mine = {
        spent: 0,
        limit: options.costLimit ?? PER_CALL_LIMIT,
      };
      meter = mine;
      try {
        return parsed(context);
      } catch (error) {
        throw runtimeError(error);
      } finally {
        meter = outer;
        lastCost = mine.spent;
      }
    },
  };
}

/**
 * Wraps every node's evaluation with a count. The engine reassigns a node's
 * `evaluate` after its first call (to skip a dispatch); the setter keeps
 * the count around whatever it installs.
 */
function meterNodes(root: unknown): void {
  const seen = new Set<object>();
  const Node = (root as object).constructor;
  const visit = (value: unknown): void => {
    if (value === null || typeof value !== "object" || seen.has(value)) {
      return;
    }
    seen.add(value);
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    if (value instanceof Node) {
      const node = value as { evaluate: unknown; meta: unknown; args: unknown };
      let inner = node.evaluate as (...args: unknown[]) => unknown;
      const counted = function (this: unknown, ...args: unknown[]): unknown {
        const current = meter;
        if (current && ++current.spent > current.limit) {
          throw new CelCostError();
        }
        return inner.apply(this, args);
      };
      Object.defineProperty(node, "evaluate", {
        get: () => counted,
        set: (next) => {
          inner = next;
        },
        configurable: true,
      });
      visit(node.args);
      const meta = node.meta as Record<string, unknown>;
      visit(meta.alternate);
      visit(meta.macro);
      return;
    }
    if (Object.getPrototypeOf(value) === Object.prototype) {
      for (const item of Object.values(value)) visit(item);
    }
  };
  visit(root);
}

/** The engine's types for the declared object types of one compilation. */
class Declarations {
  #environment: Environment;
  #count = 0;
  constructor(environment: Environment) {
    this.#environment = environment;
  }

  /** The engine's type text of a type, and the conversion of a JSON value to it. */
  declare(type: CelType): [string, Convert] {
    if (typeof type === "string") return scalar(type);
    if ("list" in type) {
      const [inner, convert] = this.declare(type.list);
      return [
        `list<${inner}>`,
        (value) => Array.isArray(value) ? value.map(convert) : toDyn(value),
      ];
    }
    if ("map" in type) {
      const [inner, convert] = this.declare(type.map);
      return [`map<string, ${inner}>`, (value) => {
        if (!isRecord(value)) return toDyn(value);
        const out = new Map<string, unknown>();
        for (const [key, item] of Object.entries(value)) {
          out.set(key, convert(item));
        }
        return out;
      }];
    }
    const name = `object${++this.#count}`;
    const fields: Record<string, string> = {};
    const convertField: Record<string, Convert> = {};
    for (const [field, fieldType] of Object.entries(type.object)) {
      const [text, convert] = this.declare(fieldType);
      fields[field] = text;
      convertField[field] = convert;
    }
    const ctor = objectClass(name);
    this.#environment.registerType(name, { ctor, fields });
    this.#environment.registerOperator(
      `${name} == ${name}`,
      (a: unknown, b: unknown) => celEqual(a, b),
    );
    return [name, (value) => {
      if (!isRecord(value)) return toDyn(value);
      const out = new ctor();
      for (const [key, item] of Object.entries(value)) {
        const convert = convertField[key];
        // A field the schema does not name stays hidden (pruned anyway).
        if (convert && item !== null && item !== undefined) {
          Object.defineProperty(out, key, {
            value: convert(item),
            enumerable: true,
          });
        }
      }
      return out;
    }];
  }
}

function objectClass(name: string): new () => object {
  const made = { [name]: class {} }[name]!;
  return made;
}

function scalar(type: string): [string, Convert] {
  switch (type) {
    case "int":
      return [
        "int",
        (v) => typeof v === "number" ? BigInt(Math.trunc(v)) : toDyn(v),
      ];
    case "double":
      return ["double", (v) => typeof v === "number" ? v : toDyn(v)];
    case "timestamp":
      return [
        "google.protobuf.Timestamp",
        (v) => typeof v === "string" ? timestampOf(v) : toDyn(v),
      ];
    case "duration":
      return [
        "google.protobuf.Duration",
        (v) => typeof v === "string" ? durationOf(v) : toDyn(v),
      ];
    case "bytes":
      return ["bytes", (v) => typeof v === "string" ? bytesOf(v) : toDyn(v)];
    default:
      return [type, toDyn];
  }
}

/** A JSON value as a `dyn`: whole numbers are `int`, others `double`. */
export function toDyn(value: unknown): unknown {
  if (typeof value === "number") {
    return Number.isInteger(value) && Number.isSafeInteger(value)
      ? BigInt(value)
      : value;
  }
  if (Array.isArray(value)) return value.map(toDyn);
  if (isRecord(value)) {
    const out = new Map<string, unknown>();
    for (const [key, item] of Object.entries(value)) out.set(key, toDyn(item));
    return out;
  }
  return value;
}

/** A plain JSON object (not a value of the engine's own classes). */
function isRecord(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object") return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function timestampOf(text: string): unknown {
  // A date (`2024-01-02`) is midnight UTC, as the API server reads it.
  const date = new Date(
    /^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text,
  );
  return Number.isNaN(date.getTime()) ? text : date;
}

let durationProgram:
  | ((context: Record<string, unknown>) => unknown)
  | undefined;

function durationOf(text: string): unknown {
  durationProgram ??= base().clone().registerVariable("s", "string").parse(
    "duration(s)",
  );
  try {
    return durationProgram({ s: text });
  } catch {
    return text;
  }
}

function bytesOf(text: string): unknown {
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    return text;
  }
}

interface EngineError {
  readonly code?: string;
  readonly message: string;
  readonly range?: { readonly start: number; readonly end: number };
}

const COMPILE_MESSAGES: Record<string, (summary: string) => string> = {
  "unknown_variable": (s) =>
    `undeclared reference to '${
      s.replace(/^Unknown variable: /, "")
    }' (in container '')`,
  "no_such_key": (s) => `undefined field '${s.replace(/^No such key: /, "")}'`,
};

function compileError(expression: string, error: unknown): CelCompileError {
  if (
    !(error instanceof ParseError) && !(error instanceof EngineTypeError)
  ) {
    return new CelCompileError(String(error));
  }
  const e = error as unknown as EngineError;
  const summary = e.message.split("\n")[0] ?? "";
  let start = e.range?.start ?? 0;
  let message: string;
  const known = e.code ? COMPILE_MESSAGES[e.code] : undefined;
  if (known) {
    message = known(summary);
    // cel-go places a field selection at its dot.
    if (e.code === "no_such_key" && expression[start - 1] === ".") start -= 1;
  } else if (
    e.code === "no_such_overload" || e.code === "no_matching_overload"
  ) {
    message = overloadMessage(summary);
  } else if (error instanceof ParseError) {
    message = `Syntax error: ${summary}`;
  } else {
    message = summary;
  }
  return new CelCompileError(located(expression, start, message));
}

function overloadMessage(summary: string): string {
  const binary =
    /^no such overload: (.+) (==|!=|<=|>=|<|>|\+|-|\*|\/|%|in) (.+)$/.exec(
      summary,
    );
  if (binary) {
    const op = binary[2] === "in" ? "@in" : `_${binary[2]}_`;
    return `found no matching overload for '${op}' applied to '(${binary[1]}, ${
      binary[3]
    })'`;
  }
  const call = /^found no matching overload for '(?:(\w+)\.)?([\w.]+)\((.*)\)'$/
    .exec(summary);
  if (call) {
    return call[1]
      ? `found no matching overload for '${call[2]}' applied to '${call[1]}.(${
        call[3]
      })'`
      : `found no matching overload for '${call[2]}' applied to '(${call[3]})'`;
  }
  return summary;
}

/** `ERROR: <input>:line:column: message` and cel-go's two snippet lines. */
function located(expression: string, offset: number, message: string): string {
  const before = expression.slice(0, offset);
  const line = before.split("\n").length;
  const lineStart = before.lastIndexOf("\n") + 1;
  const column = offset - lineStart;
  const text = expression.split("\n")[line - 1] ?? "";
  return `ERROR: <input>:${line}:${column + 1}: ${message}\n | ${text}\n | ${
    ".".repeat(column)
  }^`;
}

const RUNTIME_MESSAGES: Record<string, (summary: string) => string> = {
  "no_such_key": (s) => s.replace(/^No such key: /, "no such key: "),
};

function runtimeError(error: unknown): CelRuntimeError {
  if (error instanceof CelRuntimeError) return error;
  if (error instanceof RangeError) {
    // A stack overflow on a deep value.
    return new CelRuntimeError("max recursion depth exceeded");
  }
  if (error instanceof EvaluationError || error instanceof EngineTypeError) {
    const e = error as unknown as EngineError;
    const summary = e.message.split("\n")[0] ?? "";
    const known = e.code ? RUNTIME_MESSAGES[e.code] : undefined;
    return new CelRuntimeError(known ? known(summary) : lowerFirst(summary));
  }
  return new CelRuntimeError(
    error instanceof Error ? error.message : String(error),
  );
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
