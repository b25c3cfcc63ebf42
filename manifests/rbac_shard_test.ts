// The RBAC of a sharded controller and its sharder against the requests
// they really send on the fake: joins (drain acknowledgements), a graceful
// leave (a released Lease), and a gone member's Lease taken over.
import assert from "node:assert/strict";
import { Client, type Outcome } from "../apiclient/mod.ts";
import { Controller, type ControllerOptions } from "../controller/mod.ts";
import { memberHash, Sharder, shardLabel } from "../shard/mod.ts";
import { FakeApiServer, installFakeTime } from "../testing/mod.ts";
import {
  allows,
  grants,
  type RbacObject,
  type RbacRequest,
  requestOf,
  verbOf,
} from "../_internal/_rbac_test_util.ts";
import { rbac, rulesOf, sharderRules } from "./mod.ts";

const NS = "ops";
const RING = "web";
const CONFIGMAPS = { version: "v1", resource: "configmaps", kind: "ConfigMap" };
const SECRETS = { version: "v1", resource: "secrets" };

Deno.test("rulesOf with shards and sharderRules grant exactly the requests a ring sends", async () => {
  using time = installFakeTime({ now: Date.parse("2030-01-01T00:00:00Z") });
  await using server = new FakeApiServer({ namespaceLifecycle: false });
  const admin = new Client(server.url, { fetch: server.fetch });
  const sent = new Set<string>();
  const requests: RbacRequest[] = [];
  const observe = (outcome: Outcome): void => {
    const url = new URL(outcome.path, server.url);
    sent.add(verbOf(outcome.method, url));
    requests.push(requestOf(outcome.method, url));
  };
  const client = new Client(server.url, { fetch: server.fetch })
    .withObserver(observe);
  const cms = admin.resource(CONFIGMAPS).namespace("default");
  for (let i = 0; i < 12; i++) {
    await cms.create({ metadata: { name: `c${i}` } });
  }
  // A member that is gone: its Lease never renewed, one object labelled.
  await admin.resource({
    group: "coordination.k8s.io",
    version: "v1",
    resource: "leases",
  }).namespace(NS).create({
    metadata: {
      name: `${RING}-${memberHash("gone")}`,
      labels: {
        "shard.liken.dev/ring": RING,
        "shard.liken.dev/member": memberHash("gone"),
      },
    },
    spec: { holderIdentity: "gone_1", leaseDurationSeconds: 15 },
  } as never);
  await cms.patch("c0", {
    metadata: { labels: { [shardLabel(RING)]: memberHash("gone") } },
  }, { type: "merge" });
  // A child no reconcile applies: the sharder labels it.
  const c1 = await cms.get("c1");
  await admin.resource(SECRETS).namespace("default").create({
    metadata: {
      name: "extra",
      ownerReferences: [{
        apiVersion: "v1",
        kind: "ConfigMap",
        name: "c1",
        uid: c1.metadata.uid!,
        controller: true,
      }],
    },
  });

  const options = (identity: string): ControllerOptions => ({
    name: "web",
    for: CONFIGMAPS,
    owns: [SECRETS],
    wiring: { shards: { ring: RING, namespace: NS, identity, exit: () => {} } },
    reconcile: async (context) => {
      if (context.object === undefined) return;
      await context.apply({
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: context.ref.name, namespace: "default" },
      });
    },
  });
  const sharderOptions = {
    ring: RING,
    namespace: NS,
    for: CONFIGMAPS,
    owns: [SECRETS],
  };
  const start = (identity: string): [Controller, Sharder] => [
    new Controller(client, options(identity)),
    new Sharder(client, {
      ...sharderOptions,
      pod: identity,
      resync: 1_000,
      exit: () => {},
    }),
  ];
  const first = start("a");
  await time.tick(20_000); // the gone member's Lease expires: taken over
  const second = start("b"); // a join: drains and acknowledgements
  await time.tick(10_000);
  await Promise.all(first.map((part) => part.stop())); // a graceful leave
  await time.tick(10_000);
  await Promise.all(second.map((part) => part.stop()));

  const labels = (await cms.list()).items.map((o) =>
    o.metadata.labels?.[shardLabel(RING)]
  );
  // Everything ended on b, and the gone member's object moved.
  assert.ok(labels.every((l) => l === memberHash("b")), String(labels));
  for (
    const needed of [
      "coordination.k8s.io/leases create",
      "coordination.k8s.io/leases update",
      "/configmaps patch",
      "/secrets patch",
    ]
  ) assert.ok(sent.has(needed), `the ring sent no ${needed}`);

  const objects = rbac({
    name: "web",
    serviceAccount: { namespace: NS, name: "web" },
    controllers: [options("a")],
    permissions: { web: { status: false } },
    sharders: [sharderOptions],
  });
  const rules = objects.flatMap((o) =>
    (o as {
      rules?: { apiGroups: string[]; resources: string[]; verbs: string[] }[];
    })
      .rules ?? []
  );
  const granted = grants(rules);
  // Each request allowed where it went, by the API server's RBAC rules.
  const refused = requests.filter((r) => !allows(objects as RbacObject[], r));
  assert.deepEqual(refused, [], "sent but not allowed");
  // Nothing granted that the ring did not use, but reads the cache
  // answers (get) or a server that streams makes unneeded (list; the fake
  // streams), and what kube-apiserver checks besides the verb it serves:
  // `create` for an apply that makes the object, and the owner's
  // finalizers for a child that blocks its owner's deletion.
  const unused = [...granted].filter((g) => !sent.has(g)).sort();
  assert.deepEqual(unused, [
    "/configmaps get",
    "/configmaps list",
    "/configmaps/finalizers update",
    "/secrets create",
    "/secrets get",
    "/secrets list",
    "coordination.k8s.io/leases list",
  ]);
  // The controller's own rules alone do not cover the sharder's work.
  const controllerOnly = grants(rulesOf(options("a")));
  assert.ok(!controllerOnly.has("coordination.k8s.io/leases watch"));
  assert.equal(sharderRules(sharderOptions).length, 4);
});

