// The envtest mode of RealControlPlane: etcd and kube-apiserver from a
// KUBEBUILDER_ASSETS folder (as setup-envtest lays it out), started the way
// controller-runtime's envtest starts them, with no controller manager.
// Differences from envtest, each for the suites: the admin and the test
// users are static bearer tokens (envtest provisions a client certificate;
// the suites' clients send tokens); the serving certificate is the
// published test CA's (testing/certs.ts: Deno cannot mint X.509), for
// 127.0.0.1 only; an audit log; `--etcd-compaction-interval=0` so that only
// a test compacts; etcd without fsync (throwaway data).
import { testCerts } from "../certs.ts";
import { sleep } from "../../_internal/sleep.ts";
import type { ReadyLine, Restarted } from "./ready.ts";

/** What the envtest mode is asked for (a subset of the plane's options). */
export interface EnvtestOptions {
  noWatchCache?: boolean | undefined;
  apiserverArgs?: readonly string[] | undefined;
  users?: readonly string[] | undefined;
  auditLevel?: "Metadata" | "Request" | "RequestResponse" | undefined;
  timeout?: number | undefined;
}

/** A started envtest plane: its ready line and how to restart or stop it. */
export interface EnvtestPlane {
  ready: ReadyLine;
  caPem: string;
  restartApiserver(kill: boolean): Promise<Restarted>;
  stop(): Promise<void>;
}

/** The binaries an envtest assets folder must hold. */
export const ENVTEST_BINARIES = ["kube-apiserver", "etcd"] as const;

