// The fake against the real API server's recorded answers: every scenario
// runs on a fresh fake, and its normalised transcript must equal the golden
// one step by step, except the known differences listed (each with its
// reason), which must still differ (an entry the fake has come to match
// fails, so the list stays true).
import assert from "node:assert/strict";
import { FakeApiServer } from "../mod.ts";
import { KNOWN_DIFFERENCES } from "./known_differences.ts";
import { readGolden, runScenario } from "./_runner.ts";
import { SCENARIOS } from "./scenarios.ts";
import type { Step } from "./_target.ts";

const RECORD =
  "record them with `deno task control-plane:record` (it builds and starts a real kube-apiserver)";

for (const scenario of SCENARIOS) {
  Deno.test(`differential: ${scenario.name} answers as kube-apiserver did`, async () => {
    const golden = await readGolden(scenario.name);
    assert.ok(
      golden !== undefined,
      `No golden answers for ${scenario.name}: ${RECORD}`,
    );
    await using server = new FakeApiServer({
      garbageCollectionDelay: 10,
    });
    const steps = await runScenario(
      {
        name: "fake",
        url: server.url,
        fetch: (request) => server.fetch(request),
      },
      scenario,
      {
        compact: () => {
          server.compact();
          return Promise.resolve();
        },
      },
    );
    compare(scenario.name, steps, golden.steps);
  });
}

function compare(name: string, fake: Step[], real: Step[]): void {
  assert.deepEqual(
    fake.map((s) => s.step),
    real.map((s) => s.step),
    `${name}: the same steps`,
  );
  for (const [i, step] of real.entries()) {
    const mine = fake[i]!;
    const known = KNOWN_DIFFERENCES[`${name}/${step.step}`];
    if (known !== undefined) {
      assert.notDeepEqual(
        mine,
        step,
        `${name}/${step.step} is listed as a known difference (${known}) but the fake now answers as the real server: remove the entry`,
      );
      continue;
    }
    assert.deepEqual(mine, step, `${name}/${step.step}`);
  }
}
