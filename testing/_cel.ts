/**
 * A small subset of CEL (the Common Expression Language), enough for the
 * `matchConditions` of admission webhooks as tests write them: the
 * variables `object`, `oldObject` and `request`; field selection (`a.b`)
 * and indexing (`a["b"]`, `a[0]`); `has(a.b)`; `==`, `!=`, `<`, `<=`, `>`,
 * `>=`; `in` on lists and maps; `&&`, `||` (with CEL's absorption of
 * errors: `false && error` is false), `!`, `? :`; string, integer, boolean
 * and `null` literals, list literals; `size(x)`, `x.size()`,
 * `s.startsWith(t)`, `s.endsWith(t)`, `s.contains(t)`. Anything else is
 * refused when the expression is compiled ({@linkcode CelUnsupportedError}),
 * so that a configuration the fake cannot evaluate faithfully is never
 * taken.
 *
 * Runtime errors follow cel-go's words where the subset meets them
 * (`no such key: x`, `no such overload`).
 *
 * @module
 */

/** An expression the subset cannot parse or does not cover. */
export class CelUnsupportedError extends Error {
  override name = "CelUnsupportedError";
}

/** An expression that is not valid CEL (a syntax error). */
export class CelSyntaxError extends Error {
  override name = "CelSyntaxError";
}

/** An error while evaluating (a missing key, a type mismatch). */
export class CelEvalError extends Error {
  override name = "CelEvalError";
}

type Node =
  | { t: "lit"; v: unknown }
  | { t: "var"; name: string }
  | { t: "list"; items: Node[] }
  | { t: "sel"; of: Node; field: string }
  | { t: "idx"; of: Node; index: Node }
  | { t: "has"; of: Node; field: string }
  | { t: "call"; fn: string; target: Node | undefined; args: Node[] }
  | { t: "not"; of: Node }
  | { t: "neg"; of: Node }
  | { t: "bin"; op: string; l: Node; r: Node }
  | { t: "cond"; c: Node; a: Node; b: Node };

/** A compiled expression. */
export interface CelProgram {
  /** The expression's text. */
  readonly source: string;
  /** Evaluates with the variables; throws a {@linkcode CelEvalError}. */
  evaluate(variables: Readonly<Record<string, unknown>>): unknown;
}

const VARIABLES = ["object", "oldObject", "request"];
const METHODS = ["startsWith", "endsWith", "contains", "size"];
const PUNCT = [
  "==",
  "!=",
  "<=",
  ">=",
  "&&",
  "||",
  "<",
  ">",
  "!",
  "(",
  ")",
  "[",
  "]",
  ".",
  ",",
  "?",
  ":",
  "-",
];

type Token =
  | { k: "id"; v: string; at: number }
  | { k: "int"; v: number; at: number }
  | { k: "str"; v: string; at: number }
  | { k: "p"; v: string; at: number }
  | { k: "end"; at: number };

function lex(source: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const at = i;
    if (/[A-Za-z_]/.test(c)) {
      const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(source.slice(i))![0];
      out.push({ k: "id", v: word, at });
      i += word.length;
      continue;
    }
    if (/[0-9]/.test(c)) {
      const number = /^[0-9]+[A-Za-z0-9_.]*/.exec(source.slice(i))![0];
      if (!/^[0-9]+$/.test(number)) {
        throw new CelUnsupportedError(
          `the number literal ${number} (only decimal integers are supported)`,
        );
      }
      out.push({ k: "int", v: Number(number), at });
      i += number.length;
      continue;
    }
    if (c === '"' || c === "'") {
      if (source.startsWith(c.repeat(3), i)) {
        throw new CelUnsupportedError("triple-quoted strings");
      }
      let text = "";
      i++;
      for (;;) {
        const d = source[i];
        if (d === undefined) {
          throw new CelSyntaxError(`unterminated string at ${at}`);
        }
        i++;
        if (d === c) break;
        if (d === "\\") {
          const e = source[i++];
          const escapes: Record<string, string> = {
            "\\": "\\",
            '"': '"',
            "'": "'",
            n: "\n",
            t: "\t",
            r: "\r",
          };
          if (e === undefined || escapes[e] === undefined) {
            throw new CelUnsupportedError(`the string escape \\${e ?? ""}`);
          }
          text += escapes[e];
        } else text += d;
      }
      out.push({ k: "str", v: text, at });
      continue;
    }
    if (/^[.[]\s*\?/.test(source.slice(i))) {
      throw new CelUnsupportedError("optional selection (.? and [?])");
    }
    const p = PUNCT.find((p) => source.startsWith(p, i));
    if (p === undefined) {
      throw new CelUnsupportedError(`the character ${JSON.stringify(c)}`);
    }
    out.push({ k: "p", v: p, at });
    i += p.length;
  }
  out.push({ k: "end", at: source.length });
  return out;
}

class Parser {
  #tokens: Token[];
  #at = 0;

  constructor(tokens: Token[]) {
    this.#tokens = tokens;
  }

  parse(): Node {
    const node = this.#cond();
    const next = this.#peek();
    if (next.k !== "end") throw this.#unexpected(next);
    return node;
  }

