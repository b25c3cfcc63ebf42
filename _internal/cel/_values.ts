/**
 * The engine's errors, and CEL's equality and ordering of the engine's
 * values, shared by the libraries.
 *
 * @module
 */

/** An expression that does not compile, in cel-go's words. */
export class CelCompileError extends Error {
  override name = "CelCompileError";
}

/** An error while evaluating, in cel-go's words. */
export class CelRuntimeError extends Error {
  override name = "CelRuntimeError";
}

/** The evaluation reached its cost limit. */
export class CelCostError extends CelRuntimeError {
  override name = "CelCostError";
  constructor() {
    super("operation cancelled: actual cost limit exceeded");
  }
}

/** A runtime error of a library function. */
export function celError(message: string): CelRuntimeError {
  return new CelRuntimeError(message);
}

/**
 * A double with `digits` decimals as Go's `%.Nf` prints it: an exact tie
 * rounds to the even digit (`2.5` is `2`), where `toFixed` rounds away
 * from zero.
 */
export function goFixed(x: number, digits: number): string {
  const rounded = x.toFixed(digits);
  if (!Number.isFinite(x)) return rounded;
  // The exact decimal value of the double: a tie ends in 5 right after
  // the digits kept (a longer expansion is no tie).
  const exact = Math.abs(x).toFixed(Math.min(100, digits + 60));
  const dot = exact.indexOf(".");
  const after = exact.slice(dot + 1);
  if (after[digits] !== "5" || !/^0*$/.test(after.slice(digits + 1))) {
    return rounded;
  }
  const kept = exact.slice(0, digits === 0 ? dot : dot + 1 + digits);
  const last = Number(kept[kept.length - 1]);
  if (last % 2 !== 0) return rounded;
  // Even: truncate rather than round up.
  return `${x < 0 ? "-" : ""}${kept}`;
}

function numeric(value: unknown): bigint | number | undefined {
  if (typeof value === "bigint" || typeof value === "number") return value;
  if (
    value !== null && typeof value === "object" &&
    value.constructor?.name === "UnsignedInt"
  ) {
    return (value as { value: bigint }).value;
  }
  return undefined;
}

/**
 * The list type of a `set` or `map` list of the schema, kept on the array
 * the conversion made: the API server compares such lists regardless of
 * order (a `map` list by its items' keys).
 */
export const LIST_TYPE: unique symbol = Symbol("listType");

interface ListKind {
  readonly type: "set" | "map";
  readonly keys: readonly string[];
}

function listKind(value: unknown): ListKind | undefined {
  return (value as { [LIST_TYPE]?: ListKind })[LIST_TYPE];
}

/** Equality of two `set` or `map` lists, whatever their order. */
function unorderedEqual(
  kind: ListKind,
  a: readonly unknown[],
  b: readonly unknown[],
): boolean {
  if (a.length !== b.length) return false;
  if (kind.type === "map") {
    const keyOf = (item: unknown): unknown[] =>
      kind.keys.map((key) => (item as Record<string, unknown>)?.[key]);
    return a.every((item) => {
      const key = keyOf(item);
      const other = b.find((x) => celEqual(keyOf(x), key));
      return other !== undefined && celEqual(item, other);
    });
  }
  return a.every((item) => b.some((x) => celEqual(item, x)));
}

/** CEL's equality, deep, with numbers equal across `int`, `uint`, `double`. */
export function celEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const x = numeric(a);
  const y = numeric(b);
  if (x !== undefined || y !== undefined) {
    if (x === undefined || y === undefined) return false;
    if (typeof x === "number" || typeof y === "number") {
      return Number(x) === Number(y) &&
        (typeof x === "number" ? Number.isFinite(x) : true) &&
        // deno-lint-ignore eqeqeq
        x == y;
    }
    return x === y;
  }
  if (
    a === null || b === null || typeof a !== "object" || typeof b !== "object"
  ) {
    return false;
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b)) return false;
    const kind = listKind(a) ?? listKind(b);
    if (kind) return unorderedEqual(kind, a, b);
    return a.length === b.length && a.every((item, i) => celEqual(item, b[i]));
  }
  if (a instanceof Uint8Array || b instanceof Uint8Array) {
    return a instanceof Uint8Array && b instanceof Uint8Array &&
      a.length === b.length && a.every((x, i) => x === b[i]);
  }
  if (a instanceof Date || b instanceof Date) {
    return a instanceof Date && b instanceof Date &&
      a.getTime() === b.getTime();
  }
  const equal = (a as { equals?: (other: unknown) => boolean }).equals;
  if (typeof equal === "function") return equal.call(a, b);
  const left = a instanceof Map ? a : new Map(Object.entries(a));
  const right = b instanceof Map ? b : new Map(Object.entries(b));
  if (left.size !== right.size) return false;
  for (const [key, value] of left) {
    let found = false;
    for (const [other, item] of right) {
      if (celEqual(key, other)) {
        if (!celEqual(value, item)) return false;
        found = true;
        break;
      }
    }
    if (!found) return false;
  }
  return true;
}

/** CEL's ordering of two comparable values (numbers across types). */
export function compareValues(a: unknown, b: unknown): number {
  const x = numeric(a);
  const y = numeric(b);
  if (x !== undefined && y !== undefined) {
    // deno-lint-ignore eqeqeq
    return x < y ? -1 : x > y ? 1 : x == y ? 0 : Number.NaN;
  }
  if (typeof a === "string" && typeof b === "string") {
    return a < b ? -1 : a > b ? 1 : 0;
  }
  if (typeof a === "boolean" && typeof b === "boolean") {
    return Number(a) - Number(b);
  }
  if (a instanceof Date && b instanceof Date) {
    return a.getTime() - b.getTime();
  }
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      if (a[i] !== b[i]) return a[i]! - b[i]!;
    }
    return a.length - b.length;
  }
  const compare = (a as { compareTo?: (other: unknown) => number })?.compareTo;
  if (typeof compare === "function") return compare.call(a, b);
  throw celError("no such overload");
}

const compiled = new Map<string, RegExp>();

/**
 * An RE2 pattern as a JavaScript regular expression: the leading flag
 * group `(?i)` (and `s`, `m`), named groups `(?P<name>…)`, `\A` and `\z`
 * are rewritten. A pattern neither accepts is `Illegal regex: …`.
 */
export function regex(pattern: string, flags = ""): RegExp {
  const key = `${flags}/${pattern}`;
  const hit = compiled.get(key);
  if (hit) {
    hit.lastIndex = 0;
    return hit;
  }
  let source = pattern;
  let extra = "";
  const leading = /^\(\?([ims]+)\)/.exec(source);
  if (leading) {
    extra = leading[1]!;
    source = source.slice(leading[0].length);
  }
  source = source.replaceAll("(?P<", "(?<").replaceAll("\\A", "^")
    .replaceAll("\\z", "$(?![\\s\\S])");
  let made: RegExp;
  const all = [...new Set(flags + extra)].join("");
  try {
    // Code points, as RE2 matches; a pattern the stricter Unicode mode
    // refuses (an identity escape such as `\-`) runs without it.
    try {
      made = new RegExp(source, `${all}u`);
    } catch {
      made = new RegExp(source, all);
    }
  } catch (error) {
    throw celError(
      `Illegal regex: error parsing regexp: ${(error as Error).message}`,
    );
  }
  if (compiled.size > 1000) compiled.clear();
  compiled.set(key, made);
  return made;
}
