// CRD validation rules (`x-kubernetes-validations`) as the API server's
// apiextensions server takes them: checked when a definition is written
// (compiled against the CEL type of their schema node), and evaluated on
// every write of an object, with `oldSelf` on an update, ratcheted (a rule
// without `oldSelf` is not evaluated where the update keeps the old
// value), within the per-rule and per-object cost limits, in the API
// server's words.
//
// This file loads the CEL engine: the in-cluster modules import it only
// lazily, where a definition has rules and the caller asks for them.

import {
  CelCompileError,
  CelCostError,
  type CelProgram,
  type CelType,
  compile,
  costErrorMessage,
  maxCardinality,
  PER_CALL_LIMIT,
  RUNTIME_COST_BUDGET,
  schemaSizes,
  schemaType,
  STATIC_COST_LIMIT,
  STATIC_CRD_COST_LIMIT,
} from "../cel/mod.ts";
import type { Cause, Schema, ValidationRule } from "./types.ts";
import { child, shown } from "./messages.ts";
import { fieldPathNames, ruleFieldErrors } from "./rule_fields.ts";
import { isObject, jsonEqual } from "../json.ts";
import { type Old, oldField, oldItem, oldItems } from "./validate.ts";

const HAS_RULES = new WeakMap<Schema, boolean>();

/** Whether a schema declares a validation rule anywhere (once per schema). */
export function hasRules(schema: Schema): boolean {
  let found = HAS_RULES.get(schema);
  if (found === undefined) {
    const more = schema.additionalProperties;
    found = Boolean(schema["x-kubernetes-validations"]?.length) ||
      (schema.items !== undefined && hasRules(schema.items)) ||
      (typeof more === "object" && hasRules(more)) ||
      Object.values(schema.properties ?? {}).some(hasRules);
    HAS_RULES.set(schema, found);
  }
  return found;
}

/** One rule, compiled against its node's type once. */
interface Compiled {
  rule: ValidationRule;
  program?: CelProgram;
  message?: CelProgram;
  /** Why the rule (`rule`) or its `messageExpression` does not compile. */
  errors: Cause[];
  transition: boolean;
}

const COMPILED = new WeakMap<Schema, Compiled[]>();

/** Whether an expression names `oldSelf` (outside string literals). */
function usesOldSelf(expression: string): boolean {
  const code = expression.replace(
    /'''[\s\S]*?'''|"""[\s\S]*?"""|'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*"/g,
    "''",
  );
  return /\boldSelf\b/.test(code);
}

/** The rule as the API server prints a `ValidationRule` in its errors. */
function ruleText(rule: ValidationRule): string {
  // Go's JSON encoder escapes <, > and & in strings.
  return JSON.stringify({
    Rule: rule.rule ?? "",
    Message: rule.message ?? "",
    MessageExpression: rule.messageExpression ?? "",
    Reason: rule.reason ?? null,
    FieldPath: rule.fieldPath ?? "",
    OptionalOldSelf: rule.optionalOldSelf ?? null,
  }).replace(/[<>&]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);
}

function compiledRules(node: Schema, root: boolean): Compiled[] {
  let list = COMPILED.get(node);
  if (list !== undefined) return list;
  const self = schemaType(node, { resourceRoot: root });
  list = (node["x-kubernetes-validations"] ?? []).map((rule, i) =>
    compileRule(rule, self, `x-kubernetes-validations[${i}]`, true)
  );
  COMPILED.set(node, list);
  return list;
}

