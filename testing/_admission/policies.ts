/**
 * Admission policies as kube-apiserver (1.37) runs them on a write:
 * ValidatingAdmissionPolicy and MutatingAdmissionPolicy with their
 * bindings, matched by `matchConstraints` and the binding's
 * `matchResources` (rules, `excludeResourceRules`, namespace and object
 * selectors), `matchConditions`, params (`paramKind`, `paramRef` by name or
 * selector, `parameterNotFoundAction`), `variables`, and the answers worded
 * as `k8s.io/apiserver/pkg/admission/plugin/policy` words them (recorded in
 * the differential goldens). Expressions run on the package's CEL engine
 * (`_internal/cel`); `_admission/webhooks.ts` calls these at the points of the write
 * where the API server's plugins run.
 *
 * An apply configuration merges as server-side apply does here (maps key
 * by key, list maps and sets by item, other lists replaced).
 *
 * The API server reads policies, bindings and params from informers, so
 * one takes effect shortly after it is written; here at once.
 *
 * @module
 */
import type { KubeObject } from "../../apiclient/types.ts";
import {
  type CelAuthorizer,
  CelCompileError,
  CelCostError,
  type CelProgram,
  type CelType,
  compile,
  MATCH_CONDITION_VARIABLES,
  PER_CALL_LIMIT,
  RUNTIME_COST_BUDGET,
} from "../../_internal/cel/mod.ts";
import { isObject, resourceKey, storeKey } from "../_store/objects.ts";
import { view } from "../_http/served.ts";
import { clone, jsonPatch } from "../_verbs/patch.ts";
import { mergeApplied, Schema as FieldSchema } from "../_apply/fields.ts";
import { failure, qualified, StatusError } from "../_verbs/status.ts";
import type { ServerState } from "../_store/state.ts";
import {
  type Attributes,
  isEmptySelector,
  namespaceMatches,
  reviewOf,
  ruleMatches,
  selectorMatches,
} from "./webhook_call.ts";
import { ADMISSION_GROUP } from "./webhook_config.ts";
import { celObjectsMapped } from "./policy_syntax.ts";
import type { RegisteredResource } from "../types.ts";

type Obj = Record<string, unknown>;

/** A policy and one of its bindings that match a write. */
export interface PolicyMatch {
  /** `validating` or `mutating`. */
  kind: "validating" | "mutating";
  /** The policy. */
  policy: KubeObject & { spec?: Obj };
  /** The binding. */
  binding: KubeObject & { spec?: Obj };
  /** Its identity for reinvocation. */
  key: string;
}

function collection(
  state: ServerState,
  resource: string,
): RegisteredResource | undefined {
  return state.resources.find((r) =>
    r.group === ADMISSION_GROUP && r.resource === resource
  );
}

function stored(state: ServerState, resource: string): KubeObject[] {
  const found = collection(state, resource);
  if (found === undefined) return [];
  return state.store.all(resourceKey(found)).map(([, object]) => object)
    .sort((a, b) => (a.metadata.name ?? "") < (b.metadata.name ?? "") ? -1 : 1);
}

/** Whether any policy binding is stored (else writes skip the policies). */
export function anyPolicyBinding(state: ServerState): boolean {
  return ["validating", "mutating"].some((kind) => {
    const found = collection(state, `${kind}admissionpolicybindings`);
    return found !== undefined &&
      state.store.all(resourceKey(found)).length > 0;
  });
}

/**
 * The policies of one kind that match a write, each with each binding of
 * it that matches, policies in name order, bindings in name order.
 */
