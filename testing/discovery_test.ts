import assert from "node:assert/strict";
import { discoveryResponse, VERSION_INFO } from "./_builtins/discovery.ts";
import {
  BUILT_IN_RESOURCES,
  type RegisteredResource,
} from "./_store/registry.ts";
import { recorded } from "./_builtins/data_generate.ts";
import { FakeApiServer } from "./mod.ts";

const WIDGETS: RegisteredResource = {
  group: "example.com",
  version: "v1",
  resource: "widgets",
  kind: "Widget",
  listKind: "WidgetList",
  namespaced: true,
  statusSubresource: true,
  generation: true,
  shortNames: ["wd"],
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"],
};
const GADGETS_V2: RegisteredResource = {
  group: "example.com",
  version: "v2",
  resource: "gadgets",
  kind: "Gadget",
  listKind: "GadgetList",
  namespaced: false,
  statusSubresource: false,
  generation: true,
  verbs: ["get", "list"],
};
const RESOURCES = [...BUILT_IN_RESOURCES, WIDGETS, GADGETS_V2];

// deno-lint-ignore no-explicit-any
async function body(path: string): Promise<any> {
  const res = discoveryResponse(path, RESOURCES);
  assert.ok(res, `no answer for ${path}`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "application/json");
  return await res.json();
}

Deno.test("discovery: /version is the recorded server's, v1.37.2", async () => {
  const info = await body("/version");
  assert.equal(info.major, "1");
  assert.equal(info.minor, "37");
  assert.equal(info.gitVersion, "v1.37.2");
  assert.deepEqual(info, { ...VERSION_INFO });
});

Deno.test("discovery: every built-in group-version lists as recorded", async () => {
  const { api, apis, lists } = await recorded();
  assert.deepEqual(await body("/api"), api);
  const groups = (await body("/apis")).groups.filter((g: { name: string }) =>
    g.name !== "example.com"
  );
  assert.deepEqual(groups, (apis as { groups: unknown[] }).groups);
  assert.equal(Object.keys(lists).length, 23);
  for (const [groupVersion, resources] of Object.entries(lists)) {
    const path = groupVersion === "v1" ? "/api/v1" : `/apis/${groupVersion}`;
    const list = await body(path);
    assert.equal(list.groupVersion, groupVersion);
    assert.deepEqual(list.resources, resources, path);
  }
});

Deno.test("discovery: /api lists the core versions", async () => {
  const api = await body("/api");
  assert.equal(api.kind, "APIVersions");
  assert.deepEqual(api.versions, ["v1"]);
  assert.equal(api.serverAddressByClientCIDRs.length, 1);
});

Deno.test("discovery: /apis lists each named group once with all its versions", async () => {
  const list = await body("/apis");
  assert.equal(list.kind, "APIGroupList");
  assert.equal(list.apiVersion, "v1");
  const names = list.groups.map((g: { name: string }) => g.name);
  assert.equal(names[0], "apiregistration.k8s.io");
  assert.equal(names.at(-1), "example.com");
  assert.equal(new Set(names).size, names.length);
  const autoscaling = list.groups.find((g: { name: string }) =>
    g.name === "autoscaling"
  );
  assert.equal(autoscaling.preferredVersion.version, "v2");
  const example = list.groups.at(-1);
  assert.deepEqual(example, {
    name: "example.com",
    versions: [
      { groupVersion: "example.com/v1", version: "v1" },
      { groupVersion: "example.com/v2", version: "v2" },
    ],
    preferredVersion: { groupVersion: "example.com/v1", version: "v1" },
  });
});

Deno.test("discovery: /apis/<group> is an APIGroup", async () => {
  const group = await body("/apis/coordination.k8s.io");
  assert.equal(group.kind, "APIGroup");
  assert.equal(group.name, "coordination.k8s.io");
  assert.deepEqual(group.preferredVersion, {
    groupVersion: "coordination.k8s.io/v1",
    version: "v1",
  });
});

Deno.test("discovery: /api/v1 lists core resources with status subresources", async () => {
  const list = await body("/api/v1");
  assert.equal(list.kind, "APIResourceList");
  assert.equal(list.groupVersion, "v1");
  // deno-lint-ignore no-explicit-any
  const byName = new Map<string, any>(
    // deno-lint-ignore no-explicit-any
    list.resources.map((r: any) => [r.name, r]),
  );
  assert.deepEqual(byName.get("configmaps"), {
    name: "configmaps",
    singularName: "configmap",
    namespaced: true,
    kind: "ConfigMap",
    verbs: [
      "create",
      "delete",
      "deletecollection",
      "get",
      "list",
      "patch",
      "update",
      "watch",
    ],
    shortNames: ["cm"],
    storageVersionHash: "qFsyl6wFWjQ=",
  });
  assert.deepEqual(byName.get("pods/status"), {
    name: "pods/status",
    singularName: "",
    namespaced: true,
    kind: "Pod",
    verbs: ["get", "patch", "update"],
  });
  assert.equal(byName.get("namespaces").namespaced, false);
  assert.equal(byName.has("configmaps/status"), false);
  assert.equal(byName.has("leases"), false, "leases are not core");
});

