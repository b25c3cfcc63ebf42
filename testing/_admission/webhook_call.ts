/**
 * Admission webhooks as kube-apiserver (1.37) matches and calls them: the
 * webhooks of the stored configurations that match a write (rules,
 * `namespaceSelector`, `objectSelector`), the `AdmissionReview` posted over
 * HTTPS trusting the `caBundle` alone (with `?timeout=Ns`), and what their
 * answers become: a patch, warnings, or a refusal worded as
 * `k8s.io/apiserver/pkg/admission/plugin/webhook` words it, with
 * `failurePolicy` deciding what a failure to call one does. `matchConditions`
 * are evaluated (the package's CEL engine, `_internal/cel`) just before the
 * call.
 *
 * @module
 */
import type { KubeObject } from "../../apiclient/types.ts";
import { isObject, resourceKey, storeKey } from "../_store/objects.ts";
import { clone, jsonPatch } from "../_verbs/patch.ts";
import { failure, StatusError } from "../_verbs/status.ts";
import type { ServerState } from "../_store/state.ts";
import {
  CallError,
  postReview,
  type WebhookTransport,
} from "./webhook_client.ts";
import { ADMISSION_GROUP } from "./webhook_config.ts";
import { compileMatchCondition } from "../../_internal/cel/mod.ts";
import type { RegisteredResource } from "../types.ts";

/** One write, as the webhooks see it. */
export interface Attributes {
  /** The resource written. */
  resource: RegisteredResource;
  /** The subresource, `""` for the object's own path. */
  subresource: string;
  /** The namespace, `""` for a cluster-scoped object. */
  namespace: string;
  /** The name; `""` on a create that uses `generateName`. */
  name: string;
  /** `CREATE`, `UPDATE` or `DELETE`. */
  operation: "CREATE" | "UPDATE" | "DELETE";
  /** The new object; absent on DELETE. */
  object: KubeObject | undefined;
  /** The stored object; absent on CREATE. */
  old: KubeObject | undefined;
  /** Whether the request is `dryRun=All`. */
  dryRun: boolean;
  /** The request's query (`fieldManager`). */
  query: URLSearchParams;
}

/** A webhook of a stored configuration. */
export type Hook = Record<string, unknown> & { name: string };

/** A webhook that matches a write, and what identifies it. */
export interface Matched {
  /** The configuration's name and the webhook's (its identity for reinvocation). */
  key: string;
  /** The webhook. */
  hook: Hook;
}

/**
 * The webhooks of every stored configuration of one kind that match the
 * write by rules and selectors, configurations in name order, each one's
 * webhooks in its order (`matchConditions` are left to {@linkcode callHook}).
 */
export function matchingHooks(
  state: ServerState,
  kind: "validating" | "mutating",
  attributes: Attributes,
): Matched[] {
  const configurations = state.resources.find((r) =>
    r.group === ADMISSION_GROUP &&
    r.resource === `${kind}webhookconfigurations`
  );
  if (configurations === undefined) return [];
  const stored = state.store.all(resourceKey(configurations))
    .map(([, object]) => object)
    .sort((a, b) => (a.metadata.name ?? "") < (b.metadata.name ?? "") ? -1 : 1);
  const out: Matched[] = [];
  for (const configuration of stored) {
    const hooks = (configuration as { webhooks?: unknown }).webhooks;
    for (const hook of Array.isArray(hooks) ? hooks : []) {
      if (isObject(hook) && matches(state, hook, attributes)) {
        const key = `${configuration.metadata.name}/${String(hook.name)}`;
        out.push({ key, hook: hook as Hook });
      }
    }
  }
  return out;
}

/** Whether any webhook configuration is stored. */
export function anyConfiguration(state: ServerState): boolean {
  return state.resources.some((r) =>
    r.group === ADMISSION_GROUP &&
    r.resource.endsWith("webhookconfigurations") &&
    state.store.all(resourceKey(r)).length > 0
  );
}

function matches(
  state: ServerState,
  hook: Record<string, unknown>,
  a: Attributes,
): boolean {
  const rules = Array.isArray(hook.rules) ? hook.rules : [];
  if (!rules.some((rule) => isObject(rule) && ruleMatches(rule, a))) {
    return false;
  }
  if (!namespaceMatches(state, hook.namespaceSelector, a)) return false;
  const selector = hook.objectSelector;
  if (isEmptySelector(selector)) return true;
  return [a.object, a.old].some((o) =>
    o !== undefined && selectorMatches(selector, o.metadata.labels ?? {})
  );
}

