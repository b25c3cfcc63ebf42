// Reading, checking and merging kubeconfig files the way kubectl does.
import { parseYaml } from "./_yaml.ts";
import { KubeconfigError } from "./errors.ts";
import { describe } from "../_internal/errors.ts";

/** One `clusters[].cluster` entry, paths already made absolute. */
export interface ClusterEntry {
  server?: string;
  certificateAuthority?: string;
  certificateAuthorityData?: string;
  insecureSkipTlsVerify?: boolean;
  tlsServerName?: string;
  proxyUrl?: string;
  /** The file that defined this entry. */
  file: string;
}

/** One `users[].user` entry, paths already made absolute. */
export interface UserEntry {
  clientCertificate?: string;
  clientCertificateData?: string;
  clientKey?: string;
  clientKeyData?: string;
  token?: string;
  tokenFile?: string;
  username?: string;
  password?: string;
  exec?: ExecEntry;
  authProvider?: string;
  impersonate?: boolean;
  file: string;
}

/** A `users[].user.exec` entry. */
export interface ExecEntry {
  command: string;
  args: string[];
  env: { name: string; value: string }[];
  apiVersion: string;
  installHint?: string;
  provideClusterInfo: boolean;
  interactiveMode?: string;
}

/** One `contexts[].context` entry. */
export interface ContextEntry {
  cluster?: string;
  user?: string;
  namespace?: string;
  file: string;
}

/** The merged view of one or more kubeconfig files. */
export interface MergedConfig {
  currentContext?: string;
  clusters: Map<string, ClusterEntry>;
  users: Map<string, UserEntry>;
  contexts: Map<string, ContextEntry>;
  /** The files that were read, in order. */
  files: string[];
}

type Dict = Record<string, unknown>;

function isDict(value: unknown): value is Dict {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A YAML parse error as its reason and 1-based position, quoting no text. */
function yamlFault(error: unknown): string {
  const e = error as {
    reason?: unknown;
    mark?: { line?: unknown; column?: unknown };
  };
  const reason = typeof e?.reason === "string" ? e.reason : "malformed YAML";
  const line = e?.mark?.line;
  const column = e?.mark?.column;
  return typeof line === "number" && typeof column === "number"
    ? `${reason} at line ${line + 1}, column ${column + 1}`
    : reason;
}

/** The directory part of a path, for resolving relative file references. */
export function dirname(path: string): string {
  const i = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  if (i < 0) return ".";
  return i === 0 ? path.slice(0, 1) : path.slice(0, i);
}

function isAbsolute(path: string): boolean {
  return path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path) ||
    path.startsWith("\\\\");
}

/** Resolves `path` against the directory of the kubeconfig `file`. */
export function resolvePath(file: string, path: string): string {
  if (path === "" || isAbsolute(path)) return path;
  return `${dirname(file)}/${path.replace(/^(\.[\\/])+/, "")}`;
}

function optionalString(
  entry: Dict,
  key: string,
  where: string,
): string | undefined {
  const value = entry[key];
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value !== "string") {
    throw new KubeconfigError(`${where}: ${key} must be a string`);
  }
  return value;
}

function optionalBoolean(
  entry: Dict,
  key: string,
  where: string,
): boolean | undefined {
  const value = entry[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "boolean") {
    throw new KubeconfigError(`${where}: ${key} must be true or false`);
  }
  return value;
}

/** The named entries of one list (`clusters`, `users`, `contexts`). */
function namedEntries(
  doc: Dict,
  list: string,
  field: string,
  file: string,
): [string, Dict][] {
  const items = doc[list];
  if (items === undefined || items === null) return [];
  if (!Array.isArray(items)) {
    throw new KubeconfigError(`Kubeconfig ${file}: ${list} must be a list`);
  }
  const out: [string, Dict][] = [];
  items.forEach((item, i) => {
    const where = `Kubeconfig ${file}: ${list}[${i}]`;
    if (!isDict(item)) throw new KubeconfigError(`${where} must be a mapping`);
    const name = item.name;
    if (typeof name !== "string" || name === "") {
      throw new KubeconfigError(`${where} has no name`);
    }
    const body = item[field] ?? {};
    if (!isDict(body)) {
      throw new KubeconfigError(
        `Kubeconfig ${file}: ${field} "${name}" must be a mapping`,
      );
    }
    out.push([name, body]);
  });
  return out;
}

