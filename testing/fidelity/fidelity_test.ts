/**
 * The fidelity suite: real clients nobody here wrote (kubectl, and the
 * informer of `@kubernetes/client-node` on Node) against the fake API server
 * served over HTTPS on 127.0.0.1. A missing tool fails the suite with the
 * command that installs it.
 *
 * Permissions: --allow-run=kubectl,node --allow-net=127.0.0.1
 * --allow-read=.tmp --allow-write=.tmp, with TMPDIR=.tmp.
 *
 * @module
 */

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import type { KubeObject } from "../../apiclient/types.ts";
import { FakeApiServer, type ServedApiServer } from "../mod.ts";
import {
  api,
  eventually,
  finish,
  INSTALL,
  Kubectl,
  Lines,
  spawn,
} from "./_tools.ts";

const NS = "fidelity";

/** What the tests read of stored objects. */
type Obj = KubeObject & {
  data?: Record<string, string>;
  spec?: unknown;
  status?: unknown;
};
const TIMEOUT = 60_000;

interface Fixture extends AsyncDisposable {
  server: FakeApiServer;
  served: ServedApiServer;
  kubectl: Kubectl;
}

/** A fake with a `fidelity` namespace and Widgets, served over HTTPS. */
async function fixture(): Promise<Fixture> {
  const server = new FakeApiServer();
  server.register({
    group: "example.com",
    version: "v1",
    resource: "widgets",
    kind: "Widget",
    namespaced: true,
    statusSubresource: true,
    shortNames: ["wd"],
    printerColumns: [
      { name: "Size", type: "integer", jsonPath: ".spec.size" },
      {
        name: "Ready",
        type: "string",
        jsonPath: '.status.conditions[?(@.type=="Ready")].status',
      },
      { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
    ],
  });
  await api(server, "POST", "/api/v1/namespaces", {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: NS },
  });
  const served = await server.serve({ tls: true });
  const kubectl = await Kubectl.for(served, NS);
  return {
    server,
    served,
    kubectl,
    async [Symbol.asyncDispose](): Promise<void> {
      await kubectl[Symbol.asyncDispose]();
      await served[Symbol.asyncDispose]();
      await server[Symbol.asyncDispose]();
    },
  };
}

function configMap(
  name: string,
  data: Record<string, string>,
  labels?: Record<string, string>,
): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace: NS, ...(labels ? { labels } : {}) },
    data,
  };
}

/** An Event about the ConfigMap `one`, seen twice. */
function eventAbout(uid: string, type: string): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name: "one.17a", namespace: NS },
    involvedObject: {
      apiVersion: "v1",
      kind: "ConfigMap",
      name: "one",
      namespace: NS,
      uid,
    },
    reason: "Reconciled",
    message: "all good",
    type,
    source: { component: "fidelity" },
    count: 2,
  };
}

function widget(name: string, spec: Record<string, unknown>): unknown {
  return {
    apiVersion: "example.com/v1",
    kind: "Widget",
    metadata: { name, namespace: NS },
    spec,
  };
}

const cmPath = (name = ""): string =>
  `/api/v1/namespaces/${NS}/configmaps${name ? `/${name}` : ""}`;
const widgetPath = (name = ""): string =>
  `/apis/example.com/v1/namespaces/${NS}/widgets${name ? `/${name}` : ""}`;

function test(name: string, fn: (f: Fixture) => Promise<void>): void {
  Deno.test({
    name: `fidelity: ${name}`,
    timeout: TIMEOUT,
    async fn(): Promise<void> {
      await using f = await fixture();
      await fn(f);
    },
  });
}

test("kubectl version and api-resources read discovery", async ({ kubectl }) => {
  const version = JSON.parse(await kubectl.ok("version", "-o", "json"));
  assert.match(version.serverVersion.gitVersion, /^v1\.32\./);
  const resources = await kubectl.ok("api-resources", "--no-headers");
  assert.match(resources, /^configmaps\s+cm\s+v1\s+true\s+ConfigMap$/m);
  assert.match(
    resources,
    /^widgets\s+wd\s+example\.com\/v1\s+true\s+Widget$/m,
  );
  assert.match(
    resources,
    /^leases\s+coordination\.k8s\.io\/v1\s+true\s+Lease$/m,
  );
});

