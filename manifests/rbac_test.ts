import assert from "node:assert/strict";
import {
  allows,
  type RbacObject,
  requestOf,
} from "../_internal/_rbac_test_util.ts";
import { Client } from "../apiclient/mod.ts";
import { type ControllerOptions, Manager } from "../controller/mod.ts";
import { FakeApiServer, installFakeTime } from "../testing/mod.ts";
import { rbac, rulesOf, sharderRules } from "./mod.ts";

const WIDGETS = {
  group: "example.com",
  version: "v1",
  resource: "widgets",
  kind: "Widget",
};
const CONFIGMAPS = { version: "v1", resource: "configmaps" };
const base: ControllerOptions = {
  name: "widgets",
  for: WIDGETS,
  reconcile: () => {},
};

/** `scope group/resource verb` for every rule. */
function grants(rules: ReturnType<typeof rulesOf>): string[] {
  return rules.flatMap((r) =>
    r.resources.flatMap((resource) =>
      r.verbs.map((v) =>
        `${r.namespace ?? "*"} ${r.apiGroups[0]}/${resource} ${v}`
      )
    )
  );
}

Deno.test("rulesOf: a primary alone is read and its status written", () => {
  assert.deepEqual(grants(rulesOf(base)), [
    "* example.com/widgets get",
    "* example.com/widgets list",
    "* example.com/widgets watch",
    "* example.com/widgets/status update",
  ]);
  assert.deepEqual(
    grants(rulesOf(base, { status: false })),
    [
      "* example.com/widgets get",
      "* example.com/widgets list",
      "* example.com/widgets watch",
    ],
  );
});

Deno.test("rulesOf: owned children are applied, their owner's finalizers updatable; deletes only when declared", () => {
  const owning = { ...base, owns: [CONFIGMAPS] };
  const plain = grants(rulesOf(owning));
  assert.ok(plain.includes("* /configmaps patch"));
  assert.ok(plain.includes("* /configmaps create"), "an apply that creates");
  assert.ok(!plain.includes("* /configmaps delete"));
  assert.ok(plain.includes("* example.com/widgets/finalizers update"));
  const deleting = grants(
    rulesOf(owning, { deleteChildren: true }),
  );
  assert.ok(deleting.includes("* /configmaps delete"));
  assert.ok(
    !grants(rulesOf(base)).some((g) => g.includes("finalizers")),
    "no children: no finalizers rule",
  );
});

Deno.test("rulesOf: mapped watches are read only; Events with a recorder; declared rules in the primary's scope", () => {
  const rules = grants(rulesOf({
    ...base,
    for: { ...WIDGETS, namespace: "shop" },
    watches: [{ source: { ...CONFIGMAPS, namespace: "shop" }, map: () => [] }],
    wiring: { events: {} },
  }, {
    rules: [{ apiGroups: [""], resources: ["secrets"], verbs: ["get"] }],
  }));
  assert.deepEqual(rules.filter((g) => g.includes("configmaps")), [
    "shop /configmaps get",
    "shop /configmaps list",
    "shop /configmaps watch",
  ]);
  assert.ok(rules.includes("shop /events create"));
  assert.ok(rules.includes("shop /events patch"));
  assert.ok(rules.includes("shop /secrets get"));
  assert.ok(rules.every((g) => g.startsWith("shop ")), "no cluster rule");
});

Deno.test("rbac: a ClusterRole for cluster-wide rules, a Role per namespace, merged verbs, bindings to the ServiceAccount", () => {
  const objects = rbac({
    name: "op",
    serviceAccount: { name: "op", namespace: "ops" },
    controllers: [
      { ...base, owns: [CONFIGMAPS] },
      // A second controller on the same ConfigMaps: one merged rule.
      {
        ...base,
        name: "second",
        for: { ...CONFIGMAPS, kind: "ConfigMap" },
      },
      { ...base, name: "local", for: { ...WIDGETS, namespace: "shop" } },
    ],
    permissions: { second: { status: false, deleteChildren: true } },
    lease: { namespace: "ops", name: "op" },
  }) as unknown as {
    kind: string;
    metadata: { name: string; namespace?: string };
    rules?: { apiGroups: string[]; resources: string[]; verbs: string[] }[];
    subjects?: unknown[];
    roleRef?: { kind: string; name: string };
  }[];
  assert.deepEqual(objects.map((o) => `${o.kind} ${o.metadata.namespace}`), [
    "ClusterRole undefined",
    "ClusterRoleBinding undefined",
    "Role ops",
    "RoleBinding ops",
    "Role shop",
    "RoleBinding shop",
  ]);
  const cluster = objects[0]!.rules!;
  const configMaps = cluster.filter((r) => r.resources[0] === "configmaps");
  assert.equal(configMaps.length, 1, "rules of one resource are merged");
  assert.deepEqual(configMaps[0]!.verbs, [
    "get",
    "list",
    "watch",
    "create",
    "patch",
  ]);
  assert.deepEqual(objects[2]!.rules, [{
    apiGroups: ["coordination.k8s.io"],
    resources: ["leases"],
    verbs: ["create"],
  }, {
    apiGroups: ["coordination.k8s.io"],
    resources: ["leases"],
    verbs: ["get", "update"],
    resourceNames: ["op"],
  }]);
  for (const binding of objects.filter((o) => o.kind.endsWith("Binding"))) {
    assert.deepEqual(binding.subjects, [
      { kind: "ServiceAccount", name: "op", namespace: "ops" },
    ]);
    assert.equal(binding.roleRef?.kind, binding.kind.replace("Binding", ""));
  }
});

