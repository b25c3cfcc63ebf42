/**
 * The libraries of the API server's CEL environment (1.37,
 * k8s.io/apiserver/pkg/cel/environment/base.go) that the engine lacks,
 * registered through its extension points: functions, operators, macros
 * and namespace constants.
 *
 * - cel-go `ext.Strings` version 2: `charAt`, `indexOf`/`lastIndexOf` with
 *   an offset, `replace`, `format`, `strings.quote` (the engine has the
 *   rest);
 * - cel-go `ext.Lists` version 3: `slice`, `flatten`, `distinct`,
 *   `reverse`, `sort`, `sortBy`, `lists.range`;
 * - Kubernetes lists version 1: `isSorted`, `sum`, `min`, `max`,
 *   `indexOf`, `lastIndexOf`, `includes`;
 * - cel-go `ext.Sets`: `sets.contains`, `sets.equivalent`,
 *   `sets.intersects`;
 * - cel-go's optional types: `optional.ofNonZeroValue`, `optMap`,
 *   `optFlatMap` (the engine has the rest, but not the `[?x]` and
 *   `{?k: v}` literal entries, which its parser refuses);
 * - cel-go `ext.TwoVarComprehensions`: `all`, `exists`, `existsOne`,
 *   `transformList`, `transformMap`, `transformMapEntry` over two
 *   variables;
 * - Kubernetes regex: `find`, `findAll`; `matches` runs on RE2
 *   (`_nodes.ts`);
 * - the Kubernetes types in `_kube.ts` (quantity, URL, IP, CIDR, semver,
 *   format) and the authorizer library with its selectors (`_authz.ts`);
 * - `bytes` ordering, and CEL's numeric equality across `int`, `uint` and
 *   `double` under `dyn`.
 *
 * @module
 */

import { type Environment, Optional } from "@marcbachmann/cel-js";
import { authz } from "./_authz.ts";
import { kubernetesTypes } from "./_kube.ts";
import { charge, re2 } from "./_nodes.ts";
import {
  celEqual,
  celError,
  compareValues,
  goFixed,
  regex,
} from "./_values.ts";

/** The engine's declared type of a value, as its checker holds it. */
interface Declared {
  readonly kind: string;
  readonly name: string;
  readonly valueType?: Declared;
  readonly keyType?: Declared;
}

/** What a macro's type check is given: the engine's checker. */
interface Checker {
  check(node: unknown, context: unknown): Declared;
  readonly dynType: Declared;
  readonly intType: Declared;
  readonly boolType: Declared;
  readonly registry: {
    getListType(item: Declared): Declared;
    getMapType(key: Declared, value: Declared): Declared;
    getOptionalType(value: Declared): Declared;
  };
}

/** A scope of the engine with one more variable. */
interface Scope {
  forkWithVariable(name: string, type: Declared): Overlay;
}

interface Overlay extends Scope {
  setIterValue(value: unknown, evaluator: unknown): Overlay;
}

interface Evaluator {
  run(node: unknown, context: unknown): unknown;
  tryEval(node: unknown, context: unknown): unknown;
}

interface MacroCall {
  readonly args: readonly { readonly op: string; readonly args: unknown }[];
  readonly receiver: unknown;
}

/** Registers the libraries on an environment and returns it. */
export function libraries(environment: Environment): Environment {
  strings(environment);
  conversions(environment);
  lists(environment);
  sets(environment);
  comprehensions(environment);
  optionals(environment);
  regexes(environment);
  orderings(environment);
  kubernetesTypes(environment, Optional);
  authz(environment);
  return environment;
}

function namespace(environment: Environment, name: string): string {
  const type = `${name[0]!.toUpperCase()}${name.slice(1)}Namespace`;
  const made = { [type]: class {} }[type]!;
  environment.registerType(type, made);
  environment.registerConstant(name, type, new made());
  return type;
}

/** Code points, as cel-go indexes strings. */
function points(text: string): string[] {
  return Array.from(text);
}

