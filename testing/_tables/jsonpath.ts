/**
 * The small JSONPath engine that printer columns use, as the API server's
 * custom resource Table convertor reads `additionalPrinterColumns`.
 *
 * @module
 */

import { isObject } from "../../_internal/json.ts";

/** One step of a parsed JSONPath. */
export type Step =
  | { kind: "field"; name: string }
  | { kind: "index"; index: number }
  | { kind: "all" }
  | { kind: "filter"; path: Step[]; op?: string; value?: unknown };

/**
 * Parses the simple JSONPath printer columns use: `.a.b`, `.a\.b` (a dot in
 * a key), `['a.b']`, `[0]`, `[-1]`, `[*]`, and filters such as
 * `[?(@.type=="Ready")]`. Answers `undefined` for anything else, as the API
 * server answers an empty cell for a path it cannot read.
 */
export function parsePath(text: string): Step[] | undefined {
  let path = text.trim();
  if (path.startsWith("{") && path.endsWith("}")) path = path.slice(1, -1);
  if (path.startsWith("$")) path = path.slice(1);
  if (path.startsWith("@")) path = path.slice(1);
  const steps: Step[] = [];
  let i = 0;
  while (i < path.length) {
    const ch = path[i];
    if (ch === ".") {
      i++;
      let name = "";
      while (i < path.length && path[i] !== "." && path[i] !== "[") {
        if (path[i] === "\\" && i + 1 < path.length) i++;
        name += path[i];
        i++;
      }
      if (name === "") return undefined;
      steps.push(name === "*" ? { kind: "all" } : { kind: "field", name });
    } else if (ch === "[") {
      const end = closing(path, i);
      if (end < 0) return undefined;
      const inner = path.slice(i + 1, end).trim();
      i = end + 1;
      if (inner === "*") steps.push({ kind: "all" });
      else if (/^-?\d+$/.test(inner)) {
        steps.push({ kind: "index", index: Number(inner) });
      } else if (/^'.*'$|^".*"$/.test(inner)) {
        steps.push({ kind: "field", name: inner.slice(1, -1) });
      } else if (inner.startsWith("?(") && inner.endsWith(")")) {
        const filter = parseFilter(inner.slice(2, -1));
        if (!filter) return undefined;
        steps.push(filter);
      } else return undefined;
    } else return undefined;
  }
  return steps;
}

function closing(path: string, open: number): number {
  let quote: string | undefined;
  for (let i = open + 1; i < path.length; i++) {
    const ch = path[i];
    if (quote) {
      if (ch === quote) quote = undefined;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === "]") return i;
  }
  return -1;
}

const OPERATORS = ["==", "!=", "<=", ">=", "<", ">"];
const PATH_END = /[\s=!<>]/;

/**
 * `@path`, or `@path <op> literal`, spaces around each part. A loop, not a
 * regular expression: a lazy literal before trailing spaces backtracked in
 * quadratic time (7 s for 100,000 spaces).
 */
function parseFilter(text: string): Step | undefined {
  const body = text.trim();
  if (!body.startsWith("@")) return undefined;
  let end = 1;
  while (end < body.length && !PATH_END.test(body[end]!)) end++;
  const path = parsePath(body.slice(0, end));
  if (!path) return undefined;
  const rest = body.slice(end).trimStart();
  if (rest === "") return { kind: "filter", path };
  const op = OPERATORS.find((o) => rest.startsWith(o));
  if (op === undefined) return undefined;
  const literal = rest.slice(op.length).trim();
  if (literal === "") return undefined;
  let value: unknown;
  if (/^'.*'$|^".*"$/.test(literal)) value = literal.slice(1, -1);
  else if (literal === "true" || literal === "false") {
    value = literal === "true";
  } else if (literal === "nil" || literal === "null") value = null;
  else if (!Number.isNaN(Number(literal))) value = Number(literal);
  else return undefined;
  return { kind: "filter", path, op, value };
}

/** The values `steps` reach from `root`, in order. */
export function evaluate(steps: readonly Step[], root: unknown): unknown[] {
  let current: unknown[] = [root];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const value of current) {
      if (step.kind === "field") {
        if (isObject(value) && Object.hasOwn(value, step.name)) {
          next.push(value[step.name]);
        }
      } else if (step.kind === "index") {
        if (!Array.isArray(value)) continue;
        const at = step.index < 0 ? value.length + step.index : step.index;
        if (at >= 0 && at < value.length) next.push(value[at]);
      } else if (step.kind === "all") {
        if (Array.isArray(value)) next.push(...value);
        else if (isObject(value)) next.push(...Object.values(value));
      } else {
        const items = Array.isArray(value)
          ? value
          : isObject(value)
          ? Object.values(value)
          : [];
        for (const item of items) {
          const found = evaluate(step.path, item);
          if (step.op === undefined) {
            if (found.length > 0) next.push(item);
          } else if (
            found.length > 0 && compare(found[0], step.op, step.value)
          ) next.push(item);
        }
      }
    }
    current = next;
  }
  return current;
}

function compare(left: unknown, op: string, right: unknown): boolean {
  switch (op) {
    case "==":
      return left === right;
    case "!=":
      return left !== right;
  }
  if (typeof left !== "number" || typeof right !== "number") return false;
  switch (op) {
    case "<":
      return left < right;
    case ">":
      return left > right;
    case "<=":
      return left <= right;
    default:
      return left >= right;
  }
}