export function matchingPolicies(
  state: ServerState,
  kind: "validating" | "mutating",
  a: Attributes,
): PolicyMatch[] {
  // Policies never judge policies and bindings (a circular dependency).
  if (
    a.resource.group === ADMISSION_GROUP &&
    /admissionpolic(y|ies)/.test(a.resource.resource)
  ) return [];
  const bindings = stored(state, `${kind}admissionpolicybindings`);
  if (bindings.length === 0) return [];
  const out: PolicyMatch[] = [];
  for (const policy of stored(state, `${kind}admissionpolicies`)) {
    const spec = specOf(policy);
    if (!constraintsMatch(state, spec.matchConstraints, a, true)) continue;
    for (const binding of bindings) {
      const bound = specOf(binding);
      if (bound.policyName !== policy.metadata.name) continue;
      if (
        bound.matchResources !== undefined &&
        !constraintsMatch(state, bound.matchResources, a, false)
      ) continue;
      out.push({
        kind,
        policy: policy as PolicyMatch["policy"],
        binding: binding as PolicyMatch["binding"],
        key: `${kind}/${policy.metadata.name}/${binding.metadata.name}`,
      });
    }
  }
  return out;
}

function specOf(object: KubeObject): Obj {
  const spec = (object as { spec?: unknown }).spec;
  return isObject(spec) ? spec : {};
}

// matchConstraints (the policy's: rules required) or matchResources (the
// binding's: no rules means every resource the policy matches).
function constraintsMatch(
  state: ServerState,
  constraints: unknown,
  a: Attributes,
  rulesRequired: boolean,
): boolean {
  if (!isObject(constraints)) return !rulesRequired;
  const rules = Array.isArray(constraints.resourceRules)
    ? constraints.resourceRules
    : [];
  if (rules.length > 0 || rulesRequired) {
    if (!rules.some((rule) => namedRuleMatches(rule, a))) return false;
  }
  const excluded = Array.isArray(constraints.excludeResourceRules)
    ? constraints.excludeResourceRules
    : [];
  if (excluded.some((rule) => namedRuleMatches(rule, a))) return false;
  if (!namespaceMatches(state, constraints.namespaceSelector, a)) return false;
  const selector = constraints.objectSelector;
  if (isEmptySelector(selector)) return true;
  return [a.object, a.old].some((o) =>
    o !== undefined && selectorMatches(selector, o.metadata.labels ?? {})
  );
}

function namedRuleMatches(rule: unknown, a: Attributes): boolean {
  if (!isObject(rule) || !ruleMatches(rule, a)) return false;
  const names = Array.isArray(rule.resourceNames) ? rule.resourceNames : [];
  return names.length === 0 || names.includes(a.name);
}

// ---- expressions ----

// The variables of a policy's expressions: the request typed as the
// API server's `AdmissionRequest`, the objects and params `dyn`, and the
// authorizer (the fake authorizes everything, so it allows every check).
const DECLARED: { readonly [name: string]: CelType } = {
  object: "dyn",
  oldObject: "dyn",
  request: MATCH_CONDITION_VARIABLES.request!,
  params: "dyn",
  namespaceObject: "dyn",
  variables: "dyn",
  authorizer: "authorizer",
};

/** The variables of a policy's expressions, `object` typed as given. */
export function policyVariables(
  object: CelType,
): { readonly [name: string]: CelType } {
  return { ...DECLARED, object, oldObject: object };
}

const programs = new Map<string, CelProgram | CelCompileError>();

/**
 * A policy's expression compiled (`stored`: as stored, against the whole
 * environment; else as a new expression, against the previous release's).
 */
function program(expression: string, stored = true): CelProgram {
  const key = `${stored ? "s" : "n"}:${expression}`;
  let found = programs.get(key);
  if (found === undefined) {
    const { text, source } = celObjectsMapped(expression);
    try {
      found = compile(text, { variables: DECLARED, stored });
    } catch (error) {
      if (!(error instanceof CelCompileError)) throw error;
      found = text === expression
        ? error
        : relocated(error, expression, text, source);
    }
    if (programs.size > 1000) programs.clear();
    programs.set(key, found);
  }
  if (found instanceof CelCompileError) {
    throw new EvalError(`compilation failed: ${found.message}`);
  }
  return found;
}

/**
 * The type of a new expression's result as the API server compiles a
 * policy's expressions when it is written, or its compile error in cel-go's
 * words.
 */
