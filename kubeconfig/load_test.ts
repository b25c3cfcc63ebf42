import assert from "node:assert/strict";
import { KubeconfigError, loadKubeconfig } from "./mod.ts";
import {
  base64,
  echoServer,
  kubeconfig,
  type Seen,
  tempDir,
} from "./testdata/helpers.ts";
import { testCerts } from "../testing/mod.ts";

const SOCKET = { timeout: 10_000 } as const;

async function getSeen(
  config: { client: { get<T>(path: string): Promise<T> } },
): Promise<Seen> {
  return (await config.client.get<{ seen: Seen }>("/api/v1/namespaces")).seen;
}

/** Runs `fn` with environment variables set, then restores them. */
async function withEnv(
  vars: Record<string, string | undefined>,
  fn: () => Promise<void>,
): Promise<void> {
  const before: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(vars)) {
    before[name] = Deno.env.get(name);
    if (value === undefined) Deno.env.delete(name);
    else Deno.env.set(name, value);
  }
  try {
    await fn();
  } finally {
    for (const [name, value] of Object.entries(before)) {
      if (value === undefined) Deno.env.delete(name);
      else Deno.env.set(name, value);
    }
  }
}

Deno.test({
  name: "loadKubeconfig() sends a bearer token and reports the names",
  ...SOCKET,
  async fn(): Promise<void> {
    await using dir = await tempDir();
    await using server = echoServer();
    const path = await dir.write(
      "config",
      kubeconfig(server.url, { token: "abc" }, {}, "team-a"),
    );
    using config = await loadKubeconfig({ path });
    assert.equal(config.context, "test");
    assert.equal(config.cluster, "test-cluster");
    assert.equal(config.user, "test-user");
    assert.equal(config.server, server.url);
    assert.equal(config.namespace, "team-a");
    assert.deepEqual(config.files, [path]);
    assert.equal(config.client.defaultNamespace, "team-a");
    const seen = await getSeen(config);
    assert.equal(seen.authorization, "Bearer abc");
    assert.equal(seen.url, `${server.url}/api/v1/namespaces`);
  },
});

Deno.test({
  name:
    "loadKubeconfig() keeps a server path prefix and defaults the namespace",
  ...SOCKET,
  async fn(): Promise<void> {
    await using dir = await tempDir();
    await using server = echoServer();
    const path = await dir.write(
      "config",
      kubeconfig(`${server.url}/k8s/clusters/c-1/`),
    );
    using config = await loadKubeconfig({ path });
    assert.equal(config.namespace, "default");
    const seen = await getSeen(config);
    assert.equal(seen.url, `${server.url}/k8s/clusters/c-1/api/v1/namespaces`);
    assert.equal(seen.authorization, null);
  },
});

Deno.test({
  name:
    "loadKubeconfig() reads tokenFile on every request, relative to the kubeconfig",
  ...SOCKET,
  async fn(): Promise<void> {
    await using dir = await tempDir();
    await using server = echoServer();
    const tokenPath = await dir.write("sub/token", "first\n");
    const path = await dir.write(
      "sub/config",
      // As in client-go, the file wins over an inline token.
      kubeconfig(server.url, { tokenFile: "token", token: "inline" }),
    );
    using config = await loadKubeconfig({ path });
    assert.equal((await getSeen(config)).authorization, "Bearer first");
    await Deno.writeTextFile(tokenPath, "second");
    assert.equal((await getSeen(config)).authorization, "Bearer second");
    await Deno.remove(tokenPath);
    await assert.rejects(
      config.client.get("/api"),
      (e: unknown) =>
        e instanceof KubeconfigError &&
        e.message.includes(`tokenFile ${tokenPath}`),
    );
    assert.equal(server.seen.length, 2);
  },
});

Deno.test({
  name: "loadKubeconfig() sends username and password as basic auth",
  ...SOCKET,
  async fn(): Promise<void> {
    await using dir = await tempDir();
    await using server = echoServer();
    const path = await dir.write(
      "config",
      kubeconfig(server.url, { username: "admin", password: "pä55" }),
    );
    using config = await loadKubeconfig({ path });
    const seen = await getSeen(config);
    assert.equal(seen.authorization, `Basic ${base64("admin:pä55")}`);
  },
});