Deno.test("rbac: a namespace set gets a Role in each namespace and no ClusterRole", () => {
  const set = { namespaces: ["a", "b"] };
  const objects = rbac({
    name: "op",
    serviceAccount: { name: "op", namespace: "ops" },
    controllers: [{
      ...base,
      for: { ...WIDGETS, ...set },
      owns: [{ ...CONFIGMAPS, ...set }],
      wiring: { events: {} },
    }],
  });
  assert.deepEqual(
    objects.map((o) => `${o.kind} ${o.metadata.namespace}`),
    ["Role a", "RoleBinding a", "Role b", "RoleBinding b"],
  );
  const rules = (objects[0] as unknown as { rules: { resources: string[] }[] })
    .rules.map((r) => r.resources[0]);
  assert.deepEqual(rules, [
    "widgets",
    "configmaps",
    "widgets/finalizers",
    "widgets/status",
    "events",
  ]);
});

Deno.test("rulesOf: children are written only where the primary can own them", () => {
  const writes = (g: string): boolean => / (create|patch|delete)$/.test(g);
  const children = (options: Partial<ControllerOptions>): string[] =>
    grants(rulesOf({ ...base, ...options }, {
      status: false,
      deleteChildren: true,
    })).filter((g) => g.includes("/configmaps "));
  // In one namespace, children watched everywhere: written there alone.
  assert.deepEqual(
    children({ for: { ...WIDGETS, namespace: "shop" }, owns: [CONFIGMAPS] }),
    [
      "* /configmaps get",
      "* /configmaps list",
      "* /configmaps watch",
      "shop /configmaps create",
      "shop /configmaps patch",
      "shop /configmaps delete",
    ],
  );
  // A namespace set: where the primary's and the children's meet.
  assert.deepEqual(
    children({
      for: { ...WIDGETS, namespaces: ["a", "b"] },
      owns: [{ ...CONFIGMAPS, namespaces: ["b", "c"] }],
    }).filter(writes),
    ["b /configmaps create", "b /configmaps patch", "b /configmaps delete"],
  );
  // Children in another namespace, or cluster-scoped: never written.
  for (
    const child of [{ ...CONFIGMAPS, namespace: "x" }, {
      ...CONFIGMAPS,
      namespaced: false,
    }]
  ) {
    const rules = children({
      for: { ...WIDGETS, namespace: "shop" },
      owns: [child],
    });
    assert.deepEqual(rules.filter(writes), [], JSON.stringify(child));
  }
  // A primary across the cluster, or cluster-scoped: children anywhere.
  for (const primary of [WIDGETS, { ...WIDGETS, namespaced: false }]) {
    assert.deepEqual(
      children({ for: primary, owns: [CONFIGMAPS] }).filter(writes),
      ["* /configmaps create", "* /configmaps patch", "* /configmaps delete"],
    );
  }
});