function strings(environment: Environment): void {
  environment.registerFunction(
    "string.charAt(int): string",
    (text: string, at: bigint) => {
      const chars = points(text);
      if (at < 0n || at > BigInt(chars.length)) {
        throw celError(`index out of range: ${at}`);
      }
      return chars[Number(at)] ?? "";
    },
  );
  environment.registerFunction(
    "string.replace(string, string): string",
    (text: string, from: string, to: string) => text.split(from).join(to),
  );
  environment.registerFunction(
    "string.replace(string, string, int): string",
    (text: string, from: string, to: string, count: bigint) => {
      if (count < 0n) return text.split(from).join(to);
      let out = "";
      let rest = text;
      let n = count;
      while (n > 0n) {
        const at = from === ""
          ? (out === "" && rest === text ? 0 : 1)
          : rest.indexOf(from);
        if (at < 0 || (from === "" && rest === "" && out !== "")) break;
        if (from === "") {
          const head = points(rest)[0] ?? "";
          out += (out === "" && rest === text ? "" : head) + to;
          if (!(out === to && rest === text)) rest = rest.slice(head.length);
        } else {
          out += rest.slice(0, at) + to;
          rest = rest.slice(at + from.length);
        }
        n--;
      }
      return out + rest;
    },
  );
  const strings = namespace(environment, "strings");
  environment.registerFunction(
    `${strings}.quote(string): string`,
    (_: unknown, text: string) => quote(text),
  );
  environment.registerFunction(
    "string.format(list): string",
    (template: string, args: unknown[]) => format(template, args),
  );
}

function quote(text: string): string {
  let out = '"';
  for (const char of text) {
    switch (char) {
      case "\x07":
        out += "\\a";
        break;
      case "\b":
        out += "\\b";
        break;
      case "\f":
        out += "\\f";
        break;
      case "\n":
        out += "\\n";
        break;
      case "\r":
        out += "\\r";
        break;
      case "\t":
        out += "\\t";
        break;
      case "\v":
        out += "\\v";
        break;
      case "\\":
        out += "\\\\";
        break;
      case '"':
        out += '\\"';
        break;
      default:
        out += char === "\uFFFD" ? "\\ufffd" : char;
    }
  }
  return out + '"';
}

/** cel-go's `format`: `%s`, `%d`, `%f`, `%e`, `%x`, `%X`, `%o`, `%b`, `%%`. */
function format(template: string, args: readonly unknown[]): string {
  let out = "";
  let next = 0;
  for (let i = 0; i < template.length; i++) {
    const char = template[i]!;
    if (char !== "%") {
      out += char;
      continue;
    }
    let j = i + 1;
    let precision: number | undefined;
    if (template[j] === ".") {
      let digits = "";
      j++;
      while (/[0-9]/.test(template[j] ?? "")) digits += template[j++];
      precision = Number(digits || "0");
    }
    const verb = template[j];
    if (verb === undefined) {
      throw celError(
        `could not parse formatting clause: unexpected end of string`,
      );
    }
    i = j;
    if (verb === "%") {
      out += "%";
      continue;
    }
    if (next >= args.length) {
      throw celError(
        `index ${next} out of range`,
      );
    }
    const arg = args[next++];
    out += formatOne(verb, arg, precision);
  }
  return out;
}

