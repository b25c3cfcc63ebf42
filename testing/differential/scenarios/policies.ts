/**
 * Admission policies: ValidatingAdmissionPolicy and MutatingAdmissionPolicy
 * with their bindings, on ConfigMaps of the run's namespace. Each policy is
 * chosen by an object label (`policy`), so every step names the policy it
 * meets. kube-apiserver reads policies, bindings and params from informers:
 * the scenario waits until the last one made is in force (each informer
 * delivers in order, so the earlier ones are too).
 *
 * @module
 */

import { discardLogger } from "../../../log/mod.ts";
import { testCerts } from "../../certs.ts";
import { mutating, WebhookServer } from "../../../webhook/mod.ts";
import type { Run } from "../_target.ts";
import { configMap, type Scenario } from "./_common.ts";

const ADMISSION = "/apis/admissionregistration.k8s.io/v1";

type Obj = Record<string, unknown>;

/** The matchConstraints of a policy about one `policy` label of the run. */
function constraints(r: Run, label: string, extra: Obj = {}): Obj {
  return {
    resourceRules: [{
      apiGroups: [""],
      apiVersions: ["v1"],
      operations: ["CREATE", "UPDATE"],
      resources: ["configmaps"],
    }],
    namespaceSelector: {
      matchLabels: { "kubernetes.io/metadata.name": r.namespace },
    },
    objectSelector: { matchLabels: { policy: label } },
    ...extra,
  };
}

/** Makes cluster-scoped objects and deletes them afterwards. */
class Made {
  readonly #run: Run;
  readonly #paths: string[] = [];
  constructor(run: Run) {
    this.#run = run;
  }

  /** POSTs `body` to `collection`; `step` records it, else quiet. */
  async make(collection: string, body: Obj, step?: string): Promise<Obj> {
    const path = `${ADMISSION}/${collection}`;
    const answer = await this.#run.send(step ?? "set-up", "POST", path, {
      body,
      quiet: step === undefined,
    });
    if (answer.status !== 201) {
      throw new Error(
        `Making ${collection} answered ${answer.status}: ${
          JSON.stringify(answer.body)
        }`,
      );
    }
    const name = (body.metadata as { name: string }).name;
    this.#paths.push(`${path}/${name}`);
    return answer.body as Obj;
  }

  /** POSTs `body` to `collection` as a recorded step, whatever it answers. */
  async attempt(step: string, collection: string, body: Obj): Promise<void> {
    const path = `${ADMISSION}/${collection}`;
    const answer = await this.#run.send(step, "POST", path, { body });
    if (answer.status === 201) {
      this.#paths.push(`${path}/${(body.metadata as { name: string }).name}`);
    }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    for (const path of this.#paths.reverse()) {
      await this.#run.send("cleanup", "DELETE", path, { quiet: true });
    }
  }
}

/** A ConfigMap labelled for one policy. */
function labelled(
  name: string,
  label: string,
  data: Record<string, string> = { k: "v" },
  labels: Record<string, string> = {},
): Obj {
  return configMap(name, data, { labels: { policy: label, ...labels } });
}

/** Waits until a create of `body` answers other than 201 (or `done`). */
async function inForce(
  r: Run,
  what: string,
  body: (n: number) => Obj,
  done: (answer: { status: number; body: unknown }) => boolean = (a) =>
    a.status !== 201,
): Promise<void> {
  let n = 0;
  await r.until(what, async () => {
    const answer = await r.send("probe", "POST", r.path("configmaps"), {
      body: body(n++),
      quiet: true,
    });
    return done(answer);
  }, 60_000);
}

