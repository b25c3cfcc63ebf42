/**
 * The cost of CEL as cel-go counts it, for the API server's limits: the
 * runtime cost of a call from its arguments' sizes
 * (cel-go `interpreter/runtimecost.go` and the Kubernetes library's
 * `CallCost`), and the static estimate of an expression's worst case
 * when a CRD is written (cel-go `checker/cost.go` with the Kubernetes
 * library's `EstimateCallCost` and the sizes its schema allows:
 * k8s.io/apiserver/pkg/cel/common/schemas.go `SchemaDeclType`).
 *
 * @module
 */

import type { Schema } from "../schema/types.ts";
import { escapeField, withTypeAndObjectMeta } from "./_types.ts";
import { goFixed } from "./_values.ts";

/** The request size limit the API server's estimates are bounded by. */
const MAX_REQUEST_BYTES = 3 * 1024 * 1024;
/** Go's `math.MaxUint64`, where an estimate is unbounded. */
const UNBOUNDED = 18446744073709551615;

/** cel-go's `common.StringTraversalCostFactor`. */
const STRING_TRAVERSAL = 0.1;
/** cel-go's `common.RegexStringLengthCostFactor`. */
const REGEX_LENGTH = 0.25;
const LIST_CREATE = 10;
const MAP_CREATE = 30;
/** The regular expression size the API server assumes for `format`s. */
const FORMAT_REGEX = 128;

// ---------------------------------------------------------------------------
// Runtime

/** `actualSize`: a string's code points, bytes, items or entries, else 1. */
export function sizeOf(value: unknown): number {
  if (typeof value === "string") {
    let n = 0;
    for (let i = 0; i < value.length; i++) {
      const c = value.charCodeAt(i);
      // A surrogate pair is one code point.
      if (c < 0xd800 || c > 0xdbff) n++;
    }
    return n;
  }
  if (value instanceof Uint8Array || Array.isArray(value)) return value.length;
  if (value instanceof Map) return value.size;
  if (value !== null && typeof value === "object") {
    const optional = value as {
      hasValue?: () => boolean;
      value?: () => unknown;
    };
    if (
      typeof optional.hasValue === "function" &&
      typeof optional.value === "function"
    ) {
      return optional.hasValue() ? sizeOf(optional.value()) : 1;
    }
    // An object of a schema is a map (an unstructured object) to cel-go.
    const prototype = Object.getPrototypeOf(value);
    if (
      prototype?.constructor?.name?.startsWith("object") ||
      prototype === Object.prototype
    ) {
      return Object.keys(value).length;
    }
  }
  return 1;
}

const traverse = (n: number): number => Math.ceil(n * STRING_TRAVERSAL);

function isText(value: unknown): boolean {
  return typeof value === "string" || value instanceof Uint8Array;
}

/** `traversalCost` of the Kubernetes library: a walk of a value. */
function traversalCost(value: unknown): number {
  if (typeof value === "string") {
    return Math.floor(
      new TextEncoder().encode(value).length * STRING_TRAVERSAL,
    );
  }
  if (value instanceof Uint8Array) {
    return Math.floor(value.length * STRING_TRAVERSAL);
  }
  if (Array.isArray(value)) {
    return value.reduce((sum: number, item) => sum + traversalCost(item), 0);
  }
  if (value instanceof Map) {
    let sum = 0;
    for (const [k, v] of value) sum += traversalCost(k) + traversalCost(v);
    return sum;
  }
  return 1;
}

/**
 * The runtime cost of an operator (`==`, `<`, `+`, `in`...) from its
 * operands, as cel-go's cost tracker counts it.
 */
export function operatorCost(
  op: string,
  left: unknown,
  right: unknown,
): number {
  switch (op) {
    case "==":
    case "!=":
      return traverse(Math.min(sizeOf(left), sizeOf(right)));
    case "<":
    case "<=":
    case ">":
    case ">=":
      return isText(left) && isText(right)
        ? traverse(Math.min(sizeOf(left), sizeOf(right)))
        : 1;
    case "+":
      return isText(left) && isText(right)
        ? traverse(sizeOf(left) + sizeOf(right))
        : 1;
    case "in":
      return Array.isArray(right) ? right.length : 1;
  }
  return 1;
}

/**
 * The runtime cost of a call, from its arguments (the receiver first) and
 * result: the Kubernetes library's `CallCost`, else cel-go's.
 *
 * @param member Whether the call is a member call (`s.f(x)`).
 */
