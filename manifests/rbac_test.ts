import assert from "node:assert/strict";
import type { ControllerOptions } from "../controller/mod.ts";
import { rbac, rulesOf } from "./mod.ts";

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
    grants(rulesOf({ ...base, permissions: { status: false } })),
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
    rulesOf({ ...owning, permissions: { deleteChildren: true } }),
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
    events: {},
    permissions: {
      rules: [{ apiGroups: [""], resources: ["secrets"], verbs: ["get"] }],
    },
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
        permissions: { status: false, deleteChildren: true },
      },
      { ...base, name: "local", for: { ...WIDGETS, namespace: "shop" } },
    ],
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
    verbs: ["get", "create", "update"],
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
      events: {},
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
