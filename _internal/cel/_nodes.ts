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

/** The counter of the evaluation under way (evaluation is synchronous). */
interface Meter {
  spent: number;
  readonly limit: number;
  error?: CelCostError;
}

let meter: Meter | undefined;

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
  // As cel-go counts: a literal costs nothing, nor does `has()` itself
  // (the API server turns its cost off), every other node 1.
  const cost = node.op === "value" || call?.[0] === "has" ? 0 : 1;
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
    return inner.apply(this, args);
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
