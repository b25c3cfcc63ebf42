/**
 * The fidelity suite's checks: real clients nobody here wrote (kubectl, and
 * the informer of `@kubernetes/client-node` on Node) against a
 * {@linkcode Target}, the served fake (`fidelity_test.ts`) or a real
 * kube-apiserver (`../real/fidelity_test.ts`). What kubectl prints and
 * client-node sees is asserted on both; what only the fake can tell (its
 * request log) is asserted when `t.fake` is set.
 *
 * @module
 */

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import type { KubeObject } from "../../apiclient/types.ts";
import type { Target } from "./_target.ts";
import { eventuallyAsync, finish, INSTALL, Lines, spawn } from "./_tools.ts";

/** What the tests read of stored objects. */
type Obj = KubeObject & {
  data?: Record<string, string>;
  spec?: unknown;
  status?: unknown;
};

/** One check: a name and what it does against a target. */
export type Check = readonly [name: string, fn: (t: Target) => Promise<void>];

/** Every check, in order. */
export const CHECKS: Check[] = [];

function check(name: string, fn: (t: Target) => Promise<void>): void {
  CHECKS.push([name, fn]);
}

function configMap(
  t: Target,
  name: string,
  data: Record<string, string>,
  labels?: Record<string, string>,
): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace: t.ns, ...(labels ? { labels } : {}) },
    data,
  };
}

/** An Event about the ConfigMap `one`, seen twice. */
function eventAbout(
  t: Target,
  uid: string,
  type: string,
): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name: "one.17a", namespace: t.ns },
    involvedObject: {
      apiVersion: "v1",
      kind: "ConfigMap",
      name: "one",
      namespace: t.ns,
      uid,
    },
    reason: "Reconciled",
    message: "all good",
    type,
    source: { component: "fidelity" },
    count: 2,
  };
}

function widget(
  t: Target,
  name: string,
  spec: Record<string, unknown>,
): unknown {
  return {
    apiVersion: "example.com/v1",
    kind: "Widget",
    metadata: { name, namespace: t.ns },
    spec,
  };
}

const cmPath = (t: Target, name = ""): string =>
  `/api/v1/namespaces/${t.ns}/configmaps${name ? `/${name}` : ""}`;
const widgetPath = (t: Target, name = ""): string =>
  `/apis/example.com/v1/namespaces/${t.ns}/widgets${name ? `/${name}` : ""}`;

check("kubectl version and api-resources read discovery", async (t) => {
  const { kubectl } = t;
  const version = JSON.parse(await kubectl.ok("version", "-o", "json"));
  assert.match(version.serverVersion.gitVersion, t.version);
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
  assert.match(
    resources,
    /^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m,
  );
  assert.match(
    resources,
    /^clusterroles\s+rbac\.authorization\.k8s\.io\/v1\s+false\s+ClusterRole$/m,
  );
});

check(
  "kubectl create deployment, scale, get all and explain work on a Deployment",
  async (t) => {
    const { kubectl } = t;
    // kubectl sends the Deployment in protobuf.
    await kubectl.ok(
      "create",
      "deployment",
      "web",
      "--image=nginx:1.27",
      "--replicas=2",
    );
    await kubectl.ok("scale", "deployment", "web", "--replicas=3");
    const made = JSON.parse(
      await kubectl.ok("get", "deployment", "web", "-o", "json"),
    );
    assert.equal(made.spec.replicas, 3);
    assert.equal(made.metadata.generation, 2);
    assert.deepEqual(made.metadata.labels, { app: "web" });
    assert.equal(made.spec.strategy.type, "RollingUpdate");
    assert.equal(made.spec.template.spec.restartPolicy, "Always");
    assert.deepEqual(made.spec.template.spec.containers[0].resources, {});
    // No controllers run on either server: the Deployment alone.
    const all = (await kubectl.ok("get", "all", "--no-headers"))
      .split("\n").filter((line) => line !== "")
      .map((line) => line.split(/\s+/).slice(0, 4).join(" "));
    assert.deepEqual(all, ["deployment.apps/web 0/3 0 0"]);
    const explained = await kubectl.ok(
      "explain",
      "deployment.spec.template",
    );
    assert.match(explained, /^FIELD: template <PodTemplateSpec>$/m);
    assert.match(
      explained,
      /Template describes the pods that will be created\./,
    );
    assert.match(explained, /^ {2}spec\t<PodSpec>$/m);
  },
);