Deno.test("a sharder of primaries in one namespace labels children there alone, as its rules allow", async () => {
  using time = installFakeTime({ now: Date.parse("2030-01-01T00:00:00Z") });
  await using server = new FakeApiServer({ namespaceLifecycle: false });
  const admin = new Client(server.url, { fetch: server.fetch });
  const requests: RbacRequest[] = [];
  const client = new Client(server.url, { fetch: server.fetch })
    .withObserver((outcome) =>
      void requests.push(
        requestOf(outcome.method, new URL(outcome.path, server.url)),
      )
    );
  // A live member, so that the sharder has someone to assign to.
  await admin.resource({
    group: "coordination.k8s.io",
    version: "v1",
    resource: "leases",
  }).namespace(NS).create({
    metadata: {
      name: `${RING}-${memberHash("a")}`,
      labels: {
        "shard.liken.dev/ring": RING,
        "shard.liken.dev/member": memberHash("a"),
      },
    },
    spec: { holderIdentity: "a_1", leaseDurationSeconds: 15 },
  } as never);
  // A ConfigMap `c` with a Secret of its own in the ring's namespace, and
  // the same in another namespace, whose ConfigMaps are not the ring's.
  for (const namespace of ["default", "other"]) {
    const owner = await admin.resource(CONFIGMAPS).namespace(namespace)
      .create({ metadata: { name: "c" } });
    await admin.resource(SECRETS).namespace(namespace).create({
      metadata: {
        name: "s",
        ownerReferences: [{
          apiVersion: "v1",
          kind: "ConfigMap",
          name: "c",
          uid: owner.metadata.uid!,
          controller: true,
        }],
      },
    });
  }
  const options = {
    ring: RING,
    namespace: NS,
    for: { ...CONFIGMAPS, namespace: "default" },
    owns: [SECRETS],
  };
  const sharder = new Sharder(client, {
    ...options,
    pod: "s",
    resync: 1_000,
    exit: () => {},
  });
  await time.tick(3_000);
  await sharder.stop();
  const label = (namespace: string): string | undefined =>
    server.object<{ metadata: { labels?: Record<string, string> } }>(
      `/api/v1/namespaces/${namespace}/secrets/s`,
    )?.metadata.labels?.[shardLabel(RING)];
  assert.equal(label("default"), memberHash("a"));
  assert.equal(label("other"), undefined);
  const objects = rbac({
    name: "web",
    serviceAccount: { namespace: NS, name: "web" },
    controllers: [],
    sharders: [options],
  }) as RbacObject[];
  const refused = requests.filter((r) => !allows(objects, r));
  assert.deepEqual(refused, [], "sent but not allowed");
  assert.ok(
    !allows(objects, {
      verb: "patch",
      group: "",
      resource: "secrets",
      namespace: "other",
      name: "s",
    }),
  );
});