export function callCost(
  name: string,
  member: boolean,
  args: readonly unknown[],
  result: unknown,
): number {
  const [a0, a1] = args;
  const lists = listsCost(name, args, result);
  if (lists !== undefined) return lists;
  switch (name) {
    case "check":
      return 350_000;
    case "fieldSelector":
    case "labelSelector":
      if (args.length >= 2) return selectorCost(sizeOf(a1)).max;
      break;
    case "isSorted":
    case "sum":
    case "max":
    case "min":
    case "indexOf":
    case "lastIndexOf":
      return traversalCost(a0);
    case "url":
    case "lowerAscii":
    case "upperAscii":
    case "substring":
    case "trim":
    case "cidr":
    case "isIP":
    case "isCIDR":
    case "quantity":
    case "isQuantity":
    case "semver":
    case "isSemver":
      return traverse(sizeOf(a0));
    case "ip":
      return member ? 1 : traverse(sizeOf(a0));
    case "isCanonical":
      return Math.ceil(sizeOf(a1 ?? a0) * 2 * STRING_TRAVERSAL);
    case "replace":
    case "split":
      return Math.ceil(sizeOf(a0) * 2 * STRING_TRAVERSAL);
    case "join":
      return Math.ceil(sizeOf(result) * 2 * STRING_TRAVERSAL);
    case "find":
    case "findAll":
      return traverse(1 + sizeOf(a0)) * Math.ceil(sizeOf(a1) * REGEX_LENGTH);
    case "containsIP":
    case "containsCIDR": {
      const cidr = sizeOf(a0);
      let cost = traverse(cidr + cidr);
      if (name === "containsCIDR") cost += traverse(cidr) + 1;
      if (typeof a1 === "string") cost += traverse(sizeOf(a1));
      return cost;
    }
    case "validate":
      return traverse(1 + sizeOf(a1)) *
        Math.ceil(FORMAT_REGEX * REGEX_LENGTH);
    // cel-go's own.
    case "startsWith":
    case "endsWith":
    case "format":
    case "quote":
      return traverse(sizeOf(a0));
    case "string":
      return a0 instanceof Uint8Array ? traverse(sizeOf(a0)) : 1;
    case "bytes":
      return typeof a0 === "string" ? traverse(sizeOf(a0)) : 1;
    case "matches":
      return member
        ? traverse(1 + sizeOf(a0)) * Math.ceil(sizeOf(a1) * REGEX_LENGTH)
        : 1;
    case "contains":
      if (member && typeof a0 === "string") {
        return traverse(sizeOf(a0)) * traverse(sizeOf(a1));
      }
      break;
  }
  return 1;
}

/** The runtime cost of `sets.contains` and its kin (cel-go ext sets). */
export function setsCost(name: string, a: unknown, b: unknown): number {
  return 1 +
    Math.floor(sizeOf(a) * sizeOf(b) * (name === "equivalent" ? 2 : 1));
}

/**
 * The runtime cost of the lists extension's functions that cel-go weighs
 * (version 3), else undefined: the size of the list made, or the square of
 * the list sorted, plus the call and the new list.
 */
function listsCost(
  name: string,
  args: readonly unknown[],
  result: unknown,
): number | undefined {
  const allocating = (factor: number, size: number): number =>
    Math.floor(size * factor) + 1 + LIST_CREATE;
  const [a0, a1] = args;
  switch (name) {
    case "slice":
    case "range":
      return allocating(1, sizeOf(result));
    case "reverse":
      return Array.isArray(a0) ? allocating(1, sizeOf(result)) : undefined;
    case "flatten":
      return Array.isArray(a0)
        ? allocating(typeof a1 === "bigint" ? Number(a1) : 1, a0.length)
        : undefined;
    case "distinct":
    case "sort":
      if (!Array.isArray(a0)) return undefined;
      return allocating(
        a0.length > 0 && isText(a0[0]) ? 2 + STRING_TRAVERSAL : 2,
        a0.length * a0.length,
      );
  }
  return undefined;
}

function selectorCost(length: number): Range {
  const size = { min: length, max: length };
  const parse = factor(size, STRING_TRAVERSAL);
  const requirements = factor(factor(size, 0.5), LIST_CREATE + 40);
  return add(add({ min: LIST_CREATE, max: LIST_CREATE }, parse), requirements);
}

// ---------------------------------------------------------------------------
// Sizes a schema allows

/**
 * The sizes the API server's CEL declaration of a schema node allows
 * (`DeclType.MaxElements` and `MinSerializedSize`), for cost estimates.
 */
export interface SizeTree {
  /** The most characters, bytes, items or entries (`MaxElements`). */
  readonly max: number;
  /** The smallest JSON the value serializes to (`MinSerializedSize`). */
  readonly minSerialized: number;
  /** A list's items or a map's values. */
  readonly items?: SizeTree;
  /** A map's keys. */
  readonly keys?: SizeTree;
  /** An object's fields, by their escaped names. */
  readonly fields?: { readonly [field: string]: SizeTree };
}

const STRING_KEY: SizeTree = { max: 0, minSerialized: 2 };

