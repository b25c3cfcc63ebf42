/**
 * Records the real API server's answers to every scenario as golden files:
 * `deno task control-plane:record` (it builds the control plane first).
 * Pass scenario names to record only those.
 *
 * @module
 */

import { RealControlPlane } from "../real_control_plane.ts";
import { RECORDING_CONTROLLERS, runOnReal, writeGolden } from "./_runner.ts";
import { SCENARIOS } from "./scenarios.ts";

const only = new Set(Deno.args);
await using plane = await RealControlPlane.start({
  noWatchCache: true,
  controllers: RECORDING_CONTROLLERS,
});
const { server, version } = plane.ready;
// deno-lint-ignore no-console
console.log(`recording against kube-apiserver ${version} at ${server}`);
let failed = 0;
for (const scenario of SCENARIOS) {
  if (only.size > 0 && !only.has(scenario.name)) continue;
  const started = Date.now();
  try {
    const steps = await runOnReal(plane, scenario);
    await writeGolden({ scenario: scenario.name, server: version, steps });
    // deno-lint-ignore no-console
    console.log(
      `${scenario.name}: ${steps.length} steps (${Date.now() - started} ms)`,
    );
  } catch (error) {
    failed++;
    // deno-lint-ignore no-console
    console.error(
      `${scenario.name}: ${error instanceof Error ? error.stack : error}`,
    );
  }
}
if (failed > 0) Deno.exitCode = 1;