export function expressionType(
  expression: string,
): { type: string; error?: undefined } | { type?: undefined; error: string } {
  try {
    return { type: program(expression, false).resultType };
  } catch (error) {
    if (!(error instanceof EvalError)) throw error;
    return { error: error.message.replace(/^compilation failed: /, "") };
  }
}

/**
 * A compile error of the rewritten text, placed in the text as written:
 * `ERROR: <input>:L:C: …` and its snippet and caret lines.
 */
function relocated(
  error: CelCompileError,
  expression: string,
  text: string,
  source: number[],
): CelCompileError {
  const found = /^ERROR: <input>:(\d+):(\d+): ([^\n]*)/.exec(error.message);
  if (found === null) return error;
  const lines = text.split("\n");
  let offset = Number(found[2]) - 1;
  for (let l = 0; l < Number(found[1]) - 1; l++) {
    offset += (lines[l]?.length ?? 0) + 1;
  }
  const at = source[offset] ?? expression.length;
  const before = expression.slice(0, at);
  const line = before.split("\n").length;
  const column = at - (before.lastIndexOf("\n") + 1);
  const snippet = expression.split("\n")[line - 1] ?? "";
  return new CelCompileError(
    `ERROR: <input>:${line}:${column + 1}: ${found[3]}\n | ${snippet}\n | ${
      ".".repeat(column)
    }^`,
  );
}

/** An expression's failure, in the API server's words. */
class EvalError extends Error {}

/** The variables of one evaluation: lazy `variables.<name>`. */
class Context {
  readonly activation: Record<string, unknown>;
  /** The variables that failed, with their errors. */
  readonly #failed = new Map<string, string>();
  constructor(
    state: ServerState,
    a: Attributes,
    params: KubeObject | null,
    variables: unknown,
  ) {
    this.activation = {
      object: a.object === undefined ? null : clone(a.object),
      oldObject: a.old === undefined ? null : clone(a.old),
      request: reviewOf(a).request,
      params: params === null ? null : clone(params),
      namespaceObject: namespaceObject(state, a),
      variables: {},
      authorizer: authorizer(a),
    };
    const values: Record<string, unknown> = {};
    for (const variable of Array.isArray(variables) ? variables : []) {
      if (!isObject(variable) || typeof variable.name !== "string") continue;
      // Each variable sees the ones before it. The API server evaluates
      // them lazily: one that fails fails only the expressions naming it.
      try {
        values[variable.name] = fromCel(
          this.run(String(variable.expression ?? "")),
        );
      } catch (error) {
        this.#failed.set(
          variable.name,
          `composited variable ${
            JSON.stringify(variable.name)
          } fails to evaluate: ${(error as Error).message}`,
        );
      }
      this.activation.variables = { ...values };
    }
  }

  /** Evaluates one expression; throws EvalError in the server's words. */
  run(expression: string): unknown {
    for (const [name, message] of this.#failed) {
      if (new RegExp(`\\bvariables\\s*\\.\\s*${name}\\b`).test(expression)) {
        throw new EvalError(message);
      }
    }
    const compiled = program(expression);
    // The evaluation's expressions share one budget, each within the
    // per-call limit.
    const limit = Math.min(PER_CALL_LIMIT, this.#remaining);
    try {
      return compiled.run(this.activation, { costLimit: limit });
    } catch (error) {
      if (error instanceof CelCostError && limit < PER_CALL_LIMIT) {
        throw new BudgetError();
      }
      throw new EvalError((error as Error).message);
    } finally {
      this.#remaining -= compiled.lastCost;
    }
  }

  /** A fresh budget (audit annotations have their own). */
  renew(): void {
    this.#remaining = RUNTIME_COST_BUDGET;
  }

  #remaining = RUNTIME_COST_BUDGET;
}

/** The evaluation's shared cost budget ran out. */
class BudgetError extends Error {
  constructor() {
    super(
      "validation failed due to running out of cost budget, no further validation rules will be run",
    );
  }
}

