/**
 * Discovery documents of the fake API server: `/version`, `/api`, `/apis`,
 * `/apis/<group>`, the resource lists of each group/version, and `/openapi/*`.
 *
 * The built-in resources are listed as recorded from kube-apiserver 1.37
 * (`_builtins/data.ts`); registered ones as their registration says.
 *
 * Only the legacy (unaggregated) documents are served. kubectl 1.32 asks for
 * aggregated discovery (`application/json;g=apidiscovery.k8s.io;v=v2`) first
 * and falls back to these when the answer's content type is plain JSON,
 * which the fidelity suite checks. The OpenAPI v3 documents of core/v1,
 * apps/v1 and batch/v1 are the recorded ones (`_builtins/openapi_data.ts`, for
 * `kubectl explain`); the others are minimal.
 *
 * @module
 */

import { OPENAPI_DOCUMENTS } from "./openapi_data.ts";
import { discovered, type RegisteredResource } from "../_store/registry.ts";

/**
 * The server version the fake reports, shaped like `version.Info`: the
 * recorded control plane's (`tools/control-plane`, built from the
 * `k8s.io/kubernetes` module, hence no commit or build date).
 */
export const VERSION_INFO: Readonly<Record<string, string>> = Object.freeze({
  major: "1",
  minor: "37",
  emulationMajor: "1",
  emulationMinor: "37",
  minCompatibilityMajor: "1",
  minCompatibilityMinor: "36",
  gitVersion: "v1.37.2",
  gitCommit: "$Format:%H$",
  gitTreeState: "clean",
  buildDate: "1970-01-01T00:00:00Z",
  goVersion: "go1.26.8",
  compiler: "gc",
  platform: "linux/amd64",
});

/** The verbs a `/status` subresource supports. */
const STATUS_VERBS: readonly string[] = ["get", "patch", "update"];

function json(body: unknown): Response {
  return new Response(JSON.stringify(body), {
    headers: { "content-type": "application/json" },
  });
}

function groupVersion(group: string, version: string): string {
  return group === "" ? version : `${group}/${version}`;
}

/** The versions of each named group, in registration order. */
function groups(
  resources: readonly RegisteredResource[],
): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const r of resources) {
    if (r.group === "") continue;
    const versions = out.get(r.group) ?? [];
    if (!versions.includes(r.version)) versions.push(r.version);
    out.set(r.group, versions);
  }
  return out;
}

function apiGroup(name: string, versions: readonly string[]): unknown {
  const entries = versions.map((version) => ({
    groupVersion: `${name}/${version}`,
    version,
  }));
  return { name, versions: entries, preferredVersion: entries[0] };
}

function resourceList(
  group: string,
  version: string,
  resources: readonly RegisteredResource[],
): unknown {
  const list: unknown[] = [];
  for (const r of resources) {
    if (r.group !== group || r.version !== version) continue;
    const recorded = discovered(r);
    if (recorded !== undefined) {
      list.push(...recorded.map((e) => structuredClone(e)));
      continue;
    }
    list.push({
      name: r.resource,
      singularName: r.kind.toLowerCase(),
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: [...r.verbs],
      ...(r.shortNames?.length ? { shortNames: [...r.shortNames] } : {}),
    });
    if (r.statusSubresource) {
      list.push({
        name: `${r.resource}/status`,
        singularName: "",
        namespaced: r.namespaced,
        kind: r.kind,
        verbs: [...STATUS_VERBS],
      });
    }
  }
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: groupVersion(group, version),
    resources: list,
  };
}

/** A stable short hash of a text (FNV-1a, hex), for OpenAPI URLs. */
function hash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, "0");
}

/** The group/version keys of `/openapi/v3`: `api/v1`, `apis/<g>/<v>`. */
function openApiKeys(resources: readonly RegisteredResource[]): string[] {
  const keys = resources.map((r) =>
    r.group === "" ? `api/${r.version}` : `apis/${r.group}/${r.version}`
  );
  return [...new Set(keys)];
}

/**
 * A minimal OpenAPI v3 document for one group/version without a recorded
 * one (core/v1, apps/v1 and batch/v1 are served as recorded). kubectl reads it only
 * to learn that the server validates fields itself (the `fieldValidation`
 * parameter of each PATCH), and then skips its own client-side validation,
 * which would need the full schemas.
 */
