// Admission policies from one description: the ValidatingAdmissionPolicy
// or MutatingAdmissionPolicy (admissionregistration.k8s.io/v1) and its
// binding for an operator's own resources, with the API server's defaults
// written out so that applying them again changes nothing.
import type {
  MutatingAdmissionPolicy,
  MutatingAdmissionPolicyBinding,
  NamedRuleWithOperations,
  ParamRef,
  ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding,
} from "../api/admissionregistration/v1/mod.ts";

/** A resource a policy is about: a `defineResource` definition or any `Resource`. */
export interface PolicyResource {
  /** The API group; `""` is the core group. */
  readonly group: string;
  /** The version, such as `v1alpha1`. */
  readonly version: string;
  /** The resource (plural), such as `greetings`. */
  readonly resource: string;
}

/** The operations a policy matches. */
export type PolicyOperation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT" | "*";

/** A CEL expression with a name (`matchConditions`, `variables`). */
export interface NamedExpression {
  /** The name (`variables.<name>` for a variable). */
  name: string;
  /** The CEL expression. */
  expression: string;
}

/** Where a policy's params come from (`paramKind` and the binding's `paramRef`). */
export interface PolicyParams {
  /** The params' `apiVersion`, such as `v1`. */
  apiVersion: string;
  /** The params' kind, such as `ConfigMap`. */
  kind: string;
  /** One object by name; give this or `selector`. */
  name?: string | undefined;
  /** Objects by labels (`selector.matchLabels`); give this or `name`. */
  selector?: Readonly<Record<string, string>> | undefined;
  /** Their namespace; absent: the namespace of the object written. */
  namespace?: string | undefined;
  /** `Deny` (default: a write with no params found is refused) or `Allow`. */
  notFound?: "Deny" | "Allow" | undefined;
}

/** What validating and mutating policies share. */
export interface PolicyOptions {
  /** The policy's and its binding's name, a DNS subdomain such as `greetings.demo.liken.dev`. */
  name: string;
  /** The resources it is about. */
  resources: readonly PolicyResource[];
  /** The operations. Default `CREATE` and `UPDATE`. */
  operations?: readonly PolicyOperation[] | undefined;
  /** CEL conditions an object must meet to be judged at all. */
  matchConditions?: readonly NamedExpression[] | undefined;
  /** CEL variables, each seeing the ones before (`variables.<name>`). */
  variables?: readonly NamedExpression[] | undefined;
  /** `Fail` (default: an expression that errors refuses the write) or `Ignore`. */
  failurePolicy?: "Fail" | "Ignore" | undefined;
  /** Only objects with these labels (`objectSelector.matchLabels`). */
  objectLabels?: Readonly<Record<string, string>> | undefined;
  /** Namespaces left alone (by `kubernetes.io/metadata.name`). Default none. */
  excludeNamespaces?: readonly string[] | undefined;
  /** Where the params come from; absent: `params` is null. */
  params?: PolicyParams | undefined;
}

/** One check of a validating policy. */
export interface PolicyValidation {
  /** A CEL expression that is true for a valid object. */
  expression: string;
  /** The message when it is false. */
  message?: string | undefined;
  /** A CEL expression giving the message (the `message` stands in when it fails). */
  messageExpression?: string | undefined;
  /** The answer's reason: `Invalid` (422, default), `Forbidden` (403), `Unauthorized` (401), `RequestEntityTooLarge` (413). */
  reason?:
    | "Invalid"
    | "Forbidden"
    | "Unauthorized"
    | "RequestEntityTooLarge"
    | undefined;
}

/** Options of {@linkcode validatingPolicy}. */
export interface ValidatingPolicyOptions extends PolicyOptions {
  /** The checks, each one must hold. */
  validations: readonly PolicyValidation[];
  /** What a failed check does: `Deny` (default), `Warn` (a `Warning` header), `Audit`; never both Deny and Warn. */
  actions?: readonly ("Deny" | "Warn" | "Audit")[] | undefined;
  /** Audit annotations: a key and a CEL expression giving its value. */
  auditAnnotations?:
    | readonly { key: string; valueExpression: string }[]
    | undefined;
}

/** One change of a mutating policy: a CEL expression of either patch type. */
export type PolicyMutation =
  | {
    /** A CEL expression giving an apply configuration, such as `Object{metadata: Object.metadata{labels: {'a': 'b'}}}`. */
    applyConfiguration: string;
  }
  | {
    /** A CEL expression giving a list of `JSONPatch{op, path, value}`. */
    jsonPatch: string;
  };

