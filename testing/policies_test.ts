// Admission policies on the fake beside admission webhooks: the order of
// the stages of a write (mutating policies, mutating webhooks, the
// registry's validation, validating policies, validating webhooks), each
// seeing the one before; reinvocation across policies and webhooks; audit
// annotations; a policy on DELETE and on a custom resource. The answers'
// wording is checked against the recorded goldens by the differential
// suite (`differential/scenarios/policies.ts`).
import assert from "node:assert/strict";
import { mutating, validating } from "../webhook/mod.ts";
import {
  ADMISSION,
  type Fixture,
  fixture,
} from "./_admission/webhooks_test_util.ts";

const GROUP = "trails.liken.dev";
const TRAILS = `/apis/${GROUP}/v1/namespaces/default/trails`;

type Trail = {
  metadata: { name: string; labels?: Record<string, string> };
  spec?: { steps?: string[] };
};

const RULES = [{
  apiGroups: [GROUP],
  apiVersions: ["v1"],
  operations: ["CREATE", "UPDATE", "DELETE"],
  resources: ["trails"],
}];

/** A CRD of `Trail`s whose schema allows at most three steps. */
async function trails(f: Fixture): Promise<void> {
  const made = await f.send(
    "POST",
    "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
    {
      metadata: { name: `trails.${GROUP}` },
      spec: {
        group: GROUP,
        scope: "Namespaced",
        names: {
          plural: "trails",
          singular: "trail",
          kind: "Trail",
          listKind: "TrailList",
        },
        versions: [{
          name: "v1",
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: "object",
              properties: {
                spec: {
                  type: "object",
                  properties: {
                    steps: {
                      type: "array",
                      maxItems: 3,
                      items: { type: "string" },
                    },
                  },
                },
              },
            },
          },
        }],
      },
    },
  );
  assert.equal(made.status, 201, JSON.stringify(made.body));
}

function trail(name: string, steps: string[]): Record<string, unknown> {
  return {
    apiVersion: `${GROUP}/v1`,
    kind: "Trail",
    metadata: { name },
    spec: { steps },
  };
}

