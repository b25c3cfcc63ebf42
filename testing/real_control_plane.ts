/**
 * A real Kubernetes API server for tests, in one of three modes
 * ({@linkcode ControlPlaneMode}):
 *
 * - `built`: kube-apiserver, etcd, the garbage collector and the namespace
 *   and service-account controllers, built from source by
 *   `deno task control-plane:build` (see `tools/control-plane/`) and
 *   started on 127.0.0.1;
 * - `envtest`: the `kube-apiserver` and `etcd` binaries of a
 *   `KUBEBUILDER_ASSETS` folder (as `setup-envtest` lays them out), started
 *   on 127.0.0.1 as controller-runtime's envtest starts them, with no
 *   controllers;
 * - `cluster`: an existing cluster from `KUBECONFIG`, only when
 *   `LIKEN_REAL_CLUSTER=1` opts in (tests write there).
 *
 * @module
 */

import { Client } from "../apiclient/client.ts";
import type { ClientOptions } from "../apiclient/options.ts";
import type { ReadyLine, Restarted } from "./_planes/ready.ts";
import { type EnvtestPlane, startEnvtest } from "./_planes/envtest.ts";
import { type ClusterPlane, connectCluster } from "./_planes/cluster.ts";
import {
  CLUSTER_ENV,
  CONTROL_PLANE_ENV,
  ENVTEST_ASSETS_ENV,
} from "./_planes/control_plane_env.ts";

export type { ReadyLine, Restarted };

/**
 * Where the API server comes from: `built` (this repository's control
 * plane, every controller the suites use), `envtest` (a user's
 * `KUBEBUILDER_ASSETS`: kube-apiserver and etcd, no controllers) or
 * `cluster` (an existing cluster, by opt-in).
 */
export type ControlPlaneMode = "built" | "envtest" | "cluster";

/** The mode {@linkcode RealControlPlane.choose} picked, and from what. */
export interface ControlPlaneChoice {
  /** The mode. */
  mode: ControlPlaneMode;
  /** The binary (built), the assets folder (envtest) or the kubeconfig (cluster). */
  source: string;
  /** Which setting chose it, such as `KUBEBUILDER_ASSETS`. */
  from: string;
}

/** Options of {@linkcode RealControlPlane.start}. */
export interface RealControlPlaneOptions {
  /**
   * The binary. Default: the `LIKEN_CONTROL_PLANE` environment variable,
   * which `deno task test` sets from `deno task control-plane:build`.
   */
  binary?: string | undefined;
  /** Also start an API server without the watch cache. Default `false`. */
  noWatchCache?: boolean | undefined;
  /** Controllers to run (kube-controller-manager's `--controllers`). */
  controllers?: string | undefined;
  /** Extra kube-apiserver flags, such as `--runtime-config=api/beta=true`. */
  apiserverArgs?: readonly string[] | undefined;
  /** Give up when it is not ready within this many ms. Default 180 000. */
  timeout?: number | undefined;
  /**
   * Users with a static bearer token each (in group `liken:users`), such as
   * one per replica, so that the audit log tells them apart.
   */
  users?: readonly string[] | undefined;
  /** The audit level of every request. Default `Metadata`. */
  auditLevel?: "Metadata" | "Request" | "RequestResponse" | undefined;
  /**
   * An envtest assets folder holding `kube-apiserver` and `etcd`. Default:
   * the `KUBEBUILDER_ASSETS` environment variable.
   */
  assets?: string | undefined;
  /**
   * The mode to use; default: the one {@linkcode RealControlPlane.choose}
   * picks from the options and the environment.
   */
  mode?: ControlPlaneMode | undefined;
}

/** Reads an environment variable; undefined when unset or not granted. */
function fromEnv(name: string): string | undefined {
  const granted =
    Deno.permissions.querySync({ name: "env", variable: name }).state ===
      "granted";
  return granted ? Deno.env.get(name) || undefined : undefined;
}