/** Options of {@linkcode mutatingPolicy}. */
export interface MutatingPolicyOptions extends PolicyOptions {
  /** The changes, in order. */
  mutations: readonly PolicyMutation[];
  /** `Never` (default) or `IfNeeded`: called again when a later mutation changed the object. */
  reinvocation?: "Never" | "IfNeeded" | undefined;
}

const SUBDOMAIN =
  /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * The `ValidatingAdmissionPolicy` and its `ValidatingAdmissionPolicyBinding`
 * (admissionregistration.k8s.io/v1) that check an operator's resources
 * with CEL, for a manifests task beside `crd()` and `rbac`. The API
 * server's defaults are written out (`failurePolicy`, `matchPolicy`,
 * `scope`, empty selectors).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { validatingPolicy } from "@liken/kubernetes/manifests";
 *
 * const [policy, binding] = validatingPolicy({
 *   name: "greetings.demo.liken.dev",
 *   resources: [{ group: "demo.liken.dev", version: "v1alpha1", resource: "greetings" }],
 *   validations: [{
 *     expression: "object.spec.message != ''",
 *     message: "the message must not be empty",
 *   }],
 * });
 * assert.equal(policy.kind, "ValidatingAdmissionPolicy");
 * assert.deepEqual(binding.spec.validationActions, ["Deny"]);
 * ```
 *
 * @param options The name, the resources, the checks.
 * @returns The policy and its binding, ready for `yaml`.
 * @throws {TypeError} When the name is not a DNS subdomain, there is no
 *   resource or check, the actions hold both Deny and Warn, or the params
 *   name both or neither of `name` and `selector`.
 */
export function validatingPolicy(
  options: ValidatingPolicyOptions,
): [
  ValidatingAdmissionPolicy & { kind: "ValidatingAdmissionPolicy" },
  ValidatingAdmissionPolicyBinding & {
    kind: "ValidatingAdmissionPolicyBinding";
    spec: NonNullable<ValidatingAdmissionPolicyBinding["spec"]>;
  },
] {
  checkCommon(options);
  if (options.validations.length === 0) {
    throw new TypeError(`The policy ${options.name} has no validations`);
  }
  const actions = options.actions ?? ["Deny"];
  if (actions.length === 0 || new Set(actions).size !== actions.length) {
    throw new TypeError(
      `The actions of the policy ${options.name} must be Deny, Warn or Audit, each once`,
    );
  }
  if (actions.includes("Deny") && actions.includes("Warn")) {
    throw new TypeError(
      `The actions of the policy ${options.name} must not hold both Deny and Warn`,
    );
  }
  const spec: NonNullable<ValidatingAdmissionPolicy["spec"]> = {
    ...common(options),
    validations: options.validations.map((v) => ({
      expression: v.expression,
      ...(v.message === undefined ? {} : { message: v.message }),
      ...(v.messageExpression === undefined
        ? {}
        : { messageExpression: v.messageExpression }),
      ...(v.reason === undefined ? {} : { reason: v.reason }),
    })),
  };
  if (options.auditAnnotations !== undefined) {
    spec.auditAnnotations = options.auditAnnotations.map((a) => ({ ...a }));
  }
  return [
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicy",
      metadata: { name: options.name },
      spec,
    },
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicyBinding",
      metadata: { name: options.name },
      spec: {
        policyName: options.name,
        validationActions: [...actions],
        ...paramRef(options.params),
      },
    },
  ];
}

/**
 * The `MutatingAdmissionPolicy` and its `MutatingAdmissionPolicyBinding`
 * (admissionregistration.k8s.io/v1, GA since Kubernetes 1.36) that change
 * an operator's resources as they are written, without a webhook.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mutatingPolicy } from "@liken/kubernetes/manifests";
 *
 * const [policy] = mutatingPolicy({
 *   name: "greetings-label.demo.liken.dev",
 *   resources: [{ group: "demo.liken.dev", version: "v1alpha1", resource: "greetings" }],
 *   operations: ["CREATE"],
 *   mutations: [{
 *     applyConfiguration:
 *       "Object{metadata: Object.metadata{labels: {'team': 'greeters'}}}",
 *   }],
 * });
 * assert.equal(policy.spec?.reinvocationPolicy, "Never");
 * assert.equal(policy.spec?.mutations?.[0]?.patchType, "ApplyConfiguration");
 * ```
 *
 * @param options The name, the resources, the changes.
 * @returns The policy and its binding, ready for `yaml`.
 * @throws {TypeError} When the name is not a DNS subdomain, there is no
 *   resource or change, or the params name both or neither of `name` and
 *   `selector`.
 */
