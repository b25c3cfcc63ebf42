/**
 * How the real-server suites get their control plane: one per test file,
 * started by the file's one `Deno.test` and shared by its steps, in the
 * mode {@linkcode RealControlPlane.choose} picks (built, envtest or an
 * existing cluster). Without one (or a tool a suite also drives), or when
 * the mode lacks what a step needs (controllers in envtest; anything but
 * its own namespace on an existing cluster; the goldens' release), the
 * suite or step is listed as not run with the command that runs it, and
 * fails in CI mode (`LIKEN_CI=1`, which `.ci/run` sets): never a silent
 * pass (`tools/needs.ts`).
 *
 * @module
 */

import {
  type ControlPlaneMode,
  RealControlPlane,
  type RealControlPlaneOptions,
} from "../real_control_plane.ts";
import { first, guarded, runnable, type Unmet } from "../../tools/needs.ts";
import {
  CLUSTER_ENV,
  CONTROL_PLANE_ENV,
  ENVTEST_ASSETS_ENV,
} from "../_planes/control_plane_env.ts";

/** The mode the suites run in here, or undefined for none. */
export const MODE: ControlPlaneMode | undefined = RealControlPlane.choose()
  ?.mode;
/** Whether a control plane is configured. */
export const AVAILABLE = MODE !== undefined;
/** How to run the real-server suites: each mode, cheapest first. */
export const HOW =
  `export ${ENVTEST_ASSETS_ENV}=<setup-envtest's folder with kube-apiserver and etcd> (or ${CLUSTER_ENV}=1 with KUBECONFIG: it writes there), then deno task test:unit; or deno task control-plane:build (needs Go, ~11 min the first time), then deno task test:unit`;
/** Why a real-server suite cannot run without a control plane. */
export const NO_PLANE: Unmet = {
  why:
    `no real control plane (none of ${ENVTEST_ASSETS_ENV}, ${CLUSTER_ENV}=1 and ${CONTROL_PLANE_ENV} is set: \`deno task test:unit\` builds one when Go 1.26+ is on PATH)`,
  how: HOW,
};

/** What a step (or a whole suite) needs beyond an API server. */
export interface Needs {
  /**
   * The controllers of the built plane (garbage collector, namespace,
   * service account): envtest runs none.
   */
  controllers?: boolean | undefined;
  /**
   * It touches only its own namespace (no cluster-scoped object, no
   * restart, etcd, audit log or users), so it may run on an existing
   * cluster. Default false.
   */
  namespaced?: boolean | undefined;
  /** It needs the built control plane's release; the text says why. */
  built?: string | undefined;
}

/** Why `needs` cannot be met in `mode`, or undefined when they can. */
export function unmetIn(
  mode: ControlPlaneMode | undefined,
  needs: Needs = {},
): Unmet | undefined {
  if (mode === undefined) return NO_PLANE;
  const build =
    `deno task control-plane:build (needs Go), then deno task test:unit with ${ENVTEST_ASSETS_ENV} and ${CLUSTER_ENV} unset`;
  if (needs.built !== undefined && mode !== "built") {
    return { why: `${needs.built}; this run uses ${mode}`, how: build };
  }
  if (needs.controllers && mode === "envtest") {
    return {
      why:
        "envtest runs no kube-controller-manager (no garbage collector, namespace, service-account or job controller)",
      how: `${build}, or ${CLUSTER_ENV}=1 with KUBECONFIG`,
    };
  }
  if (!needs.namespaced && mode === "cluster") {
    return {
      why:
        "on an existing cluster only namespaced steps run (this one writes cluster-scoped objects or restarts, compacts or audits the plane)",
      how:
        `${build}, or ${ENVTEST_ASSETS_ENV}=<folder> with ${CLUSTER_ENV} unset`,
    };
  }
  return undefined;
}

/** The label on every namespace a suite makes (to find leftovers). */
export const RUN_LABEL = "liken.dev/real-suite";

