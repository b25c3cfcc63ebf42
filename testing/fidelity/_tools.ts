/**
 * Helpers for the fidelity suite: run kubectl and Node against a server,
 * read a child's output line by line with real-time deadlines.
 *
 * @module
 */

import { first, nodePackage, tool, type Unmet } from "../../tools/needs.ts";

/** What a finished command printed. */
export interface Output {
  /** Exit code. */
  code: number;
  /** Standard output. */
  stdout: string;
  /** Standard error. */
  stderr: string;
}

/** How to install each tool the suite drives. */
export const INSTALL: Readonly<Record<string, string>> = {
  kubectl:
    "kubectl 1.29 or newer must be on PATH (the machine image ships 1.32; Debian's kubernetes-client package is 1.20, too old)",
  node:
    "Node 20 must be on PATH (apt-get install nodejs), with the client installed by `npm ci --prefix testing/fidelity`",
  "@kubernetes/client-node":
    "@kubernetes/client-node is not installed: run `npm ci --prefix testing/fidelity`",
};

/**
 * What this machine lacks of the tools every check drives (kubectl, Node
 * and the client's npm package), or undefined; `how` runs the suite once
 * they are installed.
 */
export async function unmetTools(how: string): Promise<Unmet | undefined> {
  const node = await tool("node", how);
  return first(
    await tool("kubectl", how),
    node,
    node === undefined
      ? await nodePackage(
        "@kubernetes/client-node",
        new URL("./", import.meta.url),
        how,
      )
      : undefined,
  );
}

/** Spawns a tool, turning "not found" into a clear failure. */
export function spawn(
  tool: "kubectl" | "node",
  options: Deno.CommandOptions,
): Deno.ChildProcess {
  try {
    return new Deno.Command(tool, options).spawn();
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new Error(`The fidelity suite needs ${tool}: ${INSTALL[tool]}`, {
        cause: error,
      });
    }
    throw error;
  }
}

/** Collects a child's output; closes stdin first. */
export async function finish(child: Deno.ChildProcess): Promise<Output> {
  const { code, stdout, stderr } = await child.output();
  const decoder = new TextDecoder();
  return {
    code,
    stdout: decoder.decode(stdout),
    stderr: decoder.decode(stderr),
  };
}

/** The oldest kubectl the suite supports. */
const MIN_KUBECTL_MINOR = 29;
let kubectlChecked: Promise<void> | undefined;

/**
 * Fails unless kubectl is at least 1.29: older ones validate `apply` against
 * OpenAPI v2 in protobuf, which the fake does not serve (1.29+ read the
 * OpenAPI v3 the fake does serve).
 */
function checkKubectl(): Promise<void> {
  kubectlChecked ??= (async () => {
    const out = await finish(spawn("kubectl", {
      args: ["version", "--client", "-o", "json"],
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }));
    const version = JSON.parse(out.stdout || "{}").clientVersion ?? {};
    const minor = Number.parseInt(version.minor ?? "0");
    if (version.major !== "1" || minor < MIN_KUBECTL_MINOR) {
      throw new Error(
        `The fidelity suite needs kubectl 1.${MIN_KUBECTL_MINOR} or newer, found ${
          version.gitVersion ?? out.stderr
        }: ${INSTALL.kubectl}`,
      );
    }
  })();
  return kubectlChecked;
}

/** Where a {@linkcode Kubectl} points: a server, or a kubeconfig of one. */
export type KubectlEndpoint =
  | {
    /** The server's URL. */
    server: string;
    /** The CA that signed its certificate, PEM. */
    caPem: string;
    /** The bearer token. */
    token: string;
  }
  | {
    /** A kubeconfig file whose current context names the server. */
    kubeconfig: string;
  };

/**
 * A kubectl bound to one server through a kubeconfig (HTTPS with the test
 * CA and a bearer token), its cache in a temp dir. Dispose it to remove the
 * dir.
 */
export class Kubectl implements AsyncDisposable {
  readonly dir: string;
  readonly #kubeconfig: string;
  readonly #flags: string[];

  private constructor(dir: string, kubeconfig: string, flags: string[]) {
    this.dir = dir;
    this.#kubeconfig = kubeconfig;
    this.#flags = flags;
  }