Deno.test("discovery: /apis/<group>/<version> lists that version's resources", async () => {
  const v1 = await body("/apis/example.com/v1");
  assert.equal(v1.groupVersion, "example.com/v1");
  assert.deepEqual(
    v1.resources.map((r: { name: string }) => r.name),
    ["widgets", "widgets/status"],
  );
  assert.deepEqual(v1.resources[0].shortNames, ["wd"]);
  assert.equal(v1.resources[0].singularName, "widget");
  const v2 = await body("/apis/example.com/v2");
  assert.deepEqual(v2.resources, [{
    name: "gadgets",
    singularName: "gadget",
    namespaced: false,
    kind: "Gadget",
    verbs: ["get", "list"],
  }]);
});

Deno.test("discovery: paths that are not discovery documents get no answer", () => {
  for (
    const path of [
      "/api/v2",
      "/apis/unknown.io",
      "/apis/example.com/v9",
      "/apis/example.com/v1/widgets",
      "/api/v1/namespaces",
      "/api/v1/namespaces/default/configmaps",
      "/healthz",
      "/openapi/v2",
      "/openapi/v3/apis/unknown.io/v1",
    ]
  ) {
    assert.equal(discoveryResponse(path, RESOURCES), undefined, path);
  }
});

Deno.test("discovery: newly registered resources appear at once", async () => {
  const before = discoveryResponse("/apis/late.io/v1", BUILT_IN_RESOURCES);
  assert.equal(before, undefined);
  const late = { ...WIDGETS, group: "late.io" };
  const res = discoveryResponse("/apis/late.io/v1", [
    ...BUILT_IN_RESOURCES,
    late,
  ]);
  assert.equal((await res?.json()).resources[0].kind, "Widget");
});

Deno.test("discovery: /openapi/v3 points at one document per group/version", async () => {
  const root = await body("/openapi/v3");
  const keys = Object.keys(root.paths);
  assert.equal(keys[0], "api/v1");
  assert.ok(keys.includes("apis/apps/v1"));
  assert.deepEqual(keys.slice(-2), [
    "apis/example.com/v1",
    "apis/example.com/v2",
  ]);
  const url = root.paths["apis/example.com/v1"].serverRelativeURL;
  assert.match(
    url,
    /^\/openapi\/v3\/apis\/example\.com\/v1\?hash=[0-9a-f]{8}$/,
  );
  const doc = await body(new URL(url, "http://x").pathname);
  assert.equal(doc.openapi, "3.0.0");
  const path =
    doc.paths["/apis/example.com/v1/namespaces/{namespace}/widgets/{name}"];
  assert.deepEqual(path.patch["x-kubernetes-group-version-kind"], {
    group: "example.com",
    version: "v1",
    kind: "Widget",
  });
  assert.ok(
    path.patch.parameters.some((p: { name: string; in: string }) =>
      p.name === "fieldValidation" && p.in === "query"
    ),
  );
  const cluster = await body("/openapi/v3/apis/example.com/v2");
  assert.ok(cluster.paths["/apis/example.com/v2/gadgets/{name}"]);
});

Deno.test("discovery: the OpenAPI hash changes when the document does", async () => {
  const url = async (resources: readonly RegisteredResource[]) => {
    const res = discoveryResponse("/openapi/v3", resources);
    return (await res?.json()).paths["apis/example.com/v1"].serverRelativeURL;
  };
  const one = await url([WIDGETS]);
  assert.equal(await url([WIDGETS]), one);
  assert.notEqual(await url([WIDGETS, { ...WIDGETS, resource: "w2" }]), one);
});

Deno.test("discovery: core/v1, apps/v1 and batch/v1 OpenAPI documents are the recorded ones, with the schemas kubectl explain reads", async () => {
  await using server = new FakeApiServer();
  const index = await (await server.fetch(`${server.url}/openapi/v3`)).json();
  const url = index.paths["apis/apps/v1"].serverRelativeURL;
  const res = await server.fetch(`${server.url}${url}`);
  assert.equal(res.status, 200);
  const doc = await res.json();
  const deployment = doc.components.schemas["io.k8s.api.apps.v1.Deployment"];
  assert.match(
    deployment.description,
    /Deployment enables declarative updates/,
  );
  // As recorded: the API server writes its minor version here.
  assert.equal(doc.info.version, "1.37");
});
