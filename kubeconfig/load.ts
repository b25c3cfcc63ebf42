import { Client, type ClientOptions } from "../apiclient/mod.ts";
import {
  type ClusterEntry,
  type MergedConfig,
  readConfig,
  type UserEntry,
} from "./_config.ts";
import { type ExecClusterInfo, ExecCredential } from "./_exec.ts";
import { KubeconfigError } from "./errors.ts";
import { describe } from "../_internal/errors.ts";
import { withoutTrailing } from "../_internal/strings.ts";
import { DEFAULT_EXEC_TIMEOUT } from "./_defaults.ts";

/** Options of {@linkcode loadKubeconfig}. */
export interface LoadKubeconfigOptions {
  /**
   * The kubeconfig file, or files merged in order. Default: the files the
   * `KUBECONFIG` variable lists (missing ones skipped, as kubectl does), else
   * `$HOME/.kube/config`. A file named here must exist.
   */
  path?: string | string[] | undefined;
  /** The context to use. Default: the kubeconfig's `current-context`. */
  context?: string | undefined;
  /**
   * Accept a cluster that sets `insecure-skip-tls-verify: true`. Deno's
   * `fetch` cannot skip verification for one client; only the process flag
   * `--unsafely-ignore-certificate-errors=<host>` can. Set this when Deno
   * runs with that flag. Without the flag the server's certificate is still
   * verified against the default roots (and fails for a private CA): nothing
   * is trusted silently. Default `false`: such a cluster is refused.
   */
  allowInsecureSkipTlsVerify?: boolean | undefined;
  /** The limit of one request in milliseconds. Default 30 s. */
  timeout?: number | undefined;
  /**
   * The limit of one exec credential plugin run in milliseconds, after which
   * the plugin is killed. Default 60 s.
   */
  execTimeout?: number | undefined;
  /** Ends the loading. */
  signal?: AbortSignal | undefined;
}

/** A client made from a kubeconfig, and what the kubeconfig chose. */
export interface KubeconfigClient extends Disposable {
  /** The client of the chosen cluster, with the chosen user's credentials. */
  readonly client: Client;
  /** The name of the chosen context. */
  readonly context: string;
  /** The name of the context's cluster. */
  readonly cluster: string;
  /** The name of the context's user, or `undefined` for none (anonymous). */
  readonly user: string | undefined;
  /** The API server's URL. */
  readonly server: string;
  /** The context's namespace, or `default` when it names none. */
  readonly namespace: string;
  /** The kubeconfig files that were read, in merge order. */
  readonly files: readonly string[];
}

function env(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch (cause) {
    throw new KubeconfigError(
      `Reading ${name} needs --allow-env=KUBECONFIG,HOME (or pass path)`,
      { cause },
    );
  }
}

/** The files to read, and whether each must exist. */
function defaultFiles(): { files: string[]; explicit: boolean; from: string } {
  const list = env("KUBECONFIG");
  if (list) {
    const separator = Deno.build.os === "windows" ? ";" : ":";
    const files = [...new Set(list.split(separator).filter((f) => f !== ""))];
    if (files.length > 0) return { files, explicit: false, from: "KUBECONFIG" };
  }
  const home = env(Deno.build.os === "windows" ? "USERPROFILE" : "HOME");
  if (!home) {
    throw new KubeconfigError(
      "No kubeconfig: KUBECONFIG is not set and the home directory is unknown",
    );
  }
  return {
    files: [`${home}/.kube/config`],
    explicit: true,
    from: "the default location",
  };
}

function decodeBase64(value: string, what: string): string {
  let binary: string;
  try {
    binary = atob(value.replace(/\s+/g, ""));
  } catch (cause) {
    throw new KubeconfigError(`${what} is not valid base64`, { cause });
  }
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}

async function readPem(path: string, what: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (cause) {
    throw new KubeconfigError(
      `Cannot read ${what} ${path}: ${describe(cause)}`,
      { cause },
    );
  }
}