/**
 * The control-plane binary could not be found or started: the message says
 * how to build it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ControlPlaneUnavailableError } from "@liken/kubernetes/testing";
 *
 * const error = new ControlPlaneUnavailableError("no binary");
 * assert.match(error.message, /control-plane:build/);
 * ```
 */
export class ControlPlaneUnavailableError extends Error {
  /**
   * Makes the error.
   *
   * @param why What was missing.
   */
  constructor(why: string) {
    super(
      `The real control plane is unavailable (${why}): set ${ENVTEST_ASSETS_ENV} to a folder with kube-apiserver and etcd (setup-envtest's), or ${CLUSTER_ENV}=1 with KUBECONFIG, or build it with \`deno task control-plane:build\` (needs Go) and set ${CONTROL_PLANE_ENV} to the path it prints`,
    );
    this.name = "ControlPlaneUnavailableError";
  }
}

/**
 * A running control plane; {@linkcode RealControlPlane.stop} (or `await
 * using`) ends every process it started.
 *
 * @example Start one in a test (needs the built binary)
 * ```ts ignore
 * import { RealControlPlane } from "@liken/kubernetes/testing";
 *
 * await using plane = await RealControlPlane.start();
 * const client = plane.client();
 * await client.get("/api/v1/namespaces/default");
 * ```
 */
export class RealControlPlane implements AsyncDisposable {
  /** What the control plane printed when it was ready. */
  readonly ready: ReadyLine;
  /** Where the API server comes from. */
  readonly mode: ControlPlaneMode;
  #child: Deno.ChildProcess | undefined;
  #envtest: EnvtestPlane | undefined;
  #cluster: ClusterPlane | undefined;
  #http: Deno.HttpClient;
  #stopped: Promise<void> | undefined;
  #answers: ((line: string | undefined) => void)[] = [];
  #restarting: Promise<unknown> = Promise.resolve();

  private constructor(
    from: Deno.ChildProcess | EnvtestPlane | ClusterPlane,
    ready: ReadyLine,
    caPem: string,
  ) {
    if (from instanceof Deno.ChildProcess) {
      this.#child = from;
      this.mode = "built";
    } else if ("admin" in from) {
      this.#cluster = from;
      this.mode = "cluster";
    } else {
      this.#envtest = from;
      this.mode = "envtest";
    }
    this.ready = ready;
    this.caPem = caPem;
    this.#http = Deno.createHttpClient(caPem ? { caCerts: [caPem] } : {});
  }

  /** The cluster CA, PEM. */
  readonly caPem: string;

  /**
   * The binary from the options or `LIKEN_CONTROL_PLANE`, or `undefined`
   * when neither names one.
   */
  static binary(options: RealControlPlaneOptions = {}): string | undefined {
    if (options.binary) return options.binary;
    return fromEnv(CONTROL_PLANE_ENV);
  }

  /**
   * The mode to start in, or `undefined` when nothing is configured. In
   * order: `options.mode`; an existing cluster when `LIKEN_REAL_CLUSTER=1`
   * and `KUBECONFIG` is set (opt-in only: the suites write there); the
   * built binary (`options.binary`, `LIKEN_CONTROL_PLANE`); an envtest
   * folder (`options.assets`, `KUBEBUILDER_ASSETS`).
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { RealControlPlane } from "@liken/kubernetes/testing";
   *
   * const env = { KUBEBUILDER_ASSETS: "/opt/kubebuilder/bin" };
   * assert.deepEqual(RealControlPlane.choose({}, (name) => env[name as "KUBEBUILDER_ASSETS"]), {
   *   mode: "envtest",
   *   source: "/opt/kubebuilder/bin",
   *   from: "KUBEBUILDER_ASSETS",
   * });
   * ```
   *
   * @param options The options of {@linkcode RealControlPlane.start}.
   * @param env Reads an environment variable (default: Deno's, when granted).
   */
  static choose(
    options: RealControlPlaneOptions = {},
    env: (name: string) => string | undefined = fromEnv,
  ): ControlPlaneChoice | undefined {
    const kubeconfig = env("KUBECONFIG");
    const cluster: ControlPlaneChoice | undefined =
      env(CLUSTER_ENV) === "1" && kubeconfig
        ? { mode: "cluster", source: kubeconfig, from: CLUSTER_ENV }
        : undefined;
    const binary = options.binary ?? env(CONTROL_PLANE_ENV);
    const built: ControlPlaneChoice | undefined = binary
      ? {
        mode: "built",
        source: binary,
        from: options.binary ? "options.binary" : CONTROL_PLANE_ENV,
      }
      : undefined;
    const assets = options.assets ?? env(ENVTEST_ASSETS_ENV);
    const envtest: ControlPlaneChoice | undefined = assets
      ? {
        mode: "envtest",
        source: assets,
        from: options.assets ? "options.assets" : ENVTEST_ASSETS_ENV,
      }
      : undefined;
    const all = { cluster, built, envtest };
    if (options.mode !== undefined) return all[options.mode];
    return cluster ?? built ?? envtest;
  }

