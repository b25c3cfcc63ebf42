/**
 * The API server's own rules for admission policy objects: the defaults a
 * MutatingAdmissionPolicy gets, and the checks (of those recorded) that
 * refuse a policy or binding when it is written.
 *
 * @module
 */
import type { KubeObject } from "../../apiclient/types.ts";
import { isObject } from "../_store/objects.ts";
import type { FieldError } from "../_verbs/status.ts";
import { expressionType } from "./policies.ts";

type Obj = Record<string, unknown>;

const GROUP = "admissionregistration.k8s.io";

/** The defaults of a validating or mutating admission policy's spec. */
export function defaultPolicySpec(object: Obj): void {
  if (!isObject(object.spec)) object.spec = {};
  const spec = object.spec as Obj;
  spec.failurePolicy ??= "Fail";
  const match = spec.matchConstraints;
  if (!isObject(match)) return;
  match.namespaceSelector ??= {};
  match.objectSelector ??= {};
  match.matchPolicy ??= "Equivalent";
  for (
    const rule of Array.isArray(match.resourceRules) ? match.resourceRules : []
  ) {
    if (isObject(rule)) rule.scope ??= "*";
  }
}

/** A type in cel-go's notation (`map(string, int)`, `list(dyn)`). */
function typeText(type: string): string {
  if (type === "list") return "list(dyn)";
  if (type === "map") return "map(dyn, dyn)";
  if (type === "null") return "null_type";
  return type.replaceAll("<", "(").replaceAll(">", ")");
}

/**
 * An expression's compile error, or its result type's mismatch with
 * `wanted` (`check` decides), as the API server words the cause.
 */
function expressionError(
  field: string,
  text: string,
  wanted: string | undefined,
  check: (type: string) => boolean = (type) => type === wanted,
): FieldError | undefined {
  const found = expressionType(text);
  const message = found.error !== undefined
    ? `compilation failed: ${found.error}`
    : wanted !== undefined && !check(found.type)
    ? `must evaluate to ${wanted} but got ${typeText(found.type)}`
    : undefined;
  if (message === undefined) return undefined;
  return {
    field,
    reason: "FieldValueInvalid",
    message: `Invalid value: ${JSON.stringify(text)}: ${message}`,
  };
}

/** The causes of a spec's matchConditions and variables. */
function sharedErrors(s: Obj): FieldError[] {
  const errors: FieldError[] = [];
  const list = (v: unknown): Obj[] =>
    Array.isArray(v) ? v.filter(isObject) : [];
  list(s.matchConditions).forEach((c, i) => {
    if (typeof c.expression !== "string") return;
    const error = expressionError(
      `spec.matchConditions[${i}].expression`,
      c.expression,
      "bool",
    );
    if (error) errors.push(error);
  });
  list(s.variables).forEach((v, i) => {
    if (typeof v.expression !== "string") return;
    const error = expressionError(
      `spec.variables[${i}].expression`,
      v.expression,
      undefined,
    );
    if (error) errors.push(error);
  });
  return errors;
}

// Object and JSONPatch are read as maps (`_admission/policy_syntax.ts`): a result is
// taken for one when the expression constructs one, and named by its shape
// otherwise.
function mutationErrors(s: Obj): FieldError[] {
  const errors: FieldError[] = [];
  const mutations = Array.isArray(s.mutations) ? s.mutations : [];
  mutations.forEach((m, i) => {
    if (!isObject(m)) return;
    const patch = m.patchType === "JSONPatch";
    const config = patch ? m.jsonPatch : m.applyConfiguration;
    if (!isObject(config) || typeof config.expression !== "string") return;
    const text = config.expression;
    const field = `spec.mutations[${i}].${
      patch ? "jsonPatch" : "applyConfiguration"
    }.expression`;
    const error = patch
      ? expressionError(
        field,
        text,
        "list(JSONPatch)",
        (type) => type.startsWith("list") && /\bJSONPatch\s*\{/.test(text),
      )
      : expressionError(
        field,
        text,
        "Object",
        (type) =>
          type.startsWith("map") && /\bObject(\s*\.\s*\w+)*\s*\{/.test(text),
      );
    if (error === undefined) return;
    // A lone JSONPatch is named as such.
    if (patch && /^\s*JSONPatch\s*\{[^]*\}\s*$/.test(text)) {
      error.message = error.message.replace(
        /but got .*$/,
        "but got JSONPatch",
      );
    }
    errors.push(error);
  });
  return errors;
}

/**
 * What is wrong with a policy or binding of `group/resource` `key`, by the
 * rules recorded from kube-apiserver; `undefined` for other kinds.
 */
export function policyErrors(
  key: string,
  object: KubeObject,
): FieldError[] | undefined {
  const spec = (object as { spec?: unknown }).spec;
  const s: Obj = isObject(spec) ? spec : {};
  switch (key) {
    case `${GROUP}/mutatingadmissionpolicies`: {
      const errors = [...sharedErrors(s), ...mutationErrors(s)];
      if (s.reinvocationPolicy === undefined || s.reinvocationPolicy === "") {
        errors.push({
          field: "spec.reinvocationPolicy",
          reason: "FieldValueRequired",
          message: "Required value",
        });
      }
      return errors;
    }
    case `${GROUP}/validatingadmissionpolicies`: {
      const errors = sharedErrors(s);
      const validations = Array.isArray(s.validations) ? s.validations : [];
      validations.forEach((v, i) => {
        if (!isObject(v)) return;
        for (
          const [field, wanted] of [
            ["expression", "bool"],
            ["messageExpression", "string"],
          ] as const
        ) {
          const text = v[field];
          if (typeof text !== "string") continue;
          const error = expressionError(
            `spec.validations[${i}].${field}`,
            text,
            wanted,
          );
          if (error) errors.push(error);
        }
      });
      const annotations = Array.isArray(s.auditAnnotations)
        ? s.auditAnnotations
        : [];
      annotations.forEach((entry, i) => {
        if (!isObject(entry) || typeof entry.valueExpression !== "string") {
          return;
        }
        const error = expressionError(
          `spec.auditAnnotations[${i}].valueExpression`,
          entry.valueExpression,
          "one of [string null_type]",
          (type) => type === "string" || type === "null",
        );
        if (error) errors.push(error);
      });
      return errors;
    }
    case `${GROUP}/validatingadmissionpolicybindings`: {
      const actions = Array.isArray(s.validationActions)
        ? s.validationActions
        : [];
      if (actions.includes("Deny") && actions.includes("Warn")) {
        return [{
          field: "spec.validationActions",
          reason: "FieldValueInvalid",
          message: `Invalid value: ${
            JSON.stringify(actions)
          }: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)`,
        }];
      }
      return [];
    }
  }
  return undefined;
}