function compileRule(
  rule: ValidationRule,
  self: CelType,
  path: string,
  stored: boolean | ReadonlySet<string>,
): Compiled {
  const isStored = (expression: string): boolean =>
    typeof stored === "boolean" ? stored : stored.has(expression);
  const transition = usesOldSelf(rule.rule ?? "");
  const optional = transition && rule.optionalOldSelf === true;
  const variables: Record<string, CelType> = optional
    ? { self, oldSelf: { optional: self } }
    : transition
    ? { self, oldSelf: self }
    : { self };
  const out: Compiled = { rule, errors: [], transition };
  const text = ruleText(rule);
  if (!rule.rule) {
    out.errors.push({
      field: `${path}.rule`,
      reason: "FieldValueRequired",
      message: "Required value: rule is not specified",
    });
    return out;
  }
  try {
    out.program = compile(rule.rule, {
      variables,
      stored: isStored(rule.rule),
    });
    if (out.program.resultType !== "bool") {
      out.errors.push({
        field: `${path}.rule`,
        reason: "FieldValueInvalid",
        message:
          `Invalid value: ${text}: cel expression must evaluate to a bool`,
      });
      delete out.program;
    }
  } catch (error) {
    if (!(error instanceof CelCompileError)) throw error;
    out.errors.push({
      field: `${path}.rule`,
      reason: "FieldValueInvalid",
      message: `Invalid value: ${text}: compilation failed: ${error.message}`,
    });
  }
  if (rule.messageExpression) {
    try {
      out.message = compile(rule.messageExpression, {
        variables,
        stored: isStored(rule.messageExpression),
      });
      if (out.message.resultType !== "string") {
        out.errors.push({
          field: `${path}.messageExpression`,
          reason: "FieldValueInvalid",
          message:
            `Invalid value: ${text}: messageExpression must evaluate to a string`,
        });
        delete out.message;
      }
    } catch (error) {
      if (!(error instanceof CelCompileError)) throw error;
      out.errors.push({
        field: `${path}.messageExpression`,
        reason: "FieldValueInvalid",
        message:
          `Invalid value: ${text}: messageExpression compilation failed: ${error.message}`,
      });
    }
  }
  return out;
}

/**
 * What the API server refuses in a definition's schema for its rules: a
 * rule or `messageExpression` that does not compile or is of the wrong
 * type, a `fieldPath` that names no field, a message with a line break, an
 * empty rule, `oldSelf` where the old value cannot be found (under a list
 * that is not a map list), and rules whose estimated cost is over the
 * limits: one expression's worst case (its cost for the largest value the
 * schema allows, times how often its node can occur in an object) over
 * `StaticEstimatedCostLimit`, all of them together over
 * `StaticEstimatedCRDCostLimit`. The per-expression limit is not applied
 * to expressions the definition had before (the API server skips it for a
 * version whose schema is unchanged).
 *
 * @param schema The version's schema.
 * @param path Its field path, such as `spec.validation.openAPIV3Schema`.
 * @param stored The expressions the definition had before an update:
 *   they compile in the current release's environment, new ones in the
 *   previous release's, as the API server compiles them.
 */
