/**
 * The engine's compilation and evaluation (see `mod.ts` for what it
 * covers and how it differs from the API server).
 *
 * @module
 */

import {
  Environment,
  EvaluationError,
  Optional,
  ParseError,
  TypeError as EngineTypeError,
} from "@marcbachmann/cel-js";
import { type CelType, unescapeField } from "./_types.ts";
import { libraries } from "./_library.ts";
import { instrument, metered } from "./_nodes.ts";
import { estimateCost, type SizeTree } from "./_cost.ts";
import {
  AUTHORIZER_TYPE,
  authorizerValue,
  type CelAuthorizer,
} from "./_authz.ts";
import {
  CelCompileError,
  celEqual,
  CelRuntimeError,
  LIST_TYPE,
} from "./_values.ts";

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
  /**
   * Whether the expression is already stored (unchanged in an update):
   * it then compiles against the whole 1.37 environment. A new one
   * compiles against the previous release's, as the API server's
   * `NewExpressions` environment does: `list.includes` (Kubernetes lists
   * version 1, new in 1.37) is refused. Default: false.
   */
  readonly stored?: boolean;
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
   * cel-go's estimate of the expression's cost, least and most, as the API
   * server makes it when a CRD is written: the sizes of strings, lists and
   * maps are those the variables' schemas allow (see `schemaSizes`), else
   * unbounded (Go's largest unsigned integer).
   */
  estimateCost(
    sizes: { readonly [variable: string]: SizeTree | undefined },
  ): { readonly min: number; readonly max: number };
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
  const variables = options.variables;
  for (const [name, type] of Object.entries(variables)) {
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
  try {
    instrument(
      parsed.ast,
      (offset, message) => located(expression, offset, message),
      options.stored ?? false,
    );
  } catch (error) {
    throw error instanceof CelCompileError
      ? error
      : compileError(expression, error);
  }
  let lastCost = 0;
  return {
    expression,
    resultType: checked.type ?? "dyn",
    get lastCost(): number {
      return lastCost;
    },
    estimateCost(sizes): { readonly min: number; readonly max: number } {
      return estimateCost(parsed.ast, sizes);
    },
    run(activation, options = {}): unknown {
      const outcome = metered(options.costLimit ?? PER_CALL_LIMIT, () => {
        const context: Record<string, unknown> = {};
        for (const [name, value] of Object.entries(activation)) {
          const convert = converters[name];
          if (convert && value !== undefined) context[name] = convert(value);
        }
        for (const [name, type] of Object.entries(variables)) {
          // An optional variable left out is `optional.none()`.
          if (
            typeof type === "object" && "optional" in type &&
            activation[name] === undefined
          ) {
            context[name] = converters[name]!(undefined);
          }
        }
        return parsed(context);
      });
      lastCost = outcome.spent;
      if ("error" in outcome) throw runtimeError(outcome.error);
      return outcome.result;
    },
  };
}

/** The engine's types for the declared object types of one compilation. */
class Declarations {
  #environment: Environment;
  #count = 0;
  // One engine type per structure: `self` and `oldSelf` compare.
  #objects = new Map<string, [string, Convert]>();
  constructor(environment: Environment) {
    this.#environment = environment;
  }

  /** The engine's type text of a type, and the conversion of a JSON value to it. */
  declare(type: CelType): [string, Convert] {
    if (typeof type === "string") return scalar(type);
    if ("optional" in type) {
      const [inner, convert] = this.declare(type.optional);
      return [
        `optional<${inner}>`,
        (value) =>
          value === undefined || value === null
            ? Optional.none()
            : Optional.of(convert(value)),
      ];
    }
    if ("list" in type) {
      const [inner, convert] = this.declare(type.list);
      const kind = type.listType === "set" || type.listType === "map"
        ? { type: type.listType, keys: type.mapKeys ?? [] }
        : undefined;
      return [`list<${inner}>`, (value) => {
        if (!Array.isArray(value)) return toDyn(value);
        const list = value.map(convert);
        if (kind) {
          Object.defineProperty(list, LIST_TYPE, { value: kind });
        }
        return list;
      }];
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
    const key = JSON.stringify(type);
    const known = this.#objects.get(key);
    if (known) return known;
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
    // An object may be compared with null (either way round), as cel-go's
    // checker allows (a present object is never null).
    this.#environment.registerOperator(
      `${name} == null`,
      (a: unknown, b: unknown) => a === b,
    );

    const properties = Object.keys(convertField).map((
      field,
    ) => [field, unescapeField(field)] as const);
    const declared: [string, Convert] = [name, (value) => {
      if (!isRecord(value)) return toDyn(value);
      const out = new ctor();
      // Only the fields the schema names are visible.
      for (const [field, property] of properties) {
        if (!Object.hasOwn(value, property)) continue;
        const item = value[property];
        if (item === null || item === undefined) continue;
        Object.defineProperty(out, field, {
          value: convertField[field]!(item),
          enumerable: true,
        });
      }
      return out;
    }];
    this.#objects.set(key, declared);
    return declared;
  }
}

function objectClass(name: string): new () => object {
  const made = { [name]: class {} }[name]!;
  return made;
}

function scalar(type: string): [string, Convert] {
  switch (type) {
    case "authorizer":
      return [
        AUTHORIZER_TYPE,
        (v) => authorizerValue(v as CelAuthorizer),
      ];
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
  readonly node?: {
    readonly op: string;
    readonly args: unknown;
    readonly start: number;
    readonly end: number;
  };
}

interface Span {
  readonly start: number;
  readonly end: number;
}

/**
 * Where cel-go places an expression in its errors: a binary operator at
 * the operator, a member call at its `(`, an index at its `[` (the
 * engine's nodes start at their first operand).
 */
function operatorOffset(expression: string, node: EngineError["node"]): number {
  if (!node) return 0;
  const args = node.args as unknown[];
  const after = (from: Span | undefined, text: string): number => {
    if (!from) return node.start;
    const at = expression.indexOf(text, from.end);
    return at < 0 ? node.start : at;
  };
  if (node.op === "rcall") return after(args[1] as Span, "(");
  if (node.op === "[]" || node.op === "[?]") return after(args[0] as Span, "[");
  if (/^[=!<>+\-*/%]=?$|^in$|^[<>]=$/.test(node.op) && Array.isArray(args)) {
    const left = args[0] as Span | undefined;
    const right = args[1] as Span | undefined;
    if (left && right) {
      const between = expression.slice(left.end, right.start);
      const at = between.indexOf(node.op);
      if (at >= 0) return left.end + at;
    }
  }
  return node.start;
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
    start = operatorOffset(expression, e.node);
  } else if (/must have the same type, expected type/.test(summary)) {
    message = summary.replace(/^.*must have the same type, /, "");
  } else if (error instanceof ParseError) {
    message = `Syntax error: ${syntaxMessage(summary)}`;
    const before = expression.slice(0, start).trimEnd();
    if (
      /^Unexpected token: \w+$/.test(summary) && expectsExpression(before)
    ) {
      message += ` expecting ${EXPRESSION_START}`;
    } else if (
      /^Expected IDENTIFIER, got (?!EOF|NUMBER)\w+$/.test(summary) &&
      before.endsWith(".")
    ) {
      // After a `.`, ANTLR weighs a field, `?` and a quoted field: no
      // alternative fits the token, which it quotes from the `.` on.
      const end = Math.max(e.range?.end ?? start + 1, start + 1);
      message = `Syntax error: no viable alternative at input '${
        expression.slice(before.length - 1, end)
      }'`;
    }
  } else {
    message = summary;
  }
  return new CelCompileError(located(expression, start, message));
}

const TOKENS: Record<string, string> = {
  EOF: "'<EOF>'",
  RPAREN: "')'",
  LPAREN: "'('",
  RBRACKET: "']'",
  LBRACKET: "'['",
  RBRACE: "'}'",
  LBRACE: "'{'",
  COMMA: "','",
  DOT: "'.'",
  COLON: "':'",
  QUESTION: "'?'",
};

/** The tokens ANTLR lists where cel-go's grammar expects an expression. */
const EXPRESSION_START =
  "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";

/**
 * Whether the text before a bad token ends where cel-go's grammar expects
 * a whole expression: at the start, or after a binary operator, `(`, `,`,
 * `?` or `:` (not after a unary `-` or `!`, where ANTLR expects less).
 */
function expectsExpression(before: string): boolean {
  const text = before.trimEnd();
  if (text === "") return true;
  if (/(?:==|!=|<=|>=|&&|\|\||[<>+*/%(,?:])$/.test(text)) return true;
  if (/(?:^|[^\w.])in$/.test(text)) return true;
  // A `-` after an operand is a subtraction.
  return /[\w)\]'"]\s*-$/.test(text);
}

/** The engine's parse error in the words of cel-go's parser (ANTLR). */
function syntaxMessage(summary: string): string {
  const expected = /^Expected (\w+), got (\w+)$/.exec(summary);
  if (expected) {
    const want = TOKENS[expected[1]!] ?? expected[1]!;
    const got = TOKENS[expected[2]!] ?? expected[2]!;
    return `mismatched input ${got} expecting ${want}`;
  }
  const depth = /^Exceeded maxDepth \((\d+)\)$/.exec(summary);
  if (depth) return `expression recursion limit exceeded: ${depth[1]}`;
  const unexpected = /^Unexpected token: (\w+)$/.exec(summary);
  if (unexpected) {
    return `mismatched input ${TOKENS[unexpected[1]!] ?? unexpected[1]!}`;
  }
  return summary;
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

/** The engine's runtime messages as cel-go words them. */
const RUNTIME_MESSAGES: [RegExp, string][] = [
  [
    /^No such key: index out of bounds, index (-?\d+) .*$/,
    "index out of bounds: $1",
  ],
  [/^No such key: (.*)$/, "no such key: $1"],
  [/^no such overload: .*$/, "no such overload"],
  [/^integer overflow: .*$/, "integer overflow"],
  [/^modulo by zero$/, "modulus by zero"],
];

function runtimeError(error: unknown): CelRuntimeError {
  if (error instanceof CelRuntimeError) return error;
  if (error instanceof RangeError) {
    const zone = /^Invalid time zone specified: (.*)$/.exec(error.message);
    // Go's words for a time zone it cannot load.
    if (zone) return new CelRuntimeError(`unknown time zone ${zone[1]}`);
    // A stack overflow on a deep value.
    return new CelRuntimeError("max recursion depth exceeded");
  }
  if (error instanceof EvaluationError || error instanceof EngineTypeError) {
    const e = error as unknown as EngineError;
    const summary = e.message.split("\n")[0] ?? "";
    for (const [pattern, words] of RUNTIME_MESSAGES) {
      if (pattern.test(summary)) {
        return new CelRuntimeError(summary.replace(pattern, words));
      }
    }
    return new CelRuntimeError(lowerFirst(summary));
  }
  return new CelRuntimeError(
    error instanceof Error ? error.message : String(error),
  );
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