/** Lets group liken:users do anything (the test's users, nothing else). */
export const BIND_USERS = {
  apiVersion: "rbac.authorization.k8s.io/v1",
  kind: "ClusterRoleBinding",
  metadata: { name: "liken-users-admin" },
  roleRef: {
    apiGroup: "rbac.authorization.k8s.io",
    kind: "ClusterRole",
    name: "cluster-admin",
  },
  subjects: [{
    apiGroup: "rbac.authorization.k8s.io",
    kind: "Group",
    name: "liken:users",
  }],
};

/**
 * What `mode` cannot run of a suite: each step's unmet needs (the suite's
 * and its own), and the suite's as a whole when no step can run (it is
 * then listed once rather than step by step).
 */
export function plan(
  mode: ControlPlaneMode | undefined,
  steps: readonly Step[],
  needs: Needs = {},
): { whole: Unmet | undefined; unmets: (Unmet | undefined)[] } {
  const unmets = steps.map(([, , own]) => unmetIn(mode, { ...needs, ...own }));
  const whole = unmets.every((u) => u !== undefined) ? unmets[0] : undefined;
  return { whole, unmets };
}

/** What each step gets. */
export interface Context {
  /** The running control plane. */
  plane: RealControlPlane;
  /** A namespace of the step's own (created for it). */
  namespace: string;
}

/** One step of a real-server suite, and what it needs beyond a server. */
export type Step = [
  name: string,
  fn: (context: Context) => Promise<void>,
  needs?: Needs,
];

/**
 * Registers a suite: one test that starts a control plane and runs each
 * step in a namespace of its own.
 */
export function suite(
  name: string,
  steps: readonly Step[],
  options: {
    noWatchCache?: boolean;
    timeout?: number;
    /** What else the steps need that this machine lacks (e.g. kubectl). */
    unmet?: Unmet | undefined;
    /** More options of the control plane (users, audit level). */
    plane?: RealControlPlaneOptions | undefined;
    /** What every step needs (a step's own needs add to these). */
    needs?: Needs | undefined;
  } = {},
): void {
  const { whole, unmets } = plan(MODE, steps, options.needs);
  const unmet = first(options.unmet, whole);
  if (!runnable(`real-server suite "${name}"`, unmet)) return;
  Deno.test({
    name: `${name} (real kube-apiserver)`,
    ...(options.timeout === undefined ? {} : { timeout: options.timeout }),
    // A real server runs real time: the steps wait on real timers.
    sanitizeOps: false,
    sanitizeResources: false,
    async fn(t): Promise<void> {
      await using plane = await RealControlPlane.start({
        ...options.plane,
        noWatchCache: options.noWatchCache ?? false,
      });
      const admin = plane.client();
      const made: string[] = [];
      try {
        let n = 0;
        for (const [i, [title, fn]] of steps.entries()) {
          const skipped = unmets[i];
          if (skipped !== undefined) {
            // Listed (or failed in CI mode) by name, never counted as passed.
            await t.step(
              guarded({
                name: `real-server suite "${name}", step "${title}"`,
                fn(): void {},
              }, skipped) as Deno.TestStepDefinition,
            );
            continue;
          }
          const namespace = `real-${++n}-${crypto.randomUUID().slice(0, 6)}`;
          await admin.create("/api/v1/namespaces", {
            apiVersion: "v1",
            kind: "Namespace",
            metadata: { name: namespace, labels: { [RUN_LABEL]: "true" } },
          });
          made.push(namespace);
          await t.step(title, () => fn({ plane, namespace }));
        }
      } finally {
        // An existing cluster outlives the run: leave nothing behind.
        if (plane.mode === "cluster") {
          for (const namespace of made) {
            await admin.delete(`/api/v1/namespaces/${namespace}`).catch(
              () => {},
            );
          }
        }
      }
    },
  });
}

/**
 * Restarts kube-apiserver for a chaos seed and prints when and how (the
 * kind of stop and how long it took), which moves every seed of its batch.
 */
export async function restartReported(
  plane: RealControlPlane,
  options: { kill: boolean; at: number; start: number },
): Promise<void> {
  const answer = await plane.restartApiserver({ kill: options.kill });
  // deno-lint-ignore no-console -- the restart's figures
  console.log(
    `restart at ${options.at} ms (${options.kill ? "SIGKILL" : "SIGTERM"}): ${
      JSON.stringify(answer)
    }, ended ${Date.now() - options.start} ms`,
  );
}