function stringMax(schema: Schema): number {
  if (schema["x-kubernetes-int-or-string"]) return MAX_REQUEST_BYTES - 2;
  switch (schema.format) {
    case "duration":
      return 32;
    case "date":
      return 12;
    case "date-time":
      return 32;
  }
  return MAX_REQUEST_BYTES - 2;
}

/**
 * The sizes of a schema node (`SchemaDeclType`), or undefined where the
 * node has no CEL type.
 *
 * @param root Whether the node is a resource's root (or embedded resource).
 */
export function schemaSizes(
  node: Schema,
  root: boolean,
): SizeTree | undefined {
  if (node["x-kubernetes-int-or-string"]) {
    return { max: MAX_REQUEST_BYTES - 2, minSerialized: 1 };
  }
  const schema = root ? withTypeAndObjectMeta(node) : node;
  const nonNegative = (n: number): number => Math.max(0, n);
  switch (schema.type) {
    case "integer":
    case "number":
      return { max: 0, minSerialized: 1 };
    case "boolean":
      return { max: 0, minSerialized: 4 };
    case "string":
      switch (schema.format) {
        case "byte":
          return {
            max: schema.maxLength !== undefined
              ? nonNegative(schema.maxLength)
              : stringMax(schema),
            minSerialized: 2,
          };
        case "duration":
          return { max: stringMax(schema), minSerialized: 3 };
        case "date":
          return { max: stringMax(schema), minSerialized: 12 };
        case "date-time":
          return { max: stringMax(schema), minSerialized: 21 };
      }
      if (schema.maxLength !== undefined) {
        // In bytes: a code point is up to 4.
        return { max: nonNegative(schema.maxLength) * 4, minSerialized: 2 };
      }
      if (schema.enum !== undefined && schema.enum.length > 0) {
        let longest = 0;
        for (const value of schema.enum) {
          if (typeof value === "string") {
            longest = Math.max(longest, new TextEncoder().encode(value).length);
          }
        }
        return { max: longest, minSerialized: 2 };
      }
      return { max: stringMax(schema), minSerialized: 2 };
    case "array": {
      if (!schema.items) return undefined;
      const items = schemaSizes(
        schema.items,
        schema.items["x-kubernetes-embedded-resource"] ?? false,
      );
      if (!items) return undefined;
      const max = schema.maxItems !== undefined
        ? nonNegative(schema.maxItems)
        : Math.floor((MAX_REQUEST_BYTES - 2) / (items.minSerialized + 1));
      return { max, minSerialized: 2, items };
    }
    case "object": {
      const extra = schema.additionalProperties;
      if (extra !== undefined && extra !== true) {
        const values = schemaSizes(
          extra,
          extra["x-kubernetes-embedded-resource"] ?? false,
        );
        if (!values) return undefined;
        const max = schema.maxProperties !== undefined
          ? nonNegative(schema.maxProperties)
          : Math.floor((MAX_REQUEST_BYTES - 2) / (values.minSerialized + 6));
        return { max, minSerialized: 2, items: values, keys: STRING_KEY };
      }
      const required = new Set(schema.required ?? []);
      const fields: Record<string, SizeTree> = {};
      let minSerialized = 2;
      for (const [name, child] of Object.entries(schema.properties ?? {})) {
        const sizes = schemaSizes(
          child,
          child["x-kubernetes-embedded-resource"] ?? false,
        );
        if (!sizes) continue;
        const escaped = escapeField(name);
        if (escaped !== undefined) fields[escaped] = sizes;
        if (required.has(name) && child.default === undefined) {
          minSerialized += name.length + sizes.minSerialized + 4;
        }
      }
      return { max: 0, minSerialized, fields };
    }
  }
  return undefined;
}

/**
 * How many times a node's value may occur in one object, at most, when its
 * ancestors do not bound it (`MaxCardinality`).
 */
export function maxCardinality(minSerialized: number): number {
  return Math.floor(MAX_REQUEST_BYTES / (minSerialized + 1));
}

// ---------------------------------------------------------------------------
// Static estimate

/** A range of cost or size, as cel-go's `CostEstimate`/`SizeEstimate`. */
export interface Range {
  readonly min: number;
  readonly max: number;
}

const UNKNOWN: Range = { min: 0, max: UNBOUNDED };
const fixed = (n: number): Range => ({ min: n, max: n });
const ZERO = fixed(0);
const ONE = fixed(1);

