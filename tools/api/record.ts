// Records what the real API server serves into tools/api/data (issue 43):
// `/openapi/v3` and each GA and beta group-version document under it, and
// discovery (`/api`, `/apis`, each group-version, and the aggregated
// `/apis` of apidiscovery.k8s.io/v2), from a default server; then the betas
// a default server does not serve, from one started with
// `--runtime-config=api/beta=true` (their group-version documents only). Then it compares the recording with
// the same release's `api/openapi-spec/v3` and `api/discovery` from the
// k8s.io/kubernetes module, when `--module DIR` names that `api/` folder,
// and prints what differs.
//
//   deno task api:record            (builds the control plane first)
//   deno run … tools/api/record.ts --compare-only --module DIR
//
// The names are the module's: `apis/apps/v1` → `apis__apps__v1_openapi.json`
// (gzipped here) and `apis__apps__v1.json`.
import { RealControlPlane } from "../../testing/real_control_plane.ts";

/** GA and beta versions: alpha ones are off by default and not recorded. */
const RECORDED = /^(api\/v1|apis\/[^/]+\/v\d+(beta\d+)?)$/;

const AGGREGATED =
  "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

/** A folder of recorded data: OpenAPI by file name, discovery by file name. */
export interface Recording {
  openapi: Map<string, unknown>;
  discovery: Map<string, unknown>;
}

/** JSON with sorted object keys, 2-space indented (as the module's files). */
export function canonical(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (v !== null && typeof v === "object") {
      return Object.fromEntries(
        Object.keys(v).sort().map((
          k,
        ) => [k, sort((v as Record<string, unknown>)[k])]),
      );
    }
    return v;
  };
  return JSON.stringify(sort(value), null, 2) + "\n";
}

/** The file name of an OpenAPI or discovery path: `apis/apps/v1` → `apis__apps__v1`. */
export function fileStem(path: string): string {
  return path.replace(/^\//, "").replaceAll("/", "__");
}

/**
 * Records one server: its GA and beta group-versions (those `wanted` says),
 * and the root discovery documents when `roots`.
 */
async function record(
  plane: RealControlPlane,
  wanted: (path: string) => boolean,
  roots: boolean,
): Promise<Recording> {
  const get = async (
    path: string,
    accept = "application/json",
  ): Promise<unknown> => {
    const response = await plane.fetch(
      new Request(`${plane.server}${path}`, { headers: { accept } }),
    );
    if (!response.ok) {
      throw new Error(
        `GET ${path}: ${response.status} ${await response.text()}`,
      );
    }
    return await response.json();
  };
  const recording: Recording = { openapi: new Map(), discovery: new Map() };
  const index = await get("/openapi/v3") as {
    paths: Record<string, { serverRelativeURL: string }>;
  };
  for (const path of Object.keys(index.paths).sort()) {
    if (!RECORDED.test(path) || !wanted(path)) continue;
    recording.openapi.set(
      `${fileStem(path)}_openapi.json`,
      await get(index.paths[path]!.serverRelativeURL),
    );
  }
  const groups = await get("/apis") as {
    groups: { versions: { groupVersion: string }[] }[];
  };
  if (roots) {
    // The server's address is a random port: a stable one keeps a new
    // recording's diff to what changed.
    const api = await get("/api") as {
      serverAddressByClientCIDRs?: { serverAddress: string }[];
    };
    for (const cidr of api.serverAddressByClientCIDRs ?? []) {
      cidr.serverAddress = "127.0.0.1:6443";
    }
    recording.discovery.set("api.json", api);
    recording.discovery.set("apis.json", groups);
    recording.discovery.set(
      "aggregated_v2.json",
      await get("/apis", AGGREGATED),
    );
  }
  const versions = ["api/v1"];
  for (const group of groups.groups) {
    for (const { groupVersion } of group.versions) {
      versions.push(`apis/${groupVersion}`);
    }
  }
  for (const path of versions.sort()) {
    if (!RECORDED.test(path) || !wanted(path)) continue;
    recording.discovery.set(`${fileStem(path)}.json`, await get(`/${path}`));
  }
  return recording;
}

async function names(folder: string, suffix: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(folder)) {
    if (entry.name.endsWith(suffix)) found.push(entry.name);
  }
  return found.sort();
}

async function gunzip(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  return await new Response(
    new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip")),
  ).text();
}

/** Reads tools/api/data (gzipped OpenAPI). */
export async function readData(folder: string): Promise<Recording> {
  const recording: Recording = { openapi: new Map(), discovery: new Map() };
  for (const name of await names(`${folder}/openapi`, ".json.gz")) {
    const text = await gunzip(await Deno.readFile(`${folder}/openapi/${name}`));
    recording.openapi.set(name.slice(0, -3), JSON.parse(text));
  }
  for (const name of await names(`${folder}/discovery`, ".json")) {
    recording.discovery.set(
      name,
      JSON.parse(await Deno.readTextFile(`${folder}/discovery/${name}`)),
    );
  }
  return recording;
}

