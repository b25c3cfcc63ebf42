import assert from "node:assert/strict";
import {
  CredentialPluginError,
  KubeconfigError,
  loadKubeconfig,
} from "./mod.ts";
import { echoServer, kubeconfig, tempDir } from "./testdata/helpers.ts";
import { ApiError } from "../apiclient/mod.ts";
import { installFakeTime } from "../testing/mod.ts";

const SOCKET = { timeout: 20_000 } as const;
const V1 = "client.authentication.k8s.io/v1";
const V1BETA1 = "client.authentication.k8s.io/v1beta1";

// A credential plugin: counts its runs in a file and prints an ExecCredential.
const PLUGIN = `
import fs from "node:fs";
const [countFile, apiVersion, expiry, mode] = process.argv.slice(2);
const n = (fs.existsSync(countFile) ? Number(fs.readFileSync(countFile, "utf8")) : 0) + 1;
fs.writeFileSync(countFile, String(n));
if (mode === "fail") {
  process.stderr.write("login required: run 'cloud login'\\n");
  process.exit(3);
}
if (mode === "sleep") {
  setTimeout(() => {}, 60000);
} else {
  let token = "tok-" + n;
  if (mode === "info") {
    token = Buffer.from(JSON.stringify({
      info: JSON.parse(process.env.KUBERNETES_EXEC_INFO),
      greeting: process.env.GREETING,
    })).toString("base64url");
  }
  const status = { token };
  if (expiry !== "none") status.expirationTimestamp = expiry;
  const version = mode === "wrong-version" ? "client.authentication.k8s.io/v1beta1" : apiVersion;
  if (mode === "garbage") process.stdout.write("token tok-" + n + " is not JSON");
  else process.stdout.write(JSON.stringify({ apiVersion: version, kind: "ExecCredential", status }));
}
`;

interface Setup extends AsyncDisposable {
  path: string;
  server: ReturnType<typeof echoServer>;
  runs(): Promise<number>;
}

async function setup(
  options: {
    apiVersion?: string;
    expiry?: string;
    mode?: string;
    exec?: Record<string, unknown>;
  } = {},
): Promise<Setup> {
  const dir = await tempDir();
  const server = echoServer();
  const script = await dir.write("plugin.mjs", PLUGIN);
  const countFile = `${dir.path}/runs`;
  const apiVersion = options.apiVersion ?? V1;
  const path = await dir.write(
    "config",
    kubeconfig(server.url, {
      exec: {
        command: "node",
        args: [
          script,
          countFile,
          apiVersion,
          options.expiry ?? "none",
          options.mode ?? "plain",
        ],
        apiVersion,
        interactiveMode: "Never",
        ...options.exec,
      },
    }),
  );
  return {
    path,
    server,
    async runs(): Promise<number> {
      try {
        return Number(await Deno.readTextFile(countFile));
      } catch {
        return 0;
      }
    },
    async [Symbol.asyncDispose](): Promise<void> {
      await server[Symbol.asyncDispose]();
      await dir[Symbol.asyncDispose]();
    },
  };
}

async function authorization(
  client: { get<T>(path: string): Promise<T> },
): Promise<string> {
  return (await client.get<{ seen: { authorization: string } }>("/api")).seen
    .authorization;
}

Deno.test({
  name: "an exec token is cached until its expirationTimestamp",
  ...SOCKET,
  async fn(): Promise<void> {
    await using s = await setup({ expiry: "2030-01-01T00:10:00Z" });
    using time = installFakeTime({ now: Date.parse("2030-01-01T00:00:00Z") });
    using config = await loadKubeconfig({ path: s.path });
    assert.equal(await s.runs(), 0); // plugins run on the first request
    assert.equal(await authorization(config.client), "Bearer tok-1");
    await time.tick(9 * 60_000);
    assert.equal(await authorization(config.client), "Bearer tok-1");
    assert.equal(await s.runs(), 1);
    await time.tick(60_000); // now at the expiry: stale
    assert.equal(await authorization(config.client), "Bearer tok-2");
    assert.equal(await s.runs(), 2);
  },
});

Deno.test({
  name:
    "an exec token without expiry is kept, and shared by concurrent requests",
  ...SOCKET,
  async fn(): Promise<void> {
    await using s = await setup({ apiVersion: V1BETA1 });
    using config = await loadKubeconfig({ path: s.path });
    const headers = await Promise.all([
      authorization(config.client),
      authorization(config.client),
      authorization(config.client),
    ]);
    assert.deepEqual(headers, ["Bearer tok-1", "Bearer tok-1", "Bearer tok-1"]);
    assert.equal(await authorization(config.client), "Bearer tok-1");
    assert.equal(await s.runs(), 1);
  },
});

