/**
 * The API server's own rules for admission policy objects: the defaults a
 * MutatingAdmissionPolicy gets, and the checks (of those recorded) that
 * refuse a policy or binding when it is written.
 *
 * @module
 */
import type { KubeObject } from "../apiclient/types.ts";
import { isObject } from "./_objects.ts";
import type { FieldError } from "./_status.ts";
import { expressionType } from "./_policies.ts";

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
    case `${GROUP}/mutatingadmissionpolicies`:
      if (s.reinvocationPolicy === undefined || s.reinvocationPolicy === "") {
        return [{
          field: "spec.reinvocationPolicy",
          reason: "FieldValueRequired",
          message: "Required value",
        }];
      }
      return [];
    case `${GROUP}/validatingadmissionpolicies`: {
      const errors: FieldError[] = [];
      const validations = Array.isArray(s.validations) ? s.validations : [];
      validations.forEach((v, i) => {
        if (!isObject(v)) return;
        for (
          const [field, wanted] of [["expression", "bool"], [
            "messageExpression",
            "string",
          ]] as const
        ) {
          const text = v[field];
          if (typeof text !== "string") continue;
          const found = expressionType(text);
          const message = found.error !== undefined
            ? `compilation failed: ${found.error}`
            : found.type !== wanted
            ? `must evaluate to ${wanted} but got ${found.type}`
            : undefined;
          if (message === undefined) continue;
          errors.push({
            field: `spec.validations[${i}].${field}`,
            reason: "FieldValueInvalid",
            message: `Invalid value: ${JSON.stringify(text)}: ${message}`,
          });
        }
      });
      const annotations = Array.isArray(s.auditAnnotations)
        ? s.auditAnnotations
        : [];
      annotations.forEach((entry, i) => {
        if (!isObject(entry) || typeof entry.valueExpression !== "string") {
          return;
        }
        const text = entry.valueExpression;
        const found = expressionType(text);
        const message = found.error !== undefined
          ? `compilation failed: ${found.error}`
          : found.type !== "string" && found.type !== "null"
          ? `must evaluate to one of [string null_type] but got ${found.type}`
          : undefined;
        if (message === undefined) return;
        errors.push({
          field: `spec.auditAnnotations[${i}].valueExpression`,
          reason: "FieldValueInvalid",
          message: `Invalid value: ${JSON.stringify(text)}: ${message}`,
        });
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