/** Whether a rule (operations, groups, versions, resources, scope) names the write. */
export function ruleMatches(
  rule: Record<string, unknown>,
  a: Attributes,
): boolean {
  const has = (list: unknown, value: string): boolean =>
    Array.isArray(list) && (list.includes("*") || list.includes(value));
  if (!has(rule.operations, a.operation)) return false;
  if (!has(rule.apiGroups, a.resource.group)) return false;
  if (!has(rule.apiVersions, a.resource.version)) return false;
  const resources = Array.isArray(rule.resources) ? rule.resources : [];
  const named = resources.some((entry) => {
    if (typeof entry !== "string") return false;
    const slash = entry.indexOf("/");
    const resource = slash < 0 ? entry : entry.slice(0, slash);
    const sub = slash < 0 ? "" : entry.slice(slash + 1);
    // `greetings` and `*` name no subresource; `greetings/*`, `*/status`
    // and `*/*` do.
    if (resource !== "*" && resource !== a.resource.resource) return false;
    if (slash < 0) return a.subresource === "";
    return sub === "*" || sub === a.subresource;
  });
  if (!named) return false;
  const scope = rule.scope ?? "*";
  if (scope === "Cluster") return !a.resource.namespaced;
  if (scope === "Namespaced") return a.resource.namespaced;
  return true;
}

/**
 * Whether a namespaceSelector takes the write. It is not applied to a
 * cluster-scoped object, except a Namespace, matched by its own labels.
 */
export function namespaceMatches(
  state: ServerState,
  selector: unknown,
  a: Attributes,
): boolean {
  if (isEmptySelector(selector)) return true;
  const isNamespace = a.resource.group === "" &&
    a.resource.resource === "namespaces";
  if (!a.resource.namespaced && !isNamespace) return true;
  let labels: Record<string, string>;
  if (isNamespace) labels = (a.object ?? a.old)?.metadata.labels ?? {};
  else {
    const namespaces = state.resources.find((r) =>
      r.group === "" && r.resource === "namespaces"
    )!;
    const stored = state.store.peek(
      resourceKey(namespaces),
      storeKey(namespaces, undefined, a.namespace),
    );
    labels = stored?.metadata.labels ?? {};
  }
  return selectorMatches(selector, labels);
}

/** Whether a label selector selects everything. */
export function isEmptySelector(selector: unknown): boolean {
  if (!isObject(selector)) return true;
  const labels = isObject(selector.matchLabels) ? selector.matchLabels : {};
  const expressions = Array.isArray(selector.matchExpressions)
    ? selector.matchExpressions
    : [];
  return Object.keys(labels).length === 0 && expressions.length === 0;
}

/** Whether a label selector takes these labels. */
export function selectorMatches(
  selector: unknown,
  labels: Record<string, string>,
): boolean {
  if (!isObject(selector)) return true;
  const wanted = isObject(selector.matchLabels) ? selector.matchLabels : {};
  for (const [key, value] of Object.entries(wanted)) {
    if (labels[key] !== value) return false;
  }
  const expressions = Array.isArray(selector.matchExpressions)
    ? selector.matchExpressions
    : [];
  return expressions.every((e) => {
    if (!isObject(e) || typeof e.key !== "string") return false;
    const values = Array.isArray(e.values) ? e.values : [];
    const has = Object.hasOwn(labels, e.key);
    switch (e.operator) {
      case "In":
        return has && values.includes(labels[e.key]);
      case "NotIn":
        return !has || !values.includes(labels[e.key]);
      case "Exists":
        return has;
      case "DoesNotExist":
        return !has;
      default:
        return false;
    }
  });
}

/** What a webhook answered that lets the write go on. */
export interface Answer {
  /** The object as patched (a mutating webhook's). */
  object?: KubeObject | undefined;
  /** The warnings it gave. */
  warnings: string[];
  /** False when a `matchConditions` entry left it out (it was not invoked). */
  called: boolean;
}

/**
 * Calls one webhook about a write. Answers its patch and warnings when it
 * allows; throws the `StatusError` the API server answers when it denies,
 * or when it cannot be called under `failurePolicy: Fail` (under `Ignore`
 * the write goes on, unchanged).
 */
