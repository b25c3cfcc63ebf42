// Helpers for the kubeconfig tests: temp directories and loopback servers.

/** A temporary directory under TMPDIR (the test runs with TMPDIR=.tmp). */
export interface TempDir extends AsyncDisposable {
  path: string;
  /** Writes `text` to `name` in the directory and answers the full path. */
  write(name: string, text: string): Promise<string>;
}

export async function tempDir(): Promise<TempDir> {
  const path = await Deno.makeTempDir({ prefix: "kubeconfig-" });
  return {
    path,
    async write(name: string, text: string): Promise<string> {
      const file = `${path}/${name}`;
      const slash = file.lastIndexOf("/");
      await Deno.mkdir(file.slice(0, slash), { recursive: true });
      await Deno.writeTextFile(file, text);
      return file;
    },
    async [Symbol.asyncDispose](): Promise<void> {
      await Deno.remove(path, { recursive: true });
    },
  };
}

/** What the echo server saw of one request. */
export interface Seen {
  method: string;
  url: string;
  authorization: string | null;
}

/** A loopback server that answers `{ seen }` as JSON. */
export interface EchoServer extends AsyncDisposable {
  url: string;
  port: number;
  seen: Seen[];
  /** The status of the next answers; default 200. */
  status: number;
}

export function echoServer(
  tls?: { cert: string; key: string },
): EchoServer {
  const seen: Seen[] = [];
  const state = { status: 200 };
  const handler = (req: Request): Response => {
    const entry = {
      method: req.method,
      url: req.url,
      authorization: req.headers.get("authorization"),
    };
    seen.push(entry);
    if (state.status !== 200) {
      return Response.json({
        kind: "Status",
        apiVersion: "v1",
        status: "Failure",
        reason: "Unauthorized",
        code: state.status,
        message: "Unauthorized",
      }, { status: state.status });
    }
    return Response.json({ seen: entry });
  };
  const server = tls
    ? Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      cert: tls.cert,
      key: tls.key,
      onListen(): void {},
    }, handler)
    : Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen(): void {} },
      handler,
    );
  const port = server.addr.port;
  return {
    url: `${tls ? "https" : "http"}://127.0.0.1:${port}`,
    port,
    seen,
    get status(): number {
      return state.status;
    },
    set status(value: number) {
      state.status = value;
    },
    async [Symbol.asyncDispose](): Promise<void> {
      await server.shutdown();
    },
  };
}

/** A one-context kubeconfig (JSON is YAML) for `server` and `user`. */
export function kubeconfig(
  server: string,
  user: Record<string, unknown> = {},
  cluster: Record<string, unknown> = {},
  namespace?: string,
): string {
  return JSON.stringify({
    apiVersion: "v1",
    kind: "Config",
    "current-context": "test",
    clusters: [{ name: "test-cluster", cluster: { server, ...cluster } }],
    users: [{ name: "test-user", user }],
    contexts: [{
      name: "test",
      context: {
        cluster: "test-cluster",
        user: "test-user",
        ...(namespace ? { namespace } : {}),
      },
    }],
  });
}

export function base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  return btoa(String.fromCharCode(...bytes));
}
