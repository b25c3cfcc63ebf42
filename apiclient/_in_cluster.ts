// The in-cluster configuration, found where client-go's rest.InClusterConfig
// finds it: the API server's address in KUBERNETES_SERVICE_HOST and
// KUBERNETES_SERVICE_PORT, the CA and token in the ServiceAccount directory;
// plus the pod's namespace from the same directory.
import { InClusterConfigError } from "./errors.ts";
import type { ClientOptions, InClusterOptions } from "./options.ts";
import { describe } from "../_internal/errors.ts";
import { SERVICE_ACCOUNT_DIR } from "./_limits.ts";

/** What {@linkcode inClusterConfig} answers: a client's server and options. */
export interface InClusterConfig {
  server: string;
  options: ClientOptions;
}

/**
 * Reads the pod's environment and ServiceAccount. Every configuration failure
 * is an {@linkcode InClusterConfigError} naming the file or variable.
 */
export async function inClusterConfig(
  options: InClusterOptions,
): Promise<InClusterConfig> {
  const dir = options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
  const server = options.server ?? serverFromEnvironment();
  const caPath = `${dir}/ca.crt`;
  let ca: string;
  try {
    ca = await Deno.readTextFile(caPath);
  } catch (cause) {
    throw new InClusterConfigError(
      `Cannot read the ServiceAccount CA ${caPath}: ${describe(cause)}`,
      { cause },
    );
  }
  if (
    !/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.test(ca)
  ) {
    throw new InClusterConfigError(
      `The ServiceAccount CA ${caPath} holds no certificate`,
    );
  }
  const tokenPath = `${dir}/token`;
  try {
    await Deno.stat(tokenPath);
  } catch (cause) {
    throw new InClusterConfigError(
      `Cannot read the ServiceAccount token ${tokenPath}: ${describe(cause)}`,
      { cause },
    );
  }
  let namespace: string | undefined;
  try {
    namespace = (await Deno.readTextFile(`${dir}/namespace`)).trim() ||
      undefined;
  } catch {
    namespace = undefined;
  }
  let httpClient: Deno.HttpClient;
  try {
    httpClient = Deno.createHttpClient({ caCerts: [ca] });
  } catch (cause) {
    throw new InClusterConfigError(
      `The ServiceAccount CA ${caPath} holds no valid certificate: ${
        describe(cause)
      }`,
      { cause },
    );
  }
  // The client may make more, to replace a dead connection; the first,
  // made here, checked the CA.
  let first: Deno.HttpClient | undefined = httpClient;
  const make = (): Deno.HttpClient => {
    const made = first ?? Deno.createHttpClient({ caCerts: [ca] });
    first = undefined;
    return made;
  };
  const clientOptions: ClientOptions = {
    httpClient: make,
    serviceAccountDir: dir,
  };
  if (options.timeout !== undefined) clientOptions.timeout = options.timeout;
  if (options.onWarning !== undefined) {
    clientOptions.onWarning = options.onWarning;
  }
  if (namespace !== undefined) clientOptions.namespace = namespace;
  return { server, options: clientOptions };
}

/** The server the environment names; an IPv6 host goes in brackets. */
function serverFromEnvironment(): string {
  const host = Deno.env.get("KUBERNETES_SERVICE_HOST");
  const port = Deno.env.get("KUBERNETES_SERVICE_PORT");
  if (!host || !port) {
    throw new InClusterConfigError(
      "Not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are unset (pass `server` to name the API server)",
    );
  }
  const bracketed = host.includes(":") && !host.startsWith("[")
    ? `[${host}]`
    : host;
  return `https://${bracketed}:${port}`;
}

/**
 * Whether a text holds a control character (LF, CR, NUL, ...), which no
 * header value may hold: fetch would refuse it with an error that quotes it.
 */
export function hasControl(text: string): boolean {
  // deno-lint-ignore no-control-regex
  return /[\x00-\x1f\x7f]/.test(text);
}

/**
 * Whether a text holds a character outside Latin-1 (above U+00FF), which a
 * header value cannot carry: fetch would refuse it with a bare TypeError
 * about a ByteString.
 */
export function hasNonLatin1(text: string): boolean {
  // Any UTF-16 unit from U+0100 up, surrogates (so astral characters) too.
  return /[\u0100-\uffff]/.test(text);
}

/**
 * Reads the ServiceAccount token, as the `Authorization` header value, or
 * `undefined` for an empty file. A token with a control character inside
 * (after trimming the ends), or with a character outside Latin-1, is an
 * {@linkcode InClusterConfigError} naming the file, never the content. The
 * kubelet rotates the token, so it is read on every request.
 */
export async function readToken(path: string): Promise<string | undefined> {
  let token: string;
  try {
    token = await Deno.readTextFile(path);
  } catch (cause) {
    throw new InClusterConfigError(
      `Cannot read the ServiceAccount token ${path}: ${describe(cause)}`,
      { cause },
    );
  }
  token = token.trim();
  // A line break or NUL inside would make fetch refuse the header with an
  // error that quotes it: name the file, never the content.
  if (hasControl(token)) {
    throw new InClusterConfigError(
      `The ServiceAccount token ${path} holds a control character (a line break, NUL or other) inside it, so it cannot be sent`,
    );
  }
  if (hasNonLatin1(token)) {
    throw new InClusterConfigError(
      `The ServiceAccount token ${path} holds a character outside Latin-1, which no header can carry, so it cannot be sent`,
    );
  }
  return token ? `Bearer ${token}` : undefined;
}
