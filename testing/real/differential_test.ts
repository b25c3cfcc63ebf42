// The golden answers are the real server's today: each scenario runs
// against kube-apiserver and must give what its golden file holds (the
// gate's differential test then holds the fake to the same file).
import assert from "node:assert/strict";
import { readGolden, runScenario } from "../differential/_runner.ts";
import { SCENARIOS } from "../differential/scenarios.ts";
import { suite } from "./_plane.ts";

suite(
  "differential goldens",
  SCENARIOS.map((scenario) => [
    `${scenario.name} matches its golden file`,
    async ({ plane }) => {
      const golden = await readGolden(scenario.name);
      assert.ok(golden, `No golden file for ${scenario.name}`);
      const url = scenario.noWatchCache
        ? plane.ready.serverNoWatchCache ?? plane.server
        : plane.server;
      const steps = await runScenario(
        {
          name: "real",
          url,
          fetch: (request) => plane.fetch(request),
        },
        scenario,
        { compact: () => plane.compact() },
      );
      assert.deepEqual(steps, golden.steps);
    },
  ]),
  { noWatchCache: true },
);
