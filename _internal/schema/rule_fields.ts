// The checks of a CRD validation rule's own fields (not its expressions)
// that the API server makes when a definition is written. They need no CEL
// engine, so `defineResource` makes them too, where the rules are written.

import type { Cause, Schema, ValidationRule } from "./types.ts";
import { notSupported, shown } from "./messages.ts";

/** The names a `fieldPath` goes through (`.a.b`, `['a']`), or `undefined`. */
export function fieldPathNames(fieldPath: string): string[] | undefined {
  const names: string[] = [];
  const pattern = /\.([A-Za-z_$][\w$-]*)|\['((?:\\.|[^'\\])*)'\]/y;
  let at = 0;
  while (at < fieldPath.length) {
    pattern.lastIndex = at;
    const match = pattern.exec(fieldPath);
    if (match === null) return undefined;
    names.push(match[1] ?? match[2]!.replace(/\\(.)/g, "$1"));
    at = pattern.lastIndex;
  }
  return names.length > 0 ? names : undefined;
}

/** Whether `fieldPath` names a field the schema declares below `node`. */
function validFieldPath(node: Schema, fieldPath: string): boolean {
  const names = fieldPathNames(fieldPath);
  if (names === undefined) return false;
  let at: Schema | undefined = node;
  for (const name of names) {
    if (at === undefined) return false;
    const more: Schema["additionalProperties"] = at.additionalProperties;
    at = at.properties?.[name] ??
      (typeof more === "object" ? more : undefined);
  }
  return at !== undefined;
}

/** The reasons a rule may give. */
const REASONS = [
  "FieldValueDuplicate",
  "FieldValueForbidden",
  "FieldValueInvalid",
  "FieldValueRequired",
];

/** What is wrong in a rule's fields but its expressions. */
export function ruleFieldErrors(
  node: Schema,
  rule: ValidationRule,
  path: string,
): Cause[] {
  const out: Cause[] = [];
  const invalidField = (name: string, value: unknown, detail: string): void => {
    out.push({
      field: `${path}.${name}`,
      reason: "FieldValueInvalid",
      message: `Invalid value: ${shown(value)}: ${detail}`,
    });
  };
  const requiredField = (name: string, detail: string): void => {
    out.push({
      field: `${path}.${name}`,
      reason: "FieldValueRequired",
      message: `Required value: ${detail}`,
    });
  };
  const text = (rule.rule ?? "").trim();
  const message = rule.message ?? "";
  if (text === "") requiredField("rule", "rule is not specified");
  else if (message !== "" && message.trim() === "") {
    invalidField("message", message, "must be non-empty if specified");
  } else if (message.trim().includes("\n")) {
    invalidField("message", message, "must not contain line breaks");
  } else if (text.includes("\n") && message.trim() === "") {
    requiredField(
      "message",
      "message must be specified if rule contains line breaks",
    );
  }
  const expression = rule.messageExpression ?? "";
  if (expression !== "" && expression.trim() === "") {
    requiredField(
      "messageExpression",
      "messageExpression must be non-empty if specified",
    );
  }
  if (rule.reason !== undefined && !REASONS.includes(rule.reason)) {
    out.push(notSupported(`${path}.reason`, rule.reason, REASONS));
  }
  const fieldPath = rule.fieldPath ?? "";
  if (fieldPath !== "" && fieldPath.trim() === "") {
    invalidField("fieldPath", fieldPath, "must be non-empty if specified");
  }
  if (fieldPath.includes("\n")) {
    invalidField("fieldPath", fieldPath, "must not contain line breaks");
  }
  if (fieldPath !== "" && !validFieldPath(node, fieldPath)) {
    invalidField("fieldPath", fieldPath, "must be a valid path");
  }
  return out;
}

/**
 * The rule-field errors of every rule of a schema ({@linkcode ruleFieldErrors}).
 *
 * @param schema The version's schema.
 * @param path Its field path, such as `spec.versions[0].schema.openAPIV3Schema`.
 */
export function ruleFieldCauses(schema: Schema, path: string): Cause[] {
  const out: Cause[] = [];
  const walk = (node: Schema, at: string): void => {
    (node["x-kubernetes-validations"] ?? []).forEach((rule, i) =>
      out.push(
        ...ruleFieldErrors(node, rule, `${at}.x-kubernetes-validations[${i}]`),
      )
    );
    for (const [name, property] of Object.entries(node.properties ?? {})) {
      walk(property, `${at}.properties[${name}]`);
    }
    const more = node.additionalProperties;
    if (typeof more === "object") walk(more, `${at}.additionalProperties`);
    if (node.items !== undefined) walk(node.items, `${at}.items`);
  };
  walk(schema, path);
  return out;
}
