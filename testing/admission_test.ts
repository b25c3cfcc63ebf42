// The default admission plugins that read other objects: ServiceAccount,
// Priority, and the PodDisruptionBudget an eviction honours; and the
// ServiceAccount controller's default account of a new Namespace.
import assert from "node:assert/strict";
import { FakeApiServer } from "./mod.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

async function send(
  server: FakeApiServer,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Json }> {
  const res = await server.fetch(`${server.url}${path}`, {
    method,
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json() };
}

const PODS = "/api/v1/namespaces/default/pods";
const TOKEN_PATH = "/var/run/secrets/kubernetes.io/serviceaccount";

function pod(name: string, spec: Json = {}, labels: Json = {}): Json {
  return {
    metadata: { name, labels },
    spec: { containers: [{ name: "app", image: "nginx:1.27" }], ...spec },
  };
}

Deno.test("ServiceAccount: the token volume is mounted in every container, unless automount is off or the path is taken", async () => {
  await using server = new FakeApiServer();
  const made = await send(
    server,
    "POST",
    PODS,
    pod("auto", {
      initContainers: [{ name: "init", image: "busybox:1.37" }],
    }),
  );
  assert.equal(made.status, 201);
  const spec = made.body.spec;
  assert.equal(spec.volumes.length, 1);
  const volume = spec.volumes[0];
  assert.match(volume.name, /^kube-api-access-[a-z0-9]{5}$/);
  assert.deepEqual(volume.projected.sources[0], {
    serviceAccountToken: { expirationSeconds: 3607, path: "token" },
  });
  for (const c of [...spec.containers, ...spec.initContainers]) {
    assert.deepEqual(c.volumeMounts, [
      { name: volume.name, readOnly: true, mountPath: TOKEN_PATH },
    ]);
  }
  const off = await send(
    server,
    "POST",
    PODS,
    pod("off", {
      automountServiceAccountToken: false,
    }),
  );
  assert.equal(off.body.spec.volumes, undefined);
  await send(server, "POST", "/api/v1/namespaces/default/serviceaccounts", {
    metadata: { name: "quiet" },
    automountServiceAccountToken: false,
  });
  const quiet = await send(
    server,
    "POST",
    PODS,
    pod("quiet", {
      serviceAccountName: "quiet",
    }),
  );
  assert.equal(quiet.body.spec.volumes, undefined);
  const own = await send(
    server,
    "POST",
    PODS,
    pod("own", {
      containers: [{
        name: "app",
        image: "nginx:1.27",
        volumeMounts: [{ name: "mine", mountPath: TOKEN_PATH }],
      }],
      volumes: [{ name: "mine", emptyDir: {} }],
    }),
  );
  assert.deepEqual(own.body.spec.volumes, [{ name: "mine", emptyDir: {} }]);
});

Deno.test("ServiceAccount: a missing account is 403; a new Namespace gets its default account", async () => {
  await using server = new FakeApiServer();
  const lost = await send(
    server,
    "POST",
    PODS,
    pod("lost", {
      serviceAccountName: "missing",
    }),
  );
  assert.equal(lost.status, 403);
  assert.equal(
    lost.body.message,
    'pods "lost" is forbidden: error looking up service account default/missing: serviceaccount "missing" not found',
  );
  await send(server, "POST", "/api/v1/namespaces", {
    metadata: { name: "team" },
  });
  assert.ok(server.object("/api/v1/namespaces/team/serviceaccounts/default"));
  const made = await send(
    server,
    "POST",
    "/api/v1/namespaces/team/pods",
    pod("p"),
  );
  assert.equal(made.status, 201);
  // Without its default account (deleted here; on a real server before
  // the controller made it) a Pod is refused, as kube-apiserver does.
  server.remove("/api/v1/namespaces/team/serviceaccounts/default");
  const early = await send(
    server,
    "POST",
    "/api/v1/namespaces/team/pods",
    pod("q", { automountServiceAccountToken: false }),
  );
  assert.equal(early.status, 403);
  assert.match(early.body.message, /serviceaccount "default" not found/);
});

Deno.test("Priority: the class gives the priority and preemption policy; a missing class is 403; the global default applies", async () => {
  await using server = new FakeApiServer();
  const critical = await send(
    server,
    "POST",
    PODS,
    pod("c", {
      priorityClassName: "system-cluster-critical",
    }),
  );
  assert.equal(critical.body.spec.priority, 2000000000);
  assert.equal(critical.body.spec.preemptionPolicy, "PreemptLowerPriority");
  const missing = await send(
    server,
    "POST",
    PODS,
    pod("m", {
      priorityClassName: "nope",
    }),
  );
  assert.equal(missing.status, 403);
  assert.equal(
    missing.body.message,
    'pods "m" is forbidden: no PriorityClass with name nope was found',
  );
  assert.equal(
    (await send(server, "POST", "/apis/scheduling.k8s.io/v1/priorityclasses", {
      metadata: { name: "usual" },
      value: 7,
      globalDefault: true,
      preemptionPolicy: "Never",
    })).status,
    201,
  );
  const plain = await send(server, "POST", PODS, pod("plain"));
  assert.equal(plain.body.spec.priorityClassName, "usual");
  assert.equal(plain.body.spec.priority, 7);
  assert.equal(plain.body.spec.preemptionPolicy, "Never");
});

Deno.test("eviction: a PodDisruptionBudget that allows no disruption is 429; one that does is spent", async () => {
  await using server = new FakeApiServer();
  const made = await send(server, "POST", PODS, pod("g", {}, { app: "g" }));
  const evict = () =>
    send(server, "POST", `${PODS}/g/eviction`, {
      apiVersion: "policy/v1",
      kind: "Eviction",
      metadata: { name: "g" },
    });
  const running = structuredClone(made.body);
  running.status = {
    phase: "Running",
    conditions: [{ type: "Ready", status: "True" }],
  };
  await send(server, "PUT", `${PODS}/g/status`, running);
  const pdbs = "/apis/policy/v1/namespaces/default/poddisruptionbudgets";
  const budget = await send(server, "POST", pdbs, {
    metadata: { name: "b" },
    spec: { minAvailable: 1, selector: { matchLabels: { app: "g" } } },
  });
  // Not yet observed by a disruption controller.
  const early = await evict();
  assert.equal(early.status, 429);
  assert.equal(early.body.details.retryAfterSeconds, 10);
  const status = (allowed: number) => ({
    ...budget.body,
    metadata: { ...budget.body.metadata, resourceVersion: undefined },
    status: {
      observedGeneration: 1,
      disruptionsAllowed: allowed,
      currentHealthy: 1,
      desiredHealthy: 1,
      expectedPods: 1,
    },
  });
  await send(server, "PUT", `${pdbs}/b/status`, status(0));
  const refused = await evict();
  assert.equal(refused.status, 429);
  assert.deepEqual(refused.body.details.causes, [{
    reason: "DisruptionBudget",
    message: "The disruption budget b needs 1 healthy pods and has 1 currently",
  }]);
  assert.ok(server.object(`${PODS}/g`));
  await send(server, "PUT", `${pdbs}/b/status`, status(1));
  assert.equal((await evict()).status, 201);
  assert.equal(server.object(`${PODS}/g`), undefined);
  const after = server.object(`${pdbs}/b`) as Json;
  assert.equal(after.status.disruptionsAllowed, 0);
  assert.ok(after.status.disruptedPods.g);
  assert.equal(after.status.conditions[0].reason, "InsufficientPods");
});

Deno.test("eviction: a Pending pod goes whatever its budget says", async () => {
  await using server = new FakeApiServer();
  await send(server, "POST", PODS, pod("p", {}, { app: "p" }));
  await send(
    server,
    "POST",
    "/apis/policy/v1/namespaces/default/poddisruptionbudgets",
    {
      metadata: { name: "b" },
      spec: { minAvailable: 1, selector: { matchLabels: { app: "p" } } },
    },
  );
  const res = await send(server, "POST", `${PODS}/p/eviction`, {
    metadata: { name: "p" },
  });
  assert.equal(res.status, 201);
  assert.equal(server.object(`${PODS}/p`), undefined);
});
