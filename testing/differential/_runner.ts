/**
 * Runs scenarios on a target in namespaces of their own, and reads and
 * writes the golden transcripts the real API server gave.
 *
 * @module
 */

import type { RealControlPlane } from "../real_control_plane.ts";
import { canonical, normalise } from "./_normalise.ts";
import type { Hooks, Scenario } from "./scenarios.ts";
import { Run, type Step, type Target } from "./_target.ts";

/** A golden file: what the real server answered to one scenario. */
export interface Golden {
  /** The scenario. */
  scenario: string;
  /** The real server's version (`gitVersion`). */
  server: string;
  /** The normalised transcript. */
  steps: Step[];
}

/**
 * The controllers of the control plane the goldens are recorded on: the
 * tool's defaults, plus the one that writes the type checking of
 * ValidatingAdmissionPolicies into their status.
 */
export const RECORDING_CONTROLLERS: string = [
  "garbage-collector-controller",
  "namespace-controller",
  "serviceaccount-controller",
  "serviceaccount-token-controller",
  "validatingadmissionpolicy-status-controller",
].join(",");

/** Where the golden files live. */
export const GOLDEN_DIR = new URL("./golden/", import.meta.url);

/**
 * Runs one scenario in a fresh namespace and answers its normalised
 * transcript. The namespace is deleted afterwards (not waited for).
 */
export async function runScenario(
  target: Target,
  scenario: Scenario,
  hooks: Hooks,
): Promise<Step[]> {
  const suffix = crypto.getRandomValues(new Uint8Array(3));
  const namespace = `diff-${scenario.name}-${
    Array.from(suffix, (b) => b.toString(16).padStart(2, "0")).join("")
  }`;
  const run = new Run(target, namespace);
  const made = await run.send("namespace", "POST", "/api/v1/namespaces", {
    body: {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: namespace },
    },
    quiet: true,
  });
  if (made.status !== 201) {
    throw new Error(
      `Creating namespace ${namespace} on the ${target.name} server answered ${made.status}: ${
        JSON.stringify(made.body)
      }`,
    );
  }
  try {
    await scenario.run(run, hooks);
  } finally {
    await run.send("cleanup", "DELETE", `/api/v1/namespaces/${namespace}`, {
      quiet: true,
    });
  }
  return normalise(run.steps, {
    namespace,
    generated: scenario.generated ?? [],
  });
}

/** Reads a scenario's golden file; `undefined` when absent. */
export async function readGolden(name: string): Promise<Golden | undefined> {
  try {
    const golden = JSON.parse(
      await Deno.readTextFile(new URL(`${name}.json`, GOLDEN_DIR)),
    ) as Golden;
    return { ...golden, steps: canonical(golden.steps) };
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

/** Writes a scenario's golden file. */
export async function writeGolden(golden: Golden): Promise<void> {
  await Deno.mkdir(GOLDEN_DIR, { recursive: true });
  await Deno.writeTextFile(
    new URL(`${golden.scenario}.json`, GOLDEN_DIR),
    JSON.stringify(golden, null, 2) + "\n",
  );
}

/**
 * Runs one scenario on a real control plane (on its API server without the
 * watch cache when the scenario asks for it).
 */
export function runOnReal(
  plane: RealControlPlane,
  scenario: Scenario,
): Promise<Step[]> {
  const { server, serverNoWatchCache } = plane.ready;
  return runScenario(
    {
      name: "real",
      url: scenario.noWatchCache ? serverNoWatchCache ?? server : server,
      fetch: (request) => plane.fetch(request),
    },
    scenario,
    { compact: () => plane.compact() },
  );
}