/** Reads the module's `api/` folder (only the files a recording holds). */
export async function readModule(folder: string): Promise<Recording> {
  const recording: Recording = { openapi: new Map(), discovery: new Map() };
  for (const name of await names(`${folder}/openapi-spec/v3`, ".json")) {
    const stem = name.slice(0, -"_openapi.json".length).replaceAll("__", "/");
    if (!RECORDED.test(stem)) continue;
    recording.openapi.set(
      name,
      JSON.parse(await Deno.readTextFile(`${folder}/openapi-spec/v3/${name}`)),
    );
  }
  for (const name of await names(`${folder}/discovery`, ".json")) {
    const stem = name.slice(0, -".json".length).replaceAll("__", "/");
    if (
      !RECORDED.test(stem) && !["api", "apis", "aggregated_v2"].includes(stem)
    ) {
      continue;
    }
    recording.discovery.set(
      name,
      JSON.parse(await Deno.readTextFile(`${folder}/discovery/${name}`)),
    );
  }
  return recording;
}

/** What differs between two recordings, a line each; empty when none. */
export function compare(a: Recording, b: Recording): string[] {
  const out: string[] = [];
  for (const part of ["openapi", "discovery"] as const) {
    const names = new Set([...a[part].keys(), ...b[part].keys()]);
    for (const name of [...names].sort()) {
      const x = a[part].get(name);
      const y = b[part].get(name);
      if (x === undefined) out.push(`${part}/${name}: only in the recording`);
      else if (y === undefined) {
        out.push(`${part}/${name}: only in the module`);
      } else if (part === "openapi") out.push(...compareSchemas(name, x, y));
      else if (canonical(x) !== canonical(y)) {
        out.push(`${part}/${name}: differs`);
      }
    }
  }
  return out;
}

function compareSchemas(name: string, x: unknown, y: unknown): string[] {
  type Doc = { components?: { schemas?: Record<string, unknown> } };
  const sx = (x as Doc).components?.schemas ?? {};
  const sy = (y as Doc).components?.schemas ?? {};
  const out: string[] = [];
  for (
    const schema of [...new Set([...Object.keys(sx), ...Object.keys(sy)])]
      .sort()
  ) {
    if (!(schema in sy)) {
      out.push(`openapi/${name}: ${schema} only in the module`);
    } else if (!(schema in sx)) {
      out.push(`openapi/${name}: ${schema} only in the recording`);
    } else if (canonical(sx[schema]) !== canonical(sy[schema])) {
      out.push(`openapi/${name}: ${schema} differs`);
    }
  }
  if (out.length === 0 && canonical(x) !== canonical(y)) {
    out.push(`openapi/${name}: the paths differ`);
  }
  return out;
}

async function write(folder: string, recording: Recording): Promise<void> {
  await Deno.mkdir(`${folder}/openapi`, { recursive: true });
  await Deno.mkdir(`${folder}/discovery`, { recursive: true });
  for (const name of await names(`${folder}/openapi`, ".json.gz")) {
    await Deno.remove(`${folder}/openapi/${name}`);
  }
  for (const name of await names(`${folder}/discovery`, ".json")) {
    await Deno.remove(`${folder}/discovery/${name}`);
  }
  for (const [name, value] of recording.openapi) {
    const gzipped = new Response(
      new Blob([canonical(value)]).stream().pipeThrough(
        new CompressionStream("gzip"),
      ),
    );
    await Deno.writeFile(
      `${folder}/openapi/${name}.gz`,
      new Uint8Array(await gzipped.arrayBuffer()),
    );
  }
  for (const [name, value] of recording.discovery) {
    await Deno.writeTextFile(`${folder}/discovery/${name}`, canonical(value));
  }
}

if (import.meta.main) {
  const args = [...Deno.args];
  const flag = (name: string): string | undefined => {
    const at = args.indexOf(name);
    return at === -1 ? undefined : args[at + 1];
  };
  const data = flag("--out") ?? "tools/api/data";
  const module = flag("--module");
  const started = Date.now();
  let recording: Recording;
  if (args.includes("--compare-only")) {
    recording = await readData(data);
  } else {
    // A default server: what a cluster serves, and its discovery.
    let version: string;
    {
      await using plane = await RealControlPlane.start({ controllers: "" });
      version = plane.ready.version;
      recording = await record(plane, () => true, true);
    }
    // The betas that are off by default, from a server that serves them;
    // apis.json and the aggregated discovery above do not list them.
    {
      await using plane = await RealControlPlane.start({
        controllers: "",
        apiserverArgs: ["--runtime-config=api/beta=true"],
      });
      const betas = await record(
        plane,
        (path) =>
          !recording.discovery.has(`${fileStem(path)}.json`) &&
          /beta\d+$/.test(path),
        false,
      );
      for (const part of ["openapi", "discovery"] as const) {
        for (const [name, value] of betas[part]) {
          recording[part].set(name, value);
        }
      }
    }
    await write(data, recording);
    // deno-lint-ignore no-console
    console.log(
      `recorded ${recording.openapi.size} OpenAPI and ${recording.discovery.size} discovery documents of kube-apiserver ${version} in ${
        Date.now() - started
      } ms`,
    );
  }
  if (module !== undefined) {
    const differences = compare(await readModule(module), recording);
    // deno-lint-ignore no-console
    console.log(
      differences.length === 0
        ? `the recording matches ${module}`
        : `${differences.length} differences from ${module}:\n${
          differences.join("\n")
        }`,
    );
  }
}