export function ruleErrors(
  schema: Schema,
  path: string,
  stored: ReadonlySet<string> = new Set(),
): Cause[] {
  const out: Cause[] = [];
  // The estimated costs of all the expressions, and the most expensive
  // ones (`TotalCost`: at most 4, each at least 1% of the CRD's limit).
  let total = 0;
  const expensive: { field: string; cost: number }[] = [];
  const observe = (field: string, cost: number): void => {
    total = Math.min(total + cost, Number.MAX_VALUE);
    if (cost < STATIC_CRD_COST_LIMIT / 100) return;
    expensive.push({ field, cost });
    expensive.sort((a, b) => b.cost - a.cost);
    expensive.splice(4);
  };
  const walk = (
    node: Schema,
    at: string,
    root: boolean,
    uncorrelated: string | undefined,
    cardinality: number | undefined,
  ): void => {
    const rules = node["x-kubernetes-validations"] ?? [];
    if (rules.length > 0) {
      // The rules' own fields first; the expressions are compiled only
      // where those are right (the API server's order).
      const found = rules.flatMap((rule, i) =>
        ruleFieldErrors(node, rule, `${at}.x-kubernetes-validations[${i}]`)
      );
      out.push(...found);
      const self = schemaType(node, { resourceRoot: root });
      const sizes = schemaSizes(
        node,
        root || (node["x-kubernetes-embedded-resource"] ?? false),
      );
      const times = cardinality ??
        maxCardinality(sizes?.minSerialized ?? 0);
      (found.length > 0 ? [] : rules).forEach((rule, i) => {
        const rulePath = `${at}.x-kubernetes-validations[${i}]`;
        // Compiled again here: a definition being written is not cached.
        const compiled = compileRule(rule, self, rulePath, stored);
        const estimate = (program: CelProgram): number =>
          program.estimateCost({ self: sizes, oldSelf: sizes }).max;
        if (compiled.program) {
          const base = estimate(compiled.program);
          const cost = base === 0 ? 0 : base * times;
          if (cost > STATIC_COST_LIMIT && !stored.has(rule.rule)) {
            out.push({
              field: `${rulePath}.rule`,
              reason: "FieldValueForbidden",
              message: `Forbidden: ${
                costErrorMessage("estimated rule cost", cost, STATIC_COST_LIMIT)
              }`,
            });
          }
          observe(`${rulePath}.rule`, cost);
        }
        out.push(...compiled.errors);
        if (compiled.message) {
          // Not multiplied by the node's cardinality, as the API server
          // counts a messageExpression.
          const cost = estimate(compiled.message);
          if (
            cost > STATIC_COST_LIMIT &&
            !stored.has(rule.messageExpression ?? "")
          ) {
            out.push({
              field: `${rulePath}.messageExpression`,
              reason: "FieldValueForbidden",
              message: `Forbidden: ${
                costErrorMessage(
                  "estimated messageExpression cost",
                  cost,
                  STATIC_COST_LIMIT,
                )
              }`,
            });
          }
          observe(`${rulePath}.messageExpression`, cost);
        }
        if (usesOldSelf(rule.rule)) {
          if (uncorrelated !== undefined) {
            out.push({
              field: `${rulePath}.rule`,
              reason: "FieldValueInvalid",
              message: `Invalid value: ${
                JSON.stringify(rule.rule)
              }: oldSelf cannot be used on the uncorrelatable portion of the schema within ${uncorrelated}`,
            });
          }
        } else if (rule.optionalOldSelf !== undefined) {
          out.push({
            field: `${rulePath}.optionalOldSelf`,
            reason: "FieldValueInvalid",
            message: `Invalid value: ${
              String(rule.optionalOldSelf)
            }: may not be set if oldSelf is not used in rule`,
          });
        }
      });
    }
    // How many of each child an occurrence of this node can hold
    // (`extractMaxElements`): undefined where nothing bounds it.
    const bound = (limit: number | undefined): number | undefined =>
      cardinality === undefined || limit === undefined
        ? undefined
        : cardinality * Math.max(0, limit);
    const more = node.additionalProperties;
    const perChild = node.type === "array"
      ? bound(node.maxItems)
      : node.type === "object" && more !== undefined
      ? bound(node.maxProperties)
      : cardinality;
    for (const [name, property] of Object.entries(node.properties ?? {})) {
      walk(
        property,
        `${at}.properties[${name}]`,
        false,
        uncorrelated,
        perChild,
      );
    }
    if (typeof more === "object") {
      walk(more, `${at}.additionalProperties`, false, uncorrelated, perChild);
    }
    if (node.items !== undefined) {
      const correlated = node["x-kubernetes-list-type"] === "map";
      walk(
        node.items,
        `${at}.items`,
        false,
        uncorrelated ?? (correlated ? undefined : at),
        perChild,
      );
    }
  };
  walk(schema, path, true, undefined, 1);
  if (total > STATIC_CRD_COST_LIMIT) {
    // The recorded answer names the most expensive rules first.
    out.unshift(...expensive.map(({ field }) => ({
      field,
      reason: "FieldValueForbidden",
      message:
        "Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
    })));
    out.push({
      field: path,
      reason: "FieldValueForbidden",
      message: `Forbidden: ${
        costErrorMessage(
          "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema",
          total,
          STATIC_CRD_COST_LIMIT,
        )
      }`,
    });
  }
  return out;
}

/** The cause of a blocking schema error, after which no rule runs. */
const BLOCKED: Cause = {
  field: "<nil>",
  reason: "FieldValueInvalid",
  message:
    "Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
};

/** Schema errors after which the API server evaluates no rule. */
const BLOCKING = new Set([
  "FieldValueNotSupported",
  "FieldValueRequired",
  "FieldValueTooLong",
  "FieldValueTooMany",
  "FieldValueTypeInvalid",
]);

/**
 * The causes of an object's validation rules, after its schema's: none
 * when a schema error blocks them (then one cause saying so), else each
 * rule that fails, errs or runs out of cost.
 *
 * @param schema The schema of the whole object.
 * @param object The object (pruned and defaulted).
 * @param schemaCauses What its schema refuses.
 * @param old The object an update replaces.
 */