/** A PEM value from `-data` (base64) or a file, checked for its marker. */
async function pemFrom(
  source: { data: string | undefined; file: string | undefined },
  expect: { what: string; marker: RegExp; noun: string },
): Promise<string | undefined> {
  const { data, file } = source;
  const { what, marker, noun } = expect;
  if (data !== undefined && file !== undefined) {
    throw new KubeconfigError(
      `${what}: set either the file or the -data, not both`,
    );
  }
  let pem: string;
  if (data !== undefined) pem = decodeBase64(data, `${what}-data`);
  else if (file !== undefined) pem = await readPem(file, what);
  else return undefined;
  if (!marker.test(pem)) {
    throw new KubeconfigError(`${what} holds no PEM ${noun}`);
  }
  return pem;
}

const CERT_MARKER = /-----BEGIN CERTIFICATE-----/;
const KEY_MARKER = /-----BEGIN [A-Z ]*PRIVATE KEY-----/;

function serverUrl(name: string, cluster: ClusterEntry): URL {
  if (cluster.server === undefined) {
    throw new KubeconfigError(
      `Kubeconfig ${cluster.file}: cluster "${name}" has no server`,
    );
  }
  let url: URL;
  try {
    url = new URL(cluster.server);
  } catch (cause) {
    throw new KubeconfigError(
      `Kubeconfig ${cluster.file}: cluster "${name}" server ${
        redact(cluster.server)
      } is not a URL`,
      { cause },
    );
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new KubeconfigError(
      `Kubeconfig ${cluster.file}: cluster "${name}" server ${
        redact(cluster.server)
      } is not an http or https URL`,
    );
  }
  return url;
}

/**
 * A URL for an error message, without the user and password it may carry.
 * Everything between the scheme's `//` and the last `@` goes: a password may
 * hold a raw `/`, `?`, `#` or `@` (which is why the URL did not parse), so
 * the end of the authority cannot be told; hiding a host is the safe side.
 */
function redact(url: string): string {
  const slashes = url.indexOf("//");
  const from = slashes === -1 ? 0 : slashes + 2;
  const at = url.lastIndexOf("@");
  return at < from ? url : `${url.slice(0, from)}***@${url.slice(at + 1)}`;
}

function proxyFor(name: string, proxyUrl: string): Deno.Proxy {
  let url: URL;
  try {
    url = new URL(proxyUrl);
  } catch (cause) {
    throw new KubeconfigError(
      `Cluster "${name}": proxy-url ${redact(proxyUrl)} is not a URL`,
      { cause },
    );
  }
  const transports: Record<string, "http" | "https" | "socks5"> = {
    "http:": "http",
    "https:": "https",
    "socks5:": "socks5",
    "socks5h:": "socks5",
  };
  const transport = transports[url.protocol];
  if (transport === undefined) {
    throw new KubeconfigError(
      `Cluster "${name}": proxy-url scheme ${url.protocol} is not supported (use http, https or socks5)`,
    );
  }
  const proxy: Deno.Proxy = { transport, url: proxyUrl };
  if (url.username) {
    proxy.basicAuth = {
      username: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
    };
  }
  return proxy;
}

interface Auth {
  authorization: (() => Promise<string | undefined>) | undefined;
  exec: ExecCredential | undefined;
}

/** What {@linkcode authFor} needs beyond the user. */
interface AuthContext {
  /** The cluster as an exec plugin sees it. */
  cluster: ExecClusterInfo;
  /** The limit of one plugin run. */
  execTimeout: number;
  /** Whether the user presents a client certificate. */
  clientCertificate: boolean;
}