check(
  "kubectl get lists, reads one, selects by label, and reports 404",
  async (t) => {
    const { kubectl } = t;
    await t.api(
      "POST",
      cmPath(t),
      configMap(t, "one", { a: "1" }, { app: "x" }),
    );
    await t.api(
      "POST",
      cmPath(t),
      configMap(t, "two", { b: "2" }, { app: "y" }),
    );

    const list = JSON.parse(
      await kubectl.ok("get", "configmaps", "-o", "json"),
    );
    assert.deepEqual(
      list.items.map((i: { metadata: { name: string } }) => i.metadata.name),
      ["one", "two"],
    );
    // kubectl prints the server-side Table: the API server's columns.
    const table = await kubectl.ok("get", "configmaps");
    assert.match(table, /^NAME\s+DATA\s+AGE\n/);
    assert.match(table, /^one\s+1\s+\d+s$/m);
    assert.match(table, /^two\s+1\s+\d+s$/m);
    if (t.fake) {
      // Fake-only: the request log (kubectl asks for chunks of 500).
      const tableRequest = t.fake.requests.findLast((r) =>
        r.method === "GET" && r.path === cmPath(t)
      );
      assert.equal(tableRequest?.query.get("limit"), "500");
    }
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
    assert.match(
      none.stderr,
      new RegExp(`No resources found in ${t.ns} namespace\\.`),
    );

    const missing = await kubectl.run("get", "cm", "missing");
    assert.equal(missing.code, 1);
    assert.match(
      missing.stderr,
      /Error from server \(NotFound\): configmaps "missing" not found/,
    );
  },
);

check(
  "kubectl get -w prints the list, then changes as they happen",
  async (t) => {
    const { kubectl } = t;
    await t.api("POST", cmPath(t), configMap(t, "before", { a: "1" }));
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
      await t.watching(cmPath(t), "kubectl's watch request");
      await t.api("POST", cmPath(t), configMap(t, "after", { a: "2" }));
      assert.equal(await lines.next(), "ADDED after 2");
      await t.api(
        "PATCH",
        cmPath(t, "before"),
        { data: { a: "3" } },
        "application/merge-patch+json",
      );
      assert.equal(await lines.next(), "MODIFIED before 3");
      await t.api("DELETE", cmPath(t, "after"));
      assert.equal(await lines.next(), "DELETED after 2");
    } finally {
      child.kill("SIGTERM");
      await lines.cancel();
      await child.stderr.cancel();
      await child.status;
    }
  },
);