Deno.test("rbac: the election's Lease is read and renewed by name; a wider rule in its namespace makes the named one redundant", () => {
  const leases = (objects: ReturnType<typeof rbac>): unknown =>
    objects.flatMap((o) =>
      (o as { rules?: { resources: string[] }[] }).rules ?? []
    ).filter((r) => r.resources[0] === "leases");
  const lease = { namespace: "ops", name: "op" };
  const serviceAccount = { name: "op", namespace: "ops" };
  assert.deepEqual(
    leases(rbac({ name: "op", serviceAccount, controllers: [base], lease })),
    [{
      apiGroups: ["coordination.k8s.io"],
      resources: ["leases"],
      verbs: ["create"],
    }, {
      apiGroups: ["coordination.k8s.io"],
      resources: ["leases"],
      verbs: ["get", "update"],
      resourceNames: ["op"],
    }],
  );
  const sharder = {
    ring: "web",
    namespace: "ops",
    for: { ...CONFIGMAPS, kind: "ConfigMap" },
  };
  assert.deepEqual(
    leases(rbac({
      name: "op",
      serviceAccount,
      controllers: [base],
      lease,
      sharders: [sharder],
    })),
    [{
      apiGroups: ["coordination.k8s.io"],
      resources: ["leases"],
      verbs: ["get", "list", "watch", "create", "update"],
    }],
  );
  assert.equal(sharderRules(sharder)[0]!.resourceNames, undefined);
});

Deno.test("rbac: by the API server's RBAC rules, a controller in one namespace with an election is allowed every request it sends, and no write elsewhere", async () => {
  using time = installFakeTime({ now: Date.parse("2030-01-01T00:00:00Z") });
  await using server = new FakeApiServer({ namespaceLifecycle: false });
  const admin = new Client(server.url, { fetch: server.fetch });
  const sent: Request[] = [];
  const client = new Client(server.url, {
    fetch: (input, init) => {
      const request = new Request(input, init);
      sent.push(request.clone());
      return server.fetch(request);
    },
  });
  const SECRETS = { version: "v1", resource: "secrets" };
  const lease = { namespace: "ops", name: "op" };
  const controller: ControllerOptions = {
    name: "shop",
    for: { ...CONFIGMAPS, kind: "ConfigMap", namespace: "shop" },
    // Watched across the cluster (as a shared cache may be).
    owns: [SECRETS],
    reconcile: async (context) => {
      if (context.object === undefined) return;
      const { name } = context.ref;
      await context.apply({
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: `${name}-child`, namespace: "shop" },
      });
      await context.deleteChild({ ...SECRETS, namespace: "shop", name });
    },
  };
  const objects = rbac({
    name: "op",
    serviceAccount: { namespace: "ops", name: "op" },
    controllers: [controller],
    permissions: {
      [controller.name]: { status: false, deleteChildren: true },
    },
    lease,
  }) as RbacObject[];
  await admin.resource(CONFIGMAPS).namespace("shop").create({
    metadata: { name: "a" },
  });
  await admin.resource(SECRETS).namespace("shop").create({
    metadata: { name: "a" },
  });
  const manager = new Manager(client, {
    controllers: [controller],
    election: { lease, pod: "op-0", exit: () => {} },
  });
  await time.tick(1_000);
  await manager.idle();
  await time.tick(30_000); // renewals
  await manager.stop(); // the release
  assert.ok(server.object("/api/v1/namespaces/shop/secrets/a-child"));
  assert.equal(server.object("/api/v1/namespaces/shop/secrets/a"), undefined);

  const requests = sent.map((r) => requestOf(r.method, new URL(r.url)));
  const verbs = new Set(requests.map((r) => `${r.resource} ${r.verb}`));
  for (
    const needed of [
      "leases create",
      "leases get",
      "leases update",
      "secrets patch",
      "secrets delete",
    ]
  ) assert.ok(verbs.has(needed), `sent no ${needed}`);
  const refused = requests.filter((r) => !allows(objects, r));
  assert.deepEqual(refused, [], "sent but not allowed");

  const secret = { group: "", resource: "secrets" };
  const leaseOf = { group: "coordination.k8s.io", resource: "leases" };
  for (
    const [request, allowed] of [
      [{ ...secret, verb: "watch" }, true],
      [{ ...secret, verb: "patch", namespace: "shop", name: "b" }, true],
      [{ ...secret, verb: "create", namespace: "kube-system" }, false],
      [
        { ...secret, verb: "patch", namespace: "kube-system", name: "b" },
        false,
      ],
      [{ ...secret, verb: "delete", namespace: "other", name: "b" }, false],
      [{ ...leaseOf, verb: "update", namespace: "ops", name: "op" }, true],
      [{ ...leaseOf, verb: "create", namespace: "ops" }, true],
      [
        {
          ...leaseOf,
          verb: "update",
          namespace: "ops",
          name: "kube-scheduler",
        },
        false,
      ],
      [{ ...leaseOf, verb: "get", namespace: "ops", name: "other" }, false],
      [{ ...leaseOf, verb: "update", namespace: "shop", name: "op" }, false],
    ] as const
  ) {
    assert.equal(allows(objects, request), allowed, JSON.stringify(request));
  }
});