Deno.test({
  name: "a 401 makes the next request run the plugin again",
  ...SOCKET,
  async fn(): Promise<void> {
    await using s = await setup();
    using config = await loadKubeconfig({ path: s.path });
    s.server.status = 401;
    await assert.rejects(
      config.client.get("/api"),
      (e: unknown) => e instanceof ApiError && e.status === 401,
    );
    s.server.status = 200;
    assert.equal(await authorization(config.client), "Bearer tok-2");
    assert.equal(await authorization(config.client), "Bearer tok-2");
    assert.equal(await s.runs(), 2);
  },
});

Deno.test({
  name: "the plugin gets env, KUBERNETES_EXEC_INFO and the cluster when asked",
  ...SOCKET,
  async fn(): Promise<void> {
    await using s = await setup({
      mode: "info",
      exec: {
        env: [{ name: "GREETING", value: "hello" }],
        provideClusterInfo: true,
      },
    });
    using config = await loadKubeconfig({ path: s.path });
    const header = await authorization(config.client);
    const token = header.slice("Bearer ".length);
    const seen = JSON.parse(
      new TextDecoder().decode(
        Uint8Array.from(
          atob(token.replaceAll("-", "+").replaceAll("_", "/")),
          (c) => c.charCodeAt(0),
        ),
      ),
    );
    assert.equal(seen.greeting, "hello");
    assert.deepEqual(seen.info, {
      apiVersion: V1,
      kind: "ExecCredential",
      spec: { interactive: false, cluster: { server: s.server.url } },
    });
  },
});

Deno.test({
  name: "a failing plugin's error carries its exit code and stderr",
  ...SOCKET,
  async fn(): Promise<void> {
    await using s = await setup({ mode: "fail" });
    using config = await loadKubeconfig({ path: s.path });
    await assert.rejects(config.client.get("/api"), (e: unknown) => {
      assert.ok(e instanceof CredentialPluginError);
      assert.ok(e instanceof KubeconfigError);
      assert.equal(e.exitCode, 3);
      assert.equal(e.stderr, "login required: run 'cloud login'");
      assert.equal(
        e.message,
        `The credential plugin "node" of user "test-user" exited with code 3: login required: run 'cloud login'`,
      );
      return true;
    });
    assert.equal(s.server.seen.length, 0);
  },
});

Deno.test({
  name: "a plugin's bad output is refused without quoting the token",
  ...SOCKET,
  async fn(): Promise<void> {
    for (
      const [mode, pattern] of [
        [
          "wrong-version",
          /answered apiVersion .*v1beta1, but the kubeconfig asks for .*\/v1$/,
        ],
        ["garbage", /printed no valid ExecCredential JSON$/],
      ] as const
    ) {
      await using s = await setup({ mode });
      using config = await loadKubeconfig({ path: s.path });
      await assert.rejects(config.client.get("/api"), (e: unknown) => {
        assert.ok(e instanceof CredentialPluginError);
        assert.match(e.message, pattern);
        assert.ok(!e.message.includes("tok-1"));
        assert.ok(!String(e.cause).includes("tok-1"));
        return true;
      });
    }
  },
});

Deno.test({
  name: "a plugin that hangs is killed after execTimeout",
  ...SOCKET,
  async fn(): Promise<void> {
    await using s = await setup({ mode: "sleep" });
    using config = await loadKubeconfig({ path: s.path, execTimeout: 300 });
    await assert.rejects(
      config.client.get("/api"),
      /The credential plugin "node" of user "test-user" did not finish within 300 ms/,
    );
  },
});

Deno.test({
  name:
    "a plugin Deno may not run names the permission, resolved beside the kubeconfig",
  ...SOCKET,
  async fn(): Promise<void> {
    await using s = await setup({ exec: { command: "./bin/plugin" } });
    using config = await loadKubeconfig({ path: s.path });
    const dir = s.path.slice(0, s.path.lastIndexOf("/"));
    await assert.rejects(config.client.get("/api"), (e: unknown) => {
      assert.ok(e instanceof CredentialPluginError);
      assert.equal(
        e.message,
        `The credential plugin "${dir}/bin/plugin" of user "test-user" could not start: Deno may not run it; grant --allow-run=${dir}/bin/plugin`,
      );
      return true;
    });
  },
});