/** A port free now on 127.0.0.1 (as envtest's addr.Suggest: a race accepted). */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** A started child whose output is kept (the last 64 kB) for errors. */
class Child {
  readonly process: Deno.ChildProcess;
  #text = "";
  constructor(binary: string, args: string[]) {
    this.process = new Deno.Command(binary, {
      args,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    for (const stream of [this.process.stdout, this.process.stderr]) {
      void stream.pipeThrough(new TextDecoderStream()).pipeTo(
        new WritableStream({
          write: (chunk): void => {
            this.#text = (this.#text + chunk).slice(-64_000);
          },
        }),
      ).catch(() => {});
    }
  }
  get tail(): string {
    return this.#text.slice(-4000);
  }
  /** SIGTERM (or SIGKILL), then SIGKILL after 10 s. */
  async stop(signal: "SIGTERM" | "SIGKILL" = "SIGTERM"): Promise<void> {
    const send = (s: Deno.Signal): void => {
      try {
        this.process.kill(s);
      } catch {
        // Gone already.
      }
    };
    send(signal);
    const timer = setTimeout(() => send("SIGKILL"), 10_000);
    try {
      await this.process.status;
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * Polls `url` until `ok` says the answer is good, the child exits, or the
 * deadline passes.
 */
async function waitFor(
  what: string,
  child: Child,
  deadline: number,
  probe: () => Promise<boolean>,
): Promise<void> {
  let exited = false;
  void child.process.status.then(() => exited = true);
  for (;;) {
    if (exited) {
      throw new Error(`${what} exited before it was ready: ${child.tail}`);
    }
    if (await probe().catch(() => false)) return;
    if (Date.now() > deadline) {
      throw new Error(`${what} was not ready in time: ${child.tail}`);
    }
    await sleep(100);
  }
}

function kubeconfigYaml(
  servers: Record<string, string>,
  caPem: string,
  token: string,
): string {
  const ca = btoa(caPem);
  const names = Object.keys(servers);
  return [
    "apiVersion: v1",
    "kind: Config",
    `current-context: ${names[0]}`,
    "clusters:",
    ...names.flatMap((name) => [
      `- name: ${name}`,
      "  cluster:",
      `    server: ${servers[name]}`,
      `    certificate-authority-data: ${ca}`,
    ]),
    "contexts:",
    ...names.flatMap((name) => [
      `- name: ${name}`,
      "  context:",
      `    cluster: ${name}`,
      "    user: admin",
    ]),
    "users:",
    "- name: admin",
    "  user:",
    `    token: ${token}`,
    "",
  ].join("\n");
}

/** Starts etcd and kube-apiserver from `assets`; waits until both are ready. */
export async function startEnvtest(
  assets: string,
  options: EnvtestOptions = {},
): Promise<EnvtestPlane> {
  const started = Date.now();
  const deadline = started + (options.timeout ?? 180_000);
  // Absolute: the kubeconfig's path is handed to kubectl in other folders.
  const dir = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "liken-envtest-" }),
  );
  const children: Child[] = [];
  const caPem = testCerts.caCert;
  const http = Deno.createHttpClient({ caCerts: [caPem] });
  const stopAll = async (): Promise<void> => {
    // The API servers first, then etcd, as envtest stops them.
    for (const child of children.splice(0).reverse()) await child.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    http.close();
  };
  try {
    await Deno.mkdir(`${dir}/certs`);
    // envtest writes apiserver.crt/.key into --cert-dir; so does this.
    await Deno.writeTextFile(
      `${dir}/certs/apiserver.crt`,
      testCerts.serverCert,
    );
    await Deno.writeTextFile(`${dir}/certs/apiserver.key`, testCerts.serverKey);
    await Deno.writeTextFile(`${dir}/ca.crt`, caPem);
    // The service-account signing key, and its certificate to verify
    // with (envtest makes a CA for it; a certificate's key serves).
    await Deno.writeTextFile(`${dir}/sa.key`, testCerts.otherServerKey);
    await Deno.writeTextFile(`${dir}/sa.crt`, testCerts.otherServerCert);
    const token = crypto.randomUUID();
    const users: Record<string, string> = {};
    const tokens = [`${token},admin,admin,"system:masters"`];
    for (const user of options.users ?? []) {
      users[user] = crypto.randomUUID();
      tokens.push(`${users[user]},${user},${user},"liken:users"`);
    }
    await Deno.writeTextFile(`${dir}/tokens.csv`, tokens.join("\n") + "\n");
    await Deno.writeTextFile(
      `${dir}/audit-policy.yaml`,
      `apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: ${
        options.auditLevel ?? "Metadata"
      }\n`,
    );

    const etcdPort = freePort();
    const etcd = `http://127.0.0.1:${etcdPort}`;
    const etcdChild = new Child(`${assets}/etcd`, [
      `--data-dir=${dir}/etcd`,
      `--listen-client-urls=${etcd}`,
      `--advertise-client-urls=${etcd}`,
      `--listen-peer-urls=http://127.0.0.1:${freePort()}`,
      "--unsafe-no-fsync",
      "--log-level=warn",
    ]);
    children.push(etcdChild);
    await waitFor("etcd", etcdChild, deadline, async () => {
      const response = await fetch(`${etcd}/health`);
      const body = await response.json() as { health?: string };
      return response.ok && body.health === "true";
    });

    const readyz = async (server: string): Promise<boolean> => {
      const response = await fetch(`${server}/readyz`, {
        headers: { authorization: `Bearer ${token}` },
        client: http,
      });
      await response.body?.cancel();
      return response.ok;
    };
    const apiserver = (
      port: number,
      watchCache: boolean,
      auditLog: string,
    ): string[] => [
      // envtest's defaults (controller-runtime's APIServer.defaultArgs).
      "--advertise-address=127.0.0.1",
      "--bind-address=127.0.0.1",
      `--secure-port=${port}`,
      `--cert-dir=${dir}/certs`,
      `--etcd-servers=${etcd}`,
      "--service-cluster-ip-range=10.0.0.0/24",
      "--allow-privileged=true",
      "--disable-admission-plugins=ServiceAccount",
      "--authorization-mode=RBAC",
      `--service-account-issuer=https://127.0.0.1:${port}/`,
      `--service-account-key-file=${dir}/sa.crt`,
      `--service-account-signing-key-file=${dir}/sa.key`,
      // What the suites need besides.
      `--token-auth-file=${dir}/tokens.csv`,
      `--audit-policy-file=${dir}/audit-policy.yaml`,
      `--audit-log-path=${auditLog}`,
      "--etcd-compaction-interval=0",
      // v1.37's endpoint reconciler refuses the loopback advertise address.
      "--endpoint-reconciler-type=none",
      `--watch-cache=${watchCache}`,
      ...options.apiserverArgs ?? [],
    ];
    const servers: { args: string[]; server: string; child: Child }[] = [];
    const start = (args: string[]): Child => {
      const child = new Child(`${assets}/kube-apiserver`, args);
      children.push(child);
      return child;
    };
    const plan: [number, boolean, string][] = [
      [freePort(), true, `${dir}/audit.log`],
    ];
    if (options.noWatchCache) {
      plan.push([freePort(), false, `${dir}/audit-no-watch-cache.log`]);
    }
    for (const [port, watchCache, log] of plan) {
      const args = apiserver(port, watchCache, log);
      const server = `https://127.0.0.1:${port}`;
      servers.push({ args, server, child: start(args) });
    }
    for (const { child, server } of servers) {
      await waitFor("kube-apiserver", child, deadline, () => readyz(server));
    }
    const main = servers[0]!;
    const version = await fetch(`${main.server}/version`, {
      headers: { authorization: `Bearer ${token}` },
      client: http,
    }).then((r) => r.json()) as { gitVersion: string };
    const contexts: Record<string, string> = { "envtest": main.server };
    if (servers[1]) contexts["no-watch-cache"] = servers[1].server;
    await Deno.writeTextFile(
      `${dir}/kubeconfig`,
      kubeconfigYaml(contexts, caPem, token),
    );
    const ready: ReadyLine = {
      server: main.server,
      serverNoWatchCache: servers[1]?.server,
      kubeconfig: `${dir}/kubeconfig`,
      token,
      ca: `${dir}/ca.crt`,
      etcd,
      dir,
      auditLog: `${dir}/audit.log`,
      version: version.gitVersion,
      startupMillis: Date.now() - started,
      ...(options.users ? { users } : {}),
    };
    let restarting: Promise<unknown> = Promise.resolve();
    let stopped: Promise<void> | undefined;
    return {
      ready,
      caPem,
      restartApiserver(kill: boolean): Promise<Restarted> {
        const run = restarting.then(async () => {
          const at = Date.now();
          await main.child.stop(kill ? "SIGKILL" : "SIGTERM");
          children.splice(children.indexOf(main.child), 1);
          const exited = Date.now();
          main.child = start(main.args);
          await waitFor(
            "kube-apiserver",
            main.child,
            Date.now() + (options.timeout ?? 180_000),
            () => readyz(main.server),
          );
          return { stopMillis: exited - at, readyMillis: Date.now() - exited };
        });
        restarting = run.catch(() => {});
        return run;
      },
      stop(): Promise<void> {
        stopped ??= stopAll();
        return stopped;
      },
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