check(
  "kubectl get prints the server's Table: built-in kinds, events, printer columns",
  async (t) => {
    const { kubectl } = t;
    const cm = await t.api<{ metadata: { uid: string } }>(
      "POST",
      cmPath(t),
      configMap(t, "one", { a: "1", b: "2", c: "3" }),
    );
    const got = await kubectl.ok("get", "configmaps");
    assert.match(got, /^NAME\s+DATA\s+AGE\none\s+3\s+\d+s\n$/);
    const single = await kubectl.ok("get", "cm", "one");
    assert.match(single, /^NAME\s+DATA\s+AGE\none\s+3\s+\d+s\n$/);
    if (t.fake) {
      // Fake-only: the request log.
      const accept = t.fake.requests.findLast((r) =>
        r.path === cmPath(t, "one")
      );
      assert.ok(accept, "kubectl read the ConfigMap by name");
    }
    // Every namespace: kubectl adds NAMESPACE from each row's metadata.
    const all = await kubectl.ok("get", "cm", "-A");
    assert.match(all, /^NAMESPACE\s+NAME\s+DATA\s+AGE\n/);
    assert.match(all, new RegExp(`^${t.ns}\\s+one\\s+3\\s+\\d+s$`, "m"));
    // --sort-by asks for whole objects (includeObject=Object).
    const sorted = await kubectl.ok("get", "cm", "--sort-by=.data.a");
    assert.match(sorted, /^one\s+3\s+/m);
    if (t.fake) {
      // Fake-only: the request log.
      assert.equal(
        t.fake.requests.findLast((r) => r.path === cmPath(t))?.query.get(
          "includeObject",
        ),
        "Object",
      );
    }

    await t.api("POST", `/api/v1/namespaces/${t.ns}/events`, {
      ...eventAbout(t, cm.metadata.uid, "Warning"),
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
    await t.api("POST", widgetPath(t), widget(t, "w1", { size: 3 }));
    await t.api("POST", widgetPath(t), widget(t, "w2", { size: 12 }));
    const w2Status = `${widgetPath(t, "w2")}/status`;
    const ready = {
      ...widget(t, "w2", { size: 12 }) as object,
      status: { conditions: [{ type: "Ready", status: "True" }] },
    };
    // A custom resource's update must name a resourceVersion (its strategy
    // refuses unconditional updates): both servers answer 422.
    const unconditional = await t.api("PUT", w2Status, ready).then(
      () => undefined,
      (error: Error) => error.message,
    );
    assert.match(
      unconditional ?? "accepted",
      /: 422 .*metadata\.resourceVersion: Invalid value: 0: must be specified for an update/,
    );
    const current = await t.object(widgetPath(t, "w2"));
    await t.api("PUT", w2Status, {
      ...ready,
      metadata: {
        name: "w2",
        namespace: t.ns,
        resourceVersion: current?.metadata.resourceVersion,
      },
    });
    const widgets = await kubectl.ok("get", "widgets");
    assert.match(widgets, /^NAME\s+SIZE\s+READY\s+AGE\n/);
    assert.match(widgets, /^w1\s+3\s+\s+\d+s$/m);
    assert.match(widgets, /^w2\s+12\s+True\s+\d+s$/m);
  },
);

check(
  "kubectl get -w prints the Table's rows, then a row per change",
  async (t) => {
    const { kubectl } = t;
    await t.api("POST", cmPath(t), configMap(t, "before", { a: "1" }));
    const child = kubectl.start("get", "configmaps", "-w");
    const lines = new Lines(child.stdout);
    try {
      assert.match(await lines.next() ?? "", /^NAME\s+DATA\s+AGE$/);
      assert.match(await lines.next() ?? "", /^before\s+1\s+\d+s$/);
      await t.watching(cmPath(t), "kubectl's watch request");
      await t.api("POST", cmPath(t), configMap(t, "after", { a: "2", b: "3" }));
      assert.match(await lines.next() ?? "", /^after\s+2\s+\d+s$/);
      await t.api("PATCH", cmPath(t, "before"), {
        data: { a: "1", z: "9", y: "8" },
      }, "application/merge-patch+json");
      assert.match(await lines.next() ?? "", /^before\s+3\s+\d+s$/);
    } finally {
      child.kill("SIGTERM");
      await lines.cancel();
      await child.stderr.cancel();
      await child.status;
    }
  },
);

check("kubectl describe shows a ConfigMap and a custom resource", async (t) => {
  const { kubectl } = t;
  await t.api(
    "POST",
    cmPath(t),
    configMap(t, "one", { key: "value" }, { app: "x" }),
  );
  const cm = await kubectl.ok("describe", "cm", "one");
  assert.match(cm, /^Name:\s+one$/m);
  assert.match(cm, new RegExp(`^Namespace:\\s+${t.ns}$`, "m"));
  assert.match(cm, /^Labels:\s+app=x$/m);
  assert.match(cm, /^key:\n----\nvalue$/m);

  await t.api("POST", widgetPath(t), widget(t, "w1", { size: 3 }));
  const w = await kubectl.ok("describe", "widget", "w1");
  assert.match(w, /^Name:\s+w1$/m);
  assert.match(w, /^API Version:\s+example\.com\/v1$/m);
  assert.match(w, /^Kind:\s+Widget$/m);
  assert.match(w, /^\s+Size:\s+3$/m);
});

check(
  "kubectl wait --for=condition=Ready ends when a test sets the status",
  async (t) => {
    const { kubectl } = t;
    const created = await t.api<{ metadata: { resourceVersion: string } }>(
      "POST",
      widgetPath(t),
      widget(t, "w1", { size: 1 }),
    );
    const child = kubectl.start(
      "wait",
      "--for=condition=Ready",
      "widget/w1",
      "--timeout=40s",
    );
    const waited = finish(child);
    try {
      await t.watching(widgetPath(t), "kubectl's watch on widgets");
      await t.api("PUT", `${widgetPath(t, "w1")}/status`, {
        ...widget(t, "w1", { size: 1 }) as object,
        metadata: {
          name: "w1",
          namespace: t.ns,
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
  },
);

check("kubectl get events shows an Event about an object", async (t) => {
  const { kubectl } = t;
  const cm = await t.api<{ metadata: { uid: string } }>(
    "POST",
    cmPath(t),
    configMap(t, "one", { a: "1" }),
  );
  await t.api("POST", `/api/v1/namespaces/${t.ns}/events`, {
    ...eventAbout(t, cm.metadata.uid, "Normal"),
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

check(
  "kubectl apply creates, then updates by patch, keeping the last applied",
  async (t) => {
    const { kubectl } = t;
    const file = `${kubectl.dir}/cm.json`;
    await Deno.writeTextFile(
      file,
      JSON.stringify(configMap(t, "applied", { a: "1" })),
    );
    assert.equal(
      (await kubectl.ok("apply", "-f", file)).trim(),
      "configmap/applied created",
    );
    let stored = await t.object<Obj>(cmPath(t, "applied"));
    assert.deepEqual(stored?.data, { a: "1" });
    assert.ok(
      stored?.metadata?.annotations
        ?.["kubectl.kubernetes.io/last-applied-configuration"],
    );

    await Deno.writeTextFile(
      file,
      JSON.stringify(configMap(t, "applied", { b: "2" })),
    );
    assert.equal(
      (await kubectl.ok("apply", "-f", file)).trim(),
      "configmap/applied configured",
    );
    stored = await t.object<Obj>(cmPath(t, "applied"));
    assert.deepEqual(
      stored?.data,
      { b: "2" },
      "apply removes keys no longer applied",
    );
    if (t.fake) {
      // Fake-only: the request log.
      const patch = t.fake.requests.findLast((r) => r.method === "PATCH");
      assert.equal(
        patch?.query.get("fieldManager"),
        "kubectl-client-side-apply",
      );
    }

    // A custom resource (not in kubectl's scheme) is applied by merge patch.
    const wfile = `${kubectl.dir}/w.json`;
    await Deno.writeTextFile(
      wfile,
      JSON.stringify(widget(t, "w1", { size: 1, color: "red" })),
    );
    await kubectl.ok("apply", "-f", wfile);
    await Deno.writeTextFile(
      wfile,
      JSON.stringify(widget(t, "w1", { size: 2 })),
    );
    assert.equal(
      (await kubectl.ok("apply", "-f", wfile)).trim(),
      "widget.example.com/w1 configured",
    );
    assert.deepEqual(
      (await t.object<Obj>(widgetPath(t, "w1")))
        ?.spec,
      { size: 2 },
    );
    assert.equal(
      (await kubectl.ok("apply", "-f", wfile)).trim(),
      "widget.example.com/w1 unchanged",
    );
  },
);

check(
  "kubectl apply --server-side creates, updates, removes, conflicts, and forces",
  async (t) => {
    const { kubectl } = t;
    const file = `${kubectl.dir}/ssa.json`;
    const write = (data: Record<string, string>) =>
      Deno.writeTextFile(file, JSON.stringify(configMap(t, "ssa", data)));
    await write({ a: "1", b: "2" });
    assert.equal(
      (await kubectl.ok("apply", "--server-side", "-f", file)).trim(),
      "configmap/ssa serverside-applied",
    );
    if (t.fake) {
      // Fake-only: the request log.
      const patch = t.fake.requests.findLast((r) => r.method === "PATCH");
      assert.equal(patch?.query.get("fieldManager"), "kubectl");
    }
    assert.deepEqual((await t.object<Obj>(cmPath(t, "ssa")))?.data, {
      a: "1",
      b: "2",
    });

    // An update, and a key no longer applied goes.
    await write({ a: "2" });
    await kubectl.ok("apply", "--server-side", "-f", file);
    assert.deepEqual((await t.object<Obj>(cmPath(t, "ssa")))?.data, { a: "2" });

    // Another manager takes .data.a by an update: the next apply conflicts.
    await t.api("PATCH", `${cmPath(t, "ssa")}?fieldManager=editor`, {
      data: { a: "9" },
    }, "application/merge-patch+json");
    await write({ a: "3" });
    const refused = await kubectl.run("apply", "--server-side", "-f", file);
    assert.notEqual(refused.code, 0);
    assert.match(
      refused.stderr,
      /Apply failed with 1 conflict: conflict with "editor" using v1: \.data\.a/,
    );
    assert.deepEqual((await t.object<Obj>(cmPath(t, "ssa")))?.data, { a: "9" });

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
    assert.deepEqual((await t.object<Obj>(cmPath(t, "ssa")))?.data, { a: "3" });
    // The same apply again changes nothing.
    const version = (await t.object(cmPath(t, "ssa")))?.metadata
      .resourceVersion;
    await kubectl.ok("apply", "--server-side", "-f", file);
    assert.equal(
      (await t.object(cmPath(t, "ssa")))?.metadata.resourceVersion,
      version,
    );
  },
);

check(
  "kubectl delete --cascade: background, foreground and orphan, as the garbage collector does",
  async (t) => {
    const { kubectl } = t;
    const secrets = `/api/v1/namespaces/${t.ns}/secrets`;
    const ownedBy = async (name: string, owner: string, block = false) => {
      const made = (await t.object(cmPath(t, owner))) ??
        await t.api<KubeObject>("POST", cmPath(t), configMap(t, owner, {}));
      await t.api("POST", secrets, {
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
    assert.equal(await t.object(cmPath(t, "o1")), undefined);
    const orphan = await t.object(`${secrets}/orphaned`);
    assert.ok(orphan, "an orphaned dependent stays");
    assert.equal(orphan.metadata.ownerReferences, undefined);

    await ownedBy("collected", "o2");
    await kubectl.ok("delete", "configmap", "o2");
    await eventuallyAsync(
      async () => (await t.object(`${secrets}/collected`)) === undefined,
      "the dependent is collected",
      60_000,
    );

    await ownedBy("blocking", "o3", true);
    // kubectl waits until the owner is gone, after its blocking dependent.
    await kubectl.ok("delete", "configmap", "o3", "--cascade=foreground");
    assert.equal(await t.object(cmPath(t, "o3")), undefined);
    assert.equal(await t.object(`${secrets}/blocking`), undefined);
    assert.ok(await t.object(`${secrets}/orphaned`));
  },
);

check(
  "kubectl patch: strategic, merge, json, and the status subresource",
  async (t) => {
    const { kubectl } = t;
    await t.api("POST", cmPath(t), configMap(t, "p", { a: "1" }));
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
      (await t.object<Obj>(cmPath(t, "p")))?.data,
      { b: "2", c: "3" },
    );
    if (t.fake) {
      // Fake-only: the request log (one PATCH per kubectl patch).
      const types = t.fake.requests.filter((r) => r.method === "PATCH").length;
      assert.equal(types, 3);
    }

    const bad = await kubectl.run(
      "patch",
      "cm",
      "missing",
      "-p",
      '{"data":{}}',
    );
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /configmaps "missing" not found/);

    await t.api("POST", widgetPath(t), widget(t, "w1", { size: 1 }));
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
    const w = await t.object<Obj>(widgetPath(t, "w1"));
    assert.deepEqual(w?.status, { phase: "Running" });
    assert.deepEqual(
      w?.spec,
      { size: 1 },
      "a status write changes only status",
    );
  },
);

check(
  "the @kubernetes/client-node informer lists, then watches",
  async (t) => {
    await t.api("POST", cmPath(t), configMap(t, "first", { a: "1" }));
    await t.api("POST", cmPath(t), configMap(t, "second", { a: "2" }));
    const child = spawn("node", {
      args: [
        fileURLToPath(new URL("./client_node_informer.mjs", import.meta.url)),
      ],
      clearEnv: true,
      env: {
        SERVER: t.endpoint.server,
        CA_PEM: t.endpoint.caPem,
        TOKEN: t.endpoint.token,
        API_VERSION: "v1",
        KIND: "ConfigMap",
        NAMESPACE: t.ns,
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
      if (t.fake) {
        // Fake-only: the request log.
        const list = t.fake.requests.find((r) =>
          r.method === "GET" && r.path === cmPath(t)
        );
        assert.equal(
          list?.query.has("limit"),
          false,
          "the informer lists whole",
        );
      }

      await t.watching(cmPath(t), "the informer's watch");
      const created = await t.api<{ metadata: { resourceVersion: string } }>(
        "POST",
        cmPath(t),
        configMap(t, "third", { a: "3" }),
      );
      assert.deepEqual(await nextEvent(), {
        event: "add",
        name: "third",
        resourceVersion: created.metadata.resourceVersion,
        data: { a: "3" },
      });
      const updated = await t.api<{ metadata: { resourceVersion: string } }>(
        "PATCH",
        cmPath(t, "first"),
        { data: { a: "10" } },
        "application/merge-patch+json",
      );
      assert.deepEqual(await nextEvent(), {
        event: "update",
        name: "first",
        resourceVersion: updated.metadata.resourceVersion,
        data: { a: "10" },
      });
      await t.api("DELETE", cmPath(t, "second"));
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
);
