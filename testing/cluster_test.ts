// A new fake holds a fresh cluster's objects, as recorded from
// kube-apiserver 1.37.2 (testing/_builtins/cluster_data.ts), unless told to start
// empty.
import assert from "node:assert/strict";
import { FakeApiServer } from "./mod.ts";
import { CLUSTER_OBJECTS } from "./_builtins/cluster_data.ts";
import { decodeFields } from "./_builtins/fresh_cluster.ts";
import { encodeFields } from "./_apply/fields.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

async function get(server: FakeApiServer, path: string): Promise<Json> {
  const res = await server.fetch(`${server.url}${path}`);
  assert.equal(res.status, 200, path);
  return await res.json();
}

const names = (list: Json): string[] =>
  list.items.map((o: Json) => o.metadata.name);

Deno.test("fresh cluster: the system namespaces, the kubernetes Service, RBAC, priority and flow control are there", async () => {
  await using server = new FakeApiServer();
  assert.deepEqual(names(await get(server, "/api/v1/namespaces")), [
    "default",
    "kube-node-lease",
    "kube-public",
    "kube-system",
  ]);
  const kubernetes = await get(
    server,
    "/api/v1/namespaces/default/services/kubernetes",
  );
  assert.equal(kubernetes.spec.clusterIP, "10.96.0.1");
  assert.equal(kubernetes.metadata.managedFields[0].operation, "Update");
  assert.deepEqual(
    names(await get(server, "/api/v1/serviceaccounts")),
    ["default", "default", "default", "default"],
  );
  const admin = await get(
    server,
    "/apis/rbac.authorization.k8s.io/v1/clusterroles/cluster-admin",
  );
  assert.deepEqual(admin.rules, [
    { apiGroups: ["*"], resources: ["*"], verbs: ["*"] },
    { nonResourceURLs: ["*"], verbs: ["*"] },
  ]);
  const priorities = await get(
    server,
    "/apis/scheduling.k8s.io/v1/priorityclasses",
  );
  assert.deepEqual(
    priorities.items.map((p: Json) => [p.metadata.name, p.value]),
    [["system-cluster-critical", 2000000000], [
      "system-node-critical",
      2000001000,
    ]],
  );
  assert.equal(
    (await get(server, "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas"))
      .items.length,
    11,
  );
  // Every recorded object is served, each with a version of its own.
  assert.equal(Number(server.resourceVersion), CLUSTER_OBJECTS.length);
  // A new Service does not get the kubernetes Service's address.
  const res = await server.fetch(
    `${server.url}/api/v1/namespaces/default/services`,
    {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        metadata: { name: "web" },
        spec: { ports: [{ port: 80 }] },
      }),
    },
  );
  assert.equal((await res.json()).spec.clusterIP, "10.96.0.2");
});

Deno.test("fresh cluster: freshCluster false starts with no objects", async () => {
  await using server = new FakeApiServer({ freshCluster: false });
  assert.deepEqual(names(await get(server, "/api/v1/namespaces")), []);
  assert.equal(server.resourceVersion, "0");
});

Deno.test("fresh cluster: the recorded owners read back as they were written, and own their fields", async () => {
  for (const object of CLUSTER_OBJECTS as Json[]) {
    for (const entry of object.metadata.managedFields ?? []) {
      assert.deepEqual(
        encodeFields(decodeFields(entry.fieldsV1)),
        entry.fieldsV1,
      );
    }
  }
  await using server = new FakeApiServer();
  // The recorded manager owns the Service's labels: an apply of another
  // value by someone else conflicts with it.
  const res = await server.fetch(
    `${server.url}/api/v1/namespaces/default/services/kubernetes?fieldManager=me`,
    {
      method: "PATCH",
      headers: { "content-type": "application/apply-patch+yaml" },
      body: JSON.stringify({
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "kubernetes", labels: { component: "mine" } },
      }),
    },
  );
  assert.equal(res.status, 409);
  assert.match((await res.json()).message, /conflict with "control-plane"/);
});
