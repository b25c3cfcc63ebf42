// Which real server the suites run on (built, envtest, an existing
// cluster), and what each mode cannot run: no server is started here.
import assert from "node:assert/strict";
import {
  ControlPlaneUnavailableError,
  RealControlPlane,
} from "./real_control_plane.ts";
import { NO_PLANE, plan, type Step, unmetIn } from "./real/_plane.ts";

function env(
  vars: Record<string, string>,
): (name: string) => string | undefined {
  return (name) => vars[name];
}

Deno.test("choose: nothing configured is no mode", () => {
  assert.equal(RealControlPlane.choose({}, env({})), undefined);
  // A kubeconfig alone never opts in: the suites write to the cluster.
  assert.equal(
    RealControlPlane.choose({}, env({ KUBECONFIG: "/home/me/.kube/config" })),
    undefined,
  );
  assert.equal(
    RealControlPlane.choose({}, env({ LIKEN_REAL_CLUSTER: "1" })),
    undefined,
  );
  assert.equal(
    RealControlPlane.choose(
      {},
      env({ LIKEN_REAL_CLUSTER: "true", KUBECONFIG: "/k" }),
    ),
    undefined,
  );
});

Deno.test("choose: an opted-in cluster, else the built binary, else envtest assets", () => {
  const assets = { KUBEBUILDER_ASSETS: "/assets" };
  assert.deepEqual(RealControlPlane.choose({}, env(assets)), {
    mode: "envtest",
    source: "/assets",
    from: "KUBEBUILDER_ASSETS",
  });
  const both = { ...assets, LIKEN_CONTROL_PLANE: "/bin/control-plane" };
  assert.deepEqual(RealControlPlane.choose({}, env(both)), {
    mode: "built",
    source: "/bin/control-plane",
    from: "LIKEN_CONTROL_PLANE",
  });
  const all = { ...both, LIKEN_REAL_CLUSTER: "1", KUBECONFIG: "/k" };
  assert.deepEqual(RealControlPlane.choose({}, env(all)), {
    mode: "cluster",
    source: "/k",
    from: "LIKEN_REAL_CLUSTER",
  });
});

Deno.test("choose: options come before the environment; mode forces one", () => {
  const all = {
    KUBEBUILDER_ASSETS: "/assets",
    LIKEN_CONTROL_PLANE: "/bin/control-plane",
    LIKEN_REAL_CLUSTER: "1",
    KUBECONFIG: "/k",
  };
  assert.deepEqual(
    RealControlPlane.choose({ mode: "envtest" }, env(all))?.source,
    "/assets",
  );
  assert.deepEqual(
    RealControlPlane.choose({ mode: "envtest", assets: "/mine" }, env(all)),
    { mode: "envtest", source: "/mine", from: "options.assets" },
  );
  assert.deepEqual(
    RealControlPlane.choose({ binary: "/b" }, env({})),
    { mode: "built", source: "/b", from: "options.binary" },
  );
  assert.equal(
    RealControlPlane.choose({ mode: "cluster" }, env({})),
    undefined,
  );
});

Deno.test("unmetIn: each mode lists what it cannot run, with the command that can", () => {
  assert.equal(unmetIn(undefined), NO_PLANE);
  assert.match(
    NO_PLANE.how,
    /KUBEBUILDER_ASSETS=.*LIKEN_REAL_CLUSTER=1.*control-plane:build/,
  );
  const goldens = { built: "the goldens are v1.37.2's" };
  assert.equal(unmetIn("built", goldens), undefined);
  for (const mode of ["envtest", "cluster"] as const) {
    const unmet = unmetIn(mode, { ...goldens, namespaced: true });
    assert.match(unmet?.why ?? "", new RegExp(`goldens.*${mode}`));
    assert.match(unmet?.how ?? "", /control-plane:build/);
  }
  // envtest runs no controller manager; the built plane and a cluster do.
  assert.match(
    unmetIn("envtest", { controllers: true })?.why ?? "",
    /no kube-controller-manager/,
  );
  assert.equal(unmetIn("built", { controllers: true }), undefined);
  assert.equal(
    unmetIn("cluster", { controllers: true, namespaced: true }),
    undefined,
  );
  // On an existing cluster, only steps that keep to their namespace.
  assert.match(unmetIn("cluster")?.why ?? "", /only namespaced steps/);
  assert.equal(unmetIn("cluster", { namespaced: true }), undefined);
  assert.equal(unmetIn("envtest"), undefined);
});

Deno.test("start: envtest assets that do not start say how to get a server", async () => {
  await assert.rejects(
    RealControlPlane.start({ mode: "envtest", assets: "/nonexistent/assets" }),
    (error: Error) =>
      error instanceof ControlPlaneUnavailableError &&
      /\/nonexistent\/assets.*does not start.*KUBEBUILDER_ASSETS/.test(
        error.message,
      ),
  );
  await assert.rejects(
    RealControlPlane.start({
      mode: "envtest",
      assets: "/nonexistent/assets",
      controllers: "garbage-collector-controller",
    }),
    /envtest runs no controllers/,
  );
});

Deno.test("start: an existing cluster refuses what only an own plane offers", async () => {
  // Forced through options: the check comes before any connection.
  await assert.rejects(
    RealControlPlane.start({
      mode: "cluster",
      users: ["a"],
      noWatchCache: true,
    }),
    (error: Error) =>
      error instanceof ControlPlaneUnavailableError &&
      /an existing cluster cannot take noWatchCache, users/.test(error.message),
  );
});

Deno.test("plan: a step a mode cannot run is listed alone; a suite none of whose steps can, as a whole", () => {
  const fn = (): Promise<void> => Promise.resolve();
  const steps: Step[] = [
    ["reads", fn, { namespaced: true }],
    ["collects garbage", fn, { namespaced: true, controllers: true }],
    ["makes a CRD", fn],
  ];
  const envtest = plan("envtest", steps);
  assert.equal(envtest.whole, undefined);
  assert.deepEqual(envtest.unmets.map((u) => u !== undefined), [
    false,
    true,
    false,
  ]);
  const cluster = plan("cluster", steps);
  assert.equal(cluster.whole, undefined);
  assert.deepEqual(cluster.unmets.map((u) => u !== undefined), [
    false,
    false,
    true,
  ]);
  assert.deepEqual(plan("built", steps).unmets, [
    undefined,
    undefined,
    undefined,
  ]);
  // The suite's needs add to each step's.
  const goldens = plan("envtest", steps, { built: "the goldens" });
  assert.match(goldens.whole?.why ?? "", /the goldens; this run uses envtest/);
  assert.equal(plan(undefined, steps).whole, NO_PLANE);
});
