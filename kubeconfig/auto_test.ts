import assert from "node:assert/strict";
import { autoClient } from "./mod.ts";
import { kubeconfig, tempDir } from "./testdata/helpers.ts";
import { fakeServiceAccount } from "../testing/mod.ts";

async function withServiceHost(
  host: string | undefined,
  fn: () => Promise<void>,
): Promise<void> {
  const names = ["KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT"];
  const before = names.map((n) => Deno.env.get(n));
  if (host === undefined) names.forEach((n) => Deno.env.delete(n));
  else {
    Deno.env.set("KUBERNETES_SERVICE_HOST", host);
    Deno.env.set("KUBERNETES_SERVICE_PORT", "6443");
  }
  try {
    await fn();
  } finally {
    names.forEach((n, i) => {
      const value = before[i];
      if (value === undefined) Deno.env.delete(n);
      else Deno.env.set(n, value);
    });
  }
}

Deno.test("autoClient() is in-cluster when KUBERNETES_SERVICE_HOST is set", async () => {
  await using dir = await tempDir();
  await using account = await fakeServiceAccount({ namespace: "pods-ns" });
  // A kubeconfig that would be used otherwise: it must be ignored.
  const path = await dir.write(
    "config",
    kubeconfig("http://127.0.0.1:7777", {}, {}, "laptop-ns"),
  );
  await withServiceHost("10.96.0.1", async () => {
    using client = await autoClient({ serviceAccountDir: account.dir, path });
    assert.equal(client.server, "https://10.96.0.1:6443");
    assert.equal(client.defaultNamespace, "pods-ns");
    using named = await autoClient({
      serviceAccountDir: account.dir,
      inClusterServer: "https://kubernetes.default.svc",
    });
    assert.equal(named.server, "https://kubernetes.default.svc");
  });
});

Deno.test("autoClient() uses the kubeconfig outside a pod", async () => {
  await using dir = await tempDir();
  const path = await dir.write(
    "config",
    kubeconfig("http://127.0.0.1:7777", {}, {}, "laptop-ns"),
  );
  await withServiceHost(undefined, async () => {
    using client = await autoClient({ path, serviceAccountDir: "/nowhere" });
    assert.equal(client.server, "http://127.0.0.1:7777");
    assert.equal(client.defaultNamespace, "laptop-ns");
  });
});
