// Admission policies written with the manifests module (the example
// operator's ValidatingAdmissionPolicy, and a MutatingAdmissionPolicy from
// mutatingPolicy) enforced identically by kube-apiserver and by the fake:
// the same writes on both, the same answers (issue 47).
import assert from "node:assert/strict";
import { mutatingPolicy, validatingPolicy } from "../../manifests/mod.ts";
import { GREETING } from "../../examples/greeting.ts";
import { BLANK_MESSAGE, GREETING_POLICY } from "../../examples/policy.ts";
import { FakeApiServer } from "../mod.ts";
import { eventually } from "./_eventually.ts";
import { suite } from "./_plane.ts";

const LABEL_POLICY = mutatingPolicy({
  name: "greeting-team.demo.liken.dev",
  resources: [GREETING],
  operations: ["CREATE"],
  mutations: [{
    applyConfiguration:
      "Object{metadata: Object.metadata{labels: {'team': 'greeters'}}}",
  }],
});

interface Server {
  url: string;
  fetch(request: Request): Promise<Response>;
}

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

async function send(
  server: Server,
  method: string,
  path: string,
  body?: unknown,
): Promise<Answer> {
  const response = await server.fetch(
    new Request(`${server.url}${path}`, {
      method,
      headers: { "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );
  return { status: response.status, body: await response.json() };
}

function greeting(name: string, message: string): unknown {
  return {
    apiVersion: GREETING.apiVersion,
    kind: GREETING.kind,
    metadata: { name },
    spec: { message },
  };
}

/**
 * Installs the CRD and the policies, waits until they are in force (at
 * once on the fake), and answers what the same writes get.
 */
async function exercise(server: Server, namespace: string): Promise<unknown[]> {
  const made = await send(
    server,
    "POST",
    "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
    GREETING.crd(),
  );
  // The real suite's steps share one control plane.
  assert.ok(made.status === 201 || made.status === 409, String(made.status));
  const path =
    `/apis/${GREETING.group}/${GREETING.version}/namespaces/${namespace}/${GREETING.resource}`;
  await eventually("the CRD to be served", async () => {
    return (await send(server, "GET", path)).status === 200;
  });
  const admission = "/apis/admissionregistration.k8s.io/v1";
  for (const object of [...GREETING_POLICY, ...LABEL_POLICY]) {
    const plural = object.kind.toLowerCase().replace(/y$/, "ie") + "s";
    const answer = await send(server, "POST", `${admission}/${plural}`, object);
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
  }
  let probe = 0;
  await eventually("the policies to be in force", async () => {
    const blank = await send(
      server,
      "POST",
      path,
      greeting(`probe-${probe++}`, " "),
    );
    if (blank.status !== 422) return false;
    const fine = await send(
      server,
      "POST",
      path,
      greeting(`probe-${probe++}`, "hi"),
    );
    const labels = (fine.body.metadata as { labels?: Record<string, string> })
      ?.labels;
    return labels?.team === "greeters";
  });
  const summary = (answer: Answer): unknown => ({
    status: answer.status,
    message: answer.body.message ?? null,
    reason: answer.body.reason ?? null,
    labels:
      (answer.body.metadata as { labels?: unknown } | undefined)?.labels ??
        null,
    spec: answer.body.spec ?? null,
  });
  const out: unknown[] = [];
  out.push(summary(await send(server, "POST", path, greeting("blank", "   "))));
  const fine = await send(server, "POST", path, greeting("fine", "Hello"));
  out.push(summary(fine));
  out.push(
    summary(
      await send(server, "PUT", `${path}/fine`, {
        ...fine.body,
        spec: { message: "" },
      }),
    ),
  );
  return out;
}

const EXPECTED = [{
  status: 422,
  message:
    `greetings.${GREETING.group} "blank" is forbidden: ValidatingAdmissionPolicy '${
      GREETING_POLICY[0].metadata.name
    }' with binding '${
      GREETING_POLICY[1].metadata.name
    }' denied request: ${BLANK_MESSAGE}`,
  reason: "Invalid",
  labels: null,
  spec: null,
}, {
  status: 201,
  message: null,
  reason: null,
  labels: { team: "greeters" },
  spec: { message: "Hello" },
}, {
  status: 422,
  message:
    `greetings.${GREETING.group} "fine" is forbidden: ValidatingAdmissionPolicy '${
      GREETING_POLICY[0].metadata.name
    }' with binding '${
      GREETING_POLICY[1].metadata.name
    }' denied request: ${BLANK_MESSAGE}`,
  reason: "Invalid",
  labels: null,
  spec: null,
}];

// Warn and Audit: a warning in the answer, annotations in the audit log.
const AUDIT_POLICY = validatingPolicy({
  name: "greeting-audit.demo.liken.dev",
  resources: [GREETING],
  operations: ["CREATE"],
  validations: [{
    expression: "object.spec.message.size() < 5",
    messageExpression: "'long message: ' + object.spec.message",
  }],
  auditAnnotations: [{
    key: "length",
    valueExpression: "string(object.spec.message.size())",
  }],
  actions: ["Warn", "Audit"],
});

/**
 * Installs the CRD and the Warn/Audit policy, waits for it, and answers
 * the warning of a create of `audited` (the audit annotations are read by
 * the caller, from the audit log or the fake's requests).
 */
async function audited(server: Server, namespace: string): Promise<string> {
  const made = await send(
    server,
    "POST",
    "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
    GREETING.crd(),
  );
  assert.ok(made.status === 201 || made.status === 409, String(made.status));
  const path =
    `/apis/${GREETING.group}/${GREETING.version}/namespaces/${namespace}/${GREETING.resource}`;
  await eventually("the CRD to be served", async () => {
    return (await send(server, "GET", path)).status === 200;
  });
  for (const object of AUDIT_POLICY) {
    const plural = object.kind.toLowerCase().replace(/y$/, "ie") + "s";
    const answer = await send(
      server,
      "POST",
      `/apis/admissionregistration.k8s.io/v1/${plural}`,
      object,
    );
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
  }
  const create = async (name: string): Promise<string> => {
    const response = await server.fetch(
      new Request(`${server.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(greeting(name, "a long one")),
      }),
    );
    await response.body?.cancel();
    return response.headers.get("warning") ?? "";
  };
  let probe = 0;
  await eventually("the audit policy to be in force", async () => {
    return (await create(`audit-probe-${probe++}`)) !== "";
  });
  return await create("audited");
}

const AUDIT_WARNING =
  `299 - "Validation failed for ValidatingAdmissionPolicy '${
    AUDIT_POLICY[0].metadata.name
  }' with binding '${
    AUDIT_POLICY[1].metadata.name
  }': long message: a long one"`;

/**
 * A fake holding `namespace`: the real steps' namespaces exist only on
 * kube-apiserver, and the fake, like its NamespaceLifecycle admission,
 * refuses a create in a namespace it does not hold (404).
 */
async function fakeWith(namespace: string): Promise<FakeApiServer> {
  const fake = new FakeApiServer();
  try {
    const made = await send(
      { url: fake.url, fetch: (request) => fake.fetch(request) },
      "POST",
      "/api/v1/namespaces",
      { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } },
    );
    assert.equal(made.status, 201, JSON.stringify(made.body));
    return fake;
  } catch (error) {
    await fake[Symbol.asyncDispose]();
    throw error;
  }
}

Deno.test("policies: the fake enforces the manifests' policies as recorded from kube-apiserver", async () => {
  await using fake = new FakeApiServer();
  const answers = await exercise(
    { url: fake.url, fetch: (request) => fake.fetch(request) },
    "default",
  );
  assert.deepEqual(answers, EXPECTED);
});

suite("admission policies from the manifests module", [
  [
    "Warn and Audit give the same warning and audit annotations",
    async ({ plane, namespace }) => {
      const warning = await audited({
        url: plane.ready.server,
        fetch: (request) => plane.fetch(request),
      }, namespace);
      assert.equal(warning, AUDIT_WARNING);
      const events = await eventually(
        "the create in the audit log",
        async () => {
          const lines = (await Deno.readTextFile(plane.ready.auditLog)).split(
            "\n",
          )
            .filter((l) => l.includes('"audited"'))
            .map((l) =>
              JSON.parse(l) as {
                verb: string;
                stage: string;
                objectRef?: { name?: string };
                annotations?: Record<string, string>;
              }
            )
            .filter((e) =>
              e.verb === "create" && e.stage === "ResponseComplete" &&
              e.objectRef?.name === "audited"
            );
          return lines.length > 0 ? lines : undefined;
        },
      );
      const real = Object.fromEntries(
        Object.entries(events[0]!.annotations ?? {}).filter(([key]) =>
          key.startsWith("validation.policy.") ||
          key.startsWith(AUDIT_POLICY[0].metadata.name!)
        ),
      );
      await using fake = await fakeWith(namespace);
      const fakeWarning = await audited(
        { url: fake.url, fetch: (request) => fake.fetch(request) },
        namespace,
      );
      assert.equal(fakeWarning, warning);
      const request = fake.requests.findLast((r) => r.method === "POST")!;
      assert.deepEqual(request.auditAnnotations, real);
    },
  ],
  [
    "kube-apiserver enforces them as the fake does",
    async ({ plane, namespace }) => {
      const real = await exercise({
        url: plane.ready.server,
        fetch: (request) => plane.fetch(request),
      }, namespace);
      await using fake = await fakeWith(namespace);
      const mine = await exercise(
        { url: fake.url, fetch: (request) => fake.fetch(request) },
        namespace,
      );
      assert.deepEqual(real, EXPECTED);
      assert.deepEqual(mine, real);
    },
  ],
], {
  // MutatingAdmissionPolicy is served in admissionregistration.k8s.io/v1
  // from 1.36 on; the answers are 1.37's.
  needs: {
    built:
      "the policies' answers are Kubernetes v1.37.2's, and MutatingAdmissionPolicy v1 needs 1.36 or later",
  },
});