// The fake authorizes every request, so every check is allowed.
function authorizer(a: Attributes): CelAuthorizer {
  return {
    authorize: () => ({ decision: "allow" }),
    requestResource: {
      group: a.resource.group,
      resource: a.resource.resource,
      ...(a.subresource === "" ? {} : { subresource: a.subresource }),
      ...(a.namespace === "" ? {} : { namespace: a.namespace }),
      ...(a.name === "" ? {} : { name: a.name }),
    },
  };
}

function namespaceObject(state: ServerState, a: Attributes): unknown {
  if (!a.resource.namespaced || a.namespace === "") return null;
  const namespaces = state.resources.find((r) =>
    r.group === "" && r.resource === "namespaces"
  );
  if (namespaces === undefined) return null;
  const found = state.store.peek(
    resourceKey(namespaces),
    storeKey(namespaces, undefined, a.namespace),
  );
  return found === undefined ? null : clone(found);
}

/** A CEL value as JSON: maps and objects as objects, ints as numbers. */
export function fromCel(value: unknown): unknown {
  if (typeof value === "bigint") return Number(value);
  if (value instanceof Date) return value.toISOString().replace(".000Z", "Z");
  if (Array.isArray(value)) return value.map(fromCel);
  if (value instanceof Map) {
    const out: Obj = {};
    for (const [key, item] of value) out[String(key)] = fromCel(item);
    return out;
  }
  if (value !== null && typeof value === "object") {
    if (value instanceof Uint8Array) {
      return btoa(String.fromCharCode(...value));
    }
    const out: Obj = {};
    for (const [key, item] of Object.entries(value)) out[key] = fromCel(item);
    return out;
  }
  return value;
}

// ---- params ----

/** The params of a binding, or a configuration error (of the policy's or the binding's). */
type Params =
  | { found: (KubeObject | null)[] }
  | { error: string; policy: boolean };

// generic.CollectParams, with the policy source's resolution of paramKind.
function paramsOf(
  state: ServerState,
  match: PolicyMatch,
  a: Attributes,
): Params {
  const kind = specOf(match.policy).paramKind;
  if (!isObject(kind)) return { found: [null] };
  const [group, version] = String(kind.apiVersion ?? "").includes("/")
    ? String(kind.apiVersion).split("/") as [string, string]
    : ["", String(kind.apiVersion ?? "")];
  const resource = state.resources.find((r) =>
    r.group === group && r.version === version && r.kind === kind.kind
  );
  if (resource === undefined) {
    return {
      error:
        `failed to configure policy: failed to find resource referenced by paramKind: '${group}/${version}, Kind=${
          String(kind.kind)
        }'`,
      policy: true,
    };
  }
  const ref = specOf(match.binding).paramRef;
  // A binding without paramRef validates with null params.
  if (!isObject(ref)) return { found: [null] };
  const binding = (error: string): Params => ({
    error: `failed to configure binding: ${error}`,
    policy: false,
  });
  const given = typeof ref.namespace === "string" && ref.namespace !== ""
    ? ref.namespace
    : undefined;
  let namespace: string | undefined;
  if (resource.namespaced) {
    namespace = given ?? (a.namespace || undefined);
    if (namespace === undefined) {
      return binding(
        "cannot use namespaced paramRef in policy binding that matches cluster-scoped resources",
      );
    }
  } else if (given !== undefined) {
    return binding(
      "paramRef.namespace must not be provided for a cluster-scoped `paramKind`",
    );
  }
  let found: KubeObject[];
  if (typeof ref.name === "string" && ref.name !== "") {
    const one = state.store.peek(
      resourceKey(resource),
      storeKey(resource, namespace, ref.name),
    );
    found = one === undefined ? [] : [one];
  } else if (isObject(ref.selector)) {
    found = state.store.all(resourceKey(resource)).map(([, o]) => o)
      .filter((o) =>
        (namespace === undefined || o.metadata.namespace === namespace) &&
        selectorMatches(ref.selector, o.metadata.labels ?? {})
      )
      .sort((x, y) =>
        (x.metadata.name ?? "") < (y.metadata.name ?? "") ? -1 : 1
      );
  } else {
    return binding("one of name or selector must be provided");
  }
  // In the paramKind's version, as the param informer reads them.
  if (found.length > 0) {
    return { found: found.map((o) => clone(view(resource, o)!)) };
  }
  if (ref.parameterNotFoundAction === "Deny") {
    return binding(
      "no params found for policy binding with `Deny` parameterNotFoundAction",
    );
  }
  return { found: [] };
}

