// Running named health or readiness checks, each bounded in time.
import { within } from "../_internal/sleep.ts";
import type { Check, CheckReport, CheckResult } from "./types.ts";

/** A registered check: a function, or the state of a part's `done`. */
export interface Registered {
  run(): void | Promise<void>;
}

/** Makes the runnable form of a check. */
export function registered(check: Check): Registered {
  if (typeof check === "function") return { run: check };
  let ended = false;
  check.done.then(() => ended = true, () => ended = true);
  return {
    run(): void {
      if (ended) throw new Error("it ended");
    },
  };
}

/** Runs every check at once; a check slower than `timeout` ms fails. */
export async function runChecks(
  checks: ReadonlyMap<string, Registered>,
  timeout: number,
): Promise<CheckReport> {
  const results = await Promise.all(
    [...checks].map(([name, check]) => runOne(name, check, timeout)),
  );
  return { ok: results.every((r) => r.ok), checks: results };
}

async function runOne(
  name: string,
  check: Registered,
  timeout: number,
): Promise<CheckResult> {
  try {
    const running = Promise.resolve(check.run());
    // A late rejection of a check that timed out is not left unhandled.
    running.catch(() => {});
    if (!(await within(running, timeout))) {
      return { name, ok: false, reason: `no answer within ${timeout} ms` };
    }
    await running;
    return { name, ok: true };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { name, ok: false, reason };
  }
}

/** The report as text, as the Kubernetes API server's `?verbose` writes it. */
export function reportText(kind: string, report: CheckReport): string {
  const lines = report.checks.map((c) =>
    c.ok ? `[+]${c.name} ok` : `[-]${c.name} failed: ${c.reason}`
  );
  lines.push(`${kind} check ${report.ok ? "passed" : "failed"}`);
  return lines.join("\n") + "\n";
}