export async function callHook(
  hook: Hook,
  attributes: Attributes,
  options: {
    mutating: boolean;
    transport: WebhookTransport;
    signal: AbortSignal;
  },
): Promise<Answer> {
  // matchConditions first: a webhook they leave out is not called at all.
  const review = reviewOf(attributes);
  const uid = (review.request as { uid: string }).uid;
  const matched = conditionsMatch(hook, attributes, review.request);
  if (matched === false) return { warnings: [], called: false };
  if (typeof matched === "string") {
    if (hook.failurePolicy === "Ignore") return { warnings: [], called: false };
    return failed(hook, matched);
  }
  const { dryRun } = attributes;
  const effects = hook.sideEffects;
  if (dryRun && effects !== "None" && effects !== "NoneOnDryRun") {
    if (effects === undefined || effects === null) {
      return failed(hook, "Webhook SideEffects is nil");
    }
    throw new StatusError(failure(
      400,
      "BadRequest",
      `admission webhook ${JSON.stringify(hook.name)} does not support dry run`,
    ));
  }
  let body: unknown;
  try {
    const config = isObject(hook.clientConfig) ? hook.clientConfig : {};
    body = await postReview(config, review, {
      timeoutSeconds: typeof hook.timeoutSeconds === "number"
        ? hook.timeoutSeconds
        : 10,
      transport: options.transport,
      signal: options.signal,
    });
  } catch (error) {
    if (error instanceof CallError) return failed(hook, error.message);
    throw error;
  }
  const invalid = verify(body, uid, options.mutating);
  if (invalid !== undefined) {
    return failed(hook, `received invalid webhook response: ${invalid}`);
  }
  const response = (body as { response: Record<string, unknown> }).response;
  const warnings = Array.isArray(response.warnings)
    ? response.warnings.map(String)
    : [];
  if (response.allowed !== true) {
    throw new DeniedError(denial(hook.name, response.status), warnings);
  }
  if (typeof response.patch !== "string" || response.patch === "") {
    return { warnings, called: true };
  }
  let patch: unknown;
  try {
    patch = JSON.parse(new TextDecoder().decode(
      Uint8Array.from(atob(response.patch), (c) => c.charCodeAt(0)),
    ));
  } catch (error) {
    return failed(
      hook,
      `received undecodable patch in webhook response: ${
        (error as Error).message
      }`,
    );
  }
  if (attributes.object === undefined) {
    throw internal(
      `admission webhook ${
        JSON.stringify(hook.name)
      } attempted to modify the object, which is not supported for this operation`,
    );
  }
  try {
    const object = jsonPatch(clone(attributes.object), patch) as KubeObject;
    return { object, warnings, called: true };
  } catch (error) {
    throw internal((error as Error).message);
  }
}

/** A denial, with the warnings the webhook gave beside it. */
export class DeniedError extends StatusError {
  /** The warnings of the answer that denied. */
  readonly warnings: string[];

  /** Wraps the Status of a denial. */
  constructor(error: StatusError, warnings: string[]) {
    super(error.status);
    this.warnings = warnings;
  }
}

// The matchConditions of a webhook (matchconditions.Matcher): false when
// one is false, else the error's words when one fails, else true.
function conditionsMatch(
  hook: Hook,
  a: Attributes,
  request: unknown,
): boolean | string {
  const conditions = Array.isArray(hook.matchConditions)
    ? hook.matchConditions
    : [];
  const variables = {
    object: a.object === undefined ? null : clone(a.object),
    oldObject: a.old === undefined ? null : clone(a.old),
    request,
  };
  const errors: string[] = [];
  for (const condition of conditions) {
    if (!isObject(condition)) continue;
    const name = String(condition.name ?? "");
    let value: unknown;
    try {
      value = compileMatchCondition(String(condition.expression ?? "")).run(
        variables,
      );
    } catch (error) {
      // Stored past the checks (or by an older fake): an error too.
      errors.push(
        `expression '${name}' resulted in error: ${(error as Error).message}`,
      );
      continue;
    }
    if (value === false) return false;
    if (value !== true) {
      errors.push(
        `expression '${name}' resulted in error: no such overload: must evaluate to bool`,
      );
    }
  }
  if (errors.length === 0) return true;
  return `failed to evaluate match conditions: ${errors.join(", ")}`;
}

// A failure to call the webhook: under Ignore the write goes on.
function failed(hook: Hook, reason: string): Answer {
  if (hook.failurePolicy === "Ignore") return { warnings: [], called: true };
  throw internal(
    `failed calling webhook ${JSON.stringify(hook.name)}: ${reason}`,
  );
}