// matchConditions: false when one is false, else the error when one fails
// (worded as a failed validation is, by the expression).
function conditionsHold(
  spec: Obj,
  context: Context,
): boolean | string {
  const conditions = Array.isArray(spec.matchConditions)
    ? spec.matchConditions
    : [];
  const errors: string[] = [];
  for (const condition of conditions) {
    if (!isObject(condition)) continue;
    const expression = String(condition.expression ?? "");
    let value: unknown;
    try {
      value = context.run(expression);
    } catch (error) {
      errors.push(
        `expression '${expression}' resulted in error: ${
          (error as Error).message
        }`,
      );
      continue;
    }
    if (value === false) return false;
    if (value !== true) {
      errors.push(
        `expression '${expression}' resulted in error: no such overload: must evaluate to bool`,
      );
    }
  }
  if (errors.length === 0) return true;
  return errors.join(", ");
}

// ---- validating ----

/** What the validating policies made of a write that they let through. */
export interface Validated {
  /** The `Warning` texts of the bindings with the Warn action. */
  warnings: string[];
  /** The audit annotations (the Audit action's failures, `auditAnnotations`). */
  annotations: Record<string, string>;
}

interface Decision {
  match: PolicyMatch;
  message: string;
  reason: string;
  index: number;
  /** A configuration error of the policy itself, named without its binding. */
  unbound?: boolean;
  /** A configuration error (params): it denies whatever the actions. */
  configuration?: boolean;
}

/** The longest audit annotation value kept (the rest is cut). */
const MAX_ANNOTATION = 10 * 1024;

/** A CEL value's type name, as an error names it. */
function celTypeName(value: unknown): string {
  if (typeof value === "bigint") return "int";
  if (typeof value === "number") return "double";
  if (typeof value === "boolean") return "bool";
  if (Array.isArray(value)) return "list";
  if (value instanceof Map) return "map";
  if (value instanceof Uint8Array) return "bytes";
  return typeof value === "object" ? "object" : typeof value;
}

const CODES: Record<string, number> = {
  Unauthorized: 401,
  Forbidden: 403,
  Invalid: 422,
  RequestEntityTooLarge: 413,
};

/**
 * Runs the validating policies on a write (its object as it would be
 * stored). Throws the API server's refusal for the first failure of a
 * binding with the Deny action (after noting every warning in `warnings`).
 */