test("kubectl get lists, reads one, selects by label, and reports 404", async ({ server, kubectl }) => {
  await api(
    server,
    "POST",
    cmPath(),
    configMap("one", { a: "1" }, { app: "x" }),
  );
  await api(
    server,
    "POST",
    cmPath(),
    configMap("two", { b: "2" }, { app: "y" }),
  );

  const list = JSON.parse(await kubectl.ok("get", "configmaps", "-o", "json"));
  assert.deepEqual(
    list.items.map((i: { metadata: { name: string } }) => i.metadata.name),
    ["one", "two"],
  );
  // kubectl prints the server-side Table: the API server's columns.
  const table = await kubectl.ok("get", "configmaps");
  assert.match(table, /^NAME\s+DATA\s+AGE\n/);
  assert.match(table, /^one\s+1\s+\d+s$/m);
  assert.match(table, /^two\s+1\s+\d+s$/m);
  const tableRequest = server.requests.findLast((r) =>
    r.method === "GET" && r.path === cmPath()
  );
  assert.equal(tableRequest?.query.get("limit"), "500");
  const columns = await kubectl.ok(
    "get",
    "cm",
    "-o",
    "custom-columns=NAME:.metadata.name,A:.data.a,RV:.metadata.resourceVersion",
    "--no-headers",
  );
  assert.match(columns, /^one\s+1\s+\d+\n^two\s+<none>\s+\d+$/m);

  assert.equal(
    await kubectl.ok("get", "cm", "one", "-o", "jsonpath={.data.a}"),
    "1",
  );
  const selected = await kubectl.ok("get", "cm", "-l", "app=y", "-o", "name");
  assert.equal(selected.trim(), "configmap/two");
  const none = await kubectl.run("get", "cm", "-l", "app=zzz");
  assert.equal(none.code, 0);
  assert.match(none.stderr, /No resources found in fidelity namespace\./);

  const missing = await kubectl.run("get", "cm", "missing");
  assert.equal(missing.code, 1);
  assert.match(
    missing.stderr,
    /Error from server \(NotFound\): configmaps "missing" not found/,
  );
});

test("kubectl get -w prints the list, then changes as they happen", async ({ server, kubectl }) => {
  await api(server, "POST", cmPath(), configMap("before", { a: "1" }));
  const child = kubectl.start(
    "get",
    "cm",
    "--watch",
    "--output-watch-events",
    "-o",
    'jsonpath={.type} {.object.metadata.name} {.object.data.a}{"\\n"}',
  );
  const lines = new Lines(child.stdout);
  try {
    assert.equal(await lines.next(), "ADDED before 1");
    await eventually(
      () => server.requests.some((r) => r.query.get("watch") === "true"),
      "kubectl's watch request",
    );
    await api(server, "POST", cmPath(), configMap("after", { a: "2" }));
    assert.equal(await lines.next(), "ADDED after 2");
    await api(
      server,
      "PATCH",
      cmPath("before"),
      { data: { a: "3" } },
      "application/merge-patch+json",
    );
    assert.equal(await lines.next(), "MODIFIED before 3");
    await api(server, "DELETE", cmPath("after"));
    assert.equal(await lines.next(), "DELETED after 2");
  } finally {
    child.kill("SIGTERM");
    await lines.cancel();
    await child.stderr.cancel();
    await child.status;
  }
});

