/**
 * What the engine adds to a parsed expression's nodes, through the one
 * hook a node offers (its `evaluate`): the cost counter, `matches` on an
 * RE2 engine, and the API server's checks of literal arguments
 * (`cel.ValidateRegexLiterals`, `ValidateDurationLiterals`,
 * `ValidateTimestampLiterals`).
 *
 * @module
 */

import { RE2JS } from "@bufbuild/re2";
import { CelCompileError, CelCostError, celError } from "./_values.ts";
import { callCost, operatorCost, setsCost } from "./_cost.ts";

/** The counter of the evaluation under way (evaluation is synchronous). */
interface Meter {
  spent: number;
  readonly limit: number;
  error?: CelCostError;
}

let meter: Meter | undefined;

/**
 * Adds to the cost of the evaluation under way (macros that evaluate
 * their own loop count their steps with it); past the limit it throws
 * {@linkcode CelCostError}.
 */
export function charge(cost: number): void {
  const current = meter;
  if (current && (current.spent += cost) > current.limit) {
    throw current.error ??= new CelCostError();
  }
}

/** Each node's last value, for the cost of a call by its arguments' sizes. */
const LAST = Symbol("last value");
type Recorded = { [LAST]?: unknown };

function valueOf(node: unknown): unknown {
  const n = node as Node & Recorded;
  return n.op === "value" ? n.args : n[LAST];
}

/** Go's `float64(math.MaxInt64)` and `float64(math.MinInt64)`: ±2⁶³. */
const TWO_63 = 2 ** 63;

/**
 * cel-go's order of an int and a double: the int as a double, except past
 * the int range (`compareIntDouble`), so `9223372036854775807 <
 * 9223372036854775808.0` is false as in Go, where JavaScript compares
 * exactly.
 */
function compareIntDouble(i: bigint, d: number): number {
  if (d < -TWO_63) return 1;
  if (d > TWO_63) return -1;
  const x = Number(i);
  return x < d ? -1 : x > d ? 1 : x === d ? 0 : Number.NaN;
}

const ORDER: Record<string, (order: number) => boolean> = {
  "<": (o) => o < 0,
  "<=": (o) => o <= 0,
  ">": (o) => o > 0,
  ">=": (o) => o >= 0,
  "==": (o) => o === 0,
  "!=": (o) => o !== 0,
};

/**
 * Where the engine's answer differs from cel-go's, the correction of a
 * node's value: an int compared with a double (see
 * {@linkcode compareIntDouble}), `int()` of a double past the int range
 * (an `integer overflow` in cel-go, not a large int), `string()` of bytes
 * that are not UTF-8 (an error, not replacement characters).
 */
function semantics(
  node: Node,
  call: [string, unknown[]] | undefined,
): ((result: unknown) => unknown) | undefined {
  const order = ORDER[node.op];
  if (order) {
    const [left, right] = node.args as [unknown, unknown];
    return (result) => {
      const l = valueOf(left);
      const r = valueOf(right);
      if (typeof l === "bigint" && typeof r === "number") {
        return order(compareIntDouble(l, r));
      }
      if (typeof l === "number" && typeof r === "bigint") {
        return order(-compareIntDouble(r, l));
      }
      return result;
    };
  }
  if (call && call[0] === "int" && node.op === "call" && call[1].length === 1) {
    const [argument] = call[1];
    return (result) => {
      const d = valueOf(argument);
      if (typeof d === "number" && (d <= -TWO_63 || d >= TWO_63)) {
        throw celError("integer overflow");
      }
      return result;
    };
  }
  if (
    call && call[0] === "string" && node.op === "call" && call[1].length === 1
  ) {
    const [argument] = call[1];
    return (result) => {
      const bytes = valueOf(argument);
      if (bytes instanceof Uint8Array) {
        try {
          new TextDecoder("utf-8", { fatal: true }).decode(bytes);
        } catch {
          throw celError("invalid UTF-8 in bytes, cannot convert to string");
        }
      }
      return result;
    };
  }
  return undefined;
}

/** cel-go's type conversion functions, folded over a constant. */
const CONVERSIONS = new Set([
  "bool",
  "bytes",
  "double",
  "duration",
  "dyn",
  "int",
  "string",
  "timestamp",
  "type",
  "uint",
]);

