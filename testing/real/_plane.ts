/**
 * How the real-server suites get their control plane: one per test file,
 * started by the file's one `Deno.test` and shared by its steps. Without a
 * binary (or a tool a suite also drives) the suite is listed as not run
 * with the command that runs it, and fails in CI mode (`LIKEN_CI=1`, which
 * `.ci/run` sets): never a silent pass (`tools/needs.ts`).
 *
 * @module
 */

import {
  RealControlPlane,
  type RealControlPlaneOptions,
} from "../real_control_plane.ts";
import { first, runnable, type Unmet } from "../../tools/needs.ts";
import { CONTROL_PLANE_ENV } from "../_control_plane_env.ts";

/** Whether a binary is configured. */
export const AVAILABLE = RealControlPlane.binary() !== undefined;
/** Why a real-server suite cannot run without a control plane. */
export const NO_PLANE: Unmet = {
  why:
    `no real control plane (${CONTROL_PLANE_ENV} is unset: \`deno task test:unit\` builds it when Go 1.26+ is on PATH)`,
  how: "deno task control-plane:build (needs Go), then deno task test:unit",
};

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

/** What each step gets. */
export interface Context {
  /** The running control plane. */
  plane: RealControlPlane;
  /** A namespace of the step's own (created for it). */
  namespace: string;
}

/** One step of a real-server suite. */
export type Step = [name: string, fn: (context: Context) => Promise<void>];

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
  } = {},
): void {
  const unmet = first(AVAILABLE ? undefined : NO_PLANE, options.unmet);
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
      let n = 0;
      for (const [title, fn] of steps) {
        const namespace = `real-${++n}-${crypto.randomUUID().slice(0, 6)}`;
        await admin.create("/api/v1/namespaces", {
          apiVersion: "v1",
          kind: "Namespace",
          metadata: { name: namespace },
        });
        await t.step(title, () => fn({ plane, namespace }));
      }
    },
  });
}
