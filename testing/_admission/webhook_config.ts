/**
 * `ValidatingWebhookConfiguration` and `MutatingWebhookConfiguration`
 * (admissionregistration.k8s.io/v1) as the API server takes them: the
 * defaults it fills in and the checks it refuses a configuration for (422),
 * in its words (kubernetes 1.37 `pkg/apis/admissionregistration`).
 *
 * @module
 */
import type { KubeObject } from "../../apiclient/types.ts";
import { isObject } from "../_store/objects.ts";
import type { FieldError } from "../_verbs/status.ts";
import {
  CelCompileError,
  CelUnsupportedError,
  compileMatchCondition,
} from "../../_internal/cel/mod.ts";
import type { RegisteredResource } from "../types.ts";

/** The group of the webhook configurations. */
export const ADMISSION_GROUP = "admissionregistration.k8s.io";

/** Whether `resource` is one of the two webhook configuration kinds. */
export function isWebhookConfigurations(
  resource: RegisteredResource,
): boolean {
  return resource.group === ADMISSION_GROUP &&
    (resource.resource === "validatingwebhookconfigurations" ||
      resource.resource === "mutatingwebhookconfigurations");
}

/** Fills in the defaults of each webhook and rule, as SetDefaults_*Webhook does. */
export function defaultWebhookConfiguration(object: KubeObject): void {
  const webhooks = (object as { webhooks?: unknown }).webhooks;
  if (!Array.isArray(webhooks)) return;
  const mutating = object.kind === "MutatingWebhookConfiguration";
  for (const hook of webhooks) {
    if (!isObject(hook)) continue;
    hook.failurePolicy ??= "Fail";
    hook.matchPolicy ??= "Equivalent";
    hook.namespaceSelector ??= {};
    hook.objectSelector ??= {};
    hook.timeoutSeconds ??= 10;
    if (mutating) hook.reinvocationPolicy ??= "Never";
    for (const rule of Array.isArray(hook.rules) ? hook.rules : []) {
      if (isObject(rule)) rule.scope ??= "*";
    }
    const service = isObject(hook.clientConfig)
      ? hook.clientConfig.service
      : undefined;
    if (isObject(service)) service.port ??= 443;
  }
}

const REVIEW_VERSIONS = "v1, v1beta1";
const SIDE_EFFECTS = ["None", "NoneOnDryRun"];
const OPERATIONS = ["*", "CONNECT", "CREATE", "DELETE", "UPDATE"];

/** The causes the API server refuses a webhook configuration with (on create). */
export function webhookConfigurationErrors(object: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  const webhooks = (object as { webhooks?: unknown }).webhooks;
  const names = new Set<string>();
  for (const [i, hook] of (Array.isArray(webhooks) ? webhooks : []).entries()) {
    const at = `webhooks[${i}]`;
    if (!isObject(hook)) continue;
    errors.push(...hookErrors(hook, at));
    const versions = hook.admissionReviewVersions;
    if (!Array.isArray(versions) || versions.length === 0) {
      errors.push(required(
        `${at}.admissionReviewVersions`,
        `must specify one of ${REVIEW_VERSIONS}`,
      ));
    } else if (!versions.some((v) => v === "v1" || v === "v1beta1")) {
      errors.push({
        field: `${at}.admissionReviewVersions`,
        reason: "FieldValueInvalid",
        message: `Invalid value: []string{${
          versions.map((v) => JSON.stringify(v)).join(", ")
        }}: must include at least one of ${REVIEW_VERSIONS}`,
      });
    }
    const name = hook.name;
    if (typeof name === "string" && name !== "") {
      if (names.has(name)) {
        errors.push({
          field: `${at}.name`,
          reason: "FieldValueDuplicate",
          message: `Duplicate value: ${JSON.stringify(name)}`,
        });
      }
      names.add(name);
    }
  }
  return errors;
}

