/**
 * One way for a suite to say it cannot run here: the tests that need a
 * tool this machine lacks (node, kubectl, a real API server: built,
 * envtest's or a cluster's, see testing/real/_plane.ts) and the
 * benchmarks' peers that need Go, cargo or npm. Each is registered or
 * printed as one line that starts with {@linkcode NOT_RUN}, says why and
 * gives the command that runs it; `tools/gate.ts` collects those lines
 * and lists them at the end of `deno task test`. Never a silent pass: an
 * ignored test is not counted as passed, and in CI mode
 * (`LIKEN_CI=1`, which `.ci/run` sets) the same suite is registered as a
 * failing test instead.
 *
 * @module
 */

const ROOT = new URL("../", import.meta.url).pathname;

/** The environment variable that turns on CI mode: every suite must run. */
export const CI_ENV = "LIKEN_CI";

/** How every line about a suite that did not run begins. */
export const NOT_RUN = "NOT RUN: ";

/** Why something cannot run here, and what runs it once that is fixed. */
export interface Unmet {
  /** What is missing, e.g. "node is not on PATH". */
  why: string;
  /** The command (or install step) that runs it. */
  how: string;
}

/** Whether CI mode is on; false when Deno may not read the variable. */
export function ciMode(): boolean {
  const granted = Deno.permissions.querySync({
    name: "env",
    variable: CI_ENV,
  }).state === "granted";
  return granted && Deno.env.get(CI_ENV) === "1";
}

/** The line that lists a suite that did not run. */
export function notRunLine(suite: string, unmet: Unmet): string {
  return `${NOT_RUN}${suite}: ${unmet.why}; run it with: ${unmet.how}`;
}

/**
 * `test` itself when `unmet` is undefined; else a test that lists it as
 * not run (ignored, named by its {@linkcode notRunLine}), or in CI mode one
 * that fails with the same text.
 */
export function guarded(
  test: Deno.TestDefinition,
  unmet: Unmet | undefined,
): Deno.TestDefinition {
  if (unmet === undefined) return test;
  if (ciMode()) {
    return {
      name: `${test.name}: required in CI (${CI_ENV}=1)`,
      fn(): never {
        throw new Error(
          `${test.name} cannot run here, and CI mode requires every suite: ${unmet.why}; run it with: ${unmet.how}`,
        );
      },
    };
  }
  return { name: notRunLine(test.name, unmet), ignore: true, fn(): void {} };
}

/**
 * Registers `suite` as not run when `unmet` is set (see
 * {@linkcode guarded}). Answers whether the suite may run.
 */
export function runnable(suite: string, unmet: Unmet | undefined): boolean {
  if (unmet === undefined) return true;
  Deno.test(guarded({ name: suite, fn(): void {} }, unmet));
  return false;
}

/** How to install each tool the suites drive. */
const INSTALL: Readonly<Record<string, string>> = {
  node: "install Node.js 20 with npm (apt-get install nodejs npm)",
  kubectl:
    "install kubectl 1.29 or newer (Debian's kubernetes-client 1.20 is too old)",
};

/**
 * Whether `tool` can be started here: undefined when it can, else why
 * not. `how` is the command that runs the suite once the tool is there.
 */
export async function tool(
  name: "node" | "kubectl",
  how: string,
): Promise<Unmet | undefined> {
  // Without node on PATH, Deno runs `node` itself (its Node compatibility),
  // which lacks the npm packages a suite installed for Node: real Node
  // has no `Deno` global.
  const args = name === "node"
    ? ["-e", "process.exit(typeof Deno === 'undefined' ? 0 : 3)"]
    : ["version", "--client"];
  try {
    const { success } = await new Deno.Command(name, {
      args,
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).output();
    if (success) return undefined;
    return {
      why: name === "node"
        ? "node is not on PATH (Deno stood in for it)"
        : `${name} did not run`,
      how: `${INSTALL[name]}, then ${how}`,
    };
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      return {
        why: `${name} is not on PATH`,
        how: `${INSTALL[name]}, then ${how}`,
      };
    }
    if (error instanceof Deno.errors.NotCapable) {
      return {
        why: `Deno may not run ${name} (no --allow-run=${name})`,
        how: `deno task test:unit`,
      };
    }
    throw error;
  }
}

/**
 * Whether Node finds the npm package `name` from folder `dir` (as a script
 * there would import it): undefined when it does, else why not. Needs
 * node to start; call {@linkcode tool} first.
 */
export async function nodePackage(
  name: string,
  dir: URL,
  how: string,
): Promise<Unmet | undefined> {
  const { success } = await new Deno.Command("node", {
    args: ["-e", `require.resolve(${JSON.stringify(`${name}/package.json`)})`],
    cwd: dir.pathname,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).output();
  if (success) return undefined;
  const prefix = dir.pathname.replace(ROOT, "").replace(/\/$/, "");
  return {
    why: `${name} is not installed in ${prefix}`,
    how: `npm ci --prefix ${prefix} (or deno task setup), then ${how}`,
  };
}

/** The first of `unmets` that is set. */
export function first(
  ...unmets: (Unmet | undefined)[]
): Unmet | undefined {
  return unmets.find((u) => u !== undefined);
}