/** Whether a node is a constant to cel-go's `OptOptimize` (a literal of literals). */
function isConstant(node: unknown): boolean {
  const n = node as Node;
  switch (n?.op) {
    case "value":
      return true;
    case "list":
      return (n.args as unknown[]).every(isConstant);
    case "map":
      return (n.args as [unknown, unknown][]).every(([k, v]) =>
        isConstant(k) && isConstant(v)
      );
  }
  return false;
}

/** A constant list of scalars (not bytes): `in` it is a set lookup. */
function isConstantSet(node: unknown): boolean {
  const n = node as Node;
  return n?.op === "list" &&
    (n.args as Node[]).every((item) =>
      item.op === "value" && !(item.args instanceof Uint8Array)
    );
}

/**
 * A failed conversion (`int('x')`, `uint(-1)`) in cel-go's words: `type
 * conversion error from 'string' to 'int'`, `integer overflow`, `unsigned
 * integer overflow`.
 */
function conversionError(
  node: Node,
  call: [string, unknown[]] | undefined,
): ((error: unknown) => unknown) | undefined {
  if (!call || node.op !== "call" || call[1].length !== 1) return undefined;
  const [name, [argument]] = call;
  if (!["int", "uint", "double", "bool"].includes(name)) return undefined;
  return (error) => {
    const value = valueOf(argument);
    if (typeof value === "string") {
      return celError(`type conversion error from 'string' to '${name}'`);
    }
    // A double or a uint out of the int range.
    const unsigned = value !== null && typeof value === "object" &&
      typeof (value as { value?: unknown }).value === "bigint";
    if (name === "int" && (typeof value === "number" || unsigned)) {
      return celError("integer overflow");
    }
    if (
      name === "uint" &&
      (typeof value === "number" || typeof value === "bigint")
    ) {
      return celError("unsigned integer overflow");
    }
    return error;
  };
}

/** Costs set by a comprehension on the nodes of its expansion. */
const OVERRIDES = new WeakMap<object, number>();

const BINARY = new Set([
  "==",
  "!=",
  "<",
  "<=",
  ">",
  ">=",
  "+",
  "in",
]);

/**
 * A node's cost as cel-go's cost tracker counts it: what it costs before
 * it runs, and a function of its value for what it costs after (a call
 * weighed by its arguments' sizes).
 */
function costOf(
  node: Node,
  call: [string, unknown[]] | undefined,
): [number, ((result: unknown) => number) | undefined] {
  const overridden = OVERRIDES.get(node);
  if (overridden !== undefined) return [overridden, undefined];
  switch (node.op) {
    case "value":
    case "&&":
    case "||":
    case "?:":
    case "comprehension":
      return [0, undefined];
    case "list":
      // A literal of constants is one constant (cel-go's `OptOptimize`).
      return [isConstant(node) ? 0 : 10, undefined];
    case "map":
      return [isConstant(node) ? 0 : 30, undefined];
    case "accuValue":
      // `__result__`
      return [1, undefined];
    case "accuInc":
      // `__result__ + 1`
      return [2, undefined];
    case "accuPush":
      // `__result__ + [x]`: the identifier, the list and the `+`.
      return [12, undefined];
  }
  if (
    node.op === "id" &&
    (node as { checkedType?: { name?: string } }).checkedType?.name?.endsWith(
      "Namespace",
    )
  ) {
    // `sets` in `sets.contains(a, b)`: part of the function's name to
    // cel-go.
    return [0, undefined];
  }
  if (node.op === "in" && isConstantSet((node.args as unknown[])[1])) {
    // `x in ['a', 'b']`: a set membership test, which costs nothing
    // (`OptOptimize`'s `evalSetMembership`).
    return [0, undefined];
  }
  if (BINARY.has(node.op)) {
    const [left, right] = node.args as [unknown, unknown];
    return [
      0,
      () => operatorCost(node.op, valueOf(left), valueOf(right)),
    ];
  }
  if (call) {
    if (call[0] === "has" && node.op === "call") {
      // cel-go's presence test costs its qualifiers (`has(self.a.b)` 2):
      // the engine counts its first name (1), so the selections but one.
      let selects = 0;
      for (
        let at = call[1][0] as Node | undefined;
        at?.op === "." || at?.op === ".?";
        at = (at.args as Node[])[0]
      ) selects++;
      return [Math.max(0, selects - 1), undefined];
    }
    // A macro: its expansion (or its own loop) counts.
    if (node.meta.alternate !== undefined || node.meta.macro !== undefined) {
      return [0, undefined];
    }
    const [name, args] = call;
    const member = node.op === "rcall";
    if (
      !member && CONVERSIONS.has(name) && args.length === 1 &&
      isConstant(args[0])
    ) {
      // A conversion of a constant is folded into a constant.
      return [0, undefined];
    }
    const receiver = args[0] as Node | undefined;
    if (
      member && receiver?.op === "id" && receiver.args === "sets" &&
      args.length === 3
    ) {
      return [0, () => setsCost(name, valueOf(args[1]), valueOf(args[2]))];
    }
    return [
      0,
      (result) => callCost(name, member, args.map(valueOf), result),
    ];
  }
  return [1, undefined];
}

