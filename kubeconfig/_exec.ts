// Exec credential plugins (client.authentication.k8s.io v1 and v1beta1).
import type { ExecEntry } from "./_config.ts";
import { CredentialPluginError, KubeconfigError } from "./errors.ts";
import { describe } from "../_internal/errors.ts";

/** The API versions of `ExecCredential` this client speaks. */
export const EXEC_API_VERSIONS: readonly string[] = [
  "client.authentication.k8s.io/v1",
  "client.authentication.k8s.io/v1beta1",
];

const STDERR_LIMIT = 2048;

/** The cluster as a plugin sees it when `provideClusterInfo` is set. */
export interface ExecClusterInfo {
  server: string;
  "certificate-authority-data"?: string;
  "tls-server-name"?: string;
  "insecure-skip-tls-verify"?: boolean;
  "proxy-url"?: string;
}

interface Cached {
  header: string;
  /** Epoch milliseconds after which the credential is stale; none: never. */
  expires: number | undefined;
}

/**
 * Runs a plugin for a bearer token, caches the token until its
 * `expirationTimestamp`, and shares one run among concurrent requests.
 */
export class ExecCredential {
  #entry: ExecEntry;
  #user: string;
  #cluster: ExecClusterInfo;
  #timeout: number;
  #cached: Cached | undefined;
  #pending: Promise<string> | undefined;

  constructor(
    entry: ExecEntry,
    options: { user: string; cluster: ExecClusterInfo; timeout: number },
  ) {
    const { user, cluster, timeout } = options;
    if (!EXEC_API_VERSIONS.includes(entry.apiVersion)) {
      throw new KubeconfigError(
        `User "${user}": exec apiVersion ${entry.apiVersion} is not supported (use ${
          EXEC_API_VERSIONS.join(" or ")
        })`,
      );
    }
    // As kubectl: v1 must say whether the plugin may prompt (v1beta1 defaults
    // to IfAvailable), and only the three known modes are accepted.
    const mode = entry.interactiveMode ??
      (entry.apiVersion === "client.authentication.k8s.io/v1beta1"
        ? "IfAvailable"
        : undefined);
    if (mode === undefined) {
      throw new KubeconfigError(
        `User "${user}": exec interactiveMode must be set for ${entry.apiVersion} (Never, IfAvailable or Always)`,
      );
    }
    if (!["Never", "IfAvailable", "Always"].includes(mode)) {
      throw new KubeconfigError(
        `User "${user}": exec interactiveMode ${mode} is not one of Never, IfAvailable or Always`,
      );
    }
    if (mode === "Always") {
      throw new KubeconfigError(
        `User "${user}": the credential plugin needs a terminal (interactiveMode: Always), which this client never provides`,
      );
    }
    this.#entry = entry;
    this.#user = user;
    this.#cluster = cluster;
    this.#timeout = timeout;
  }

  /** The `Authorization` header value, from the cache or a new run. */
  authorization(): Promise<string> {
    const cached = this.#cached;
    if (
      cached && (cached.expires === undefined || Date.now() < cached.expires)
    ) {
      return Promise.resolve(cached.header);
    }
    this.#pending ??= this.#run().finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  /**
   * Forgets the cached credential when the server refused it (401), so the
   * next request runs the plugin again, as kubectl does.
   */
  refused(header: string | null): void {
    if (this.#cached && this.#cached.header === header) {
      this.#cached = undefined;
    }
  }

  async #run(): Promise<string> {
    const { command, args, apiVersion } = this.#entry;
    const what = `The credential plugin "${command}" of user "${this.#user}"`;
    const spec: Record<string, unknown> = { interactive: false };
    if (this.#entry.provideClusterInfo) spec.cluster = this.#cluster;
    const env: Record<string, string> = {};
    for (const { name, value } of this.#entry.env) env[name] = value;
    env.KUBERNETES_EXEC_INFO = JSON.stringify({
      apiVersion,
      kind: "ExecCredential",
      spec,
    });
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), this.#timeout);
    let output: Deno.CommandOutput;
    try {
      output = await new Deno.Command(command, {
        args,
        env,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
        signal: stop.signal,
      }).output();
    } catch (cause) {
      let reason = describe(cause);
      if (cause instanceof Deno.errors.NotFound) {
        reason = "the command was not found";
        if (this.#entry.installHint) {
          reason += `. ${this.#entry.installHint.trim()}`;
        }
      } else if (cause instanceof Deno.errors.NotCapable) {
        reason = `Deno may not run it; grant --allow-run=${command}`;
      }
      throw new CredentialPluginError(`${what} could not start: ${reason}`, {
        cause,
      });
    } finally {
      clearTimeout(timer);
    }
    const stderr = new TextDecoder().decode(output.stderr).slice(
      0,
      STDERR_LIMIT,
    ).trim();
    const suffix = stderr ? `: ${stderr}` : "";
    if (stop.signal.aborted) {
      throw new CredentialPluginError(
        `${what} did not finish within ${this.#timeout} ms${suffix}`,
        { stderr },
      );
    }
    if (!output.success) {
      throw new CredentialPluginError(
        `${what} exited with code ${output.code}${suffix}`,
        { exitCode: output.code, stderr },
      );
    }
    // The output holds the token: errors below never quote it.
    let credential: unknown;
    try {
      credential = JSON.parse(new TextDecoder().decode(output.stdout));
    } catch {
      // No cause: JSON.parse's message quotes the text, which may hold a token.
      throw new CredentialPluginError(
        `${what} printed no valid ExecCredential JSON`,
        { exitCode: 0, stderr },
      );
    }
    const fail = (problem: string): never => {
      throw new CredentialPluginError(`${what} ${problem}`, {
        exitCode: 0,
        stderr,
      });
    };
    if (typeof credential !== "object" || credential === null) {
      return fail("printed no ExecCredential object");
    }
    const c = credential as {
      kind?: unknown;
      apiVersion?: unknown;
      status?: {
        token?: unknown;
        expirationTimestamp?: unknown;
        clientCertificateData?: unknown;
      };
    };
    if (c.kind !== "ExecCredential") {
      fail(`printed kind ${String(c.kind)}, not ExecCredential`);
    }
    if (c.apiVersion !== apiVersion) {
      fail(
        `answered apiVersion ${
          String(c.apiVersion)
        }, but the kubeconfig asks for ${apiVersion}`,
      );
    }
    const status = c.status;
    if (typeof status !== "object" || status === null) {
      return fail("printed an ExecCredential without status");
    }
    if (typeof status.token !== "string" || status.token === "") {
      return fail(
        status.clientCertificateData !== undefined
          ? "answered a client certificate, which this client does not support from plugins (only tokens)"
          : "printed an ExecCredential without status.token",
      );
    }
    let expires: number | undefined;
    if (
      status.expirationTimestamp !== undefined &&
      status.expirationTimestamp !== null
    ) {
      expires = typeof status.expirationTimestamp === "string"
        ? Date.parse(status.expirationTimestamp)
        : NaN;
      if (Number.isNaN(expires)) {
        fail("printed an expirationTimestamp that is not an RFC 3339 time");
      }
    }
    const header = `Bearer ${status.token}`;
    this.#cached = { header, expires };
    return header;
  }
}