Deno.test({
  name: "loadKubeconfig() uses a chosen context",
  ...SOCKET,
  async fn(): Promise<void> {
    await using dir = await tempDir();
    await using a = echoServer();
    await using b = echoServer();
    const path = await dir.write(
      "config",
      `
apiVersion: v1
kind: Config
current-context: one
clusters:
- name: a
  cluster:
    server: ${a.url}
- name: b
  cluster:
    server: ${b.url}
users:
- name: u1
  user:
    token: t1
- name: u2
  user:
    token: t2
contexts:
- name: one
  context: {cluster: a, user: u1}
- name: two
  context: {cluster: b, user: u2, namespace: ns2}
`,
    );
    using current = await loadKubeconfig({ path });
    assert.equal(current.context, "one");
    assert.equal((await getSeen(current)).authorization, "Bearer t1");
    using chosen = await loadKubeconfig({ path, context: "two" });
    assert.equal(chosen.server, b.url);
    assert.equal(chosen.namespace, "ns2");
    assert.equal((await getSeen(chosen)).authorization, "Bearer t2");
    assert.equal(a.seen.length, 1);
    assert.equal(b.seen.length, 1);
  },
});

Deno.test({
  name: "loadKubeconfig() merges KUBECONFIG like kubectl: first file wins",
  ...SOCKET,
  async fn(): Promise<void> {
    await using dir = await tempDir();
    await using first = echoServer();
    await using second = echoServer();
    // The first file sets no current-context; the second's is used. Both
    // define cluster "shared": the first file's definition wins.
    const one = await dir.write(
      "one.yaml",
      JSON.stringify({
        clusters: [{ name: "shared", cluster: { server: first.url } }],
        users: [{ name: "me", user: { token: "from-one" } }],
      }),
    );
    const two = await dir.write(
      "two.yaml",
      JSON.stringify({
        "current-context": "ctx",
        clusters: [{ name: "shared", cluster: { server: second.url } }],
        users: [{ name: "me", user: { token: "from-two" } }],
        contexts: [{ name: "ctx", context: { cluster: "shared", user: "me" } }],
      }),
    );
    const three = await dir.write(
      "three.yaml",
      JSON.stringify({ "current-context": "other" }),
    );
    const missing = `${dir.path}/missing.yaml`;
    await withEnv(
      { KUBECONFIG: [missing, one, two, three].join(":") },
      async () => {
        using config = await loadKubeconfig();
        assert.equal(config.context, "ctx");
        assert.equal(config.server, first.url);
        assert.deepEqual(config.files, [one, two, three]);
        assert.equal((await getSeen(config)).authorization, "Bearer from-one");
      },
    );
    assert.equal(first.seen.length, 1);
    assert.equal(second.seen.length, 0);
  },
});

Deno.test("loadKubeconfig() reads ~/.kube/config without KUBECONFIG", async () => {
  await using dir = await tempDir();
  await dir.write(".kube/config", kubeconfig("http://127.0.0.1:7777"));
  await withEnv({ KUBECONFIG: undefined, HOME: dir.path }, async () => {
    using config = await loadKubeconfig();
    assert.deepEqual(config.files, [`${dir.path}/.kube/config`]);
    assert.equal(config.server, "http://127.0.0.1:7777");
  });
  await withEnv({ KUBECONFIG: "", HOME: `${dir.path}/nowhere` }, async () => {
    await assert.rejects(
      loadKubeconfig(),
      /Cannot read kubeconfig .*nowhere\/\.kube\/config \(the default location\): the file does not exist/,
    );
  });
});

Deno.test({
  name: "loadKubeconfig() sends through proxy-url",
  ...SOCKET,
  async fn(): Promise<void> {
    await using dir = await tempDir();
    await using proxy = echoServer();
    // Nothing listens on the server's port: only the proxy answers.
    const path = await dir.write(
      "config",
      kubeconfig("http://127.0.0.1:65000", { token: "t" }, {
        "proxy-url": proxy.url,
      }),
    );
    using config = await loadKubeconfig({ path });
    const seen = await getSeen(config);
    assert.equal(seen.authorization, "Bearer t");
    assert.equal(proxy.seen.length, 1);
  },
});