function formatOne(verb: string, arg: unknown, precision?: number): string {
  const unsigned = isUnsigned(arg)
    ? (arg as { value: bigint }).value
    : undefined;
  switch (verb) {
    case "s":
      return formatString(arg);
    case "d":
      if (typeof arg === "bigint") return arg.toString();
      if (unsigned !== undefined) return unsigned.toString();
      if (typeof arg === "number" && !Number.isFinite(arg)) {
        return formatDouble(arg);
      }
      throw celError(
        `error during formatting: decimal clause can only be used on integers, was given ${
          typeOf(arg)
        }`,
      );
    case "f":
    case "e": {
      const n = typeof arg === "number"
        ? arg
        : typeof arg === "bigint"
        ? Number(arg)
        : unsigned !== undefined
        ? Number(unsigned)
        : undefined;
      if (n === undefined) {
        throw celError(
          `error during formatting: ${
            verb === "f" ? "fixed-point" : "scientific"
          } clause can only be used on doubles, was given ${typeOf(arg)}`,
        );
      }
      if (!Number.isFinite(n)) return formatDouble(n);
      if (verb === "f") return goFixed(n, precision ?? 6);
      const [mantissa, exponent] = n.toExponential(precision ?? 6).split("e");
      const e = Number(exponent);
      return `${mantissa}e${e < 0 ? "-" : "+"}${
        String(Math.abs(e)).padStart(2, "0")
      }`;
    }
    case "x":
    case "X":
    case "o":
    case "b": {
      const base = verb === "o" ? 8 : verb === "b" ? 2 : 16;
      let text: string;
      if (typeof arg === "boolean" && verb === "b") {
        text = arg ? "1" : "0";
      } else if (typeof arg === "bigint") {
        text = (arg < 0n ? "-" : "") + (arg < 0n ? -arg : arg).toString(base);
      } else if (unsigned !== undefined) text = unsigned.toString(base);
      else if ((verb === "x" || verb === "X") && typeof arg === "string") {
        text = Array.from(
          new TextEncoder().encode(arg),
          (b) => b.toString(16).padStart(2, "0"),
        ).join("");
      } else if ((verb === "x" || verb === "X") && arg instanceof Uint8Array) {
        text = Array.from(arg, (b) => b.toString(16).padStart(2, "0")).join("");
      } else {
        throw celError(
          `error during formatting: only integers${
            verb === "x" || verb === "X" ? ", byte buffers, and strings" : ""
          } can be formatted as ${
            verb === "o" ? "octal" : verb === "b" ? "binary" : "hex"
          }, was given ${typeOf(arg)}`,
        );
      }
      return verb === "X" ? text.toUpperCase() : text;
    }
    default:
      throw celError(
        `could not parse formatting clause: unrecognized formatting clause "${verb}"`,
      );
  }
}

function isUnsigned(value: unknown): boolean {
  return value !== null && typeof value === "object" &&
    value.constructor?.name === "UnsignedInt";
}

function formatDouble(n: number): string {
  if (Number.isNaN(n)) return "NaN";
  if (n === Infinity) return "Infinity";
  if (n === -Infinity) return "-Infinity";
  return String(n);
}

function formatString(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return formatDouble(value);
    return String(value);
  }
  if (typeof value === "boolean") return String(value);
  if (value === null) return "null";
  if (isUnsigned(value)) return (value as { value: bigint }).value.toString();
  if (value instanceof Uint8Array) return new TextDecoder().decode(value);
  if (value instanceof Date) return value.toISOString().replace(".000Z", "Z");
  if (Array.isArray(value)) {
    return `[${value.map((item) => formatNested(item)).join(", ")}]`;
  }
  if (value instanceof Map) {
    const entries = [...value].map((
      [k, v],
    ) => [formatNested(k), formatNested(v)]);
    entries.sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0));
    return `{${entries.map(([k, v]) => `${k}: ${v}`).join(", ")}}`;
  }
  if (value !== null && typeof value === "object") {
    const text = String(value);
    const { seconds, nanos } = value as { seconds?: unknown; nanos?: unknown };
    if (typeof seconds === "bigint" || typeof seconds === "number") {
      const fraction = typeof nanos === "number" && nanos !== 0
        ? `.${String(Math.abs(nanos)).padStart(9, "0").replace(/0+$/, "")}`
        : "";
      return `${seconds}${fraction}s`;
    }
    if ("name" in value && value.constructor?.name === "Type") {
      return String((value as { name: string }).name);
    }
    return text;
  }
  return String(value);
}

function formatNested(value: unknown): string {
  return formatString(value);
}

function typeOf(value: unknown): string {
  if (typeof value === "string") return "string";
  if (typeof value === "bigint") return "int";
  if (typeof value === "number") return "double";
  if (typeof value === "boolean") return "bool";
  if (value === null) return "null_type";
  if (isUnsigned(value)) return "uint";
  if (value instanceof Uint8Array) return "bytes";
  if (Array.isArray(value)) return "list";
  if (value instanceof Map) return "map";
  if (value instanceof Date) return "google.protobuf.Timestamp";
  return "dyn";
}