const cap = (n: number): number => (n >= UNBOUNDED ? UNBOUNDED : n);
function add(a: Range, b: Range): Range {
  return { min: cap(a.min + b.min), max: cap(a.max + b.max) };
}
function multiply(a: Range, b: Range): Range {
  return { min: cap(a.min * b.min), max: cap(a.max * b.max) };
}
function factor(a: Range, f: number): Range {
  const one = (n: number): number =>
    n >= UNBOUNDED || n * f >= UNBOUNDED ? UNBOUNDED : Math.ceil(n * f);
  return { min: one(a.min), max: one(a.max) };
}
function union(a: Range, b: Range): Range {
  return { min: Math.min(a.min, b.min), max: Math.max(a.max, b.max) };
}

interface AstNode {
  readonly op: string;
  readonly args: unknown;
  readonly meta: Record<string, unknown>;
  readonly checkedType?: { kind: string; name: string };
}

interface Variable {
  tree?: SizeTree | undefined;
  size?: Range | undefined;
}

const SCALARS = new Set([
  "bool",
  "double",
  "int",
  "uint",
  "google.protobuf.Duration",
  "google.protobuf.Timestamp",
]);

const TWO_VARIABLE_MACROS = new Set([
  "all",
  "exists",
  "existsOne",
  "transformList",
  "transformMap",
  "transformMapEntry",
]);

/**
 * cel-go's estimate of an expression's cost (`checker.Cost`), as the API
 * server configures it (presence tests cost nothing), on the engine's
 * checked syntax tree.
 *
 * @param root The checked expression's root node.
 * @param variables The sizes of the variables the schema bounds (`self`,
 *   `oldSelf`).
 */
export function estimateCost(
  root: unknown,
  variables: { readonly [name: string]: SizeTree | undefined },
): Range {
  const estimator = new Estimator(variables);
  return estimator.cost(root as AstNode);
}

class Estimator {
  #scopes: Map<string, Variable>[] = [];
  #trees = new Map<AstNode, SizeTree>();
  #sizes = new Map<AstNode, Range>();
  #items = new Map<AstNode, Range>();
  #globals: { readonly [name: string]: SizeTree | undefined };

  constructor(globals: { readonly [name: string]: SizeTree | undefined }) {
    this.#globals = globals;
  }