function authFor(
  chosen: { name: string | undefined; user: UserEntry | undefined },
  context: AuthContext,
): Auth {
  const { name, user } = chosen;
  if (name === undefined || user === undefined) {
    return { authorization: undefined, exec: undefined };
  }
  const where = `User "${name}"`;
  if (user.authProvider !== undefined) {
    throw new KubeconfigError(
      `${where} uses auth-provider ${user.authProvider}, which is not supported; use an exec credential plugin`,
    );
  }
  if (user.impersonate) {
    throw new KubeconfigError(
      `${where} sets impersonation (as, as-groups), which is not supported`,
    );
  }
  const methods: string[] = [];
  if (user.token !== undefined || user.tokenFile !== undefined) {
    methods.push("token");
  }
  if (user.username !== undefined || user.password !== undefined) {
    methods.push("username/password");
  }
  // As kubectl: a token and a password are ambiguous, but an exec plugin
  // beside either (or beside a client certificate) is simply not run.
  if (methods.length > 1) {
    throw new KubeconfigError(
      `${where} sets more than one authentication method (${
        methods.join(", ")
      })`,
    );
  }
  if (user.tokenFile !== undefined) {
    const file = user.tokenFile;
    // Read on every request: whoever writes the file may rotate the token.
    return {
      exec: undefined,
      authorization: async () => {
        let token: string;
        try {
          token = (await Deno.readTextFile(file)).trim();
        } catch (cause) {
          throw new KubeconfigError(
            `Cannot read the tokenFile ${file} of user "${name}": ${
              describe(cause)
            }`,
            { cause },
          );
        }
        if (token === "") {
          throw new KubeconfigError(
            `The tokenFile ${file} of user "${name}" is empty`,
          );
        }
        return `Bearer ${token}`;
      },
    };
  }
  if (user.token !== undefined) {
    const header = `Bearer ${user.token}`;
    return { exec: undefined, authorization: () => Promise.resolve(header) };
  }
  if (user.username !== undefined || user.password !== undefined) {
    const pair = `${user.username ?? ""}:${user.password ?? ""}`;
    const bytes = new TextEncoder().encode(pair);
    const header = `Basic ${btoa(String.fromCharCode(...bytes))}`;
    return { exec: undefined, authorization: () => Promise.resolve(header) };
  }
  if (user.exec !== undefined && !context.clientCertificate) {
    const exec = new ExecCredential(user.exec, {
      user: name,
      cluster: context.cluster,
      timeout: context.execTimeout,
    });
    return { exec, authorization: () => exec.authorization() };
  }
  return { authorization: undefined, exec: undefined };
}

function chooseContext(config: MergedConfig, wanted: string | undefined): {
  context: string;
  clusterName: string;
  cluster: ClusterEntry;
  userName: string | undefined;
  user: UserEntry | undefined;
  namespace: string;
} {
  const files = config.files.join(", ");
  const context = wanted ?? config.currentContext;
  if (context === undefined) {
    throw new KubeconfigError(
      `No context chosen: kubeconfig ${files} sets no current-context and none was given`,
    );
  }
  const entry = config.contexts.get(context);
  if (entry === undefined) {
    const known = [...config.contexts.keys()];
    throw new KubeconfigError(
      `Context "${context}" is not in kubeconfig ${files} (known: ${
        known.length ? known.join(", ") : "none"
      })`,
    );
  }
  if (entry.cluster === undefined) {
    throw new KubeconfigError(
      `Kubeconfig ${entry.file}: context "${context}" names no cluster`,
    );
  }
  const cluster = config.clusters.get(entry.cluster);
  if (cluster === undefined) {
    throw new KubeconfigError(
      `Kubeconfig ${entry.file}: context "${context}" names cluster "${entry.cluster}", which is not in kubeconfig ${files}`,
    );
  }
  let user: UserEntry | undefined;
  if (entry.user !== undefined) {
    user = config.users.get(entry.user);
    if (user === undefined) {
      throw new KubeconfigError(
        `Kubeconfig ${entry.file}: context "${context}" names user "${entry.user}", which is not in kubeconfig ${files}`,
      );
    }
  }
  return {
    context,
    clusterName: entry.cluster,
    cluster,
    userName: entry.user,
    user,
    namespace: entry.namespace ?? "default",
  };
}