  #peek(): Token {
    return this.#tokens[this.#at]!;
  }

  #take(): Token {
    return this.#tokens[this.#at++]!;
  }

  #is(p: string): boolean {
    const t = this.#peek();
    return t.k === "p" && t.v === p;
  }

  #expect(p: string): void {
    const t = this.#take();
    if (t.k !== "p" || t.v !== p) {
      throw new CelSyntaxError(`expected ${p} at ${t.at}`);
    }
  }

  #unexpected(t: Token): Error {
    if (t.k === "end") return new CelSyntaxError("unexpected end of input");
    const shown = t.k === "str" ? JSON.stringify(t.v) : String(t.v);
    return new CelSyntaxError(`unexpected ${shown} at ${t.at}`);
  }

  #cond(): Node {
    const c = this.#or();
    if (!this.#is("?")) return c;
    this.#take();
    const a = this.#cond();
    this.#expect(":");
    return { t: "cond", c, a, b: this.#cond() };
  }

  #or(): Node {
    let l = this.#and();
    while (this.#is("||")) {
      this.#take();
      l = { t: "bin", op: "||", l, r: this.#and() };
    }
    return l;
  }

  #and(): Node {
    let l = this.#rel();
    while (this.#is("&&")) {
      this.#take();
      l = { t: "bin", op: "&&", l, r: this.#rel() };
    }
    return l;
  }

  #rel(): Node {
    let l = this.#unary();
    for (;;) {
      const t = this.#peek();
      const op = t.k === "p" && ["==", "!=", "<", "<=", ">", ">="].includes(t.v)
        ? t.v
        : t.k === "id" && t.v === "in"
        ? "in"
        : undefined;
      if (op === undefined) return l;
      this.#take();
      l = { t: "bin", op, l, r: this.#unary() };
    }
  }

  #unary(): Node {
    if (this.#is("!")) {
      this.#take();
      return { t: "not", of: this.#unary() };
    }
    if (this.#is("-")) {
      this.#take();
      return { t: "neg", of: this.#unary() };
    }
    return this.#member();
  }

  #member(): Node {
    let node = this.#primary();
    for (;;) {
      if (this.#is(".")) {
        this.#take();
        const name = this.#take();
        if (name.k !== "id") throw this.#unexpected(name);
        if (this.#is("(")) {
          if (!METHODS.includes(name.v)) {
            throw new CelUnsupportedError(`the function ${name.v}()`);
          }
          node = {
            t: "call",
            fn: name.v,
            target: node,
            args: this.#args(),
          };
        } else node = { t: "sel", of: node, field: name.v };
      } else if (this.#is("[")) {
        this.#take();
        const index = this.#cond();
        this.#expect("]");
        node = { t: "idx", of: node, index };
      } else return node;
    }
  }

  #args(): Node[] {
    this.#expect("(");
    const args: Node[] = [];
    while (!this.#is(")")) {
      args.push(this.#cond());
      if (!this.#is(")")) this.#expect(",");
    }
    this.#take();
    return args;
  }

  #primary(): Node {
    const t = this.#take();
    if (t.k === "int") return { t: "lit", v: t.v };
    if (t.k === "str") return { t: "lit", v: t.v };
    if (t.k === "p" && t.v === "(") {
      const node = this.#cond();
      this.#expect(")");
      return node;
    }
    if (t.k === "p" && t.v === "[") {
      const items: Node[] = [];
      while (!this.#is("]")) {
        items.push(this.#cond());
        if (!this.#is("]")) this.#expect(",");
      }
      this.#take();
      return { t: "list", items };
    }
    if (t.k !== "id") throw this.#unexpected(t);
    if (t.v === "true" || t.v === "false") {
      return { t: "lit", v: t.v === "true" };
    }
    if (t.v === "null") return { t: "lit", v: null };
    if (this.#is("(")) {
      if (t.v === "has") {
        const args = this.#args();
        const of = args[0];
        if (args.length !== 1 || of?.t !== "sel") {
          throw new CelSyntaxError(
            "invalid argument to has() macro",
          );
        }
        return { t: "has", of: of.of, field: of.field };
      }
      if (t.v === "size") {
        return { t: "call", fn: "size", target: undefined, args: this.#args() };
      }
      throw new CelUnsupportedError(`the function ${t.v}()`);
    }
    if (!VARIABLES.includes(t.v)) {
      throw new CelUnsupportedError(
        `the variable ${t.v} (only ${VARIABLES.join(", ")})`,
      );
    }
    return { t: "var", name: t.v };
  }
}

/**
 * Compiles an expression of the subset.
 *
 * @throws {CelUnsupportedError} Outside the subset.
 * @throws {CelSyntaxError} When it is not an expression.
 */
export function compile(source: string): CelProgram {
  const node = new Parser(lex(source)).parse();
  if (node.t === "lit" && typeof node.v !== "boolean") {
    throw new CelSyntaxError(
      `must evaluate to bool, found ${typeName(node.v)}`,
    );
  }
  return {
    source,
    evaluate: (variables) => evaluate(node, variables),
  };
}

function typeName(value: unknown): string {
  if (value === null || value === undefined) return "null_type";
  if (typeof value === "string") return "string";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") {
    return Number.isInteger(value) ? "int" : "double";
  }
  if (Array.isArray(value)) return "list";
  return "map";
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function equal(a: unknown, b: unknown): boolean {
  if (typeName(a) === "null_type" && typeName(b) === "null_type") return true;
  if (typeof a === "number" && typeof b === "number") return a === b;
  if (typeName(a) !== typeName(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((x, i) => equal(x, b[i]));
  }
  if (isMap(a) && isMap(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length &&
      keys.every((k) => Object.hasOwn(b, k) && equal(a[k], b[k]));
  }
  return a === b;
}

function noOverload(op: string, ...values: unknown[]): CelEvalError {
  return new CelEvalError(
    `no such overload: ${op}(${values.map(typeName).join(", ")})`,
  );
}

function select(of: unknown, field: string): unknown {
  if (!isMap(of)) throw noOverload(`.${field}`, of);
  if (!Object.hasOwn(of, field)) {
    throw new CelEvalError(`no such key: ${field}`);
  }
  return of[field];
}

function evaluate(
  node: Node,
  vars: Readonly<Record<string, unknown>>,
): unknown {
  const ev = (n: Node): unknown => evaluate(n, vars);
  switch (node.t) {
    case "lit":
      return node.v;
    case "var":
      return vars[node.name] ?? null;
    case "list":
      return node.items.map(ev);
    case "sel":
      return select(ev(node.of), node.field);
    case "idx": {
      const of = ev(node.of);
      const index = ev(node.index);
      if (Array.isArray(of) && typeof index === "number") {
        if (index < 0 || index >= of.length) {
          throw new CelEvalError(`index out of bounds: ${index}`);
        }
        return of[index];
      }
      if (isMap(of) && typeof index === "string") return select(of, index);
      throw noOverload("_[_]", of, index);
    }
    case "has": {
      const of = ev(node.of);
      if (!isMap(of)) throw noOverload("has", of);
      return Object.hasOwn(of, node.field);
    }
    case "call": {
      const target = node.target === undefined ? undefined : ev(node.target);
      const args = node.args.map(ev);
      if (node.fn === "size") {
        const of = node.target === undefined ? args[0] : target;
        if ((node.target === undefined ? args.length : args.length + 1) !== 1) {
          throw noOverload("size", ...args);
        }
        if (typeof of === "string") return [...of].length;
        if (Array.isArray(of)) return of.length;
        if (isMap(of)) return Object.keys(of).length;
        throw noOverload("size", of);
      }
      const [arg] = args;
      if (
        typeof target !== "string" || typeof arg !== "string" ||
        args.length !== 1
      ) {
        throw noOverload(node.fn, target, ...args);
      }
      if (node.fn === "startsWith") return target.startsWith(arg);
      if (node.fn === "endsWith") return target.endsWith(arg);
      return target.includes(arg);
    }
    case "not": {
      const of = ev(node.of);
      if (typeof of !== "boolean") throw noOverload("!_", of);
      return !of;
    }
    case "neg": {
      const of = ev(node.of);
      if (typeof of !== "number") throw noOverload("-_", of);
      return -of;
    }
    case "cond": {
      const c = ev(node.c);
      if (typeof c !== "boolean") throw noOverload("_?_:_", c);
      return c ? ev(node.a) : ev(node.b);
    }
    case "bin":
      return binary(node.op, node.l, node.r, ev);
  }
}

function binary(
  op: string,
  l: Node,
  r: Node,
  ev: (n: Node) => unknown,
): unknown {
  if (op === "&&" || op === "||") {
    // CEL is commutative here: a decisive side wins over an error.
    const decisive = op === "||";
    const side = (n: Node): { v?: boolean; e?: unknown } => {
      try {
        const v = ev(n);
        if (typeof v !== "boolean") return { e: noOverload(op, v) };
        return { v };
      } catch (e) {
        return { e };
      }
    };
    const a = side(l);
    if (a.v === decisive) return decisive;
    const b = side(r);
    if (b.v === decisive) return decisive;
    if (a.e !== undefined) throw a.e;
    if (b.e !== undefined) throw b.e;
    return !decisive;
  }
  const a = ev(l);
  const b = ev(r);
  switch (op) {
    case "==":
      return equal(a, b);
    case "!=":
      return !equal(a, b);
    case "in":
      if (Array.isArray(b)) return b.some((x) => equal(a, x));
      if (isMap(b) && typeof a === "string") return Object.hasOwn(b, a);
      throw noOverload("@in", a, b);
  }
  const comparable = (typeof a === "number" && typeof b === "number") ||
    (typeof a === "string" && typeof b === "string") ||
    (typeof a === "boolean" && typeof b === "boolean");
  if (!comparable) throw noOverload(`_${op}_`, a, b);
  const x = a as number | string;
  const y = b as number | string;
  if (op === "<") return x < y;
  if (op === "<=") return x <= y;
  if (op === ">") return x > y;
  return x >= y;
}