  /**
   * Starts a control plane and waits until it is ready.
   *
   * @throws {ControlPlaneUnavailableError} When no mode is configured, its
   * binaries do not start, or it cannot take the options.
   */
  static async start(
    options: RealControlPlaneOptions = {},
  ): Promise<RealControlPlane> {
    const choice = RealControlPlane.choose(options);
    if ((choice?.mode ?? options.mode) === "cluster") {
      const unsupported = (["noWatchCache", "users", "auditLevel"] as const)
        .filter((o) => options[o]) as string[];
      if (options.controllers !== undefined) unsupported.push("controllers");
      if (options.apiserverArgs?.length) unsupported.push("apiserverArgs");
      if (unsupported.length > 0) {
        throw new ControlPlaneUnavailableError(
          `an existing cluster cannot take ${unsupported.join(", ")}`,
        );
      }
    }
    if (choice === undefined) {
      throw new ControlPlaneUnavailableError(
        options.mode === undefined
          ? `none of ${CLUSTER_ENV}, ${CONTROL_PLANE_ENV} and ${ENVTEST_ASSETS_ENV} is set`
          : `nothing configures mode ${options.mode}`,
      );
    }
    if (choice.mode === "cluster") {
      const cluster = await connectCluster(choice.source);
      return new RealControlPlane(cluster, cluster.ready, cluster.caPem);
    }
    if (choice.mode === "envtest") {
      // No controller manager: `options.controllers` cannot be honoured,
      // and the suites skip the steps that need one (testing/real/_plane.ts).
      if (options.controllers) {
        throw new ControlPlaneUnavailableError(
          `envtest runs no controllers (asked for ${options.controllers})`,
        );
      }
      let envtest: EnvtestPlane;
      try {
        envtest = await startEnvtest(choice.source, options);
      } catch (error) {
        if (
          error instanceof Deno.errors.NotFound ||
          error instanceof Deno.errors.NotCapable
        ) {
          throw new ControlPlaneUnavailableError(
            `${choice.from} names ${choice.source}, whose kube-apiserver or etcd does not start: ${
              (error as Error).message
            }`,
          );
        }
        throw error;
      }
      return new RealControlPlane(envtest, envtest.ready, envtest.caPem);
    }
    const binary = choice.source;
    const args = ["run"];
    if (options.noWatchCache) args.push("--no-watch-cache-server");
    if (options.controllers !== undefined) {
      args.push(`--controllers=${options.controllers}`);
    }
    for (const arg of options.apiserverArgs ?? []) {
      args.push(`--apiserver-arg=${arg}`);
    }
    for (const user of options.users ?? []) args.push(`--user=${user}`);
    if (options.auditLevel) args.push(`--audit-level=${options.auditLevel}`);
    let child: Deno.ChildProcess;
    try {
      child = new Deno.Command(binary, {
        args,
        // Its stdin is a pipe: when this process ends, so does the plane.
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
    } catch (error) {
      throw new ControlPlaneUnavailableError(
        `${binary} does not start: ${(error as Error).message}`,
      );
    }
    const errors = collect(child.stderr);
    const lines = child.stdout.pipeThrough(new TextDecoderStream())
      .getReader();
    let buffer = "";
    const timeout = options.timeout ?? 180_000;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(new Error(`The control plane was not ready in ${timeout} ms`)),
        timeout,
      );
    });
    try {
      for (;;) {
        const { done, value } = await Promise.race([lines.read(), expired]);
        if (done) {
          throw new Error(
            `The control plane exited before it was ready: ${
              errors().slice(-4000)
            }`,
          );
        }
        buffer += value;
        const at = buffer.indexOf("\n");
        if (at === -1) continue;
        const ready = JSON.parse(buffer.slice(0, at)) as ReadyLine;
        const pem = ready.ca.startsWith("-----BEGIN")
          ? ready.ca
          : await Deno.readTextFile(ready.ca);
        const plane = new RealControlPlane(child, ready, pem);
        // Keep reading stdout (the child never blocks on a full pipe): each
        // later line answers a command, in order.
        void plane.#read(lines, buffer.slice(at + 1));
        return plane;
      }
    } catch (error) {
      await kill(child);
      await lines.cancel().catch(() => {});
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** The API server's URL. */
  get server(): string {
    return this.ready.server;
  }

  /**
   * An admin client of this control plane, trusting its CA.
   *
   * @param options More client options (not `fetch` nor `authorization`).
   */
  client(options: Omit<ClientOptions, "fetch" | "authorization"> = {}): Client {
    if (this.#cluster !== undefined) {
      // The kubeconfig's own client: its credential may be a certificate
      // or a plugin, not a token.
      if (Object.keys(options).length > 0) {
        throw new Error(
          "In cluster mode the admin client is the kubeconfig's: it takes no options",
        );
      }
      return this.#cluster.admin;
    }
    return this.clientWith(this.ready.token, options);
  }

  /**
   * A client with another bearer token (a ServiceAccount's, from
   * {@linkcode RealControlPlane.tokenFor}), trusting this plane's CA. It
   * sends through the plane's one shared connection pool, unless
   * `httpClient` gives it a pool of its own: a function (such as
   * `() => Deno.createHttpClient({ caCerts: [plane.caPem] })`) lets it
   * replace a dead connection, as an operator's client from a kubeconfig
   * does; the client then closes its pool when disposed.
   */
  clientWith(
    token: string,
    options: Omit<ClientOptions, "fetch" | "authorization"> & {
      server?: string;
    } = {},
  ): Client {
    const http = this.#http;
    const { server = this.ready.server, ...rest } = options;
    return new Client(server, {
      ...rest,
      authorization: () => Promise.resolve(`Bearer ${token}`),
      ...(rest.httpClient === undefined
        ? { fetch: (input, init) => fetch(input, { ...init, client: http }) }
        : {}),
    });
  }

  /**
   * A raw `fetch` to the API server with the admin token (for requests the
   * client does not make, such as the differential suite's).
   */
  fetch(request: Request): Promise<Response> {
    if (this.#cluster !== undefined) {
      return Promise.reject(
        new Error("In cluster mode there is no admin token for a raw fetch"),
      );
    }
    const headers = new Headers(request.headers);
    headers.set("authorization", `Bearer ${this.ready.token}`);
    return fetch(new Request(request, { headers }), { client: this.#http });
  }

  /**
   * A token of a ServiceAccount from the TokenRequest API (the account is
   * created when absent).
   */
  async tokenFor(namespace: string, name: string): Promise<string> {
    const client = this.client();
    const path = `/api/v1/namespaces/${namespace}/serviceaccounts`;
    try {
      await client.create(path, {
        apiVersion: "v1",
        kind: "ServiceAccount",
        metadata: { name },
      });
    } catch (error) {
      if ((error as { status?: number }).status !== 409) throw error;
    }
    const answer = await client.request<{ status: { token: string } }>(
      "POST",
      `${path}/${name}/token`,
      {
        body: {
          apiVersion: "authentication.k8s.io/v1",
          kind: "TokenRequest",
          spec: { expirationSeconds: 3600 },
        },
      },
    );
    return answer.status.token;
  }

  /** Compacts etcd at its current revision (older versions answer 410). */
  async compact(): Promise<void> {
    const etcd = this.ready.etcd;
    if (!etcd) throw new Error(`In ${this.mode} mode etcd is not reachable`);
    const range = await fetch(`${etcd}/v3/kv/range`, {
      method: "POST",
      body: JSON.stringify({ key: btoa("/") }),
    });
    const { header } = await range.json() as { header: { revision: string } };
    const compaction = await fetch(`${etcd}/v3/kv/compaction`, {
      method: "POST",
      body: JSON.stringify({ revision: header.revision, physical: true }),
    });
    const text = await compaction.text();
    if (!compaction.ok) {
      throw new Error(`Compacting etcd answered ${compaction.status}: ${text}`);
    }
  }

  async #read(
    lines: ReadableStreamDefaultReader<string>,
    buffer: string,
  ): Promise<void> {
    try {
      for (;;) {
        let at: number;
        while ((at = buffer.indexOf("\n")) !== -1) {
          this.#answers.shift()?.(buffer.slice(0, at));
          buffer = buffer.slice(at + 1);
        }
        const { done, value } = await lines.read();
        if (done) break;
        buffer += value;
      }
    } catch {
      // The child ended.
    }
    for (const answer of this.#answers.splice(0)) answer(undefined);
  }

  /**
   * Stops kube-apiserver alone and starts it again with the same flags,
   * certificates, tokens and port, over the same etcd (whose data stays):
   * clients stay up and see their connections end. Resolves once the new
   * one answers `/readyz`.
   *
   * @param options `kill`: SIGKILL (a crash) rather than SIGTERM (an
   * orderly shutdown, which waits for requests in flight).
   */
  restartApiserver(options: { kill?: boolean } = {}): Promise<Restarted> {
    if (this.#envtest !== undefined) {
      return this.#envtest.restartApiserver(options.kill ?? false);
    }
    const child = this.#child;
    if (child === undefined) {
      return Promise.reject(
        new Error("An existing cluster's API server is not restarted by tests"),
      );
    }
    const run = this.#restarting.then(() =>
      new Promise<Restarted>((resolve, reject) => {
        this.#answers.push((line) => {
          if (line === undefined) {
            reject(new Error("The control plane ended during a restart"));
            return;
          }
          const answer = JSON.parse(line) as Restarted & { error?: string };
          if (answer.error) {
            reject(new Error(`Restarting the API server: ${answer.error}`));
          } else resolve(answer);
        });
        const command = `restart apiserver${options.kill ? " kill" : ""}\n`;
        const writer = child.stdin.getWriter();
        writer.write(new TextEncoder().encode(command)).finally(() =>
          writer.releaseLock()
        ).catch(reject);
      })
    );
    this.#restarting = run.catch(() => {});
    return run;
  }

  /** Stops every process of the control plane. Safe to call more than once. */
  stop(): Promise<void> {
    this.#stopped ??= (async () => {
      if (this.#child !== undefined) await kill(this.#child);
      await this.#envtest?.stop();
      this.#cluster?.stop();
      this.#http.close();
    })();
    return this.#stopped;
  }

  /** Stops (for `await using`). */
  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }
}

async function kill(child: Deno.ChildProcess): Promise<void> {
  // Closing stdin asks for an orderly stop; SIGTERM if it lingers.
  await child.stdin.close().catch(() => {});
  const timer = setTimeout(() => {
    try {
      child.kill("SIGTERM");
    } catch {
      // Gone already.
    }
  }, 10_000);
  try {
    await child.status;
  } finally {
    clearTimeout(timer);
  }
}

/** Keeps the last 64 kB the child wrote to stderr. */
function collect(stream: ReadableStream<Uint8Array>): () => string {
  let text = "";
  void stream.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({
      write(chunk): void {
        text = (text + chunk).slice(-64_000);
      },
    }),
  ).catch(() => {});
  return () => text;
}