  #lookup(name: string): Variable | undefined {
    for (let i = this.#scopes.length - 1; i >= 0; i--) {
      const found = this.#scopes[i]!.get(name);
      if (found) return found;
    }
    return undefined;
  }

  /** `computeSize`, else unknown. */
  size(node: AstNode): Range {
    return this.#size(node) ?? UNKNOWN;
  }

  #size(node: AstNode): Range | undefined {
    const computed = this.#sizes.get(node);
    if (computed) return computed;
    switch (node.op) {
      case "value": {
        const v = node.args;
        if (typeof v === "string") return fixed(sizeOf(v));
        if (v instanceof Uint8Array) return fixed(v.length);
        return ONE;
      }
      case "list":
        return fixed((node.args as unknown[]).length);
      case "map":
        return fixed((node.args as unknown[]).length);
    }
    const tree = this.#trees.get(node);
    if (tree) return { min: 0, max: tree.max };
    const type = node.checkedType;
    if (type && (SCALARS.has(type.name) || isOptionalScalar(type))) return ONE;
    if (node.op === "id") {
      const variable = this.#lookup(node.args as string);
      if (variable?.size) return variable.size;
    }
    return undefined;
  }

  cost(node: AstNode): Range {
    switch (node.op) {
      case "value":
        return ZERO;
      case "id": {
        const name = node.args as string;
        // `sets` of `sets.contains`: part of the function's name.
        if (node.checkedType?.name.endsWith("Namespace")) return ZERO;
        const variable = this.#lookup(name);
        const tree = variable ? variable.tree : this.#globals[name];
        if (tree) this.#trees.set(node, tree);
        return ONE;
      }
      case ".":
      case ".?": {
        const [operand, field] = node.args as [AstNode, string];
        let sum = this.cost(operand);
        const kind = operand.checkedType?.kind;
        if (node.op === ".?") sum = add(sum, ONE);
        else if (kind === "map" || kind === "message") sum = add(sum, ONE);
        // Only an object's field has a size in the schema: a map's value
        // selected by name has none (the API server's size estimator
        // looks the name up in the fields), unlike `m['x']`.
        const child = this.#trees.get(operand)?.fields?.[field];
        if (child) this.#trees.set(node, child);
        return sum;
      }
      case "[]":
      case "[?]": {
        const [operand, index] = node.args as [AstNode, AstNode];
        const sum = add(this.cost(operand), this.cost(index));
        const items = this.#items.get(operand);
        if (items) this.#sizes.set(node, items);
        const child = this.#trees.get(operand)?.items;
        if (child) this.#trees.set(node, child);
        return add(sum, ONE);
      }
      case "&&":
      case "||": {
        const [left, right] = node.args as [AstNode, AstNode];
        const l = this.cost(left);
        const r = this.cost(right);
        return { min: l.min, max: add(l, r).max };
      }
      case "?:": {
        const [test, yes, no] = node.args as [AstNode, AstNode, AstNode];
        const cost = add(this.cost(test), union(this.cost(yes), this.cost(no)));
        this.#sizes.set(node, union(this.size(yes), this.size(no)));
        return cost;
      }
      case "!_":
      case "-_":
        return add(this.cost(node.args as AstNode), ONE);
      case "list": {
        const items = node.args as AstNode[];
        let sum = ZERO;
        let item: Range = items.length === 0
          ? ZERO
          : { min: UNBOUNDED, max: 0 };
        for (const child of items) {
          sum = add(sum, this.cost(child));
          item = union(item, this.size(child));
        }
        this.#items.set(node, item);
        return add(sum, fixed(LIST_CREATE));
      }
      case "map": {
        let sum = ZERO;
        for (const [key, value] of node.args as [AstNode, AstNode][]) {
          sum = add(add(sum, this.cost(key)), this.cost(value));
        }
        return add(sum, fixed(MAP_CREATE));
      }
      case "==":
      case "!=":
      case "<":
      case "<=":
      case ">":
      case ">=":
      case "+":
      case "-":
      case "*":
      case "/":
      case "%":
      case "in":
        return this.#operator(node);
      case "call":
      case "rcall":
        return this.#call(node);
      case "comprehension":
        return this.#comprehension(node);
    }
    return ONE;
  }

  #operator(node: AstNode): Range {
    const [left, right] = node.args as [AstNode, AstNode];
    const args = add(this.cost(left), this.cost(right));
    const l = this.size(left);
    const r = this.size(right);
    const text = (n: AstNode): boolean =>
      n.checkedType?.name === "string" || n.checkedType?.name === "bytes";
    switch (node.op) {
      case "==":
      case "!=":
        return add(args, comparison(l, r));
      case "<":
      case "<=":
      case ">":
      case ">=":
        return add(args, text(left) && text(right) ? comparison(l, r) : ONE);
      case "+": {
        if (text(left) && text(right)) {
          const size = add(l, r);
          this.#sizes.set(node, size);
          return add(args, factor(size, STRING_TRAVERSAL));
        }
        if (left.checkedType?.kind === "list") {
          this.#sizes.set(node, add(l, r));
          const li = this.#items.get(left);
          const ri = this.#items.get(right);
          if (li && ri) this.#items.set(node, union(li, ri));
        }
        return add(args, ONE);
      }
      case "in":
        return add(
          args,
          right.checkedType?.kind === "map" ? ONE : factor(r, 1),
        );
    }
    return add(args, ONE);
  }

  #call(node: AstNode): Range {
    const alternate = node.meta.alternate as AstNode | undefined;
    if (alternate) {
      const cost = this.cost(alternate);
      const size = this.#sizes.get(alternate);
      if (size) this.#sizes.set(node, size);
      const items = this.#items.get(alternate);
      if (items) this.#items.set(node, items);
      return cost;
    }
    const member = node.op === "rcall";
    const all = node.args as unknown[];
    const name = all[0] as string;
    const target = member ? all[1] as AstNode : undefined;
    const args = (member ? all[2] : all[1]) as AstNode[];
    if (name === "has" && !member) {
      const select = args[0]!;
      return select.op === "."
        ? this.cost((select.args as [AstNode])[0])
        : ZERO;
    }
    if (member && TWO_VARIABLE_MACROS.has(name) && args.length >= 3) {
      return this.#twoVariables(name, target!, args);
    }
    if (member && (name === "optMap" || name === "optFlatMap")) {
      // cel-go's expansion: `v.hasValue() ? optional.of(cel.bind(x,
      // v.value(), e)) : optional.none()` (`optFlatMap` without the
      // `optional.of`), the bind's empty list costing its 10.
      const receiver = this.cost(target!);
      this.#scopes.push(new Map([[identName(args[0]), {}]]));
      const body = this.cost(args[1]!);
      this.#scopes.pop();
      const bound = add(add(receiver, ONE), add(fixed(LIST_CREATE), body));
      const present = name === "optMap" ? add(bound, ONE) : bound;
      return add(add(receiver, ONE), union(present, ONE));
    }
    if (name === "dyn" && !member && args.length === 1) {
      const cost = add(this.cost(args[0]!), ONE);
      const size = this.#size(args[0]!);
      if (size) this.#sizes.set(node, size);
      return cost;
    }
    let sum = ZERO;
    for (const arg of args) sum = add(sum, this.cost(arg));
    if (target) sum = add(sum, this.cost(target));
    return add(sum, this.#function(node, name, target, args));
  }

  /** The cost of the function itself (`functionCost`), setting its result's size. */
  #function(
    node: AstNode,
    name: string,
    target: AstNode | undefined,
    args: AstNode[],
  ): Range {
    const setSize = (size: Range): void => {
      this.#sizes.set(node, size);
    };
    const a0 = args[0];
    if (target?.op === "id" && target.args === "sets" && args.length === 2) {
      return add(
        factor(
          multiply(this.size(args[0]!), this.size(args[1]!)),
          name === "equivalent" ? 2 : 1,
        ),
        ONE,
      );
    }
    const lists = this.#lists(name, target, args);
    if (lists) {
      setSize(lists.size);
      return lists.cost;
    }
    switch (name) {
      case "check":
        return fixed(350_000);
      case "fieldSelector":
      case "labelSelector":
        if (args.length === 1) {
          const size = this.size(a0!);
          const parse = factor(size, STRING_TRAVERSAL);
          const requirements = factor(factor(size, 0.5), LIST_CREATE + 40);
          return add(add(fixed(LIST_CREATE), parse), requirements);
        }
        break;
      case "isSorted":
      case "sum":
      case "max":
      case "min":
      case "indexOf":
      case "lastIndexOf":
        if (target) {
          if (target.checkedType?.kind === "list") {
            let element = ONE;
            const item = target.checkedType as unknown as {
              valueType?: { name: string };
            };
            const itemName = item.valueType?.name;
            if (itemName === "string" || itemName === "bytes") {
              const tree = this.#trees.get(target)?.items;
              const size = tree ? { min: 0, max: tree.max } : UNKNOWN;
              element = add(element, factor(size, STRING_TRAVERSAL));
            }
            return multiply(this.size(target), element);
          }
          return factor(this.size(target), STRING_TRAVERSAL);
        }
        break;
      case "url":
        if (args.length === 1 && !target) {
          const size = this.size(a0!);
          setSize(size);
          return factor(size, STRING_TRAVERSAL);
        }
        break;
      case "lowerAscii":
      case "upperAscii":
      case "substring":
      case "trim":
        if (target) {
          const size = this.size(target);
          setSize(size);
          return factor(size, STRING_TRAVERSAL);
        }
        break;
      case "replace":
        if (target && args.length >= 2) {
          const size = this.size(target);
          setSize(replaced(size, this.size(args[0]!), this.size(args[1]!)));
          return factor(size, 2 * STRING_TRAVERSAL);
        }
        break;
      case "split":
        if (target) {
          const size = this.size(target);
          let max = size.max;
          const limit = args[1];
          if (limit?.op === "value" && typeof limit.args === "bigint") {
            max = Number(limit.args);
          }
          setSize({ min: 0, max });
          return factor(size, 2 * STRING_TRAVERSAL);
        }
        break;
      case "join":
        if (target) {
          const list = this.size(target);
          let size = ZERO;
          const tree = this.#trees.get(target)?.items;
          if (target.checkedType?.kind === "list") {
            size = multiply(list, tree ? { min: 0, max: tree.max } : UNKNOWN);
          }
          if (args.length > 0) {
            const separators = {
              min: list.min > 0 ? list.min - 1 : 0,
              max: list.max > 0 ? list.max - 1 : 0,
            };
            size = add(size, multiply(this.size(a0!), separators));
          }
          setSize(size);
          return factor(size, STRING_TRAVERSAL);
        }
        break;
      case "find":
      case "findAll":
        if (target && args.length >= 1) {
          const size = this.size(target);
          setSize({ min: 0, max: size.max });
          return multiply(
            factor(add(size, ONE), STRING_TRAVERSAL),
            factor(this.size(a0!), REGEX_LENGTH),
          );
        }
        break;
      case "cidr":
      case "isIP":
      case "isCIDR":
      case "quantity":
      case "isQuantity":
      case "semver":
      case "isSemver":
        if (target && a0) return factor(this.size(a0), STRING_TRAVERSAL);
        break;
      case "ip":
        if (target) {
          return a0 && target.checkedType?.name !== "net.CIDR"
            ? factor(this.size(a0), STRING_TRAVERSAL)
            : ONE;
        }
        break;
      case "isCanonical":
        if (target && a0) return factor(this.size(a0), 2 * STRING_TRAVERSAL);
        break;
      case "containsIP":
      case "containsCIDR":
        if (target && a0) {
          const ip = { min: 4, max: 16 };
          let cost = factor(add(ip, ip), STRING_TRAVERSAL);
          if (name === "containsCIDR") {
            cost = add(add(cost, factor(ip, STRING_TRAVERSAL)), ONE);
          }
          if (a0.checkedType?.name === "string") {
            cost = add(cost, factor(this.size(a0), STRING_TRAVERSAL));
          }
          return cost;
        }
        break;
      case "validate":
        if (target && a0) {
          return factor(
            factor(this.size(a0), STRING_TRAVERSAL),
            FORMAT_REGEX * REGEX_LENGTH,
          );
        }
        break;
      // cel-go's own.
      case "string":
      case "bytes":
        if (!target && a0) {
          const size = this.size(a0);
          const from = a0.checkedType?.name;
          if (name === "string" && from === "bytes") {
            setSize({ min: Math.floor(size.min / 4), max: size.max });
            return factor(size, STRING_TRAVERSAL);
          }
          if (name === "bytes" && from === "string") {
            setSize({ min: size.min, max: cap(size.max * 4) });
            return factor(size, STRING_TRAVERSAL);
          }
        }
        break;
      case "format":
        if (target) return factor(this.size(target), STRING_TRAVERSAL);
        break;
      case "startsWith":
      case "endsWith":
        if (target && a0) return factor(this.size(a0), STRING_TRAVERSAL);
        break;
      case "matches":
        if (target && a0) {
          return multiply(
            factor(add(this.size(target), ONE), STRING_TRAVERSAL),
            factor(this.size(a0), REGEX_LENGTH),
          );
        }
        break;
      case "contains":
        if (target && a0 && target.checkedType?.name === "string") {
          return multiply(
            factor(this.size(target), STRING_TRAVERSAL),
            factor(this.size(a0), STRING_TRAVERSAL),
          );
        }
        break;
    }
    return ONE;
  }

  /** The lists extension's estimates (version 3), where it makes them. */
  #lists(
    name: string,
    target: AstNode | undefined,
    args: AstNode[],
  ): { cost: Range; size: Range } | undefined {
    const allocating = (
      f: number,
      size: Range,
    ): { cost: Range; size: Range } => ({
      cost: add(factor(size, f), fixed(1 + LIST_CREATE)),
      size,
    });
    const literal = (node: AstNode | undefined, fallback: number): number =>
      node?.op === "value" && typeof node.args === "bigint"
        ? Number(node.args)
        : fallback;
    const isList = target?.checkedType?.kind === "list";
    switch (name) {
      case "slice":
        if (isList && args.length === 2) {
          const size = this.size(target!);
          return allocating(
            1,
            fixed(
              Math.max(0, literal(args[1], size.max) - literal(args[0], 0)),
            ),
          );
        }
        break;
      case "range":
        if (
          target?.op === "id" && target.args === "lists" && args.length === 1
        ) {
          return allocating(1, fixed(literal(args[0], UNBOUNDED)));
        }
        break;
      case "reverse":
        if (isList && args.length === 0) {
          return allocating(1, this.size(target!));
        }
        break;
      case "flatten":
        if (isList && args.length <= 1) {
          return allocating(
            literal(args[0], args.length ? UNBOUNDED : 1),
            this.size(target!),
          );
        }
        break;
      case "distinct":
      case "sort":
        if (isList && args.length === 0) {
          const size = this.size(target!);
          const item = (target!.checkedType as unknown as {
            valueType?: { name: string };
          }).valueType?.name;
          const f = item === "string" || item === "bytes"
            ? 2 + STRING_TRAVERSAL
            : 2;
          return {
            ...allocating(f, multiply(size, size)),
            size: multiply(size, size),
          };
        }
        break;
    }
    return undefined;
  }

  /** A comprehension of a macro, costed as cel-go expands the macro. */
  #comprehension(node: AstNode): Range {
    const c = node.args as {
      kind?: string;
      iterable: AstNode;
      iterVarName: string;
      init: AstNode;
      step: AstNode;
    };
    const range = this.cost(c.iterable);
    const count = this.size(c.iterable);
    const rangeTree = this.#trees.get(c.iterable);
    const isMap = c.iterable.checkedType?.kind === "map";
    const variable: Variable = isMap
      ? { tree: rangeTree?.keys }
      : { tree: rangeTree?.items, size: this.#items.get(c.iterable) };
    this.#scopes.push(new Map([[c.iterVarName, variable]]));
    let perItem: Range;
    let fixedCost: Range;
    const step = c.step;
    const stepArgs = step.args as AstNode[];
    if (c.kind === "quantifier") {
      const predicate = this.cost(stepArgs[0]!);
      const init = c.init.args;
      if (init === true || init === false) {
        // all: `@not_strictly_false(__result__)`, `__result__ && p`;
        // exists: `@not_strictly_false(!__result__)`, `__result__ || p`.
        const condition = fixed(init === true ? 2 : 3);
        perItem = add(condition, { min: 1, max: add(ONE, predicate).max });
        fixedCost = ONE;
      } else {
        // exists_one: `p ? __result__ + 1 : __result__`, `__result__ == 1`.
        perItem = add(predicate, { min: 1, max: 2 });
        fixedCost = fixed(2);
      }
    } else {
      // map: `__result__ + [t]`; filter, map with a filter: `p ?
      // __result__ + [t] : __result__`. The items are the `t`s (or none:
      // the accumulator's `[]`).
      const push = step.op === "accuPush" ? step : stepArgs[1]!;
      const predicate = step.op === "accuPush" ? ZERO : this.cost(stepArgs[0]!);
      const pushed = push.args as AstNode;
      const transform = this.cost(pushed);
      perItem = step.op === "accuPush"
        ? add(transform, fixed(12))
        : add(predicate, union(add(transform, fixed(12)), ONE));
      fixedCost = fixed(LIST_CREATE + 1);
      this.#sizes.set(node, count);
      this.#items.set(node, union(ZERO, this.size(pushed)));
    }
    this.#scopes.pop();
    return add(add(range, fixedCost), multiply(count, perItem));
  }

  /** cel-go's two-variable comprehensions (`all(k, v, p)`, `transformList`...). */
  #twoVariables(name: string, target: AstNode, args: AstNode[]): Range {
    const range = this.cost(target);
    const count = this.size(target);
    const tree = this.#trees.get(target);
    const isMap = target.checkedType?.kind === "map";
    this.#scopes.push(
      new Map<string, Variable>([
        [identName(args[0]), isMap ? { tree: tree?.keys } : {}],
        [
          identName(args[1]),
          { tree: tree?.items, size: this.#items.get(target) },
        ],
      ]),
    );
    const filter = args.length === 4 ? this.cost(args[2]!) : undefined;
    const body = this.cost(args[args.length - 1]!);
    this.#scopes.pop();
    let perItem: Range;
    let fixedCost: Range;
    const filtered = (step: Range): Range =>
      filter ? add(filter, union(step, ONE)) : step;
    switch (name) {
      case "all":
      case "exists":
        perItem = add(fixed(name === "all" ? 2 : 3), {
          min: 1,
          max: add(ONE, body).max,
        });
        fixedCost = ONE;
        break;
      case "existsOne":
        perItem = add(body, { min: 1, max: 2 });
        fixedCost = fixed(2);
        break;
      case "transformList":
        perItem = filtered(add(body, fixed(12)));
        fixedCost = fixed(LIST_CREATE + 1);
        break;
      case "transformMap":
        perItem = filtered(add(body, fixed(3)));
        fixedCost = fixed(MAP_CREATE + 1);
        break;
      default:
        perItem = filtered(add(body, fixed(2)));
        fixedCost = fixed(MAP_CREATE + 1);
    }
    return add(add(range, fixedCost), multiply(count, perItem));
  }
}