export function mutatingPolicy(
  options: MutatingPolicyOptions,
): [
  MutatingAdmissionPolicy & { kind: "MutatingAdmissionPolicy" },
  MutatingAdmissionPolicyBinding & { kind: "MutatingAdmissionPolicyBinding" },
] {
  checkCommon(options);
  if (options.mutations.length === 0) {
    throw new TypeError(`The policy ${options.name} has no mutations`);
  }
  return [
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "MutatingAdmissionPolicy",
      metadata: { name: options.name },
      spec: {
        ...common(options),
        mutations: options.mutations.map((m) =>
          "jsonPatch" in m
            ? { patchType: "JSONPatch", jsonPatch: { expression: m.jsonPatch } }
            : {
              patchType: "ApplyConfiguration",
              applyConfiguration: { expression: m.applyConfiguration },
            }
        ),
        reinvocationPolicy: options.reinvocation ?? "Never",
      },
    },
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "MutatingAdmissionPolicyBinding",
      metadata: { name: options.name },
      spec: { policyName: options.name, ...paramRef(options.params) },
    },
  ];
}

function checkCommon(options: PolicyOptions): void {
  if (options.name.length > 253 || !SUBDOMAIN.test(options.name)) {
    throw new TypeError(
      `The policy name ${
        JSON.stringify(options.name)
      } must be a DNS subdomain, such as greetings.example.com`,
    );
  }
  if (options.resources.length === 0) {
    throw new TypeError(`The policy ${options.name} names no resources`);
  }
  const params = options.params;
  if (params !== undefined) {
    const named = params.name !== undefined;
    const selected = params.selector !== undefined;
    if (named === selected) {
      throw new TypeError(
        `The params of the policy ${options.name} need a name or a selector, not both`,
      );
    }
  }
}

// What both kinds of policy spec share, with the API server's defaults.
function common(options: PolicyOptions): {
  failurePolicy: "Fail" | "Ignore";
  matchConstraints: {
    resourceRules: NamedRuleWithOperations[];
    matchPolicy: "Equivalent";
    namespaceSelector: Record<string, unknown>;
    objectSelector: Record<string, unknown>;
  };
  matchConditions?: { name: string; expression: string }[];
  variables?: { name: string; expression: string }[];
  paramKind?: { apiVersion: string; kind: string };
} {
  const operations = [...(options.operations ?? ["CREATE", "UPDATE"])];
  const excluded = options.excludeNamespaces ?? [];
  const out: ReturnType<typeof common> = {
    failurePolicy: options.failurePolicy ?? "Fail",
    matchConstraints: {
      resourceRules: options.resources.map((r) => ({
        apiGroups: [r.group],
        apiVersions: [r.version],
        operations: [...operations],
        resources: [r.resource],
        scope: "*",
      })),
      matchPolicy: "Equivalent",
      namespaceSelector: excluded.length === 0 ? {} : {
        matchExpressions: [{
          key: "kubernetes.io/metadata.name",
          operator: "NotIn",
          values: [...excluded],
        }],
      },
      objectSelector: options.objectLabels === undefined
        ? {}
        : { matchLabels: { ...options.objectLabels } },
    },
  };
  if (options.matchConditions !== undefined) {
    out.matchConditions = options.matchConditions.map((c) => ({ ...c }));
  }
  if (options.variables !== undefined) {
    out.variables = options.variables.map((v) => ({ ...v }));
  }
  if (options.params !== undefined) {
    out.paramKind = {
      apiVersion: options.params.apiVersion,
      kind: options.params.kind,
    };
  }
  return out;
}

function paramRef(params: PolicyParams | undefined): { paramRef?: ParamRef } {
  if (params === undefined) return {};
  const ref: ParamRef = {};
  if (params.name !== undefined) ref.name = params.name;
  if (params.selector !== undefined) {
    ref.selector = { matchLabels: { ...params.selector } };
  }
  if (params.namespace !== undefined) ref.namespace = params.namespace;
  ref.parameterNotFoundAction = params.notFound ?? "Deny";
  return { paramRef: ref };
}