/** Charges a function of a comprehension (its condition or result) as cel-go's expansion costs. */
function chargeFunction(
  target: Record<string, unknown>,
  key: string,
  cost: number,
): void {
  const original = target[key];
  if (typeof original !== "function") return;
  target[key] = (value: unknown): unknown => {
    charge(cost);
    return original(value);
  };
}

/**
 * Costs a comprehension's expansion as cel-go expands the macro: `all` is
 * `@not_strictly_false(__result__)` (2) before each item and `__result__
 * && p` (1 and `p`) as its step, `exists` `@not_strictly_false(
 * !__result__)` (3) and `__result__ || p`, `exists_one` `p ? __result__ +
 * 1 : __result__` and `__result__ == 1` (2) at the end; `map` and
 * `filter` start from `[]` (a constant: 0) and push with `__result__ +
 * [x]` (12); each ends with `__result__` (1).
 */
function costComprehension(node: Node): void {
  const c = node.args as unknown as Record<string, unknown> & {
    kind?: string;
    init: Node;
    step: Node;
  };
  if (c.kind === "quantifier") {
    const init = c.init.args;
    if (init === true || init === false) {
      OVERRIDES.set(c.step, 1);
      chargeFunction(c, "condition", init === true ? 2 : 3);
      chargeFunction(c, "result", 1);
    } else chargeFunction(c, "result", 2);
  } else chargeFunction(c, "result", 1);
}

/**
 * Runs `evaluate` with a cost counter; a cost error, even one the
 * expression absorbed (`x || true`), ends it.
 */
export function metered<T>(
  limit: number,
  evaluate: () => T,
): { result?: T; spent: number; error?: unknown } {
  const outer = meter;
  const mine: Meter = { spent: 0, limit };
  meter = mine;
  try {
    const result = evaluate();
    if (mine.error) return { spent: mine.spent, error: mine.error };
    return { result, spent: mine.spent };
  } catch (error) {
    return { spent: mine.spent, error: mine.error ?? error };
  } finally {
    meter = outer;
  }
}

type Evaluate = (...args: unknown[]) => unknown;

interface Node {
  evaluate: Evaluate;
  readonly meta: Record<string, unknown>;
  readonly op: string;
  readonly args: unknown;
  readonly start: number;
}

interface Runner {
  run(node: unknown, context: unknown): unknown;
}

const expressions = new Map<string, RE2JS>();