async function validating(r: Run): Promise<void> {
  await using made = new Made(r);
  const cms = r.path("configmaps");
  const vap = (
    label: string,
    spec: Obj,
    step?: string,
  ): Promise<Obj> =>
    made.make("validatingadmissionpolicies", {
      metadata: { name: `${r.namespace}-${label}` },
      spec: { matchConstraints: constraints(r, label), ...spec },
    }, step);
  const bind = (
    label: string,
    spec: Obj = {},
    step?: string,
  ): Promise<Obj> =>
    made.make("validatingadmissionpolicybindings", {
      metadata: { name: `${r.namespace}-${label}` },
      spec: {
        policyName: `${r.namespace}-${label}`,
        validationActions: ["Deny"],
        ...spec,
      },
    }, step);
  const noForbidden = [{
    expression: "!('forbidden' in object.data)",
    message: "the key forbidden is not allowed",
  }];

  // Params are ConfigMaps of the run's namespace.
  await r.send("param limits", "POST", cms, {
    body: configMap("limits", { max: "2" }),
    quiet: true,
  });
  for (const [name, max] of [["set-a", "3"], ["set-b", "1"]] as const) {
    await r.send("param set", "POST", cms, {
      body: configMap(name, { max }, { labels: { param: "set" } }),
      quiet: true,
    });
  }

  await vap("deny", { validations: noForbidden }, "create policy");
  await bind("deny", {}, "create binding");
  await vap("expression", {
    validations: [{
      expression: "!('forbidden' in object.data)",
      messageExpression:
        "'the value ' + object.data.forbidden + ' is forbidden'",
      reason: "Forbidden",
    }],
  });
  await bind("expression");
  await vap("bare", {
    validations: [{ expression: "!('forbidden' in object.data)" }],
  });
  await bind("bare");
  await vap("warn", { validations: noForbidden });
  await bind("warn", { validationActions: ["Warn"] });
  await vap("audit", {
    validations: noForbidden,
    auditAnnotations: [{
      key: "keys",
      valueExpression: "string(object.data.size())",
    }],
  });
  await bind("audit", { validationActions: ["Audit"] });
  await vap("warn-audit", { validations: noForbidden });
  await bind("warn-audit", { validationActions: ["Warn", "Audit"] });
  await r.send(
    "binding with Warn and Deny",
    "POST",
    `${ADMISSION}/validatingadmissionpolicybindings`,
    {
      body: {
        metadata: { name: `${r.namespace}-warn-deny` },
        spec: {
          policyName: `${r.namespace}-warn-audit`,
          validationActions: ["Warn", "Deny"],
        },
      },
    },
  );
  await vap("conditions", {
    matchConditions: [{
      name: "checked-only",
      expression: "'check' in object.metadata.labels",
    }],
    validations: noForbidden,
  });
  await bind("conditions");
  await vap("exclude", {
    matchConstraints: constraints(r, "exclude", {
      excludeResourceRules: [{
        apiGroups: [""],
        apiVersions: ["v1"],
        operations: ["CREATE"],
        resources: ["configmaps"],
        resourceNames: ["exempt"],
      }],
    }),
    validations: noForbidden,
  });
  await bind("exclude");
  await vap("variables", {
    variables: [{ name: "keys", expression: "object.data.size()" }],
    validations: [{
      expression: "variables.keys <= 2",
      messageExpression: "'has ' + string(variables.keys) + ' keys'",
    }],
  });
  await bind("variables");
  await vap("error-fail", {
    validations: [{ expression: "object.data.missing == 'x'" }],
  });
  await bind("error-fail");
  await vap("error-ignore", {
    failurePolicy: "Ignore",
    validations: [{ expression: "object.data.missing == 'x'" }],
  });
  await bind("error-ignore");
  await vap("typecheck", {
    validations: [{ expression: "object.data.k == 1" }],
  });
  await bind("typecheck");
  await made.attempt(
    "policy that does not compile",
    "validatingadmissionpolicies",
    {
      metadata: { name: `${r.namespace}-syntax` },
      spec: {
        matchConstraints: constraints(r, "syntax"),
        validations: [{ expression: "object.data.(" }, {
          expression: "true",
          messageExpression: "'a' +",
        }],
      },
    },
  );
  await vap("condition-error", {
    matchConditions: [{
      name: "broken",
      expression: "object.data.missing == 'x'",
    }],
    validations: noForbidden,
  });
  await bind("condition-error");
  await vap("condition-error-ignore", {
    failurePolicy: "Ignore",
    matchConditions: [{
      name: "broken",
      expression: "object.data.missing == 'x'",
    }],
    validations: noForbidden,
  });
  await bind("condition-error-ignore");
  await vap("message-error", {
    validations: [{
      expression: "!('forbidden' in object.data)",
      messageExpression: "'value ' + object.data.missing",
      message: "the static message",
    }, {
      expression: "object.data.k != 'second'",
      messageExpression: "string(object.data.missing)",
    }],
  });
  await bind("message-error");
  await made.attempt(
    "policy whose messageExpression is not a string",
    "validatingadmissionpolicies",
    {
      metadata: { name: `${r.namespace}-message-dyn` },
      spec: {
        matchConstraints: constraints(r, "message-dyn"),
        validations: [{
          expression: "true",
          messageExpression: "object.data.missing",
        }],
      },
    },
  );
  await made.attempt(
    "policy whose expression is not a bool",
    "validatingadmissionpolicies",
    {
      metadata: { name: `${r.namespace}-not-bool` },
      spec: {
        matchConstraints: constraints(r, "not-bool"),
        validations: [{ expression: "object.data.k" }, {
          expression: "'a'",
        }],
      },
    },
  );
  await vap("delete", {
    matchConstraints: {
      ...constraints(r, "delete"),
      resourceRules: [{
        apiGroups: [""],
        apiVersions: ["v1"],
        operations: ["DELETE"],
        resources: ["configmaps"],
      }],
    },
    validations: [{
      expression: "object == null && oldObject.data.k != 'keep'",
      messageExpression: "'keep ' + oldObject.metadata.name",
      reason: "Forbidden",
    }],
  });
  await bind("delete");
  await vap("update", {
    matchConstraints: constraints(r, "update"),
    validations: [{
      expression:
        "request.operation != 'UPDATE' || oldObject.data.k == object.data.k",
      message: "k may not change",
    }],
  });
  await bind("update");
  const params = (label: string, paramRef: Obj): Promise<Obj> =>
    made.make("validatingadmissionpolicybindings", {
      metadata: { name: `${r.namespace}-${label}` },
      spec: {
        policyName: `${r.namespace}-params`,
        validationActions: ["Deny"],
        paramRef: { namespace: r.namespace, ...paramRef },
        matchResources: {
          objectSelector: { matchLabels: { binding: label } },
        },
      },
    });
  await vap("params", {
    matchConstraints: constraints(r, "params"),
    paramKind: { apiVersion: "v1", kind: "ConfigMap" },
    validations: [{
      expression: "object.data.size() <= int(params.data.max)",
      messageExpression:
        "'at most ' + params.data.max + ' keys, ' + params.metadata.name + ' says'",
    }],
  });
  await params("by-name", {
    name: "limits",
    parameterNotFoundAction: "Deny",
  });
  await params("by-selector", {
    selector: { matchLabels: { param: "set" } },
    parameterNotFoundAction: "Deny",
  });
  await params("missing-deny", {
    name: "absent",
    parameterNotFoundAction: "Deny",
  });
  await params("missing-allow", {
    name: "absent",
    parameterNotFoundAction: "Allow",
  });
  await params("none-deny", {
    selector: { matchLabels: { param: "none" } },
    parameterNotFoundAction: "Deny",
  });
  await vap("unknown-params", {
    paramKind: { apiVersion: "example.com/v1", kind: "Nothing" },
    validations: noForbidden,
  });
  await bind("unknown-params");
  await vap("no-ref", {
    paramKind: { apiVersion: "v1", kind: "ConfigMap" },
    validations: [{
      expression: "params == null && !('forbidden' in object.data)",
      message: "  padded message  ",
    }],
  });
  await bind("no-ref");
  await made.make("validatingadmissionpolicybindings", {
    metadata: { name: `${r.namespace}-missing-warn` },
    spec: {
      policyName: `${r.namespace}-params`,
      validationActions: ["Warn"],
      paramRef: {
        namespace: r.namespace,
        name: "absent",
        parameterNotFoundAction: "Deny",
      },
      matchResources: {
        objectSelector: { matchLabels: { binding: "missing-warn" } },
      },
    },
  });
  await made.attempt(
    "policy whose matchCondition or variable does not compile",
    "validatingadmissionpolicies",
    {
      metadata: { name: `${r.namespace}-conditions` },
      spec: {
        matchConstraints: constraints(r, "conditions-invalid"),
        matchConditions: [{ name: "bad", expression: "object.(" }, {
          name: "not-bool",
          expression: "'a'",
        }],
        variables: [{ name: "v", expression: "1 +" }],
        validations: [{ expression: "true" }],
      },
    },
  );
  await made.attempt(
    "policy whose audit annotation is not a string",
    "validatingadmissionpolicies",
    {
      metadata: { name: `${r.namespace}-annotation-int` },
      spec: {
        matchConstraints: constraints(r, "annotation-int"),
        validations: [{ expression: "true" }],
        auditAnnotations: [{
          key: "number",
          valueExpression: "object.data.size()",
        }, {
          key: "any",
          valueExpression: "object.data.missing",
        }],
      },
    },
  );
  await vap("annotation-error", {
    validations: [{ expression: "true" }],
    auditAnnotations: [{
      key: "broken",
      valueExpression: "string(object.data.missing)",
    }],
  });
  await bind("annotation-error", { validationActions: ["Warn"] });
  await vap("authorizer", {
    validations: [{
      expression:
        "authorizer.group('').resource('secrets').namespace(request.namespace).check('get').allowed() && authorizer.requestResource.check('create').allowed() && !('forbidden' in object.data)",
      message: "authorized, not forbidden",
    }],
  });
  await bind("authorizer");
  await vap("variable-error", {
    variables: [
      { name: "bad", expression: "object.data.missing" },
      { name: "good", expression: "'x'" },
    ],
    validations: [
      { expression: "variables.good == 'x'" },
      { expression: "variables.bad == 'y'" },
    ],
  });
  await bind("variable-error");
  const hundred = `[${Array.from({ length: 100 }, (_, i) => i).join(", ")}]`;
  await vap("costly", {
    validations: [{
      expression:
        `${hundred}.all(x, ${hundred}.all(y, ${hundred}.all(z, x + y + z >= 0)))`,
    }],
  });
  await bind("costly");
  await vap("message-space", {
    validations: [{
      expression: "!('forbidden' in object.data)",
      messageExpression: "'  spaced  '",
    }],
  });
  await bind("message-space");
  // The last made: when it is in force, so are the others.
  await vap("sentinel", { validations: noForbidden });
  await bind("sentinel");
  await inForce(
    r,
    "the policies to be in force",
    (n) => labelled(`probe-${n}`, "sentinel", { forbidden: "x" }),
  );
  await inForce(
    r,
    "the params to be in force",
    (n) =>
      labelled(`probe-params-${n}`, "params", { a: "1", b: "2", c: "3" }, {
        binding: "by-name",
      }),
  );

  const forbidden = { forbidden: "yes" };
  await r.send("deny with message", "POST", cms, {
    body: labelled("deny", "deny", forbidden),
  });
  await r.send("allowed", "POST", cms, { body: labelled("fine", "deny") });
  await r.send("deny with messageExpression and reason", "POST", cms, {
    body: labelled("expression", "expression", forbidden),
  });
  await r.send("deny without message", "POST", cms, {
    body: labelled("bare", "bare", forbidden),
  });
  await r.send("warn", "POST", cms, {
    body: labelled("warn", "warn", forbidden),
  });
  await r.send("audit", "POST", cms, {
    body: labelled("audit", "audit", forbidden),
  });
  await r.send("warn and audit", "POST", cms, {
    body: labelled("warn-audit", "warn-audit", forbidden),
  });
  await r.send("matchConditions false", "POST", cms, {
    body: labelled("unchecked", "conditions", forbidden),
  });
  await r.send("matchConditions true", "POST", cms, {
    body: labelled("checked", "conditions", forbidden, { check: "yes" }),
  });
  await r.send("excluded by name", "POST", cms, {
    body: labelled("exempt", "exclude", forbidden),
  });
  await r.send("not excluded", "POST", cms, {
    body: labelled("not-exempt", "exclude", forbidden),
  });
  await r.send("other namespace label", "POST", cms, {
    body: labelled("other", "nobody", forbidden),
  });
  await r.send("variables", "POST", cms, {
    body: labelled("variables", "variables", { a: "1", b: "2", c: "3" }),
  });
  await r.send("runtime error, Fail", "POST", cms, {
    body: labelled("error-fail", "error-fail"),
  });
  await r.send("runtime error, Ignore", "POST", cms, {
    body: labelled("error-ignore", "error-ignore"),
  });
  await r.send("does not type-check, runs", "POST", cms, {
    body: labelled("typecheck", "typecheck"),
  });
  const first = await r.send("update, create", "POST", cms, {
    body: labelled("update", "update"),
  });
  await r.send("update refused", "PUT", `${cms}/update`, {
    body: { ...(first.body as Obj), data: { k: "w" } },
  });
  await r.send("update allowed", "PUT", `${cms}/update`, {
    body: {
      ...(first.body as Obj),
      metadata: {
        ...(first.body as { metadata: Obj }).metadata,
        annotations: { a: "b" },
      },
    },
  });
  const three = { a: "1", b: "2", c: "3" };
  await r.send("params by name, over", "POST", cms, {
    body: labelled("by-name", "params", three, { binding: "by-name" }),
  });
  await r.send("params by name, within", "POST", cms, {
    body: labelled("by-name-ok", "params", { a: "1" }, { binding: "by-name" }),
  });
  await r.send("params by selector, one refuses", "POST", cms, {
    body: labelled("by-selector", "params", { a: "1", b: "2" }, {
      binding: "by-selector",
    }),
  });
  await r.send("params by selector, all allow", "POST", cms, {
    body: labelled("by-selector-ok", "params", { a: "1" }, {
      binding: "by-selector",
    }),
  });
  await r.send("params missing, Deny", "POST", cms, {
    body: labelled("missing-deny", "params", { a: "1" }, {
      binding: "missing-deny",
    }),
  });
  await r.send("params missing, Allow", "POST", cms, {
    body: labelled("missing-allow", "params", { a: "1" }, {
      binding: "missing-allow",
    }),
  });
  await r.send("params selector matches none, Deny", "POST", cms, {
    body: labelled("none-deny", "params", { a: "1" }, {
      binding: "none-deny",
    }),
  });
  await r.send("matchConditions error, Fail", "POST", cms, {
    body: labelled("condition-error", "condition-error", forbidden),
  });
  await r.send("matchConditions error, Ignore", "POST", cms, {
    body: labelled(
      "condition-error-ignore",
      "condition-error-ignore",
      forbidden,
    ),
  });
  await r.send("messageExpression fails, message stands in", "POST", cms, {
    body: labelled("message-error", "message-error", forbidden),
  });
  await r.send("messageExpression fails, no message", "POST", cms, {
    body: labelled("message-error-2", "message-error", { k: "second" }),
  });
  await r.send("delete, create", "POST", cms, {
    body: labelled("delete", "delete", { k: "keep" }),
  });
  await r.send("delete refused", "DELETE", `${cms}/delete`);
  await r.send("delete, create another", "POST", cms, {
    body: labelled("delete-ok", "delete", { k: "go" }),
  });
  await r.send("delete allowed", "DELETE", `${cms}/delete-ok`);
  await r.send("paramKind unknown", "POST", cms, {
    body: labelled("unknown-params", "unknown-params", forbidden),
  });
  await r.send("binding without paramRef", "POST", cms, {
    body: labelled("no-ref", "no-ref", forbidden),
  });
  await r.send("params missing, Deny, Warn binding", "POST", cms, {
    body: labelled("missing-warn", "params", { a: "1" }, {
      binding: "missing-warn",
    }),
  });
  await r.send("audit annotation fails", "POST", cms, {
    body: labelled("annotation-error", "annotation-error"),
  });
  await r.send("authorizer allows", "POST", cms, {
    body: labelled("authorizer", "authorizer"),
  });
  await r.send("authorizer allows, refused", "POST", cms, {
    body: labelled("authorizer-refused", "authorizer", forbidden),
  });
  await r.send("a variable that fails", "POST", cms, {
    body: labelled("variable-error", "variable-error"),
  });
  await r.send("over the cost limit", "POST", cms, {
    body: labelled("costly", "costly"),
  });
  await r.send("messageExpression trimmed", "POST", cms, {
    body: labelled("message-space", "message-space", forbidden),
  });
  await r.send("dry run denied", "POST", `${cms}?dryRun=All`, {
    body: labelled("dry", "deny", forbidden),
  });
  const typecheck =
    `${ADMISSION}/validatingadmissionpolicies/${r.namespace}-typecheck`;
  await r.until("the type check", async () => {
    const answer = await r.send("probe", "GET", typecheck, { quiet: true });
    const status = (answer.body as { status?: { typeChecking?: unknown } })
      .status;
    return status?.typeChecking !== undefined;
  }, 60_000);
  const checked = await r.send("type checking in the status", "GET", typecheck);
  // The status alone, compared exactly (the whole object differs in its
  // managedFields, a known difference).
  r.steps.push({
    step: "the type checking",
    request: "STATUS typecheck",
    status: 0,
    body: (checked.body as { status?: unknown }).status,
  });
  const deny = `${ADMISSION}/validatingadmissionpolicies/${r.namespace}-deny`;
  await r.send("a policy that type-checks", "GET", deny);
}