/** Conversions cel-go has and the engine lacks. */
function conversions(environment: Environment): void {
  const ts = "google.protobuf.Timestamp";
  const duration = "google.protobuf.Duration";
  environment.registerFunction("int(uint): int", (value: { value: bigint }) => {
    if (value.value > 2n ** 63n - 1n) throw celError("range error");
    return value.value;
  });
  environment.registerFunction(
    `int(${ts}): int`,
    (value: Date) => BigInt(Math.floor(value.getTime() / 1000)),
  );
  environment.registerFunction(
    `string(${ts}): string`,
    (value: Date) => value.toISOString().replace(/\.000Z$/, "Z"),
  );
  environment.registerFunction(
    `string(${duration}): string`,
    (value: unknown) => formatString(value),
  );
  environment.registerFunction(
    `duration(${duration}): ${duration}`,
    (value: unknown) => value,
  );
}

function lists(environment: Environment): void {
  const numeric =
    (name: string, pick: (a: number, b: number) => boolean) =>
    (list: unknown[]) => {
      if (list.length === 0) throw celError(`${name} called on empty list`);
      let best = list[0];
      for (const item of list.slice(1)) {
        if (pick(compareValues(item, best), 0)) best = item;
      }
      return best;
    };
  environment.registerFunction(
    "list<A>.isSorted(): bool",
    (list: unknown[]) =>
      list.every((item, i) => i === 0 || compareValues(list[i - 1], item) <= 0),
  );
  environment.registerFunction(
    "list<int>.sum(): int",
    (list: bigint[]) => list.reduce((a, b) => a + b, 0n),
  );
  environment.registerFunction(
    "list<double>.sum(): double",
    (list: number[]) => list.reduce((a, b) => a + b, 0),
  );
  environment.registerFunction(
    "list<A>.min(): A",
    numeric("min", (c) => c < 0),
  );
  environment.registerFunction(
    "list<A>.max(): A",
    numeric("max", (c) => c > 0),
  );
  environment.registerFunction(
    "list<A>.indexOf(A): int",
    (list: unknown[], item: unknown) =>
      BigInt(list.findIndex((x) => celEqual(x, item))),
  );
  environment.registerFunction(
    "list<A>.lastIndexOf(A): int",
    (list: unknown[], item: unknown) =>
      BigInt(list.findLastIndex((x) => celEqual(x, item))),
  );
  environment.registerFunction(
    "list.includes(dyn): bool",
    (list: unknown[], item: unknown) => list.some((x) => celEqual(x, item)),
  );
  environment.registerFunction(
    "list<A>.slice(int, int): list<A>",
    (list: unknown[], start: bigint, end: bigint) => {
      if (start < 0n || end < 0n) {
        throw celError(
          `cannot slice(${start}, ${end}), negative indexes not supported`,
        );
      }
      if (start > end) {
        throw celError(
          `cannot slice(${start}, ${end}), start index must be less than or equal to end index`,
        );
      }
      if (end > BigInt(list.length)) {
        throw celError(
          `cannot slice(${start}, ${end}), list is length ${list.length}`,
        );
      }
      return list.slice(Number(start), Number(end));
    },
  );
  environment.registerFunction(
    "list.flatten(): list",
    (list: unknown[]) => flatten(list, 1n),
  );
  environment.registerFunction(
    "list.flatten(int): list",
    (list: unknown[], depth: bigint) => {
      if (depth < 0n) throw celError("level must be non-negative");
      return flatten(list, depth);
    },
  );
  environment.registerFunction(
    "list<A>.distinct(): list<A>",
    (list: unknown[]) => {
      const out: unknown[] = [];
      for (const item of list) {
        if (!out.some((x) => celEqual(x, item))) out.push(item);
      }
      return out;
    },
  );
  environment.registerFunction(
    "list<A>.reverse(): list<A>",
    (list: unknown[]) => [...list].reverse(),
  );
  environment.registerFunction(
    "list<A>.sort(): list<A>",
    (list: unknown[]) => {
      assertSortable(list);
      return [...list].sort(compareValues);
    },
  );
  const listsType = namespace(environment, "lists");
  environment.registerFunction(
    `${listsType}.range(int): list<int>`,
    (_: unknown, n: bigint) => {
      const out: bigint[] = [];
      for (let i = 0n; i < n; i++) out.push(i);
      return out;
    },
  );
  environment.registerFunction(
    "list.sortBy(ast, ast): list<dyn>",
    ({ args, receiver }: MacroCall) => sortByMacro(receiver, args),
  );
}