function readCluster(file: string, name: string, c: Dict): ClusterEntry {
  const where = `Kubeconfig ${file}: cluster "${name}"`;
  const entry: ClusterEntry = { file };
  const server = optionalString(c, "server", where);
  if (server !== undefined) entry.server = server;
  const ca = optionalString(c, "certificate-authority", where);
  if (ca !== undefined) entry.certificateAuthority = resolvePath(file, ca);
  const caData = optionalString(c, "certificate-authority-data", where);
  if (caData !== undefined) entry.certificateAuthorityData = caData;
  const insecure = optionalBoolean(c, "insecure-skip-tls-verify", where);
  if (insecure !== undefined) entry.insecureSkipTlsVerify = insecure;
  const serverName = optionalString(c, "tls-server-name", where);
  if (serverName !== undefined) entry.tlsServerName = serverName;
  const proxy = optionalString(c, "proxy-url", where);
  if (proxy !== undefined) entry.proxyUrl = proxy;
  return entry;
}

function readExec(where: string, exec: unknown, file: string): ExecEntry {
  if (!isDict(exec)) {
    throw new KubeconfigError(`${where}: exec must be a mapping`);
  }
  const w = `${where} exec`;
  const command = optionalString(exec, "command", w);
  if (command === undefined) {
    throw new KubeconfigError(`${w} has no command`);
  }
  const apiVersion = optionalString(exec, "apiVersion", w);
  if (apiVersion === undefined) {
    throw new KubeconfigError(`${w} has no apiVersion`);
  }
  const rawArgs = exec.args ?? [];
  if (
    !Array.isArray(rawArgs) || rawArgs.some((a) => typeof a !== "string")
  ) {
    throw new KubeconfigError(`${w}: args must be a list of strings`);
  }
  const rawEnv = exec.env ?? [];
  if (!Array.isArray(rawEnv)) {
    throw new KubeconfigError(`${w}: env must be a list`);
  }
  const env = rawEnv.map((e, i) => {
    if (
      !isDict(e) || typeof e.name !== "string" || typeof e.value !== "string"
    ) {
      throw new KubeconfigError(
        `${w}: env[${i}] must have a string name and value`,
      );
    }
    return { name: e.name, value: e.value };
  });
  // kubectl resolves a command relative to the kubeconfig only when it holds
  // a path separator; a bare name is looked up in PATH.
  const resolved = /[\\/]/.test(command) ? resolvePath(file, command) : command;
  const entry: ExecEntry = {
    command: resolved,
    args: rawArgs as string[],
    env,
    apiVersion,
    provideClusterInfo: optionalBoolean(exec, "provideClusterInfo", w) ?? false,
  };
  const hint = optionalString(exec, "installHint", w);
  if (hint !== undefined) entry.installHint = hint;
  const mode = optionalString(exec, "interactiveMode", w);
  if (mode !== undefined) entry.interactiveMode = mode;
  return entry;
}