/** Asserts that loading `text` fails with a message matching `pattern`. */
async function assertRefused(
  text: string,
  pattern: RegExp | ((error: KubeconfigError) => void),
  options: { context?: string; allowInsecureSkipTlsVerify?: boolean } = {},
): Promise<void> {
  await using dir = await tempDir();
  const path = await dir.write("config", text);
  await assert.rejects(
    loadKubeconfig({ path, ...options }),
    (e: unknown) => {
      assert.ok(e instanceof KubeconfigError, String(e));
      if (pattern instanceof RegExp) assert.match(e.message, pattern);
      else pattern(e);
      return true;
    },
  );
}

Deno.test("loadKubeconfig() names a missing file", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/absent`;
  await assert.rejects(
    loadKubeconfig({ path }),
    (e: unknown) =>
      e instanceof KubeconfigError &&
      e.message ===
        `Cannot read kubeconfig ${path} (given): the file does not exist`,
  );
  await withEnv({ KUBECONFIG: `${path}:${path}2` }, async () => {
    await assert.rejects(
      loadKubeconfig(),
      /No kubeconfig found: none of .*absent, .*absent2 \(KUBECONFIG\) exists/,
    );
  });
});

Deno.test("loadKubeconfig() refuses malformed YAML and bad shapes", async () => {
  await assertRefused(
    "clusters: [\n  - name: a\n  cluster: {",
    /^Kubeconfig .*config is not valid YAML: /,
  );
  await assertRefused("- a\n- b\n", /is not a YAML mapping/);
  await assertRefused("clusters: {a: 1}", /clusters must be a list/);
  await assertRefused(
    "clusters:\n- cluster: {server: http://x}",
    /clusters\[0\] has no name/,
  );
  await assertRefused(
    "clusters:\n- name: c\n  cluster: {server: 42}",
    /cluster "c": server must be a string/,
  );
  await assertRefused(
    "clusters:\n- name: c\n  cluster: {insecure-skip-tls-verify: yes please}",
    /insecure-skip-tls-verify must be true or false/,
  );
});

Deno.test("loadKubeconfig() refuses an unknown or absent context", async () => {
  const text = kubeconfig("http://127.0.0.1:1234");
  await assertRefused(
    text,
    /^Context "nope" is not in kubeconfig .* \(known: test\)$/,
    { context: "nope" },
  );
  await assertRefused(
    JSON.stringify({ clusters: [], contexts: [] }),
    /^No context chosen: kubeconfig .* sets no current-context and none was given$/,
  );
});

Deno.test("loadKubeconfig() names missing fields and entries", async () => {
  const doc = (
    cluster: Record<string, unknown>,
    context: Record<string, unknown>,
  ): string =>
    JSON.stringify({
      "current-context": "x",
      clusters: [{ name: "c", cluster }],
      contexts: [{ name: "x", context }],
    });
  await assertRefused(
    doc({}, { cluster: "c" }),
    /cluster "c" has no server$/,
  );
  await assertRefused(
    doc({ server: "ftp://x" }, { cluster: "c" }),
    /server ftp:\/\/x is not an http or https URL/,
  );
  await assertRefused(
    doc({ server: "not a url" }, { cluster: "c" }),
    /server not a url is not a URL/,
  );
  await assertRefused(
    doc({ server: "http://x" }, {}),
    /context "x" names no cluster$/,
  );
  await assertRefused(
    doc({ server: "http://x" }, { cluster: "gone" }),
    /context "x" names cluster "gone", which is not in kubeconfig/,
  );
  await assertRefused(
    doc({ server: "http://x" }, { cluster: "c", user: "ghost" }),
    /context "x" names user "ghost", which is not in kubeconfig/,
  );
});

Deno.test("loadKubeconfig() refuses users it cannot honour", async () => {
  const server = "http://127.0.0.1:1234";
  await assertRefused(
    kubeconfig(server, { token: "a", username: "u", password: "p" }),
    /more than one authentication method \(token, username\/password\)/,
  );
  await assertRefused(
    kubeconfig(server, { "auth-provider": { name: "gcp" } }),
    /uses auth-provider gcp, which is not supported; use an exec credential plugin/,
  );
  await assertRefused(
    kubeconfig(server, { token: "a", as: "someone" }),
    /impersonation/,
  );
  await assertRefused(
    kubeconfig(server, { exec: { apiVersion: "v" } }),
    /exec has no command/,
  );
  await assertRefused(
    kubeconfig(server, { exec: { command: "node" } }),
    /exec has no apiVersion/,
  );
  await assertRefused(
    kubeconfig(server, {
      exec: {
        command: "node",
        apiVersion: "client.authentication.k8s.io/v1alpha1",
      },
    }),
    /exec apiVersion client.authentication.k8s.io\/v1alpha1 is not supported/,
  );
  await assertRefused(
    kubeconfig(server, {
      exec: {
        command: "node",
        apiVersion: "client.authentication.k8s.io/v1",
        interactiveMode: "Always",
      },
    }),
    /needs a terminal \(interactiveMode: Always\)/,
  );
  // kubectl's rules: v1 must state the mode; v1beta1 defaults to IfAvailable.
  await assertRefused(
    kubeconfig(server, {
      exec: { command: "node", apiVersion: "client.authentication.k8s.io/v1" },
    }),
    /exec interactiveMode must be set for client.authentication.k8s.io\/v1 \(Never, IfAvailable or Always\)$/,
  );
  await assertRefused(
    kubeconfig(server, {
      exec: {
        command: "node",
        apiVersion: "client.authentication.k8s.io/v1",
        interactiveMode: "Sometimes",
      },
    }),
    /exec interactiveMode Sometimes is not one of Never, IfAvailable or Always$/,
  );
  const path = await Deno.makeTempFile({ suffix: ".yaml" });
  try {
    await Deno.writeTextFile(
      path,
      kubeconfig(server, {
        exec: {
          command: "node",
          apiVersion: "client.authentication.k8s.io/v1beta1",
        },
      }),
    );
    using config = await loadKubeconfig({ path });
    assert.equal(config.user, "test-user");
  } finally {
    await Deno.remove(path);
  }
});

Deno.test({
  name:
    "loadKubeconfig() sends a token, a password or a client certificate rather than run exec, as kubectl",
  ...SOCKET,
  async fn(): Promise<void> {
    await using server = echoServer();
    await using dir = await tempDir();
    // A plugin that would fail: it must never run.
    const exec = {
      command: "./no-such-plugin",
      apiVersion: "client.authentication.k8s.io/v1",
      interactiveMode: "Never",
    };
    const token = await dir.write(
      "token",
      kubeconfig(server.url, { token: "abc", exec }),
    );
    using byToken = await loadKubeconfig({ path: token });
    assert.equal((await getSeen(byToken)).authorization, "Bearer abc");
    const basic = await dir.write(
      "basic",
      kubeconfig(server.url, { username: "u", password: "p", exec }),
    );
    using byBasic = await loadKubeconfig({ path: basic });
    assert.equal(
      (await getSeen(byBasic)).authorization,
      `Basic ${base64("u:p")}`,
    );
    const cert = await dir.write(
      "cert",
      kubeconfig(server.url, {
        "client-certificate-data": base64(testCerts.serverCert),
        "client-key-data": base64(testCerts.serverKey),
        exec,
      }),
    );
    using byCert = await loadKubeconfig({ path: cert });
    assert.equal((await getSeen(byCert)).authorization, null);
  },
});

Deno.test("loadKubeconfig() quotes no kubeconfig text for malformed YAML", async () => {
  const secret = "s3cr3t-t0ken";
  for (
    const text of [
      `users:\n- name: me\n  user:\n    token: ${secret}\n   bad: x\n`,
      `users:\n- name: me\n  user:\n    token: "${secret}\n`,
    ]
  ) {
    await assertRefused(text, (e: KubeconfigError) => {
      assert.match(e.message, /is not valid YAML: .* at line \d+, column \d+$/);
      assert.ok(!e.message.includes(secret), e.message);
      assert.ok(!String(e.cause ?? "").includes(secret));
    });
  }
});