function openApiGroupVersion(
  key: string,
  resources: readonly RegisteredResource[],
): unknown {
  const paths: Record<string, unknown> = {};
  const fieldValidation = {
    name: "fieldValidation",
    in: "query",
    schema: { type: "string", uniqueItems: true },
  };
  for (const r of resources) {
    const rKey = r.group === ""
      ? `api/${r.version}`
      : `apis/${r.group}/${r.version}`;
    if (rKey !== key) continue;
    const base = `/${key}${
      r.namespaced ? "/namespaces/{namespace}" : ""
    }/${r.resource}/{name}`;
    const gvk = { group: r.group, version: r.version, kind: r.kind };
    paths[base] = {
      patch: {
        operationId: `patch${r.kind}`,
        parameters: [fieldValidation],
        "x-kubernetes-action": "patch",
        "x-kubernetes-group-version-kind": gvk,
        responses: { "200": { description: "OK" } },
      },
      parameters: [fieldValidation],
    };
  }
  return {
    openapi: "3.0.0",
    info: { title: "Kubernetes", version: VERSION_INFO.gitVersion },
    paths,
    components: { schemas: {} },
  };
}

function openApiResponse(
  parts: readonly string[],
  resources: readonly RegisteredResource[],
): Response | undefined {
  if (parts[1] !== "v3") return undefined; // v2: 404, which kubectl tolerates
  const keys = openApiKeys(resources);
  if (parts.length === 2) {
    const paths: Record<string, unknown> = {};
    for (const key of keys) {
      const doc = OPENAPI_DOCUMENTS[key] ??
        JSON.stringify(openApiGroupVersion(key, resources));
      paths[key] = {
        serverRelativeURL: `/openapi/v3/${key}?hash=${hash(doc)}`,
      };
    }
    return json({ paths });
  }
  const key = parts.slice(2).join("/");
  if (!keys.includes(key)) return undefined;
  const recorded = OPENAPI_DOCUMENTS[key];
  if (recorded !== undefined) {
    // The API server's own document (`kubectl explain` reads its schemas).
    const bytes = Uint8Array.from(atob(recorded), (c) => c.charCodeAt(0));
    return new Response(
      new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip")),
      { headers: { "content-type": "application/json" } },
    );
  }
  return json(openApiGroupVersion(key, resources));
}

/**
 * The discovery answer for `path` (no query), or `undefined` when `path` is
 * not a discovery document of the registered resources (the caller then
 * answers as for any other path, usually 404).
 */
export function discoveryResponse(
  path: string,
  resources: readonly RegisteredResource[],
): Response | undefined {
  const parts = path.split("/").filter((p) => p !== "");
  if (path === "/version" || path === "/version/") return json(VERSION_INFO);
  if (parts[0] === "openapi") return openApiResponse(parts, resources);
  if (parts[0] === "api") {
    if (parts.length === 1) {
      const versions = [
        ...new Set(
          resources.filter((r) => r.group === "").map((r) => r.version),
        ),
      ];
      return json({
        kind: "APIVersions",
        versions,
        serverAddressByClientCIDRs: [
          { clientCIDR: "0.0.0.0/0", serverAddress: "127.0.0.1:6443" },
        ],
      });
    }
    if (
      parts.length === 2 &&
      resources.some((r) => r.group === "" && r.version === parts[1])
    ) {
      return json(resourceList("", parts[1]!, resources));
    }
    return undefined;
  }
  if (parts[0] === "apis") {
    const known = groups(resources);
    if (parts.length === 1) {
      return json({
        kind: "APIGroupList",
        apiVersion: "v1",
        groups: [...known].map(([name, versions]) => apiGroup(name, versions)),
      });
    }
    const versions = known.get(parts[1]!);
    if (versions === undefined) return undefined;
    if (parts.length === 2) {
      return json({
        kind: "APIGroup",
        apiVersion: "v1",
        ...apiGroup(parts[1]!, versions) as object,
      });
    }
    if (parts.length === 3 && versions.includes(parts[2]!)) {
      return json(resourceList(parts[1]!, parts[2]!, resources));
    }
    return undefined;
  }
  return undefined;
}