export function validateWithPolicies(
  state: ServerState,
  a: Attributes,
  warnings: string[],
): Validated {
  const annotations: Record<string, string> = {};
  const denied: Decision[] = [];
  const audited: Obj[] = [];
  for (const match of matchingPolicies(state, "validating", a)) {
    const spec = specOf(match.policy);
    const actions = specOf(match.binding).validationActions;
    const has = (action: string): boolean =>
      Array.isArray(actions) && actions.includes(action);
    const ignore = spec.failurePolicy === "Ignore";
    const decisions: Decision[] = [];
    // Denials whatever the binding's actions (audit annotations that fail).
    const forced: Decision[] = [];
    const fail = (message: string, unbound = false): void => {
      if (!ignore) {
        decisions.push({
          match,
          message,
          reason: "",
          index: 0,
          unbound,
          configuration: true,
        });
      }
    };
    const params = paramsOf(state, match, a);
    if ("error" in params) fail(params.error, params.policy);
    else {
      for (const param of params.found) {
        const context = new Context(state, a, param, spec.variables);
        const held = conditionsHold(spec, context);
        if (held === false) continue;
        if (typeof held === "string") {
          // Judged by the binding's actions, as a failed validation is.
          if (!ignore) {
            decisions.push({ match, message: held, reason: "", index: 0 });
          }
          continue;
        }
        decisions.push(...validations(match, spec, context, ignore));
        context.renew();
        for (const entry of asList(spec.auditAnnotations)) {
          const expression = String(entry.valueExpression ?? "");
          let value: unknown;
          try {
            value = context.run(expression);
          } catch (error) {
            if (!ignore) {
              forced.push({
                match,
                message: `expression '${expression}' resulted in error: ${
                  (error as Error).message
                }`,
                reason: "",
                index: 0,
              });
            }
            continue;
          }
          if (value === null) continue;
          if (typeof value !== "string") {
            if (!ignore) {
              forced.push({
                match,
                message:
                  `valueExpression '${expression}' resulted in unsupported return type: ${
                    celTypeName(value)
                  }. Return type must be either string or null.`,
                reason: "",
                index: 0,
              });
            }
            continue;
          }
          const text = value.trim();
          if (text === "") continue;
          annotations[`${match.policy.metadata.name}/${entry.key}`] = text
            .slice(0, MAX_ANNOTATION);
        }
      }
    }
    const policy = match.policy.metadata.name;
    const binding = match.binding.metadata.name;
    for (const decision of decisions) {
      // A configuration error denies whatever the binding's actions.
      if (decision.configuration) {
        denied.push(decision);
        continue;
      }
      if (has("Deny")) denied.push(decision);
      if (has("Warn")) {
        warnings.push(
          `Validation failed for ValidatingAdmissionPolicy '${policy}' with binding '${binding}': ${decision.message}`,
        );
      }
      if (has("Audit")) {
        audited.push({
          message: decision.message,
          policy,
          binding,
          expressionIndex: decision.index,
          validationActions: [...(actions as string[])],
        });
      }
    }
    denied.push(...forced);
  }
  if (audited.length > 0) {
    annotations["validation.policy.admission.k8s.io/validation_failure"] = JSON
      .stringify(audited);
  }
  const first = denied[0];
  if (first !== undefined) throw refusal(first, a);
  return { warnings, annotations };
}