Deno.test("loadKubeconfig() quotes no password of a proxy-url or server", async () => {
  await assertRefused(
    kubeconfig("http://127.0.0.1:1", { token: "t" }, {
      "proxy-url": "ftp://user:hunter2@proxy:3128",
    }),
    /proxy-url scheme ftp: is not supported/,
  );
  await assertRefused(
    kubeconfig("http://127.0.0.1:1", { token: "t" }, {
      "proxy-url": "http://user:hunter2@proxy:bad-port",
    }),
    (e: KubeconfigError) => {
      assert.match(
        e.message,
        /proxy-url http:\/\/\*\*\*@proxy:bad-port is not a URL/,
      );
      assert.ok(!e.message.includes("hunter2"));
    },
  );
  await assertRefused(
    kubeconfig("ftp://user:hunter2@host", { token: "t" }),
    (e: KubeconfigError) => assert.ok(!e.message.includes("hunter2")),
  );
});

Deno.test("loadKubeconfig() checks certificates and keys", async () => {
  const server = "https://127.0.0.1:1234";
  await assertRefused(
    kubeconfig(server, {}, { "certificate-authority-data": "%%%" }),
    /certificate-authority-data is not valid base64/,
  );
  await assertRefused(
    kubeconfig(server, {}, { "certificate-authority-data": base64("hello") }),
    /Cluster "test-cluster" certificate-authority holds no PEM certificate/,
  );
  await assertRefused(
    kubeconfig(server, {}, {
      "certificate-authority-data": base64(testCerts.caCert),
      "certificate-authority": "/ca.crt",
    }),
    /set either the file or the -data, not both/,
  );
  await assertRefused(
    kubeconfig(server, {}, { "certificate-authority": "no-such-ca.crt" }),
    /Cannot read Cluster "test-cluster" certificate-authority .*\/no-such-ca\.crt/,
  );
  await assertRefused(
    kubeconfig(server, {
      "client-certificate-data": base64(testCerts.serverCert),
    }),
    /User "test-user" sets a client-certificate without a client-key/,
  );
  await assertRefused(
    kubeconfig(server, {
      "client-key-data": base64(testCerts.serverKey),
    }),
    /sets a client-key without a client-certificate/,
  );
  await assertRefused(
    kubeconfig(server, {
      "client-certificate-data": base64(testCerts.serverCert),
      "client-key-data": base64(testCerts.serverCert),
    }),
    /client-key holds no PEM private key/,
  );
});