export function ruleCauses(
  schema: Schema,
  object: Record<string, unknown>,
  schemaCauses: readonly Cause[],
  old?: Record<string, unknown>,
): RuleResult {
  const out: RuleResult = { causes: [], warnings: [] };
  if (!hasRules(schema)) return out;
  if (schemaCauses.some((c) => BLOCKING.has(c.reason))) {
    out.causes.push(BLOCKED);
    return out;
  }
  const budget = { left: RUNTIME_COST_BUDGET, stopped: false };
  evaluate(
    schema,
    object,
    old === undefined ? undefined : { value: old },
    "",
    true,
    out,
    budget,
  );
  return out;
}

/** What an object's validation rules say. */
export interface RuleResult {
  /** The rules that refuse the write. */
  causes: Cause[];
  /**
   * The rules that fail on values the update keeps (ratcheted), as the
   * API server's warnings: `spec.count: Invalid value: 500: at most 100`.
   */
  warnings: string[];
}

interface Budget {
  left: number;
  stopped: boolean;
}

function evaluate(
  node: Schema,
  value: unknown,
  old: Old | undefined,
  path: string,
  root: boolean,
  out: RuleResult,
  budget: Budget,
): void {
  if (value === undefined || value === null || budget.stopped) return;
  // Nothing to evaluate below: the walk stops (a large object with one
  // rule costs that rule only).
  if (!hasRules(node)) return;
  const compiled = compiledRules(node, root);
  if (compiled.length > 0 && budget.left <= 0) {
    out.causes.push(outOfBudget(path, node));
    budget.stopped = true;
    return;
  }
  // Ratcheting: where the update keeps the old value, a rule that does not
  // compare it with the old one only warns when it fails.
  const unchanged = old !== undefined && jsonEqual(old.value, value);
  for (const rule of compiled) {
    if (budget.stopped) return;
    if (rule.transition && old === undefined) {
      if (rule.rule.optionalOldSelf !== true) continue;
    }
    const found = run(rule, node, value, old, path, budget);
    if (found === undefined) continue;
    if (found.ratchets && unchanged && !rule.transition) {
      out.warnings.push(`${found.cause.field}: ${found.cause.message}`);
    } else out.causes.push(found.cause);
  }
  if (Array.isArray(value)) {
    if (node.items === undefined) return;
    const olds = oldItems(node, old);
    value.forEach((item, i) =>
      evaluate(
        node.items!,
        item,
        oldItem(node, olds, item),
        `${path}[${i}]`,
        false,
        out,
        budget,
      )
    );
    return;
  }
  if (!isObject(value)) return;
  const properties = node.properties ?? {};
  for (const [name, property] of Object.entries(properties)) {
    if (root && name === "metadata") continue;
    evaluate(
      property,
      value[name],
      oldField(old, name),
      child(path, name),
      false,
      out,
      budget,
    );
  }
  const more = node.additionalProperties;
  if (typeof more === "object") {
    for (const [name, item] of Object.entries(value)) {
      if (Object.hasOwn(properties, name)) continue;
      evaluate(
        more,
        item,
        oldField(old, name),
        `${path}[${name}]`,
        false,
        out,
        budget,
      );
    }
  }
}

/** The rule's message, else its text, trimmed (`ruleErrorString`). */
function ruleErrorString(rule: ValidationRule): string {
  const message = rule.message?.trim() ?? "";
  return message !== "" ? message : rule.rule.trim();
}

/** The message of a failed rule without a (working) messageExpression. */
function ruleMessage(rule: ValidationRule): string {
  const message = rule.message?.trim() ?? "";
  return message !== "" ? message : `failed rule: ${rule.rule.trim()}`;
}

/** `field.Invalid` with the node's type as the value, as errors of evaluation show. */
function invalidOfType(path: string, node: Schema, detail: string): Cause {
  return {
    field: path === "" ? "<nil>" : path,
    reason: "FieldValueInvalid",
    message: `Invalid value: ${JSON.stringify(node.type ?? "")}: ${detail}`,
  };
}

function outOfBudget(path: string, node: Schema): Cause {
  return invalidOfType(
    path,
    node,
    "validation failed due to running out of cost budget, no further validation rules will be run",
  );
}

/** The largest message a messageExpression may give (bytes). */
const MAX_MESSAGE_BYTES = 5 * 1024;

/**
 * Evaluates one rule: its cause when it fails or errs, and whether the
 * cause is one ratcheting turns into a warning (a failure, not an error).
 * An error of cost stops the evaluation (`budget.stopped`).
 */