function hookErrors(hook: Record<string, unknown>, at: string): FieldError[] {
  const errors: FieldError[] = [];
  const name = typeof hook.name === "string" ? hook.name : "";
  if (name === "") errors.push(required(`${at}.name`, ""));
  else if (name.split(".").length < 3) {
    errors.push({
      field: `${at}.name`,
      reason: "FieldValueInvalid",
      message: `Invalid value: ${
        JSON.stringify(name)
      }: should be a domain with at least three segments separated by dots`,
    });
  }
  for (
    const [r, rule] of (Array.isArray(hook.rules) ? hook.rules : [])
      .entries()
  ) {
    if (!isObject(rule)) continue;
    const operations = Array.isArray(rule.operations) ? rule.operations : [];
    if (operations.length === 0) {
      errors.push(required(`${at}.rules[${r}].operations`, ""));
    }
    for (const [o, operation] of operations.entries()) {
      if (!OPERATIONS.includes(operation)) {
        errors.push(notSupported(
          `${at}.rules[${r}].operations[${o}]`,
          operation,
          OPERATIONS,
        ));
      }
    }
    for (const list of ["apiGroups", "apiVersions", "resources"]) {
      const value = rule[list];
      if (!Array.isArray(value) || value.length === 0) {
        errors.push(required(`${at}.rules[${r}].${list}`, ""));
      }
    }
  }
  const policy = hook.failurePolicy;
  if (policy !== "Fail" && policy !== "Ignore") {
    errors.push(
      notSupported(`${at}.failurePolicy`, policy, ["Fail", "Ignore"]),
    );
  }
  const match = hook.matchPolicy;
  if (match !== "Equivalent" && match !== "Exact") {
    errors.push(
      notSupported(`${at}.matchPolicy`, match, ["Equivalent", "Exact"]),
    );
  }
  const effects = hook.sideEffects;
  if (effects === undefined || effects === null) {
    errors.push(required(
      `${at}.sideEffects`,
      `must specify one of ${SIDE_EFFECTS.join(", ")}`,
    ));
  } else if (!SIDE_EFFECTS.includes(effects as string)) {
    errors.push(notSupported(`${at}.sideEffects`, effects, SIDE_EFFECTS));
  }
  const timeout = hook.timeoutSeconds;
  if (typeof timeout === "number" && (timeout > 30 || timeout < 1)) {
    errors.push({
      field: `${at}.timeoutSeconds`,
      reason: "FieldValueInvalid",
      message:
        `Invalid value: ${timeout}: the timeout value must be between 1 and 30 seconds`,
    });
  }
  errors.push(
    ...conditionErrors(hook.matchConditions, `${at}.matchConditions`),
  );
  const config = isObject(hook.clientConfig) ? hook.clientConfig : {};
  if ((config.url === undefined) === (config.service === undefined)) {
    errors.push(
      required(
        `${at}.clientConfig`,
        "exactly one of url or service is required",
      ),
    );
  }
  return errors;
}

const QUALIFIED =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

// matchConditions: at most 64, each named (a qualified name, unique) with
// an expression that compiles to a bool, in the API server's CEL
// environment (`_internal/cel`); one naming `authorizer`, which the fake
// does not evaluate, is refused here so that it is never judged wrongly.
function conditionErrors(conditions: unknown, at: string): FieldError[] {
  if (conditions === undefined || conditions === null) return [];
  if (!Array.isArray(conditions)) {
    return [{
      field: at,
      reason: "FieldValueInvalid",
      message: "Invalid value: must be a list",
    }];
  }
  const errors: FieldError[] = [];
  if (conditions.length > 64) {
    errors.push({
      field: at,
      reason: "FieldValueTooMany",
      message: `Too many: ${conditions.length}: must have at most 64 items`,
    });
  }
  const names = new Set<string>();
  for (const [i, condition] of conditions.entries()) {
    const field = `${at}[${i}]`;
    const given = isObject(condition) ? condition : {};
    const name = typeof given.name === "string" ? given.name : "";
    if (name === "") errors.push(required(`${field}.name`, ""));
    else if (!QUALIFIED.test(name) || name.length > 316) {
      errors.push({
        field: `${field}.name`,
        reason: "FieldValueInvalid",
        message: `Invalid value: ${
          JSON.stringify(name)
        }: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      });
    } else if (names.has(name)) {
      errors.push({
        field: `${field}.name`,
        reason: "FieldValueDuplicate",
        message: `Duplicate value: ${JSON.stringify(name)}`,
      });
    }
    names.add(name);
    const expression = typeof given.expression === "string"
      ? given.expression
      : "";
    if (expression.trim() === "") {
      errors.push(required(`${field}.expression`, ""));
      continue;
    }
    try {
      compileMatchCondition(expression);
    } catch (error) {
      if (
        !(error instanceof CelUnsupportedError) &&
        !(error instanceof CelCompileError)
      ) throw error;
      const why = error instanceof CelUnsupportedError
        ? `the fake API server does not support this CEL expression (${error.message} is outside what it evaluates)`
        : error.message;
      errors.push({
        field: `${field}.expression`,
        reason: "FieldValueInvalid",
        message: `Invalid value: ${JSON.stringify(expression)}: ${why}`,
      });
    }
  }
  return errors;
}

function required(field: string, detail: string): FieldError {
  return {
    field,
    reason: "FieldValueRequired",
    message: detail === "" ? "Required value" : `Required value: ${detail}`,
  };
}

function notSupported(
  field: string,
  value: unknown,
  supported: readonly string[],
): FieldError {
  return {
    field,
    reason: "FieldValueNotSupported",
    message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${
      supported.map((s) => JSON.stringify(s)).join(", ")
    }`,
  };
}