Deno.test("loadKubeconfig() refuses insecure-skip-tls-verify unless allowed", async () => {
  await assertRefused(
    kubeconfig("https://127.0.0.1:1234", {}, {
      "insecure-skip-tls-verify": true,
    }),
    /sets insecure-skip-tls-verify, which Deno's fetch cannot honour for one client: .*--unsafely-ignore-certificate-errors=127\.0\.0\.1 and pass allowInsecureSkipTlsVerify: true/,
  );
  await assertRefused(
    kubeconfig("https://127.0.0.1:1234", {}, {
      "insecure-skip-tls-verify": true,
      "certificate-authority-data": base64(testCerts.caCert),
    }),
    /sets both insecure-skip-tls-verify and a certificate-authority/,
    { allowInsecureSkipTlsVerify: true },
  );
  await using dir = await tempDir();
  const path = await dir.write(
    "config",
    kubeconfig("https://127.0.0.1:1234", {}, {
      "insecure-skip-tls-verify": true,
    }),
  );
  using config = await loadKubeconfig({
    path,
    allowInsecureSkipTlsVerify: true,
  });
  assert.equal(config.server, "https://127.0.0.1:1234");
});

Deno.test("loadKubeconfig() refuses a tls-server-name other than the host", async () => {
  await assertRefused(
    kubeconfig("https://127.0.0.1:1234", {}, {
      "tls-server-name": "kubernetes.default.svc",
    }),
    /sets tls-server-name kubernetes\.default\.svc, which Deno's fetch cannot honour/,
  );
  await using dir = await tempDir();
  const path = await dir.write(
    "config",
    kubeconfig("https://[::1]:1234", {}, { "tls-server-name": "::1" }),
  );
  using config = await loadKubeconfig({ path });
  assert.equal(config.server, "https://[::1]:1234");
});

Deno.test("loadKubeconfig() stops at an aborted signal", async () => {
  const reason = new Error("stop");
  await assert.rejects(
    loadKubeconfig({ path: "x", signal: AbortSignal.abort(reason) }),
    (e) => e === reason,
  );
});