function run(
  compiled: Compiled,
  node: Schema,
  value: unknown,
  old: Old | undefined,
  path: string,
  budget: Budget,
): { cause: Cause; ratchets: boolean } | undefined {
  const { rule, program } = compiled;
  if (program === undefined) return undefined;
  const optional = compiled.transition && rule.optionalOldSelf === true;
  const activation: Record<string, unknown> = compiled.transition
    ? { self: value, oldSelf: old?.value }
    : { self: value };
  // An optional oldSelf left out is `optional.none()`.
  const ruleActivation = optional
    ? { self: value, oldSelf: old?.value }
    : activation;
  let result: unknown;
  try {
    result = program.run(ruleActivation, { costLimit: PER_CALL_LIMIT });
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    if (error instanceof CelCostError) {
      budget.stopped = true;
      return {
        cause: invalidOfType(
          path,
          node,
          `'${text}': no further validation rules will be run due to call cost exceeds limit for rule: ${
            ruleErrorString(rule)
          }`,
        ),
        ratchets: false,
      };
    }
    if (program.lastCost > budget.left) {
      budget.stopped = true;
      return { cause: outOfBudget(path, node), ratchets: false };
    }
    budget.left -= program.lastCost;
    return {
      cause: invalidOfType(
        path,
        node,
        text.startsWith("no such overload")
          ? `'${text}': call arguments did not match a supported operator, function or macro signature for rule: ${
            ruleErrorString(rule)
          }`
          : `${text} evaluating rule: ${ruleErrorString(rule)}`,
      ),
      ratchets: false,
    };
  }
  if (program.lastCost > budget.left) {
    budget.stopped = true;
    return { cause: outOfBudget(path, node), ratchets: false };
  }
  budget.left -= program.lastCost;
  if (result === true) return undefined;
  const names = rule.fieldPath ? fieldPathNames(rule.fieldPath) : undefined;
  const at = names === undefined
    ? path
    : names.reduce((p, name) => child(p, name), path);
  const field = at === "" ? "<nil>" : at;
  let message = ruleMessage(rule);
  if (compiled.message !== undefined) {
    const expression = compiled.message;
    let text: unknown;
    try {
      text = expression.run(activation, { costLimit: PER_CALL_LIMIT });
    } catch (error) {
      if (error instanceof CelCostError) {
        budget.stopped = true;
        return {
          cause: invalidOfType(
            at,
            node,
            `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${
              JSON.stringify(rule.messageExpression)
            }`,
          ),
          ratchets: true,
        };
      }
    }
    if (expression.lastCost > budget.left) {
      budget.stopped = true;
      return {
        cause: invalidOfType(
          at,
          node,
          "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run",
        ),
        ratchets: true,
      };
    }
    budget.left -= expression.lastCost;
    // An error, an empty or multi-line message: the rule's own message.
    const trimmed = typeof text === "string" ? text.trim() : "";
    if (
      trimmed !== "" && !trimmed.includes("\n") &&
      new TextEncoder().encode(trimmed).length <= MAX_MESSAGE_BYTES
    ) {
      message = trimmed;
    }
  }
  return {
    cause: fieldError(field, node, value, message, rule),
    ratchets: true,
  };
}

/** The field error of a failed rule, by its reason (`fieldErrorForReason`). */
function fieldError(
  field: string,
  node: Schema,
  value: unknown,
  message: string,
  rule: ValidationRule,
): Cause {
  // An object's or a list's value is left out (`field.OmitValueType`).
  const omitted = node.type === "object" || node.type === "array";
  switch (rule.reason) {
    case "FieldValueForbidden":
      return {
        field,
        reason: "FieldValueForbidden",
        message: `Forbidden: ${message}`,
      };
    case "FieldValueRequired":
      return {
        field,
        reason: "FieldValueRequired",
        message: `Required value: ${message}`,
      };
    case "FieldValueDuplicate":
      return {
        field,
        reason: "FieldValueDuplicate",
        message: omitted
          ? "Duplicate value"
          : `Duplicate value: ${shown(value)}`,
      };
  }
  return {
    field,
    reason: "FieldValueInvalid",
    message: omitted
      ? `Invalid value: ${message}`
      : `Invalid value: ${shown(value)}: ${message}`,
  };
}