test("kubectl get prints the server's Table: built-in kinds, events, printer columns", async ({ server, kubectl }) => {
  const cm = await api<{ metadata: { uid: string } }>(
    server,
    "POST",
    cmPath(),
    configMap("one", { a: "1", b: "2", c: "3" }),
  );
  const got = await kubectl.ok("get", "configmaps");
  assert.match(got, /^NAME\s+DATA\s+AGE\none\s+3\s+\d+s\n$/);
  const single = await kubectl.ok("get", "cm", "one");
  assert.match(single, /^NAME\s+DATA\s+AGE\none\s+3\s+\d+s\n$/);
  const accept = server.requests.findLast((r) => r.path === cmPath("one"));
  assert.ok(accept, "kubectl read the ConfigMap by name");
  // Every namespace: kubectl adds NAMESPACE from each row's metadata.
  const all = await kubectl.ok("get", "cm", "-A");
  assert.match(all, /^NAMESPACE\s+NAME\s+DATA\s+AGE\n/);
  assert.match(all, /^fidelity\s+one\s+3\s+\d+s$/m);
  // --sort-by asks for whole objects (includeObject=Object).
  const sorted = await kubectl.ok("get", "cm", "--sort-by=.data.a");
  assert.match(sorted, /^one\s+3\s+/m);
  assert.equal(
    server.requests.findLast((r) => r.path === cmPath())?.query.get(
      "includeObject",
    ),
    "Object",
  );

  await api(server, "POST", `/api/v1/namespaces/${NS}/events`, {
    ...eventAbout(cm.metadata.uid, "Warning"),
    firstTimestamp: new Date(Date.now() - 600_000).toISOString(),
    lastTimestamp: new Date(Date.now() - 120_000).toISOString(),
  });
  const events = await kubectl.ok("get", "events");
  assert.match(
    events,
    /^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE\n/,
  );
  assert.match(
    events,
    /^2m\d*s?\s+Warning\s+Reconciled\s+configmap\/one\s+all good$/m,
  );
  const wide = await kubectl.ok("get", "events", "-o", "wide");
  assert.match(
    wide,
    /^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+SUBOBJECT\s+SOURCE\s+MESSAGE\s+FIRST SEEN\s+COUNT\s+NAME\n/,
  );
  assert.match(wide, /\sfidelity\s+all good\s+10m\s+2\s+one\.17a$/m);

  // A custom resource shows its printer columns.
  await api(server, "POST", widgetPath(), widget("w1", { size: 3 }));
  await api(server, "POST", widgetPath(), widget("w2", { size: 12 }));
  await api(server, "PUT", `${widgetPath("w2")}/status`, {
    ...widget("w2", { size: 12 }) as object,
    status: { conditions: [{ type: "Ready", status: "True" }] },
  });
  const widgets = await kubectl.ok("get", "widgets");
  assert.match(widgets, /^NAME\s+SIZE\s+READY\s+AGE\n/);
  assert.match(widgets, /^w1\s+3\s+\s+\d+s$/m);
  assert.match(widgets, /^w2\s+12\s+True\s+\d+s$/m);
});

test("kubectl get -w prints the Table's rows, then a row per change", async ({ server, kubectl }) => {
  await api(server, "POST", cmPath(), configMap("before", { a: "1" }));
  const child = kubectl.start("get", "configmaps", "-w");
  const lines = new Lines(child.stdout);
  try {
    assert.match(await lines.next() ?? "", /^NAME\s+DATA\s+AGE$/);
    assert.match(await lines.next() ?? "", /^before\s+1\s+\d+s$/);
    await eventually(
      () =>
        server.requests.some((r) =>
          r.path === cmPath() && r.query.get("watch") === "true"
        ),
      "kubectl's watch request",
    );
    await api(
      server,
      "POST",
      cmPath(),
      configMap("after", { a: "2", b: "3" }),
    );
    assert.match(await lines.next() ?? "", /^after\s+2\s+\d+s$/);
    await api(
      server,
      "PATCH",
      cmPath("before"),
      { data: { a: "1", z: "9", y: "8" } },
      "application/merge-patch+json",
    );
    assert.match(await lines.next() ?? "", /^before\s+3\s+\d+s$/);
  } finally {
    child.kill("SIGTERM");
    await lines.cancel();
    await child.stderr.cancel();
    await child.status;
  }
});

test("kubectl describe shows a ConfigMap and a custom resource", async ({ server, kubectl }) => {
  await api(
    server,
    "POST",
    cmPath(),
    configMap("one", { key: "value" }, { app: "x" }),
  );
  const cm = await kubectl.ok("describe", "cm", "one");
  assert.match(cm, /^Name:\s+one$/m);
  assert.match(cm, /^Namespace:\s+fidelity$/m);
  assert.match(cm, /^Labels:\s+app=x$/m);
  assert.match(cm, /^key:\n----\nvalue$/m);

  await api(server, "POST", widgetPath(), widget("w1", { size: 3 }));
  const w = await kubectl.ok("describe", "widget", "w1");
  assert.match(w, /^Name:\s+w1$/m);
  assert.match(w, /^API Version:\s+example\.com\/v1$/m);
  assert.match(w, /^Kind:\s+Widget$/m);
  assert.match(w, /^\s+Size:\s+3$/m);
});