function assertSortable(list: readonly unknown[]): void {
  const kinds = new Set(list.map(typeOf));
  if (kinds.size > 1) {
    throw celError("list elements must have the same type");
  }
  const kind = [...kinds][0];
  if (
    kind !== undefined &&
    ![
      "int",
      "uint",
      "double",
      "string",
      "bool",
      "bytes",
      "google.protobuf.Timestamp",
    ]
      .includes(kind) &&
    !(list[0] as { seconds?: unknown })?.seconds
  ) {
    throw celError(`sort: list elements are not comparable`);
  }
}

function flatten(list: readonly unknown[], depth: bigint): unknown[] {
  const out: unknown[] = [];
  for (const item of list) {
    if (Array.isArray(item) && depth > 0n) {
      out.push(...flatten(item, depth - 1n));
    } else out.push(item);
  }
  return out;
}

function identifier(node: { op: string; args: unknown } | undefined): string {
  if (node?.op !== "id" || typeof node.args !== "string") {
    throw celError("argument must be a simple name");
  }
  return node.args;
}

function sortByMacro(
  receiver: unknown,
  args: MacroCall["args"],
): Record<string, unknown> {
  const name = identifier(args[0]);
  const key = args[1];
  let scope: Overlay | undefined;
  return {
    typeCheck(checker: Checker, _macro: unknown, context: Scope): Declared {
      const range = checker.check(receiver, context);
      const item = range.kind === "list"
        ? range.valueType ?? checker.dynType
        : checker.dynType;
      scope = context.forkWithVariable(name, item);
      checker.check(key, scope);
      return range.kind === "list"
        ? range
        : checker.registry.getListType(checker.dynType);
    },
    evaluate(evaluator: Evaluator, _macro: unknown, context: Scope): unknown {
      const list = evaluator.run(receiver, context) as unknown[];
      const keyed = list.map((item) => {
        const fork = context.forkWithVariable(name, DYN).setIterValue(
          item,
          evaluator,
        );
        return { item, key: evaluator.run(key, fork) };
      });
      assertSortable(keyed.map((k) => k.key));
      keyed.sort((a, b) => compareValues(a.key, b.key));
      return keyed.map((k) => k.item);
    },
  };
}

/** A stand-in `dyn` type for scopes made while evaluating. */
const DYN: Declared = {
  kind: "dyn",
  name: "dyn",
  // The engine asks whether a value fits; `dyn` takes any.
  ...({ matchesValueType: () => true } as object),
} as Declared;

function sets(environment: Environment): void {
  const type = namespace(environment, "sets");
  const has = (list: readonly unknown[], item: unknown): boolean =>
    list.some((x) => celEqual(x, item));
  environment.registerFunction(
    `${type}.contains(list, list): bool`,
    (_: unknown, a: unknown[], b: unknown[]) => b.every((x) => has(a, x)),
  );
  environment.registerFunction(
    `${type}.equivalent(list, list): bool`,
    (_: unknown, a: unknown[], b: unknown[]) =>
      b.every((x) => has(a, x)) && a.every((x) => has(b, x)),
  );
  environment.registerFunction(
    `${type}.intersects(list, list): bool`,
    (_: unknown, a: unknown[], b: unknown[]) => b.some((x) => has(a, x)),
  );
}

type Kind =
  | "all"
  | "exists"
  | "existsOne"
  | "transformList"
  | "transformMap"
  | "transformMapEntry";

function comprehensions(environment: Environment): void {
  const kinds: [Kind, number[]][] = [
    ["all", [3]],
    ["exists", [3]],
    ["existsOne", [3]],
    ["transformList", [3, 4]],
    ["transformMap", [3, 4]],
    ["transformMapEntry", [3, 4]],
  ];
  for (const [kind, arities] of kinds) {
    for (const arity of arities) {
      const params = Array.from({ length: arity }, () => "ast").join(", ");
      for (const receiver of ["list", "map"]) {
        try {
          environment.registerFunction(
            `${receiver}.${kind}(${params}): dyn`,
            ({ args, receiver: range }: MacroCall) =>
              twoVariables(kind, range, args),
          );
        } catch {
          // The engine matches macros on the name alone: one is enough.
        }
      }
    }
  }
}