/**
 * Makes a client from a kubeconfig, for local development against a real
 * cluster, the way kubectl reads it: the files `KUBECONFIG` lists merged
 * (per name the first file wins; `current-context` comes from the first file
 * that sets it), else `~/.kube/config`; the chosen context, else the current
 * one.
 *
 * Supported: `server`, `certificate-authority(-data)`, `proxy-url`,
 * client certificates (`client-certificate(-data)`, `client-key(-data)`),
 * `token`, `tokenFile` (read on every request), `username`/`password`, and
 * exec credential plugins (`client.authentication.k8s.io/v1` and `v1beta1`;
 * never interactive; the token is cached until its `expirationTimestamp`,
 * and forgotten when the server answers 401). Relative paths are resolved
 * against the file that names them. As in kubectl, `tokenFile` wins over
 * `token`, and a plugin is not run for a user that also has a token, a
 * password or a client certificate (those are sent instead); `interactiveMode`
 * must be set for `v1` plugins (`v1beta1` defaults to `IfAvailable`).
 *
 * Refused with a {@linkcode KubeconfigError}: `insecure-skip-tls-verify`
 * (unless {@linkcode LoadKubeconfigOptions.allowInsecureSkipTlsVerify}), a
 * `tls-server-name` other than the server's host (Deno's `fetch` cannot check
 * another name), `auth-provider`, impersonation, a token together with a
 * password, a plugin with `interactiveMode: Always`, and client certificates
 * answered by exec plugins. Error messages quote no token, password or key,
 * not even from a line of malformed YAML.
 *
 * Permissions: `--allow-env=KUBECONFIG,HOME` (unless `path` is given),
 * `--allow-read` of the kubeconfig files and the files they name,
 * `--allow-net=<api host>`, and `--allow-run=<plugin>` for exec plugins.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadKubeconfig } from "@liken/kubernetes/kubeconfig";
 *
 * await Deno.mkdir(".tmp", { recursive: true });
 * const path = await Deno.makeTempFile({ dir: ".tmp", suffix: ".yaml" });
 * await Deno.writeTextFile(path, `
 * apiVersion: v1
 * kind: Config
 * current-context: dev
 * clusters:
 * - name: local
 *   cluster: { server: "http://127.0.0.1:8080" }
 * users:
 * - name: me
 *   user: { token: "secret" }
 * contexts:
 * - name: dev
 *   context: { cluster: local, user: me, namespace: team-a }
 * `);
 * using config = await loadKubeconfig({ path });
 * assert.equal(config.context, "dev");
 * assert.equal(config.server, "http://127.0.0.1:8080");
 * assert.equal(config.namespace, "team-a");
 * assert.equal(config.client.defaultNamespace, "team-a");
 * await Deno.remove(path);
 * ```
 *
 * @param options The files, context, limits and signal.
 * @returns The client and the names the kubeconfig chose.
 */