test("kubectl wait --for=condition=Ready ends when a test sets the status", async ({ server, kubectl }) => {
  const created = await api<{ metadata: { resourceVersion: string } }>(
    server,
    "POST",
    widgetPath(),
    widget("w1", { size: 1 }),
  );
  const child = kubectl.start(
    "wait",
    "--for=condition=Ready",
    "widget/w1",
    "--timeout=40s",
  );
  const waited = finish(child);
  try {
    await eventually(
      () =>
        server.requests.some((r) =>
          r.path === widgetPath() && r.query.get("watch") === "true"
        ),
      "kubectl's watch on widgets",
    );
    await api(server, "PUT", `${widgetPath("w1")}/status`, {
      ...widget("w1", { size: 1 }) as object,
      metadata: {
        name: "w1",
        namespace: NS,
        resourceVersion: created.metadata.resourceVersion,
      },
      status: {
        conditions: [{
          type: "Ready",
          status: "True",
          reason: "Done",
          message: "ready",
          lastTransitionTime: "2025-01-01T00:00:00Z",
        }],
      },
    });
  } finally {
    const out = await waited;
    assert.equal(out.code, 0, out.stderr);
    assert.equal(out.stdout.trim(), "widget.example.com/w1 condition met");
  }
});

test("kubectl get events shows an Event about an object", async ({ server, kubectl }) => {
  const cm = await api<{ metadata: { uid: string } }>(
    server,
    "POST",
    cmPath(),
    configMap("one", { a: "1" }),
  );
  await api(server, "POST", `/api/v1/namespaces/${NS}/events`, {
    ...eventAbout(cm.metadata.uid, "Normal"),
    firstTimestamp: "2025-01-01T00:00:00Z",
    lastTimestamp: "2025-01-01T00:01:00Z",
  });
  const table = await kubectl.ok(
    "get",
    "events",
    "--no-headers",
    "-o",
    "custom-columns=TYPE:.type,REASON:.reason,OBJECT:.involvedObject.name,COUNT:.count,MESSAGE:.message",
  );
  assert.match(table, /^Normal\s+Reconciled\s+one\s+2\s+all good$/m);
  const selected = await kubectl.ok(
    "get",
    "events",
    "--field-selector",
    "involvedObject.name=one",
    "-o",
    "name",
  );
  assert.equal(selected.trim(), "event/one.17a");
  const json = JSON.parse(await kubectl.ok("get", "events", "-o", "json"));
  assert.equal(json.items[0].reason, "Reconciled");
  // describe lists the Events about the object by a field selector on
  // involvedObject name, namespace, kind and uid.
  const described = await kubectl.ok("describe", "cm", "one");
  assert.match(described, /Normal\s+Reconciled\s+.*all good/);
});

test("kubectl apply creates, then updates by patch, keeping the last applied", async ({ server, kubectl }) => {
  const file = `${kubectl.dir}/cm.json`;
  await Deno.writeTextFile(
    file,
    JSON.stringify(configMap("applied", { a: "1" })),
  );
  assert.equal(
    (await kubectl.ok("apply", "-f", file)).trim(),
    "configmap/applied created",
  );
  let stored = server.object<Obj>(cmPath("applied"));
  assert.deepEqual(stored?.data, { a: "1" });
  assert.ok(
    stored?.metadata?.annotations
      ?.["kubectl.kubernetes.io/last-applied-configuration"],
  );

  await Deno.writeTextFile(
    file,
    JSON.stringify(configMap("applied", { b: "2" })),
  );
  assert.equal(
    (await kubectl.ok("apply", "-f", file)).trim(),
    "configmap/applied configured",
  );
  stored = server.object<Obj>(cmPath("applied"));
  assert.deepEqual(
    stored?.data,
    { b: "2" },
    "apply removes keys no longer applied",
  );
  const patch = server.requests.findLast((r) => r.method === "PATCH");
  assert.equal(patch?.query.get("fieldManager"), "kubectl-client-side-apply");

  // A custom resource (not in kubectl's scheme) is applied by merge patch.
  const wfile = `${kubectl.dir}/w.json`;
  await Deno.writeTextFile(
    wfile,
    JSON.stringify(widget("w1", { size: 1, color: "red" })),
  );
  await kubectl.ok("apply", "-f", wfile);
  await Deno.writeTextFile(wfile, JSON.stringify(widget("w1", { size: 2 })));
  assert.equal(
    (await kubectl.ok("apply", "-f", wfile)).trim(),
    "widget.example.com/w1 configured",
  );
  assert.deepEqual(
    server.object<Obj>(widgetPath("w1"))
      ?.spec,
    { size: 2 },
  );
  assert.equal(
    (await kubectl.ok("apply", "-f", wfile)).trim(),
    "widget.example.com/w1 unchanged",
  );
});

