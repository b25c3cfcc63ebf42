/**
 * The validation of the common built-in kinds the fake does, in the API
 * server's words: a pod spec's containers, a workload's selector and its
 * match with the template's labels, a Job's restart policy, a TLS Secret's
 * keys, and the immutable fields of an update (a workload's selector, a
 * Job's template, a Secret's type, the data of an immutable ConfigMap or
 * Secret). Checked against the recorded `builtin-validation` scenario.
 *
 * @module
 */
import type { KubeObject } from "../../apiclient/types.ts";
import { jsonEqual } from "../../_internal/json.ts";
import { isObject, resourceKey } from "../_store/objects.ts";
import type { FieldError } from "../_verbs/status.ts";
import type { RegisteredResource } from "../types.ts";
import { policyErrors } from "../_admission/policy_objects.ts";

type Obj = Record<string, unknown>;

const WORKLOADS = new Set([
  "apps/deployments",
  "apps/replicasets",
  "apps/statefulsets",
  "apps/daemonsets",
]);

function required(field: string, detail = ""): FieldError {
  return {
    field,
    reason: "FieldValueRequired",
    message: detail === "" ? "Required value" : `Required value: ${detail}`,
  };
}

/** Go's JSON of a value in an `Invalid value: ...` message (maps sorted). */
function goJson(value: unknown): string {
  return JSON.stringify(
    value ?? null,
    (_key, v) =>
      isObject(v) && !Array.isArray(v)
        ? Object.fromEntries(
          Object.entries(v).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0),
        )
        : v,
  );
}

function podSpecErrors(spec: unknown, path: string): FieldError[] {
  const s = isObject(spec) ? spec : {};
  const containers = Array.isArray(s.containers) ? s.containers : [];
  if (containers.length === 0) return [required(`${path}.containers`)];
  const errors: FieldError[] = [];
  containers.forEach((c, i) => {
    const at = `${path}.containers[${i}]`;
    const container = isObject(c) ? c : {};
    if (typeof container.name !== "string" || container.name === "") {
      errors.push(required(`${at}.name`));
    }
    if (typeof container.image !== "string" || container.image === "") {
      errors.push(required(`${at}.image`));
    }
  });
  return errors;
}

/** Whether a `LabelSelector` selects `labels` (an empty one selects nothing here, as for workloads). */
function selects(selector: unknown, labels: Record<string, string>): boolean {
  if (!isObject(selector)) return false;
  const match = isObject(selector.matchLabels) ? selector.matchLabels : {};
  const expressions = Array.isArray(selector.matchExpressions)
    ? selector.matchExpressions
    : [];
  if (Object.keys(match).length === 0 && expressions.length === 0) return false;
  for (const [k, v] of Object.entries(match)) if (labels[k] !== v) return false;
  for (const e of expressions) {
    if (!isObject(e) || typeof e.key !== "string") return false;
    const values = Array.isArray(e.values) ? e.values : [];
    const has = e.key in labels;
    const ok = e.operator === "In"
      ? has && values.includes(labels[e.key])
      : e.operator === "NotIn"
      ? !has || !values.includes(labels[e.key])
      : e.operator === "Exists"
      ? has
      : e.operator === "DoesNotExist"
      ? !has
      : false;
    if (!ok) return false;
  }
  return true;
}

function workloadErrors(spec: Obj): FieldError[] {
  const errors: FieldError[] = [];
  if (!isObject(spec.selector)) errors.push(required("spec.selector"));
  const template = isObject(spec.template) ? spec.template : {};
  const meta = isObject(template.metadata) ? template.metadata : {};
  const labels = (isObject(meta.labels) ? meta.labels : {}) as Record<
    string,
    string
  >;
  if (!selects(spec.selector, labels)) {
    errors.push({
      field: "spec.template.metadata.labels",
      reason: "FieldValueInvalid",
      message: `Invalid value: ${
        goJson(meta.labels)
      }: \`selector\` does not match template \`labels\``,
    });
  }
  errors.push(...podSpecErrors(template.spec, "spec.template.spec"));
  return errors;
}

/** What is wrong with an object of a built-in kind, created or updated. */
export function builtInErrors(
  resource: RegisteredResource,
  object: KubeObject,
): FieldError[] {
  const o = object as unknown as Obj;
  const spec = isObject(o.spec) ? o.spec : {};
  const k = resourceKey(resource);
  if (k === "/pods") return podSpecErrors(spec, "spec");
  const policy = policyErrors(k, object);
  if (policy !== undefined) return policy;
  if (WORKLOADS.has(k)) return workloadErrors(spec);
  if (k === "batch/jobs") {
    const template = isObject(spec.template) ? spec.template : {};
    const podSpec = isObject(template.spec) ? template.spec : {};
    const errors = podSpecErrors(podSpec, "spec.template.spec");
    if (
      podSpec.restartPolicy !== "OnFailure" && podSpec.restartPolicy !== "Never"
    ) {
      errors.push(required(
        "spec.template.spec.restartPolicy",
        'valid values: "OnFailure", "Never"',
      ));
    }
    return errors;
  }
  if (k === "/secrets" && o.type === "kubernetes.io/tls") {
    const keys = new Set([
      ...Object.keys(isObject(o.data) ? o.data : {}),
      ...Object.keys(isObject(o.stringData) ? o.stringData : {}),
    ]);
    return ["tls.crt", "tls.key"].filter((name) => !keys.has(name)).map((
      name,
    ) => required(`data[${name}]`));
  }
  return [];
}

function immutable(field: string, value: unknown): FieldError {
  return {
    field,
    reason: "FieldValueInvalid",
    message: `Invalid value: ${goJson(value)}: field is immutable`,
  };
}

/** What an update changes that the kind does not let change. */
export function builtInUpdateErrors(
  resource: RegisteredResource,
  next: KubeObject,
  old: KubeObject,
): FieldError[] {
  const n = next as unknown as Obj;
  const o = old as unknown as Obj;
  const nspec = isObject(n.spec) ? n.spec : {};
  const ospec = isObject(o.spec) ? o.spec : {};
  const k = resourceKey(resource);
  const errors: FieldError[] = [];
  if (WORKLOADS.has(k) || k === "batch/jobs") {
    if (!jsonEqual(nspec.selector, ospec.selector)) {
      errors.push(immutable("spec.selector", nspec.selector));
    }
  }
  if (k === "batch/jobs" && !jsonEqual(nspec.template, ospec.template)) {
    errors.push(immutable("spec.template", nspec.template));
  }
  if (k === "/secrets" && n.type !== o.type) {
    errors.push(immutable("type", n.type));
  }
  if ((k === "/secrets" || k === "/configmaps") && o.immutable === true) {
    const forbidden = (field: string): FieldError => ({
      field,
      reason: "FieldValueForbidden",
      message: "Forbidden: field is immutable when `immutable` is set",
    });
    if (n.immutable !== true) errors.push(forbidden("immutable"));
    const fields = k === "/secrets" ? ["data"] : ["data", "binaryData"];
    for (const field of fields) {
      if (!jsonEqual(n[field] ?? {}, o[field] ?? {})) {
        errors.push(forbidden(field));
      }
    }
  }
  return errors;
}