async function policy(
  f: Fixture,
  kind: "Validating" | "Mutating",
  name: string,
  spec: Record<string, unknown>,
  binding: Record<string, unknown> = {},
): Promise<void> {
  const lower = kind.toLowerCase();
  const made = await f.send("POST", `${ADMISSION}/${lower}admissionpolicies`, {
    metadata: { name },
    spec: {
      matchConstraints: { resourceRules: RULES },
      ...(kind === "Mutating" ? { reinvocationPolicy: "Never" } : {}),
      ...spec,
    },
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const bound = await f.send(
    "POST",
    `${ADMISSION}/${lower}admissionpolicybindings`,
    {
      metadata: { name },
      spec: {
        policyName: name,
        ...(kind === "Validating" ? { validationActions: ["Deny"] } : {}),
        ...binding,
      },
    },
  );
  assert.equal(bound.status, 201, JSON.stringify(bound.body));
}

Deno.test({
  name:
    "policies: each stage of a write sees the change of the one before (mutating policy, mutating webhook, schema, validating policy, validating webhook)",
  timeout: 20_000,
  async fn(): Promise<void> {
    const saw: Record<string, string[][]> = { mutate: [], validate: [] };
    const steps = (
      object: unknown,
    ): string[] => [...((object as Trail | undefined)?.spec?.steps ?? [])];
    await using f = await fixture({
      webhooks: {
        "/trail": mutating<Trail>((request) => {
          saw.mutate!.push(steps(request.object));
          request.object!.spec!.steps!.push("webhook");
        }),
        "/check": validating((request) => {
          saw.validate!.push(steps(request.object));
        }),
      },
    });
    await trails(f);
    await policy(f, "Mutating", "add-policy", {
      mutations: [{
        patchType: "JSONPatch",
        jsonPatch: {
          expression:
            "[JSONPatch{op: 'add', path: '/spec/steps/-', value: 'policy'}]",
        },
      }],
    });
    await f.configure("Mutating", "trail", [
      f.hook("/trail", { rules: RULES }),
    ]);
    await policy(f, "Validating", "check-trail", {
      validations: [{
        expression: "object.spec.steps.size() >= 3 && " +
          "object.spec.steps[1] == 'policy' && object.spec.steps[2] == 'webhook'",
        messageExpression: "'steps: ' + object.spec.steps.join(',')",
      }],
    });
    await f.configure("Validating", "check", [
      f.hook("/check", { rules: RULES }),
    ]);

    const made = await f.send("POST", TRAILS, trail("one", ["client"]));
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.deepEqual((made.body as Trail).spec?.steps, [
      "client",
      "policy",
      "webhook",
    ]);
    // The mutating webhook saw the policy's change; the validating one
    // saw both.
    assert.deepEqual(saw.mutate, [["client", "policy"]]);
    assert.deepEqual(saw.validate, [["client", "policy", "webhook"]]);

    // The schema sees both mutations: four steps are one too many, and
    // neither validating stage is reached.
    const long = await f.send("POST", TRAILS, trail("two", ["client", "more"]));
    assert.equal(long.status, 422, JSON.stringify(long.body));
    assert.match(String(long.body.message), /spec\.steps: Too many: 4/);
    assert.equal(saw.validate.length, 1);

    // The validating policy sees the mutated object, and runs before the
    // validating webhook (which is not called when it refuses).
    await f.send("DELETE", `${ADMISSION}/mutatingwebhookconfigurations/trail`);
    const refused = await f.send("POST", TRAILS, trail("three", ["client"]));
    assert.equal(refused.status, 422, JSON.stringify(refused.body));
    assert.match(
      String(refused.body.message),
      /ValidatingAdmissionPolicy 'check-trail' with binding 'check-trail' denied request: steps: client,policy$/,
    );
    assert.equal(saw.validate.length, 1);
  },
});

Deno.test({
  name:
    "policies: a mutating policy with IfNeeded is called again after a webhook's change, one with Never is not",
  timeout: 20_000,
  async fn(): Promise<void> {
    await using f = await fixture({
      webhooks: {
        "/label": mutating<Trail>((request) => {
          request.object!.metadata.labels = {
            ...request.object!.metadata.labels,
            hooked: "yes",
          };
        }),
      },
    });
    await trails(f);
    const seen = (policy: string): Record<string, unknown> => ({
      patchType: "ApplyConfiguration",
      applyConfiguration: {
        expression:
          `Object{metadata: Object.metadata{annotations: {'${policy}': ` +
          "has(object.metadata.labels) && 'hooked' in object.metadata.labels ? 'hooked' : 'plain'}}}",
      },
    });
    await policy(f, "Mutating", "again", {
      reinvocationPolicy: "IfNeeded",
      mutations: [seen("again")],
    });
    await policy(f, "Mutating", "once", {
      reinvocationPolicy: "Never",
      mutations: [seen("once")],
    });
    await f.configure("Mutating", "label", [
      f.hook("/label", { rules: RULES }),
    ]);
    const made = await f.send("POST", TRAILS, trail("t", []));
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const meta = (made.body as {
      metadata: { annotations?: Record<string, string> };
    }).metadata;
    assert.deepEqual(meta.annotations, { again: "hooked", once: "plain" });
  },
});

Deno.test("policies: audit annotations, a Warn binding, a DELETE refused, in force at once", async () => {
  await using f = await fixture();
  await trails(f);
  await policy(f, "Validating", "audited", {
    // On DELETE `object` is null: the annotation would fail, and deny.
    matchConstraints: {
      resourceRules: [{ ...RULES[0], operations: ["CREATE"] }],
    },
    validations: [{
      expression: "object.spec.steps.size() < 2",
      message: "too long",
    }],
    auditAnnotations: [{
      key: "steps",
      valueExpression: "string(object.spec.steps.size())",
    }],
  }, { validationActions: ["Audit", "Warn"] });
  const made = await f.send("POST", TRAILS, trail("a", ["x", "y"]));
  assert.equal(made.status, 201, JSON.stringify(made.body));
  assert.equal(
    made.headers.get("warning"),
    `299 - "Validation failed for ValidatingAdmissionPolicy 'audited' with binding 'audited': too long"`,
  );
  const request = f.api.requests.findLast((r) => r.method === "POST")!;
  assert.deepEqual(request.auditAnnotations, {
    "audited/steps": "2",
    "validation.policy.admission.k8s.io/validation_failure": JSON.stringify([{
      message: "too long",
      policy: "audited",
      binding: "audited",
      expressionIndex: 0,
      validationActions: ["Audit", "Warn"],
    }]),
  });

  await policy(f, "Validating", "keep", {
    matchConstraints: {
      resourceRules: [{ ...RULES[0], operations: ["DELETE"] }],
    },
    validations: [{
      expression: "oldObject.metadata.name != 'a'",
      message: "keep a",
      reason: "Forbidden",
    }],
  });
  const deleted = await f.send("DELETE", `${TRAILS}/a`);
  assert.equal(deleted.status, 403, JSON.stringify(deleted.body));
  assert.equal(
    deleted.body.message,
    `trails.${GROUP} "a" is forbidden: ValidatingAdmissionPolicy 'keep' with binding 'keep' denied request: keep a`,
  );
  assert.equal(
    (deleted.body.details as { group?: string }).group,
    GROUP,
  );
});

Deno.test("policies: an apply configuration merges a list map by its keys", async () => {
  await using f = await fixture();
  const made = await f.send(
    "POST",
    `${ADMISSION}/mutatingadmissionpolicies`,
    {
      metadata: { name: "sidecar" },
      spec: {
        matchConstraints: {
          resourceRules: [{
            apiGroups: [""],
            apiVersions: ["v1"],
            operations: ["CREATE"],
            resources: ["pods"],
          }],
        },
        reinvocationPolicy: "Never",
        mutations: [{
          patchType: "ApplyConfiguration",
          applyConfiguration: {
            expression:
              "Object{spec: Object.spec{containers: [Object.spec.containers{name: 'main', image: 'main:2'}, Object.spec.containers{name: 'sidecar', image: 'side:1'}]}}",
          },
        }],
      },
    },
  );
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const bound = await f.send(
    "POST",
    `${ADMISSION}/mutatingadmissionpolicybindings`,
    { metadata: { name: "sidecar" }, spec: { policyName: "sidecar" } },
  );
  assert.equal(bound.status, 201, JSON.stringify(bound.body));
  const pod = await f.send("POST", "/api/v1/namespaces/default/pods", {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p" },
    spec: {
      containers: [{ name: "main", image: "main:1", command: ["run"] }],
    },
  });
  assert.equal(pod.status, 201, JSON.stringify(pod.body));
  const containers = (pod.body.spec as {
    containers: { name: string; image: string; command?: string[] }[];
  }).containers;
  assert.deepEqual(
    containers.map((c) => [c.name, c.image, c.command ?? null]),
    [["main", "main:2", ["run"]], ["sidecar", "side:1", null]],
  );
});

Deno.test("policies: the authorizer allows every check, as the fake authorizes every request", async () => {
  await using f = await fixture();
  await trails(f);
  await policy(f, "Validating", "authorized", {
    validations: [{
      expression:
        "authorizer.group('').resource('secrets').namespace('default').check('get').allowed() && " +
        "authorizer.requestResource.check('create').allowed() && request.operation == 'CREATE'",
      message: "not allowed",
    }],
  });
  const made = await f.send("POST", TRAILS, trail("t", []));
  assert.equal(made.status, 201, JSON.stringify(made.body));
  // A typed request: an operation is a string.
  const refused = await f.send(
    "POST",
    `${ADMISSION}/validatingadmissionpolicies`,
    {
      metadata: { name: "typed" },
      spec: {
        matchConstraints: { resourceRules: RULES },
        validations: [{ expression: "request.operation == 1" }],
      },
    },
  );
  assert.equal(refused.status, 422);
  assert.match(
    String(refused.body.message),
    /found no matching overload for '_==_' applied to '\(string, int\)'/,
  );
});

Deno.test("policies: the type checking types object by its kind's schema, metadata included", async () => {
  await using f = await fixture();
  await trails(f);
  const check = async (
    name: string,
    rules: unknown,
    expression: string,
  ): Promise<unknown> => {
    const made = await f.send(
      "POST",
      `${ADMISSION}/validatingadmissionpolicies`,
      {
        metadata: { name },
        spec: {
          matchConstraints: { resourceRules: rules },
          validations: [{ expression }],
        },
      },
    );
    assert.equal(made.status, 201, JSON.stringify(made.body));
    // The status is written before a request about something else.
    await f.send("GET", "/api/v1/namespaces");
    const read = await f.send(
      "GET",
      `${ADMISSION}/validatingadmissionpolicies/${name}`,
    );
    return (read.body.status as { typeChecking?: unknown }).typeChecking;
  };
  const configMaps = [{
    apiGroups: [""],
    apiVersions: ["v1"],
    operations: ["CREATE"],
    resources: ["configmaps"],
  }];
  assert.deepEqual(
    await check(
      "labels",
      configMaps,
      "object.metadata.labels['a'] == 'b' && object.data.size() > 0",
    ),
    {},
  );
  assert.deepEqual(
    await check("trail", RULES, "object.spec.steps.size() > 0"),
    {},
  );
  const warned = await check(
    "wrong",
    RULES,
    "object.spec.steps == 'x'",
  ) as { expressionWarnings: { fieldRef: string; warning: string }[] };
  assert.equal(
    warned.expressionWarnings[0]?.fieldRef,
    "spec.validations[0].expression",
  );
  assert.match(
    warned.expressionWarnings[0]!.warning,
    /^trails\.liken\.dev\/v1, Kind=Trail: ERROR: <input>:1:\d+: found no matching overload for '_==_'/,
  );
});

Deno.test("policies: params are read in the paramKind's version", async () => {
  await using f = await fixture();
  const open = {
    openAPIV3Schema: {
      type: "object",
      "x-kubernetes-preserve-unknown-fields": true,
    },
  };
  const crd = await f.send(
    "POST",
    "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
    {
      metadata: { name: "limits.liken.dev" },
      spec: {
        group: "liken.dev",
        scope: "Namespaced",
        names: { plural: "limits", singular: "limit", kind: "Limit" },
        versions: [
          { name: "v1", served: true, storage: true, schema: open },
          { name: "v2", served: true, storage: false, schema: open },
        ],
      },
    },
  );
  assert.equal(crd.status, 201, JSON.stringify(crd.body));
  const limit = await f.send(
    "POST",
    "/apis/liken.dev/v1/namespaces/default/limits",
    {
      apiVersion: "liken.dev/v1",
      kind: "Limit",
      metadata: { name: "l" },
      max: 1,
    },
  );
  assert.equal(limit.status, 201, JSON.stringify(limit.body));
  await trails(f);
  await policy(f, "Validating", "versioned", {
    paramKind: { apiVersion: "liken.dev/v2", kind: "Limit" },
    validations: [{
      expression: "params.apiVersion == 'liken.dev/v1'",
      messageExpression: "'params in ' + params.apiVersion",
    }],
  }, {
    paramRef: { name: "l", parameterNotFoundAction: "Deny" },
  });
  const made = await f.send("POST", TRAILS, trail("t", []));
  assert.equal(made.status, 422);
  assert.match(String(made.body.message), /params in liken\.dev\/v2$/);
});

Deno.test("policies: the expressions of one evaluation share a cost budget", async () => {
  await using f = await fixture();
  await trails(f);
  // Each within the per-call limit (about 740,000 as the engine counts),
  // fourteen over the 10M budget.
  const list = (n: number): string =>
    `[${Array.from({ length: n }, (_, i) => i).join(", ")}]`;
  const heavy = `${list(100)}.all(x, ${list(100)}.all(y, ${
    list(70)
  }.all(z, true)))`;
  await policy(f, "Validating", "budget", {
    validations: Array.from({ length: 14 }, () => ({ expression: heavy })),
  });
  const made = await f.send("POST", TRAILS, trail("t", []));
  assert.equal(made.status, 422, JSON.stringify(made.body));
  assert.match(
    String(made.body.message),
    /denied request: validation failed due to running out of cost budget, no further validation rules will be run$/,
  );
});