test("kubectl apply --server-side creates, updates, removes, conflicts, and forces", async ({ server, kubectl }) => {
  const file = `${kubectl.dir}/ssa.json`;
  const write = (data: Record<string, string>) =>
    Deno.writeTextFile(file, JSON.stringify(configMap("ssa", data)));
  await write({ a: "1", b: "2" });
  assert.equal(
    (await kubectl.ok("apply", "--server-side", "-f", file)).trim(),
    "configmap/ssa serverside-applied",
  );
  const patch = server.requests.findLast((r) => r.method === "PATCH");
  assert.equal(patch?.query.get("fieldManager"), "kubectl");
  assert.deepEqual(server.object<Obj>(cmPath("ssa"))?.data, { a: "1", b: "2" });

  // An update, and a key no longer applied goes.
  await write({ a: "2" });
  await kubectl.ok("apply", "--server-side", "-f", file);
  assert.deepEqual(server.object<Obj>(cmPath("ssa"))?.data, { a: "2" });

  // Another manager takes .data.a by an update: the next apply conflicts.
  await api(
    server,
    "PATCH",
    `${cmPath("ssa")}?fieldManager=editor`,
    { data: { a: "9" } },
    "application/merge-patch+json",
  );
  await write({ a: "3" });
  const refused = await kubectl.run("apply", "--server-side", "-f", file);
  assert.notEqual(refused.code, 0);
  assert.match(
    refused.stderr,
    /Apply failed with 1 conflict: conflict with "editor" using v1: \.data\.a/,
  );
  assert.deepEqual(server.object<Obj>(cmPath("ssa"))?.data, { a: "9" });

  // --force-conflicts takes the field.
  assert.equal(
    (await kubectl.ok(
      "apply",
      "--server-side",
      "--force-conflicts",
      "-f",
      file,
    )).trim(),
    "configmap/ssa serverside-applied",
  );
  assert.deepEqual(server.object<Obj>(cmPath("ssa"))?.data, { a: "3" });
  // The same apply again changes nothing.
  const version = server.object(cmPath("ssa"))?.metadata.resourceVersion;
  await kubectl.ok("apply", "--server-side", "-f", file);
  assert.equal(
    server.object(cmPath("ssa"))?.metadata.resourceVersion,
    version,
  );
});

test("kubectl delete --cascade: background, foreground and orphan, as the garbage collector does", async ({ server, kubectl }) => {
  const secrets = `/api/v1/namespaces/${NS}/secrets`;
  const ownedBy = async (name: string, owner: string, block = false) => {
    const made = server.object(cmPath(owner)) ??
      await api<KubeObject>(server, "POST", cmPath(), configMap(owner, {}));
    await api(server, "POST", secrets, {
      metadata: {
        name,
        ownerReferences: [{
          apiVersion: "v1",
          kind: "ConfigMap",
          name: owner,
          uid: made.metadata.uid,
          blockOwnerDeletion: block,
        }],
      },
    });
  };
  await ownedBy("orphaned", "o1");
  await kubectl.ok("delete", "configmap", "o1", "--cascade=orphan");
  assert.equal(server.object(cmPath("o1")), undefined);
  const orphan = server.object(`${secrets}/orphaned`);
  assert.ok(orphan, "an orphaned dependent stays");
  assert.equal(orphan.metadata.ownerReferences, undefined);

  await ownedBy("collected", "o2");
  await kubectl.ok("delete", "configmap", "o2");
  await eventually(
    () => server.object(`${secrets}/collected`) === undefined,
    "the dependent is collected",
  );

  await ownedBy("blocking", "o3", true);
  // kubectl waits until the owner is gone, after its blocking dependent.
  await kubectl.ok("delete", "configmap", "o3", "--cascade=foreground");
  assert.equal(server.object(cmPath("o3")), undefined);
  assert.equal(server.object(`${secrets}/blocking`), undefined);
  assert.ok(server.object(`${secrets}/orphaned`));
});