export async function loadKubeconfig(
  options: LoadKubeconfigOptions = {},
): Promise<KubeconfigClient> {
  options.signal?.throwIfAborted();
  const source = options.path !== undefined
    ? {
      files: typeof options.path === "string" ? [options.path] : options.path,
      explicit: true,
      from: "given",
    }
    : defaultFiles();
  const config = await readConfig(source.files, source.explicit, source.from);
  options.signal?.throwIfAborted();
  const chosen = chooseContext(config, options.context);
  const { clusterName, cluster } = chosen;
  const url = serverUrl(clusterName, cluster);
  const where = `Cluster "${clusterName}"`;

  const ca = await pemFrom({
    data: cluster.certificateAuthorityData,
    file: cluster.certificateAuthority,
  }, {
    what: `${where} certificate-authority`,
    marker: CERT_MARKER,
    noun: "certificate",
  });
  if (cluster.insecureSkipTlsVerify) {
    if (ca !== undefined) {
      throw new KubeconfigError(
        `${where} sets both insecure-skip-tls-verify and a certificate-authority`,
      );
    }
    if (url.protocol === "https:" && !options.allowInsecureSkipTlsVerify) {
      throw new KubeconfigError(
        `${where} sets insecure-skip-tls-verify, which Deno's fetch cannot honour for one client: give the cluster a certificate-authority, or run Deno with --unsafely-ignore-certificate-errors=${url.hostname} and pass allowInsecureSkipTlsVerify: true`,
      );
    }
  }
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (
    cluster.tlsServerName !== undefined && cluster.tlsServerName !== host
  ) {
    throw new KubeconfigError(
      `${where} sets tls-server-name ${cluster.tlsServerName}, which Deno's fetch cannot honour: it checks the certificate against the server URL's host (${host}); use a server URL whose host the certificate names`,
    );
  }
  const userWhere = `User "${chosen.userName}"`;
  const user = chosen.user;
  const cert = await pemFrom({
    data: user?.clientCertificateData,
    file: user?.clientCertificate,
  }, {
    what: `${userWhere} client-certificate`,
    marker: CERT_MARKER,
    noun: "certificate",
  });
  const key = await pemFrom({
    data: user?.clientKeyData,
    file: user?.clientKey,
  }, {
    what: `${userWhere} client-key`,
    marker: KEY_MARKER,
    noun: "private key",
  });
  if ((cert === undefined) !== (key === undefined)) {
    throw new KubeconfigError(
      cert === undefined
        ? `${userWhere} sets a client-key without a client-certificate`
        : `${userWhere} sets a client-certificate without a client-key`,
    );
  }
  const clusterInfo: ExecClusterInfo = { server: cluster.server ?? "" };
  if (ca !== undefined) {
    const bytes = new TextEncoder().encode(ca);
    clusterInfo["certificate-authority-data"] = btoa(
      String.fromCharCode(...bytes),
    );
  }
  if (cluster.tlsServerName !== undefined) {
    clusterInfo["tls-server-name"] = cluster.tlsServerName;
  }
  if (cluster.insecureSkipTlsVerify) {
    clusterInfo["insecure-skip-tls-verify"] = true;
  }
  if (cluster.proxyUrl !== undefined) {
    clusterInfo["proxy-url"] = cluster.proxyUrl;
  }
  const auth = authFor({ name: chosen.userName, user }, {
    cluster: clusterInfo,
    execTimeout: options.execTimeout ?? DEFAULT_EXEC_TIMEOUT,
    clientCertificate: cert !== undefined,
  });
  const proxy = cluster.proxyUrl !== undefined
    ? proxyFor(clusterName, cluster.proxyUrl)
    : undefined;
  options.signal?.throwIfAborted();

  // Made last, so that no earlier error leaks it. The client may make more
  // with the same settings, to replace a dead connection.
  let httpClient: Deno.HttpClient | undefined;
  let makeHttpClient: (() => Deno.HttpClient) | undefined;
  if (ca !== undefined || cert !== undefined || proxy !== undefined) {
    const clientOptions: Deno.CreateHttpClientOptions & {
      cert?: string;
      key?: string;
    } = {};
    if (ca !== undefined) clientOptions.caCerts = [ca];
    if (proxy !== undefined) clientOptions.proxy = proxy;
    if (cert !== undefined && key !== undefined) {
      clientOptions.cert = cert;
      clientOptions.key = key;
    }
    try {
      httpClient = Deno.createHttpClient(
        clientOptions as Deno.CreateHttpClientOptions,
      );
    } catch (cause) {
      throw new KubeconfigError(
        `${where} / ${userWhere}: Deno refused the TLS settings: ${
          describe(cause)
        }`,
        { cause },
      );
    }
    makeHttpClient = () => {
      // The first, made above, checked the settings.
      const made = httpClient ??
        Deno.createHttpClient(clientOptions as Deno.CreateHttpClientOptions);
      httpClient = undefined;
      return made;
    };
  }
  const clientOptions: ClientOptions = { namespace: chosen.namespace };
  if (options.timeout !== undefined) clientOptions.timeout = options.timeout;
  if (makeHttpClient !== undefined) clientOptions.httpClient = makeHttpClient;
  if (auth.authorization !== undefined) {
    clientOptions.authorization = auth.authorization;
  }
  const exec = auth.exec;
  if (exec !== undefined) {
    // Watch for 401 so that a refused plugin token is not used again.
    // The client passes its current Deno.HttpClient as init.client.
    clientOptions.fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (response.status === 401) {
        exec.refused(new Headers(init?.headers).get("Authorization"));
      }
      return response;
    };
  }
  const server = withoutTrailing(cluster.server ?? url.href, "/");
  let client: Client;
  try {
    client = new Client(server, clientOptions);
  } catch (error) {
    httpClient?.close(); // nothing else would close it
    throw error;
  }
  return {
    client,
    context: chosen.context,
    cluster: clusterName,
    user: chosen.userName,
    server,
    namespace: chosen.namespace,
    files: config.files,
    [Symbol.dispose](): void {
      client[Symbol.dispose]();
    },
  };
}