function asList(value: unknown): Obj[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

function validations(
  match: PolicyMatch,
  spec: Obj,
  context: Context,
  ignore: boolean,
): Decision[] {
  const out: Decision[] = [];
  for (const [index, validation] of asList(spec.validations).entries()) {
    const expression = String(validation.expression ?? "");
    let value: unknown;
    try {
      value = context.run(expression);
    } catch (error) {
      if (error instanceof BudgetError) {
        // One decision for the whole evaluation, no further validation.
        return ignore
          ? []
          : [{ match, message: error.message, reason: "", index: 0 }];
      }
      if (!ignore) {
        out.push({
          match,
          message: `expression '${expression}' resulted in error: ${
            (error as Error).message
          }`,
          reason: "",
          index,
        });
      }
      continue;
    }
    if (value === true) continue;
    if (value !== false) {
      if (!ignore) {
        out.push({
          match,
          message:
            `expression '${expression}' resulted in error: no such overload: must evaluate to bool`,
          reason: "",
          index,
        });
      }
      continue;
    }
    out.push({
      match,
      message: messageOf(validation, expression, context),
      reason: typeof validation.reason === "string" ? validation.reason : "",
      index,
    });
  }
  return out;
}

function messageOf(
  validation: Obj,
  expression: string,
  context: Context,
): string {
  if (typeof validation.messageExpression === "string") {
    try {
      const text = context.run(validation.messageExpression);
      const trimmed = typeof text === "string" ? text.trim() : "";
      if (trimmed !== "" && !trimmed.includes("\n")) return trimmed;
    } catch {
      // The static message stands in, as on the API server.
    }
  }
  const message = typeof validation.message === "string"
    ? validation.message.trim()
    : "";
  if (message !== "") return message;
  return `failed expression: ${expression.trim()}`;
}

// admission.NewForbidden, with the decision's reason and its code.
function refusal(decision: Decision, a: Attributes): StatusError {
  const policy =
    `ValidatingAdmissionPolicy '${decision.match.policy.metadata.name}'`;
  const message = decision.unbound
    ? `${policy} denied request: ${decision.message}`
    : `${policy} with binding '${decision.match.binding.metadata.name}' denied request: ${decision.message}`;
  const reason = decision.reason || "Invalid";
  const what = qualified(a.resource);
  const name = a.name;
  const full = name === ""
    ? `${what} is forbidden: ${message}`
    : `${what} ${JSON.stringify(name)} is forbidden: ${message}`;
  return new StatusError(failure(CODES[reason] ?? 422, reason, full, {
    name,
    ...(a.resource.group === "" ? {} : { group: a.resource.group }),
    kind: a.resource.resource,
    causes: [{ message }],
  }));
}

// ---- mutating ----

/**
 * Runs one mutating policy's binding on a write: each param in turn, each
 * mutation on the object the one before it left. Answers the object (the
 * same when nothing applied); throws the API server's refusal when an
 * expression fails under `failurePolicy: Fail`.
 */
export function mutateWithPolicy(
  state: ServerState,
  match: PolicyMatch,
  a: Attributes,
): KubeObject | undefined {
  const spec = specOf(match.policy);
  const ignore = spec.failurePolicy === "Ignore";
  const start = a.object;
  if (start === undefined) return undefined;
  // Configuration errors keep NewForbidden's reason; evaluation errors
  // are Invalid (still 403).
  const fail = (
    message: string,
    reason = "Invalid",
    bound = true,
  ): KubeObject => {
    if (ignore) return start;
    throw mutationRefusal(match, message, a, reason, bound);
  };
  const params = paramsOf(state, match, a);
  if ("error" in params) return fail(params.error, "Forbidden", !params.policy);
  let object = start;
  for (const param of params.found) {
    const attributes = { ...a, object };
    const context = new Context(state, attributes, param, spec.variables);
    const held = conditionsHold(spec, context);
    if (held === false) continue;
    if (typeof held === "string") return fail(held);
    for (const mutation of asList(spec.mutations)) {
      const config = mutation.patchType === "JSONPatch"
        ? mutation.jsonPatch
        : mutation.applyConfiguration;
      const expression = isObject(config)
        ? String(config.expression ?? "")
        : "";
      let value: unknown;
      try {
        value = fromCel(
          new Context(state, { ...a, object }, param, spec.variables).run(
            expression,
          ),
        );
      } catch (error) {
        return fail(
          `expression '${expression}' resulted in error: ${
            (error as Error).message
          }`,
        );
      }
      try {
        object = mutation.patchType === "JSONPatch"
          ? jsonPatch(clone(object), value) as KubeObject
          : mergeApplied(
            object,
            value,
            new FieldSchema(a.resource),
          ) as KubeObject;
      } catch (error) {
        return fail(
          `expression '${expression}' resulted in error: ${
            (error as Error).message
          }`,
        );
      }
    }
  }
  return object;
}

// generic.PolicyError: the policy (and binding) and the error, in a 403.
function mutationRefusal(
  match: PolicyMatch,
  detail: string,
  a: Attributes,
  reason: string,
  bound: boolean,
): StatusError {
  const name = match.policy.metadata.name ?? "";
  const message = bound
    ? `policy '${name}' with binding '${match.binding.metadata.name}' denied request: ${detail}`
    : `policy ${JSON.stringify(name)} denied request: ${detail}`;
  return new StatusError(failure(403, reason, message, {
    name: a.name,
    ...(a.resource.group === "" ? {} : { group: a.resource.group }),
    kind: a.resource.resource,
    causes: [{ message }],
  }));
}