  /**
   * Answers a kubectl bound to `endpoint` whose default namespace is
   * `namespace`. Given a server, it writes a kubeconfig of its own with the
   * namespace in its context; given a kubeconfig, it passes `--namespace`.
   */
  static async for(
    endpoint: KubectlEndpoint,
    namespace: string,
  ): Promise<Kubectl> {
    await checkKubectl();
    const dir = await Deno.realPath(
      await Deno.makeTempDir({ prefix: "fidelity-kubectl-" }),
    );
    if ("kubeconfig" in endpoint) {
      return new Kubectl(dir, endpoint.kubeconfig, ["--namespace", namespace]);
    }
    const kubeconfig = `${dir}/kubeconfig.json`;
    const config = {
      apiVersion: "v1",
      kind: "Config",
      clusters: [{
        name: "fake",
        cluster: {
          server: endpoint.server,
          "certificate-authority-data": btoa(endpoint.caPem),
        },
      }],
      users: [{ name: "test", user: { token: endpoint.token } }],
      contexts: [{
        name: "fake",
        context: { cluster: "fake", user: "test", namespace },
      }],
      "current-context": "fake",
    };
    await Deno.writeTextFile(kubeconfig, JSON.stringify(config));
    return new Kubectl(dir, kubeconfig, []);
  }

  /** The options to spawn kubectl with `args`, on a clean environment. */
  options(args: string[]): Deno.CommandOptions {
    return {
      args: ["--cache-dir", `${this.dir}/cache`, ...this.#flags, ...args],
      clearEnv: true,
      env: { KUBECONFIG: this.#kubeconfig, HOME: this.dir },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    };
  }

  /** Runs kubectl to the end. */
  async run(...args: string[]): Promise<Output> {
    return await finish(spawn("kubectl", this.options(args)));
  }

  /** Runs kubectl and fails unless it exits 0; answers stdout. */
  async ok(...args: string[]): Promise<string> {
    const out = await this.run(...args);
    if (out.code !== 0) {
      throw new Error(
        `kubectl ${
          args.join(" ")
        } exited ${out.code}\nstdout: ${out.stdout}\nstderr: ${out.stderr}`,
      );
    }
    return out.stdout;
  }

  /** Starts kubectl without waiting for it. */
  start(...args: string[]): Deno.ChildProcess {
    return spawn("kubectl", this.options(args));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await Deno.remove(this.dir, { recursive: true });
  }
}

/** Reads a stream line by line, each read with a deadline in real ms. */
export class Lines {
  readonly #reader: ReadableStreamDefaultReader<string>;
  #buffer = "";
  #done = false;
  /** Every line read so far, for failure messages. */
  readonly seen: string[] = [];

  constructor(stream: ReadableStream<Uint8Array>) {
    this.#reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  }

  /** The next line, or `undefined` at the end of the stream. */
  async next(timeout = 20_000): Promise<string | undefined> {
    for (;;) {
      const newline = this.#buffer.indexOf("\n");
      if (newline !== -1) {
        const line = this.#buffer.slice(0, newline);
        this.#buffer = this.#buffer.slice(newline + 1);
        this.seen.push(line);
        return line;
      }
      if (this.#done) {
        if (this.#buffer === "") return undefined;
        const rest = this.#buffer;
        this.#buffer = "";
        this.seen.push(rest);
        return rest;
      }
      let timer: ReturnType<typeof setTimeout> | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new Error(
                `No output line within ${timeout} ms; lines so far:\n${
                  this.seen.join("\n")
                }`,
              ),
            ),
          timeout,
        );
      });
      try {
        const { value, done } = await Promise.race([
          this.#reader.read(),
          deadline,
        ]);
        if (done) this.#done = true;
        else this.#buffer += value;
      } finally {
        clearTimeout(timer);
      }
    }
  }

  /** Reads lines until one satisfies `match`; answers it. */
  async until(
    match: (line: string) => boolean,
    timeout = 20_000,
  ): Promise<string> {
    for (;;) {
      const line = await this.next(timeout);
      if (line === undefined) {
        throw new Error(
          `The stream ended before the expected line; lines:\n${
            this.seen.join("\n")
          }`,
        );
      }
      if (match(line)) return line;
    }
  }

  /** Stops reading and drains what is left. */
  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
  }
}

/** Waits in real time until `condition` holds. */
export async function eventually(
  condition: () => boolean,
  what: string,
  timeout = 20_000,
): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeout) {
      throw new Error(`Timed out after ${timeout} ms waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Waits in real time until the async `condition` holds. */
export async function eventuallyAsync(
  condition: () => Promise<boolean>,
  what: string,
  timeout = 20_000,
): Promise<void> {
  const start = Date.now();
  while (!(await condition())) {
    if (Date.now() - start > timeout) {
      throw new Error(`Timed out after ${timeout} ms waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