function readUser(file: string, name: string, u: Dict): UserEntry {
  const where = `Kubeconfig ${file}: user "${name}"`;
  const entry: UserEntry = { file };
  const paths = {
    "client-certificate": "clientCertificate",
    "client-key": "clientKey",
    tokenFile: "tokenFile",
  } as const;
  for (const [key, prop] of Object.entries(paths)) {
    const value = optionalString(u, key, where);
    if (value !== undefined) entry[prop] = resolvePath(file, value);
  }
  const plain = {
    "client-certificate-data": "clientCertificateData",
    "client-key-data": "clientKeyData",
    token: "token",
    username: "username",
    password: "password",
  } as const;
  for (const [key, prop] of Object.entries(plain)) {
    const value = optionalString(u, key, where);
    if (value !== undefined) entry[prop] = value;
  }
  if (u.exec !== undefined && u.exec !== null) {
    entry.exec = readExec(where, u.exec, file);
  }
  const provider = u["auth-provider"];
  if (provider !== undefined && provider !== null) {
    entry.authProvider = isDict(provider) && typeof provider.name === "string"
      ? provider.name
      : "unnamed";
  }
  if (
    u.as !== undefined || u["as-uid"] !== undefined ||
    u["as-groups"] !== undefined || u["as-user-extra"] !== undefined
  ) {
    entry.impersonate = true;
  }
  return entry;
}

function readContext(file: string, name: string, c: Dict): ContextEntry {
  const where = `Kubeconfig ${file}: context "${name}"`;
  const entry: ContextEntry = { file };
  const cluster = optionalString(c, "cluster", where);
  if (cluster !== undefined) entry.cluster = cluster;
  const user = optionalString(c, "user", where);
  if (user !== undefined) entry.user = user;
  const namespace = optionalString(c, "namespace", where);
  if (namespace !== undefined) entry.namespace = namespace;
  return entry;
}

/** Parses one kubeconfig text into `into`, keeping names already there. */
export function mergeText(
  into: MergedConfig,
  file: string,
  text: string,
): void {
  let doc: unknown;
  try {
    doc = parseYaml(text, file);
  } catch (error) {
    // No cause, and only the parser's reason and position: its message
    // quotes the lines around the fault, which may hold a token or a key.
    throw new KubeconfigError(
      `Kubeconfig ${file} is not valid YAML: ${yamlFault(error)}`,
    );
  }
  into.files.push(file);
  if (doc === null || doc === undefined) return; // an empty file is an empty config
  if (!isDict(doc)) {
    throw new KubeconfigError(`Kubeconfig ${file} is not a YAML mapping`);
  }
  const current = optionalString(doc, "current-context", `Kubeconfig ${file}`);
  // The first file that sets current-context wins, as in kubectl.
  if (into.currentContext === undefined && current !== undefined) {
    into.currentContext = current;
  }
  // Per name, the first file that defines it wins, as in kubectl.
  for (const [name, body] of namedEntries(doc, "clusters", "cluster", file)) {
    if (!into.clusters.has(name)) {
      into.clusters.set(name, readCluster(file, name, body));
    }
  }
  for (const [name, body] of namedEntries(doc, "users", "user", file)) {
    if (!into.users.has(name)) into.users.set(name, readUser(file, name, body));
  }
  for (const [name, body] of namedEntries(doc, "contexts", "context", file)) {
    if (!into.contexts.has(name)) {
      into.contexts.set(name, readContext(file, name, body));
    }
  }
}

/** An empty merged config. */
export function emptyConfig(): MergedConfig {
  return {
    clusters: new Map(),
    users: new Map(),
    contexts: new Map(),
    files: [],
  };
}

/**
 * Reads and merges `files`. A missing file is an error when `explicit`; in a
 * `KUBECONFIG` list it is skipped, as kubectl does, unless none exists.
 */
export async function readConfig(
  files: string[],
  explicit: boolean,
  from: string,
): Promise<MergedConfig> {
  const config = emptyConfig();
  for (const file of files) {
    let text: string;
    try {
      text = await Deno.readTextFile(file);
    } catch (cause) {
      if (cause instanceof Deno.errors.NotFound && !explicit) continue;
      const reason = cause instanceof Deno.errors.NotFound
        ? "the file does not exist"
        : describe(cause);
      throw new KubeconfigError(
        `Cannot read kubeconfig ${file} (${from}): ${reason}`,
        { cause },
      );
    }
    mergeText(config, file, text);
  }
  if (config.files.length === 0) {
    throw new KubeconfigError(
      `No kubeconfig found: none of ${files.join(", ")} (${from}) exists`,
    );
  }
  return config;
}
