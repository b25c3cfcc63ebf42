/**
 * A kubeconfig that cannot be used: a missing file, malformed YAML, an
 * unknown context, a missing field, or a setting Deno cannot honour.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { KubeconfigError, loadKubeconfig } from "@liken/kubernetes/kubeconfig";
 *
 * await assert.rejects(
 *   loadKubeconfig({ path: ".tmp/no-such-kubeconfig" }),
 *   KubeconfigError,
 * );
 * ```
 */
export class KubeconfigError extends Error {
  /**
   * Makes the error.
   *
   * @param message What is wrong, naming the file and entry.
   * @param options The underlying cause, if any.
   */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "KubeconfigError";
  }
}

/**
 * An exec credential plugin that failed: it could not start, exited with an
 * error, timed out, or printed no usable `ExecCredential`. The message holds
 * the plugin's standard error (its first 2 KiB), never its standard output,
 * which may carry a token.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CredentialPluginError, KubeconfigError } from "@liken/kubernetes/kubeconfig";
 *
 * const error = new CredentialPluginError("The plugin failed", { exitCode: 1, stderr: "no login" });
 * assert.ok(error instanceof KubeconfigError);
 * assert.equal(error.exitCode, 1);
 * ```
 */
export class CredentialPluginError extends KubeconfigError {
  /** The plugin's exit code, or `undefined` when it did not exit by itself. */
  readonly exitCode: number | undefined;
  /** The plugin's standard error, trimmed to its first 2 KiB. */
  readonly stderr: string;

  /**
   * Makes the error.
   *
   * @param message What went wrong.
   * @param options The exit code, standard error and cause.
   */
  constructor(
    message: string,
    options: { exitCode?: number; stderr?: string; cause?: unknown } = {},
  ) {
    super(
      message,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = "CredentialPluginError";
    this.exitCode = options.exitCode;
    this.stderr = options.stderr ?? "";
  }
}