function twoVariables(
  kind: Kind,
  receiver: unknown,
  args: MacroCall["args"],
): Record<string, unknown> {
  const first = identifier(args[0]);
  const second = identifier(args[1]);
  if (first === second) {
    throw celError(`duplicate variable name: ${first}`);
  }
  const filter = args.length === 4 ? args[2] : undefined;
  const body = args[args.length - 1];
  let types: [Declared, Declared] | undefined;
  return {
    typeCheck(checker: Checker, _macro: unknown, context: Scope): Declared {
      const range = checker.check(receiver, context);
      types = range.kind === "list"
        ? [checker.intType, range.valueType ?? checker.dynType]
        : range.kind === "map"
        ? [range.keyType ?? checker.dynType, range.valueType ?? checker.dynType]
        : [checker.dynType, checker.dynType];
      const scope = context.forkWithVariable(first, types[0]).forkWithVariable(
        second,
        types[1],
      );
      if (filter) checker.check(filter, scope);
      const result = checker.check(body, scope);
      switch (kind) {
        case "all":
        case "exists":
        case "existsOne":
          return checker.boolType;
        case "transformList":
          return checker.registry.getListType(result);
        case "transformMap":
          return checker.registry.getMapType(types[0], result);
        default:
          return result.kind === "map" ? result : checker.registry.getMapType(
            checker.dynType,
            checker.dynType,
          );
      }
    },
    evaluate(evaluator: Evaluator, _macro: unknown, context: Scope): unknown {
      const range = evaluator.run(receiver, context);
      const pairs: [unknown, unknown][] = Array.isArray(range)
        ? range.map((v, i) => [BigInt(i), v])
        : range instanceof Map
        ? [...range]
        : Object.entries(range as object);
      const scopeOf = (key: unknown, value: unknown): Overlay =>
        context.forkWithVariable(first, DYN).setIterValue(key, evaluator)
          .forkWithVariable(second, DYN).setIterValue(value, evaluator);
      let error: unknown;
      let count = 0;
      const list: unknown[] = [];
      const map = new Map<unknown, unknown>();
      // Costs as cel-go's expansions of these macros count (see
      // `costComprehension`): a condition and a step for each pair, the
      // result last (the accumulator's `[]` or `{}` is a constant).
      const quantifier = kind === "all" || kind === "exists";
      for (const [key, value] of pairs) {
        const scope = scopeOf(key, value);
        if (quantifier) {
          charge(kind === "all" ? 3 : 4);
          const result = evaluator.tryEval(body, scope);
          if (result === (kind === "exists")) {
            charge(1);
            return result;
          }
          if (typeof result !== "boolean") error ??= result;
          continue;
        }
        if (filter) {
          const keep = evaluator.run(filter, scope);
          if (keep !== true) {
            charge(1);
            continue;
          }
        }
        const result = evaluator.run(body, scope);
        charge(
          kind === "existsOne"
            ? result === true ? 2 : 1
            : kind === "transformList"
            ? 12
            : kind === "transformMap"
            ? 3
            : 2,
        );
        if (kind === "existsOne") {
          if (result === true) count++;
        } else if (kind === "transformList") list.push(result);
        else if (kind === "transformMap") map.set(key, result);
        else {
          const entries = result instanceof Map
            ? [...result]
            : Object.entries(result as object);
          for (const [k, v] of entries) {
            if ([...map.keys()].some((x) => celEqual(x, k))) {
              throw celError(`insert failed: key ${String(k)} already exists`);
            }
            map.set(k, v);
          }
        }
      }
      charge(kind === "existsOne" ? 2 : 1);
      switch (kind) {
        case "all":
        case "exists":
          if (error !== undefined) throw error;
          return kind === "all";
        case "existsOne":
          return count === 1;
        case "transformList":
          return list;
        default:
          return map;
      }
    },
  };
}

/**
 * `find` and `findAll`: RE2 (linear time) decides whether there is a match
 * and refuses what Go's regexp refuses; only then does the JavaScript
 * engine, on the pattern rewritten, give the matched text.
 */