function identName(node: AstNode | undefined): string {
  return node?.op === "id" ? node.args as string : "";
}

function isOptionalScalar(type: { kind: string; name: string }): boolean {
  const inner = (type as { valueType?: { name: string } }).valueType;
  return type.kind === "optional" && inner !== undefined &&
    SCALARS.has(inner.name);
}

/** The cost of comparing two values of these sizes (`==`, `<` on strings). */
function comparison(left: Range, right: Range): Range {
  const smallest = Math.min(left.max, right.max);
  return factor({ min: smallest > 0 ? 1 : 0, max: smallest }, STRING_TRAVERSAL);
}

/** The size of `s.replace(a, b)` (the Kubernetes library's estimate). */
function replaced(size: Range, from: Range, to: Range): Range {
  let countMax: number;
  let keptMax = 0;
  if (from.min === 0) {
    countMax = size.max < UNBOUNDED ? size.max + 1 : size.max;
    keptMax = size.max;
  } else if (to.max <= from.min) {
    countMax = 0;
    keptMax = size.max;
  } else countMax = Math.ceil(size.max / from.min);
  let countMin: number;
  let keptMin = 0;
  if (from.max === 0) {
    countMin = size.min < UNBOUNDED ? size.min + 1 : size.min;
    keptMin = size.min;
  } else if (from.max <= to.min) {
    countMin = 0;
    keptMin = size.min;
  } else countMin = Math.ceil(size.min / from.max);
  return add(
    multiply({ min: countMin, max: countMax }, to),
    { min: keptMin, max: keptMax },
  );
}

/** The API server's largest estimated cost of one expression. */
export const STATIC_COST_LIMIT = 10_000_000;
/** The API server's largest estimated cost of all the rules of a CRD. */
export const STATIC_CRD_COST_LIMIT = 100_000_000;

/**
 * The API server's words for an estimate over its limit
 * (`getCostErrorMessage`).
 */
export function costErrorMessage(
  what: string,
  cost: number,
  limit: number,
): string {
  const ratio = cost / limit;
  const times = ratio > 100
    ? "more than 100x"
    : ratio < 1.5
    ? `${goFixed(ratio, 6)}x`
    : `${goFixed(ratio, 1)}x`;
  return `${what} exceeds budget by factor of ${times} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}