async function mutatingPolicies(r: Run): Promise<void> {
  const seen: unknown[] = [];
  await using hooks = new WebhookServer({
    hostname: "127.0.0.1",
    port: 0,
    cert: testCerts.serverCert,
    key: testCerts.serverKey,
    logger: discardLogger(),
    webhooks: {
      "/hook": mutating((request) => {
        const object = request.object as unknown as {
          metadata: { name?: string };
          data?: Record<string, string>;
        };
        if (!object.metadata.name?.startsWith("probe-")) {
          seen.push({ name: object.metadata.name, data: { ...object.data } });
        }
        object.data = { ...object.data, hooked: "yes" };
      }),
    },
  });
  await using made = new Made(r);
  const cms = r.path("configmaps");
  const map = (label: string, spec: Obj, step?: string): Promise<Obj> =>
    made.make("mutatingadmissionpolicies", {
      metadata: { name: `${r.namespace}-${label}` },
      spec: {
        matchConstraints: constraints(r, label),
        reinvocationPolicy: "Never",
        ...spec,
      },
    }, step);
  const bind = (label: string, spec: Obj = {}, step?: string): Promise<Obj> =>
    made.make("mutatingadmissionpolicybindings", {
      metadata: { name: `${r.namespace}-${label}` },
      spec: { policyName: `${r.namespace}-${label}`, ...spec },
    }, step);
  const apply = (expression: string): Obj => ({
    patchType: "ApplyConfiguration",
    applyConfiguration: { expression },
  });
  const jsonPatch = (expression: string): Obj => ({
    patchType: "JSONPatch",
    jsonPatch: { expression },
  });

  await r.send(
    "policy without reinvocationPolicy",
    "POST",
    `${ADMISSION}/mutatingadmissionpolicies`,
    {
      body: {
        metadata: { name: `${r.namespace}-invalid` },
        spec: {
          matchConstraints: constraints(r, "invalid"),
          mutations: [apply("Object{}")],
        },
      },
    },
  );
  const invalid = (step: string, name: string, spec: Obj): Promise<void> =>
    made.attempt(step, "mutatingadmissionpolicies", {
      metadata: { name: `${r.namespace}-${name}` },
      spec: {
        matchConstraints: constraints(r, name),
        reinvocationPolicy: "Never",
        ...spec,
      },
    });
  await invalid("mutation that does not compile", "syntax", {
    mutations: [apply("Object{data: {'a': }}"), jsonPatch("[JSONPatch{op: }]")],
  });
  await invalid("mutation of the wrong type", "types", {
    mutations: [
      apply("{'a': 'b'}"),
      jsonPatch("JSONPatch{op: 'add', path: '/a', value: 'b'}"),
      apply("Object{data: {'a': 'b'}}.data"),
    ],
  });
  await invalid(
    "matchCondition and variable that do not compile",
    "conditions",
    {
      matchConditions: [{ name: "bad", expression: "object.(" }, {
        name: "not-bool",
        expression: "'a'",
      }],
      variables: [{ name: "v", expression: "1 +" }],
      mutations: [apply("Object{}")],
    },
  );
  await map("apply", {
    mutations: [apply(
      "Object{metadata: Object.metadata{labels: {'mutated': 'yes'}}}",
    )],
  }, "create policy");
  await bind("apply", {}, "create binding");
  await map("patch", {
    mutations: [jsonPatch(
      "[JSONPatch{op: 'add', path: '/data/patched', value: string(object.data.size())}]",
    )],
  });
  await bind("patch");
  await map("escape", {
    mutations: [jsonPatch(
      "[JSONPatch{op: 'add', path: '/metadata/labels/' + jsonpatch.escapeKey('example.com/team'), value: 'a'}]",
    )],
  });
  await bind("escape");
  // Two policies on one label: one reads what the other writes. The API
  // server runs them in its informer's order (not defined), so the first
  // is IfNeeded: either way it ends up seeing the second's change.
  const order = constraints(r, "order");
  await map("order-a", {
    matchConstraints: order,
    reinvocationPolicy: "IfNeeded",
    mutations: [apply(
      "Object{data: {'seen': 'b' in object.data ? 'b' : 'none'}}",
    )],
  });
  await bind("order-a");
  await map("order-b", {
    matchConstraints: order,
    mutations: [apply("Object{data: {'b': 'set'}}")],
  });
  await bind("order-b");
  await map("params", {
    paramKind: { apiVersion: "v1", kind: "ConfigMap" },
    variables: [{ name: "value", expression: "params.data.value" }],
    mutations: [apply(
      "Object{data: {'from-params': variables.value}}",
    )],
  });
  await r.send("param", "POST", cms, {
    body: configMap("mutation-params", { value: "hello" }),
    quiet: true,
  });
  await bind("params", {
    paramRef: {
      name: "mutation-params",
      namespace: r.namespace,
      parameterNotFoundAction: "Deny",
    },
  });
  await map("params-missing", {
    paramKind: { apiVersion: "v1", kind: "ConfigMap" },
    mutations: [apply("Object{data: {'p': params.data.value}}")],
  });
  await bind("params-missing", {
    paramRef: {
      name: "absent",
      namespace: r.namespace,
      parameterNotFoundAction: "Deny",
    },
  });
  await map("error-fail", {
    mutations: [apply("Object{data: {'x': object.data.missing}}")],
  });
  await bind("error-fail");
  await map("error-ignore", {
    failurePolicy: "Ignore",
    mutations: [apply("Object{data: {'x': object.data.missing}}")],
  });
  await bind("error-ignore");
  // A mutation and a validating policy in one request: the validation
  // sees the mutated object.
  const both = constraints(r, "both");
  await map("both", {
    matchConstraints: both,
    mutations: [apply("Object{data: {'stage': 'mutated'}}")],
  });
  await bind("both");
  await made.make("validatingadmissionpolicies", {
    metadata: { name: `${r.namespace}-both` },
    spec: {
      matchConstraints: both,
      validations: [{
        expression: "object.data.stage == 'mutated'",
        messageExpression: "'saw stage ' + object.data.stage",
      }, {
        expression:
          "object.data.stage != 'mutated' || !('refuse' in object.data)",
        messageExpression: "'refused after the mutation: ' + object.data.stage",
      }],
    },
  });
  await made.make("validatingadmissionpolicybindings", {
    metadata: { name: `${r.namespace}-both` },
    spec: {
      policyName: `${r.namespace}-both`,
      validationActions: ["Deny"],
    },
  });
  // A policy and a webhook: the policy (IfNeeded) is called again after
  // the webhook's change.
  await map("cross", {
    reinvocationPolicy: "IfNeeded",
    mutations: [apply(
      "Object{data: {'seen': 'hooked' in object.data ? 'hooked' : 'none'}}",
    )],
  });
  await bind("cross");
  await map("cross-never", {
    reinvocationPolicy: "Never",
    mutations: [apply(
      "Object{data: {'seen': 'hooked' in object.data ? 'hooked' : 'none'}}",
    )],
  });
  await bind("cross-never");
  await made.make("mutatingwebhookconfigurations", {
    metadata: { name: `${r.namespace}-cross` },
    webhooks: [{
      name: "cross.webhooks.example.com",
      clientConfig: {
        url: `https://127.0.0.1:${hooks.port}/hook`,
        caBundle: btoa(testCerts.caCert),
      },
      rules: [{
        operations: ["CREATE"],
        apiGroups: [""],
        apiVersions: ["v1"],
        resources: ["configmaps"],
      }],
      namespaceSelector: {
        matchLabels: { "kubernetes.io/metadata.name": r.namespace },
      },
      objectSelector: {
        matchExpressions: [{
          key: "policy",
          operator: "In",
          values: ["cross", "cross-never"],
        }],
      },
      sideEffects: "None",
      admissionReviewVersions: ["v1"],
      timeoutSeconds: 5,
    }],
  });
  // An apply configuration merges a list map (containers) by its key.
  await map("sidecar", {
    matchConstraints: {
      ...constraints(r, "sidecar"),
      resourceRules: [{
        apiGroups: ["apps"],
        apiVersions: ["v1"],
        operations: ["CREATE"],
        resources: ["deployments"],
      }],
    },
    mutations: [apply(
      "Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [" +
        "Object.spec.template.spec.containers{name: 'main', image: 'main:2'}, " +
        "Object.spec.template.spec.containers{name: 'sidecar', image: 'side:1'}]}}}}",
    )],
  });
  await bind("sidecar");
  await map("sentinel", {
    mutations: [
      apply("Object{metadata: Object.metadata{labels: {'sentinel': 'seen'}}}"),
    ],
  });
  await bind("sentinel");
  await inForce(
    r,
    "the mutating policies to be in force",
    (n) => labelled(`probe-${n}`, "sentinel"),
    (a) => {
      const labels = (a.body as { metadata?: { labels?: Obj } }).metadata
        ?.labels ?? {};
      return "sentinel" in labels;
    },
  );
  await inForce(
    r,
    "the validating policy to be in force",
    (n) => labelled(`probe-both-${n}`, "both", { refuse: "yes" }),
  );
  await inForce(
    r,
    "the webhook to be in force",
    (n) => labelled(`probe-cross-${n}`, "cross"),
    (a) => "hooked" in ((a.body as { data?: Obj }).data ?? {}),
  );

  await r.send("apply configuration", "POST", cms, {
    body: labelled("apply", "apply"),
  });
  await r.send("json patch", "POST", cms, {
    body: labelled("patch", "patch", { a: "1", b: "2" }),
  });
  await r.send("json patch, escaped key", "POST", cms, {
    body: labelled("escape", "escape"),
  });
  await r.send("reinvoked", "POST", cms, {
    body: labelled("order", "order"),
  });
  await r.send("params and variables", "POST", cms, {
    body: labelled("params", "params"),
  });
  await r.send("runtime error, Fail", "POST", cms, {
    body: labelled("error-fail", "error-fail"),
  });
  await r.send("runtime error, Ignore", "POST", cms, {
    body: labelled("error-ignore", "error-ignore"),
  });
  await r.send("params missing, Deny", "POST", cms, {
    body: labelled("params-missing", "params-missing"),
  });
  await r.send("mutated then validated", "POST", cms, {
    body: labelled("both", "both"),
  });
  await r.send("mutated then refused", "POST", cms, {
    body: labelled("both-refused", "both", { refuse: "yes" }),
  });
  await r.send("apply configuration, update", "PUT", `${cms}/apply`, {
    body: labelled("apply", "apply", { k: "w" }),
  });
  const deployment = await r.send(
    "list map merged, create",
    "POST",
    r.path("deployments", "apps/v1"),
    {
      body: {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "sidecar", labels: { policy: "sidecar" } },
        spec: {
          selector: { matchLabels: { app: "sidecar" } },
          template: {
            metadata: { labels: { app: "sidecar" } },
            spec: {
              containers: [{ name: "main", image: "main:1", args: ["run"] }],
            },
          },
        },
      },
      quiet: true,
    },
  );
  r.steps.push({
    step: "list map merged",
    request: "CONTAINERS sidecar",
    status: deployment.status,
    body: ((deployment.body as {
      spec?: { template?: { spec?: { containers?: Obj[] } } };
    }).spec?.template?.spec?.containers ?? []).map((c) => ({
      name: c.name,
      image: c.image,
      args: c.args ?? null,
    })),
  });
  await r.send("policy reinvoked after a webhook", "POST", cms, {
    body: labelled("cross", "cross"),
  });
  await r.send("policy not reinvoked after a webhook", "POST", cms, {
    body: labelled("cross-never", "cross-never"),
  });
  r.steps.push({
    step: "what the webhook saw",
    request: "WEBHOOK reviews",
    status: 0,
    body: seen,
  });
}

/** The scenarios of this area, in order. */
export const POLICIES: readonly Scenario[] = [
  { name: "validating-admission-policies", run: validating },
  { name: "mutating-admission-policies", run: mutatingPolicies },
];