// apierrors.NewInternalError.
function internal(message: string): StatusError {
  return new StatusError(
    failure(500, "InternalError", `Internal error occurred: ${message}`, {
      causes: [{ message }],
    }),
  );
}

// webhookerrors.ToStatusErr: the webhook's own Status, its message prefixed.
function denial(name: string, status: unknown): StatusError {
  const given = isObject(status) ? status : {};
  const denied = `admission webhook ${JSON.stringify(name)} denied the request`;
  const message = typeof given.message === "string" && given.message !== ""
    ? `${denied}: ${given.message}`
    : typeof given.reason === "string" && given.reason !== ""
    ? `${denied}: ${given.reason}`
    : `${denied} without explanation`;
  const code = typeof given.code === "number" && given.code >= 400
    ? given.code
    : 400;
  const state = given.status === undefined || given.status === "" ||
      given.status === "Success"
    ? "Failure"
    : given.status;
  const out: Record<string, unknown> = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: state,
    message,
  };
  if (typeof given.reason === "string" && given.reason !== "") {
    out.reason = given.reason;
  }
  if (isObject(given.details)) out.details = given.details;
  out.code = code;
  return new StatusError(out as unknown as StatusError["status"]);
}

/** The AdmissionReview of a write, as a webhook is sent it. */
export function reviewOf(a: Attributes): Record<string, unknown> {
  const { group, version, resource, kind } = a.resource;
  const gvk = { group, version, kind };
  const gvr = { group, version, resource };
  const request: Record<string, unknown> = {
    uid: crypto.randomUUID(),
    kind: gvk,
    resource: gvr,
  };
  if (a.subresource !== "") request.subResource = a.subresource;
  request.requestKind = gvk;
  request.requestResource = gvr;
  if (a.subresource !== "") request.requestSubResource = a.subresource;
  if (a.name !== "") request.name = a.name;
  if (a.namespace !== "") request.namespace = a.namespace;
  request.operation = a.operation;
  // The fake authenticates no one: the request is anonymous.
  request.userInfo = {
    username: "system:anonymous",
    groups: ["system:unauthenticated"],
  };
  request.object = a.object === undefined ? null : clone(a.object);
  request.oldObject = a.old === undefined ? null : clone(a.old);
  request.dryRun = a.dryRun;
  const options: Record<string, unknown> = {
    kind: a.operation === "CREATE"
      ? "CreateOptions"
      : a.operation === "UPDATE"
      ? "UpdateOptions"
      : "DeleteOptions",
    apiVersion: "meta.k8s.io/v1",
  };
  if (a.dryRun) options.dryRun = ["All"];
  const manager = a.query.get("fieldManager");
  if (manager !== null && a.operation !== "DELETE") {
    options.fieldManager = manager;
  }
  request.options = options;
  return {
    kind: "AdmissionReview",
    apiVersion: "admission.k8s.io/v1",
    request,
  };
}

// webhookrequest.VerifyAdmissionResponse, for admission.k8s.io/v1.
function verify(
  body: unknown,
  uid: string,
  mutating: boolean,
): string | undefined {
  if (!isObject(body)) return "webhook response was absent";
  if (
    body.apiVersion !== "admission.k8s.io/v1" || body.kind !== "AdmissionReview"
  ) {
    const [group, version] = typeof body.apiVersion === "string" &&
        body.apiVersion.includes("/")
      ? body.apiVersion.split("/")
      : ["", String(body.apiVersion ?? "")];
    return `expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${group}/${version}, Kind=${
      String(body.kind ?? "")
    }`;
  }
  const response = body.response;
  if (!isObject(response)) return "webhook response was absent";
  if (response.uid !== uid) {
    return `expected response.uid=${JSON.stringify(uid)}, got ${
      JSON.stringify(String(response.uid ?? ""))
    }`;
  }
  const patch = typeof response.patch === "string" && response.patch !== "";
  const type = typeof response.patchType === "string" &&
    response.patchType !== "";
  if (mutating) {
    if (patch && !type) {
      return "webhook returned response.patch but not response.patchType";
    }
    if (type && !patch) {
      return "webhook returned response.patchType but not response.patch";
    }
    if (type && response.patchType !== "JSONPatch") {
      return `webhook returned invalid response.patchType of ${
        JSON.stringify(response.patchType)
      }`;
    }
  } else {
    if (patch) return "validating webhook may not return response.patch";
    if (type) return "validating webhook may not return response.patchType";
  }
  return undefined;
}
