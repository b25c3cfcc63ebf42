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

/**
 * Sends `request` again until it succeeds, for a test's own requests that
 * a restart of kube-apiserver may refuse or cut ("fetch failed"); an error
 * that `done` accepts (such as a 409 for a create whose answer was lost)
 * ends it too.
 *
 * @throws {Error} Naming `what` when `timeout` ms pass first.
 */
export async function retried(
  what: string,
  request: () => Promise<unknown>,
  options: { timeout?: number; done?: (error: unknown) => boolean } = {},
): Promise<void> {
  await eventually(what, async () => {
    try {
      await request();
    } catch (error) {
      if (options.done?.(error)) return true;
      throw error;
    }
    return true;
  }, options.timeout ?? 60_000);
}

/** A 409: what a create whose first answer was lost gets when sent again. */
export function exists(error: unknown): boolean {
  return (error as { status?: number }).status === 409;
}
