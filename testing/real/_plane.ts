/**
 * How the real-server suites get their control plane: one per test file,
 * started by the file's one `Deno.test` and shared by its steps. Without a
 * binary the suite is registered as ignored under a name that says so, and
 * fails when `LIKEN_REQUIRE_CONTROL_PLANE=1` (CI sets it): never a silent
 * pass.
 *
 * @module
 */

import { CONTROL_PLANE_ENV, RealControlPlane } from "../real_control_plane.ts";

/** Whether a binary is configured. */
export const AVAILABLE = RealControlPlane.binary() !== undefined;
const REQUIRED = Deno.env.get("LIKEN_REQUIRE_CONTROL_PLANE") === "1";

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
  options: { noWatchCache?: boolean; timeout?: number } = {},
): void {
  if (!AVAILABLE && !REQUIRED) {
    Deno.test({
      name:
        `${name}: NOT RUN, no real control plane (${CONTROL_PLANE_ENV} is unset; run \`deno task control-plane:build\`, which needs Go)`,
      ignore: true,
      fn(): void {},
    });
    return;
  }
  Deno.test({
    name: `${name} (real kube-apiserver)`,
    // A real server runs real time: the steps wait on real timers.
    sanitizeOps: false,
    sanitizeResources: false,
    async fn(t): Promise<void> {
      await using plane = await RealControlPlane.start({
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
