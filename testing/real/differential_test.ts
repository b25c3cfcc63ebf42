// The golden answers are the real server's today: each scenario runs
// against kube-apiserver and must give what its golden file holds (the
// gate's differential test then holds the fake to the same file).
import assert from "node:assert/strict";
import {
  readGolden,
  RECORDING_CONTROLLERS,
  runOnReal,
} from "../differential/_runner.ts";
import { SCENARIOS } from "../differential/scenarios.ts";
import { suite } from "./_plane.ts";

suite(
  "differential goldens",
  SCENARIOS.map((scenario) => [
    `${scenario.name} matches its golden file`,
    async ({ plane }) => {
      const golden = await readGolden(scenario.name);
      assert.ok(golden, `No golden file for ${scenario.name}`);
      const steps = await runOnReal(plane, scenario);
      // Step by step, so a failure names the step that differs.
      assert.deepEqual(
        steps.map((s) => s.step),
        golden.steps.map((s) => s.step),
      );
      for (const [i, step] of steps.entries()) {
        assert.deepEqual(
          step,
          golden.steps[i],
          `step "${step.step}" of ${scenario.name} differs from its golden file:\n` +
            `got    ${JSON.stringify(step)}\n` +
            `golden ${JSON.stringify(golden.steps[i])}`,
        );
      }
    },
  ]),
  {
    noWatchCache: true,
    plane: { controllers: RECORDING_CONTROLLERS },
    // A user's envtest or cluster runs another release than the goldens'.
    needs: {
      built:
        "the goldens are Kubernetes v1.37.2's answers, recorded on the built control plane",
    },
  },
);