test("kubectl patch: strategic, merge, json, and the status subresource", async ({ server, kubectl }) => {
  await api(server, "POST", cmPath(), configMap("p", { a: "1" }));
  await kubectl.ok("patch", "cm", "p", "-p", '{"data":{"b":"2"}}');
  await kubectl.ok(
    "patch",
    "cm",
    "p",
    "--type",
    "merge",
    "-p",
    '{"data":{"a":null}}',
  );
  await kubectl.ok(
    "patch",
    "cm",
    "p",
    "--type",
    "json",
    "-p",
    '[{"op":"add","path":"/data/c","value":"3"}]',
  );
  assert.deepEqual(
    server.object<Obj>(cmPath("p"))?.data,
    { b: "2", c: "3" },
  );
  const types = server.requests.filter((r) => r.method === "PATCH").length;
  assert.equal(types, 3);

  const bad = await kubectl.run("patch", "cm", "missing", "-p", '{"data":{}}');
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /configmaps "missing" not found/);

  await api(server, "POST", widgetPath(), widget("w1", { size: 1 }));
  await kubectl.ok(
    "patch",
    "widget",
    "w1",
    "--subresource=status",
    "--type",
    "merge",
    "-p",
    '{"status":{"phase":"Running"},"spec":{"size":9}}',
  );
  const w = server.object<Obj>(widgetPath("w1"));
  assert.deepEqual(w?.status, { phase: "Running" });
  assert.deepEqual(w?.spec, { size: 1 }, "a status write changes only status");
});

Deno.test({
  name: "fidelity: the @kubernetes/client-node informer lists, then watches",
  timeout: TIMEOUT,
  async fn(): Promise<void> {
    await using f = await fixture();
    const { server, served } = f;
    await api(server, "POST", cmPath(), configMap("first", { a: "1" }));
    await api(server, "POST", cmPath(), configMap("second", { a: "2" }));
    const child = spawn("node", {
      args: [
        fileURLToPath(new URL("./client_node_informer.mjs", import.meta.url)),
      ],
      clearEnv: true,
      env: {
        SERVER: served.url,
        CA_PEM: served.caCert ?? "",
        API_VERSION: "v1",
        KIND: "ConfigMap",
        NAMESPACE: NS,
      },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    });
    const lines = new Lines(child.stdout);
    const stderr = new Response(child.stderr).text();
    const events: Array<Record<string, unknown>> = [];
    const nextEvent = async (): Promise<Record<string, unknown>> => {
      const line = await lines.next().catch(async (error) => {
        child.kill("SIGKILL");
        throw new Error(`${error.message}\nnode stderr: ${await stderr}`);
      });
      if (line === undefined) {
        const text = await stderr;
        throw new Error(
          text.includes("ERR_MODULE_NOT_FOUND")
            ? INSTALL["@kubernetes/client-node"]
            : `The informer exited early: ${text}`,
        );
      }
      const event = JSON.parse(line);
      events.push(event);
      return event;
    };
    try {
      const runtime = await nextEvent();
      if (runtime.deno !== false) {
        throw new Error(
          `Deno ran the informer script, so node is not on PATH: ${INSTALL.node}`,
        );
      }
      assert.match(String(runtime.node), /^v\d+\./);
      events.length = 0;
      assert.deepEqual(await nextEvent(), { event: "connect" });
      const initial = [await nextEvent(), await nextEvent()];
      assert.deepEqual(
        initial.map((e) => [e.event, e.name, e.data]),
        [["add", "first", { a: "1" }], ["add", "second", { a: "2" }]],
      );
      assert.deepEqual(await nextEvent(), {
        event: "ready",
        names: ["first", "second"],
      });
      const list = server.requests.find((r) =>
        r.method === "GET" && r.path === cmPath()
      );
      assert.equal(list?.query.has("limit"), false, "the informer lists whole");

      await eventually(
        () =>
          server.requests.some((r) =>
            r.path === cmPath() && r.query.get("watch") === "true"
          ),
        "the informer's watch",
      );
      const created = await api<{ metadata: { resourceVersion: string } }>(
        server,
        "POST",
        cmPath(),
        configMap("third", { a: "3" }),
      );
      assert.deepEqual(await nextEvent(), {
        event: "add",
        name: "third",
        resourceVersion: created.metadata.resourceVersion,
        data: { a: "3" },
      });
      const updated = await api<{ metadata: { resourceVersion: string } }>(
        server,
        "PATCH",
        cmPath("first"),
        { data: { a: "10" } },
        "application/merge-patch+json",
      );
      assert.deepEqual(await nextEvent(), {
        event: "update",
        name: "first",
        resourceVersion: updated.metadata.resourceVersion,
        data: { a: "10" },
      });
      await api(server, "DELETE", cmPath("second"));
      const deleted = await nextEvent();
      assert.equal(deleted.event, "delete");
      assert.equal(deleted.name, "second");
      assert.ok(
        !events.some((e) => e.event === "error"),
        JSON.stringify(events),
      );
    } finally {
      child.kill("SIGTERM");
      await lines.cancel();
      await child.status;
      await stderr;
    }
  },
});