/** What cel-go's optional library has beyond the engine's. */
function optionals(environment: Environment): void {
  environment.registerFunction(
    "OptionalNamespace.ofNonZeroValue(dyn): optional<dyn>",
    (_: unknown, value: unknown) =>
      isZero(value) ? Optional.none() : Optional.of(value),
  );
  for (const flat of [false, true]) {
    environment.registerFunction(
      `optional.${flat ? "optFlatMap" : "optMap"}(ast, ast): optional<dyn>`,
      ({ args, receiver }: MacroCall) => optionalMap(receiver, args, flat),
    );
  }
}

function isZero(value: unknown): boolean {
  if (value === null || value === false || value === "" || value === 0) {
    return true;
  }
  if (value === 0n) return true;
  if (isUnsigned(value)) return (value as { value: bigint }).value === 0n;
  if (Array.isArray(value) || value instanceof Uint8Array) {
    return value.length === 0;
  }
  if (value instanceof Map) return value.size === 0;
  if (
    value !== null && typeof value === "object" &&
    [Object.prototype, null].includes(Object.getPrototypeOf(value))
  ) {
    return Object.keys(value).length === 0;
  }
  return false;
}

function optionalMap(
  receiver: unknown,
  args: MacroCall["args"],
  flat: boolean,
): Record<string, unknown> {
  const name = identifier(args[0]);
  const body = args[1];
  return {
    typeCheck(checker: Checker, _macro: unknown, context: Scope): Declared {
      const type = checker.check(receiver, context);
      const inner = type.kind === "optional"
        ? type.valueType ?? checker.dynType
        : checker.dynType;
      const result = checker.check(body, context.forkWithVariable(name, inner));
      return flat ? result : checker.registry.getOptionalType(result);
    },
    evaluate(evaluator: Evaluator, _macro: unknown, context: Scope): unknown {
      const value = evaluator.run(receiver, context) as Optional;
      if (!(value instanceof Optional)) {
        throw celError("optMap receiver must be optional");
      }
      // As cel-go's expansion costs: `v.hasValue() ? optional.of(
      // cel.bind(x, v.value(), e)) : optional.none()` (the receiver's second
      // evaluation aside).
      if (!value.hasValue()) {
        charge(2);
        return Optional.none();
      }
      charge(flat ? 2 : 3);
      const scope = context.forkWithVariable(name, DYN).setIterValue(
        value.value(),
        evaluator,
      );
      const result = evaluator.run(body, scope);
      if (!flat) return Optional.of(result);
      if (!(result instanceof Optional)) {
        throw celError("optFlatMap function must return an optional");
      }
      return result;
    },
  };
}

function regexes(environment: Environment): void {
  const matching = (text: string, pattern: string): boolean => {
    try {
      return re2(pattern).test(text);
    } catch (error) {
      throw celError(`Illegal regex: ${(error as Error).message}`);
    }
  };
  environment.registerFunction(
    "string.find(string): string",
    (text: string, pattern: string) =>
      matching(text, pattern) ? regex(pattern).exec(text)?.[0] ?? "" : "",
  );
  const findAll = (text: string, pattern: string, limit: bigint): string[] => {
    if (limit === 0n || !matching(text, pattern)) return [];
    const re = regex(pattern, "g");
    const out: string[] = [];
    for (const match of text.matchAll(re)) {
      out.push(match[0]);
      if (limit > 0n && BigInt(out.length) >= limit) break;
    }
    return out;
  };
  environment.registerFunction(
    "string.findAll(string): list<string>",
    (text: string, pattern: string) => findAll(text, pattern, -1n),
  );
  environment.registerFunction(
    "string.findAll(string, int): list<string>",
    findAll,
  );
}

function orderings(environment: Environment): void {
  const compare = (a: Uint8Array, b: Uint8Array): number => {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      if (a[i] !== b[i]) return a[i]! - b[i]!;
    }
    return a.length - b.length;
  };
  environment.registerOperator(
    "bytes < bytes",
    (a: Uint8Array, b: Uint8Array) => compare(a, b) < 0,
  );
  environment.registerOperator(
    "bytes <= bytes",
    (a: Uint8Array, b: Uint8Array) => compare(a, b) <= 0,
  );
  environment.registerOperator(
    "bytes > bytes",
    (a: Uint8Array, b: Uint8Array) => compare(a, b) > 0,
  );
  environment.registerOperator(
    "bytes >= bytes",
    (a: Uint8Array, b: Uint8Array) => compare(a, b) >= 0,
  );
}