/** A compiled RE2 pattern; a bad one is Go's `error parsing regexp: …`. */
export function re2(pattern: string): RE2JS {
  let compiled = expressions.get(pattern);
  if (compiled) return compiled;
  try {
    compiled = RE2JS.compile(pattern);
  } catch (error) {
    const e = error as { error?: string; input?: string | null };
    throw celError(
      e.error
        ? `error parsing regexp: ${e.error}${e.input ? `: \`${e.input}\`` : ""}`
        : `error parsing regexp: ${(error as Error).message}`,
    );
  }
  if (expressions.size >= 1000) expressions.clear();
  expressions.set(pattern, compiled);
  return compiled;
}

const DURATION =
  /^[-+]?(\d+(\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)((\d+(\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h))*$|^[-+]?0$/;
const TIMESTAMP =
  /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** The call's name and argument nodes, for `f(a)` and `a.f(b)` alike. */
function callOf(node: Node): [string, unknown[]] | undefined {
  const args = node.args as unknown[];
  if (node.op === "call") return [args[0] as string, args[1] as unknown[]];
  if (node.op === "rcall") {
    return [args[0] as string, [args[1], ...(args[2] as unknown[])]];
  }
  return undefined;
}

function literal(node: unknown): string | undefined {
  const n = node as Node;
  return n?.op === "value" && typeof n.args === "string" ? n.args : undefined;
}

/**
 * Instruments the nodes of a checked expression; a literal argument the
 * API server refuses throws {@linkcode CelCompileError} (`invalid matches
 * argument`), worded by `locate`, and so does what a new (not `stored`)
 * expression may not use yet.
 */
export function instrument(
  root: unknown,
  locate: (offset: number, message: string) => string,
  stored: boolean,
): void {
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
      if ((value as Node).op === "comprehension") {
        costComprehension(value as Node);
      }
      wrap(value as Node, locate, stored);
      const node = value as Node;
      visit(node.args);
      visit(node.meta.alternate);
      visit(node.meta.macro);
      return;
    }
    if (Object.getPrototypeOf(value) === Object.prototype) {
      for (const item of Object.values(value)) visit(item);
    }
  };
  visit(root);
}

function wrap(
  node: Node,
  locate: (offset: number, message: string) => string,
  stored: boolean,
): void {
  let inner = node.evaluate;
  const call = callOf(node);
  let fixed = false;
  if (call) {
    const [name, args] = call;
    const receiver = args[0] as Node | undefined;
    if (
      name === "bind" && node.op === "rcall" && receiver?.op === "id" &&
      receiver.args === "cel"
    ) {
      // The API server's environment has no bindings extension.
      throw new CelCompileError(
        locate(
          receiver.start,
          "undeclared reference to 'cel' (in container '')",
        ),
      );
    }
    if (name === "includes" && node.op === "rcall" && !stored) {
      // New in 1.37's environment: a new expression compiles against 1.36's.
      throw new CelCompileError(
        locate(
          node.start,
          "undeclared reference to 'includes' (in container '')",
        ),
      );
    }
    const text = literal(args[args.length - 1]);
    const at = (args[args.length - 1] as Node)?.start ?? node.start;
    if (name === "matches" && args.length === 2) {
      if (text !== undefined) {
        try {
          re2(text);
        } catch {
          throw new CelCompileError(locate(at, "invalid matches argument"));
        }
      }
      // RE2, as the API server's Go regexp: linear time, RE2 syntax.
      const [subject, pattern] = args;
      inner = function (this: unknown, ...params: unknown[]): unknown {
        const [runner, , context] = params as [Runner, unknown, unknown];
        const s = runner.run(subject, context);
        const p = runner.run(pattern, context);
        if (typeof s !== "string" || typeof p !== "string") {
          throw celError("no such overload");
        }
        return re2(p).test(s);
      };
      fixed = true;
    } else if (
      (name === "duration" || name === "timestamp") && args.length === 1 &&
      text !== undefined &&
      !(name === "duration" ? DURATION : TIMESTAMP).test(text)
    ) {
      throw new CelCompileError(locate(at, `invalid ${name} argument`));
    }
  }
  const [cost, after] = costOf(node, call);
  const adjust = semantics(node, call);
  const failed = conversionError(node, call);
  // Set when the engine installs its own `evaluate` and calls it at once:
  // that call is the same evaluation, already counted.
  let again = false;
  const counted = function (this: unknown, ...args: unknown[]): unknown {
    if (again) {
      again = false;
      return inner.apply(this, args);
    }
    const current = meter;
    if (current && (current.spent += cost) > current.limit) {
      // One error, thrown again by every later node: the engine's `all`
      // and `exists` go on past an error, so each remaining item must end
      // at once (and without building a new stack).
      throw current.error ??= new CelCostError();
    }
    let result;
    if (failed) {
      try {
        result = inner.apply(this, args);
      } catch (error) {
        throw error instanceof CelCostError ? error : failed(error);
      }
    } else result = inner.apply(this, args);
    if (adjust) result = adjust(result);
    (node as Recorded)[LAST] = result;
    if (after && current) charge(after(result));
    return result;
  };
  // The engine reassigns a node's `evaluate` after its first call (to skip
  // a dispatch); the setter keeps the count around what it installs.
  Object.defineProperty(node, "evaluate", {
    get: () => counted,
    set: (next: Evaluate) => {
      if (!fixed) inner = next;
      again = true;
    },
    configurable: true,
  });
}
