/**
 * Waiting on a real server: poll in real time until a check holds.
 *
 * @module
 */

/**
 * Polls `check` every 200 ms until it answers a value other than
 * `undefined` or `false`, and answers it.
 *
 * @throws {Error} Naming `what` when `timeout` ms pass first.
 */
export async function eventually<T>(
  what: string,
  check: () => T | false | undefined | Promise<T | false | undefined>,
  timeout = 60_000,
): Promise<T> {
  const end = Date.now() + timeout;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > end) {
      throw new Error(
        `Waited ${timeout} ms for ${what}${
          last === undefined ? "" : `; last error: ${String(last)}`
        }`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Runs kubectl with the plane's kubeconfig; answers its output. */
export async function kubectl(
  kubeconfig: string,
  args: readonly string[],
  options: { ok?: boolean } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await new Deno.Command("kubectl", {
    args: ["--kubeconfig", kubeconfig, ...args],
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
  }).output();
  const decoder = new TextDecoder();
  const result = {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
  if ((options.ok ?? true) && result.code !== 0) {
    throw new Error(
      `kubectl ${args.join(" ")} exited with ${result.code}: ${result.stderr}`,
    );
  }
  return result;
}
