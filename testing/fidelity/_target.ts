/**
 * The server a fidelity check runs against: the served fake, or a real
 * kube-apiserver ({@linkcode RealControlPlane}). Each gives kubectl, a way
 * to send raw API requests, the check's namespace and the Widget custom
 * resource; only the fake gives its request log and stored state
 * ({@linkcode Target.fake}), so assertions on those are fake-only.
 *
 * @module
 */

import type { KubeObject } from "../../apiclient/types.ts";
import { FakeApiServer } from "../mod.ts";
import type { RealControlPlane } from "../real_control_plane.ts";
import { eventually, eventuallyAsync, Kubectl } from "./_tools.ts";

/** What a check runs against. */
export interface Target extends AsyncDisposable {
  /** Which server this is. */
  readonly kind: "fake" | "real";
  /** The check's namespace (kubectl's default namespace). */
  readonly ns: string;
  /** A kubectl bound to the server, defaulting to {@linkcode ns}. */
  readonly kubectl: Kubectl;
  /** The fake, for assertions on its request log; `undefined` when real. */
  readonly fake: FakeApiServer | undefined;
  /** The `gitVersion` the server reports. */
  readonly version: RegExp;
  /** The server's URL, its CA (PEM) and a bearer token it accepts. */
  readonly endpoint: { server: string; caPem: string; token: string };
  /**
   * Sends JSON; answers the parsed JSON body, throwing on a status other
   * than 2xx.
   */
  api<T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
    contentType?: string,
  ): Promise<T>;
  /** Reads an object; `undefined` when it does not exist. */
  object<T = KubeObject>(path: string): Promise<T | undefined>;
  /**
   * Waits until some client has started a watch on the collection at
   * `path` (the fake's request log, or the real server's audit log).
   */
  watching(path: string, what: string): Promise<void>;
}

/** The Widget's printer columns, on both servers. */
const PRINTER_COLUMNS = [
  { name: "Size", type: "integer", jsonPath: ".spec.size" },
  {
    name: "Ready",
    type: "string",
    jsonPath: '.status.conditions[?(@.type=="Ready")].status',
  },
  { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
] as const;

/** Sends JSON through `send`; answers the body, throwing unless 2xx. */
async function call<T>(
  send: (request: Request) => Promise<Response>,
  base: string,
  method: string,
  path: string,
  body?: unknown,
  contentType = "application/json",
): Promise<T> {
  const res = await send(
    new Request(`${base}${path}`, {
      method,
      ...(body === undefined ? {} : {
        body: JSON.stringify(body),
        headers: { "content-type": contentType },
      }),
    }),
  );
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

/** A fake with a `fidelity` namespace and Widgets, served over HTTPS. */
export async function fakeTarget(): Promise<Target> {
  const ns = "fidelity";
  const server = new FakeApiServer();
  server.register({
    group: "example.com",
    version: "v1",
    resource: "widgets",
    kind: "Widget",
    namespaced: true,
    statusSubresource: true,
    shortNames: ["wd"],
    printerColumns: PRINTER_COLUMNS,
  });
  const send = (request: Request) => server.fetch(request);
  await call(send, server.url, "POST", "/api/v1/namespaces", {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: ns },
  });
  const served = await server.serve({ tls: true });
  if (served.caCert === undefined) throw new Error("Serve with tls: true");
  const endpoint = {
    server: served.url,
    caPem: served.caCert,
    token: "fidelity-token",
  };
  const kubectl = await Kubectl.for(endpoint, ns);
  return {
    kind: "fake",
    ns,
    kubectl,
    fake: server,
    version: /^v1\.37\./,
    endpoint,
    api: (method, path, body, contentType) =>
      call(send, server.url, method, path, body, contentType),
    object: <T>(path: string) =>
      Promise.resolve(server.object(path) as T | undefined),
    watching: (path, what) =>
      eventually(
        () =>
          server.requests.some((r) =>
            r.path === path && r.query.get("watch") === "true"
          ),
        what,
      ),
    async [Symbol.asyncDispose](): Promise<void> {
      await kubectl[Symbol.asyncDispose]();
      await served[Symbol.asyncDispose]();
      await server[Symbol.asyncDispose]();
    },
  };
}

/** The Widget CRD, once per control plane. */
const widgetCrds = new WeakMap<RealControlPlane, Promise<void>>();

/**
 * Creates `widgets.example.com` (as the fake registers it: short name `wd`,
 * the status subresource, the same printer columns; any fields kept) and
 * waits until it is Established and served by discovery.
 */
function widgetCrd(plane: RealControlPlane): Promise<void> {
  let made = widgetCrds.get(plane);
  if (made === undefined) {
    made = makeWidgetCrd(plane);
    widgetCrds.set(plane, made);
  }
  return made;
}

async function makeWidgetCrd(plane: RealControlPlane): Promise<void> {
  const send = (request: Request) => plane.fetch(request);
  const crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
  await call(send, plane.server, "POST", crds, {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "widgets.example.com" },
    spec: {
      group: "example.com",
      scope: "Namespaced",
      names: {
        plural: "widgets",
        singular: "widget",
        kind: "Widget",
        listKind: "WidgetList",
        shortNames: ["wd"],
      },
      versions: [{
        name: "v1",
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: "object",
            "x-kubernetes-preserve-unknown-fields": true,
          },
        },
        subresources: { status: {} },
        additionalPrinterColumns: PRINTER_COLUMNS,
      }],
    },
  });
  await eventuallyAsync(
    async () => {
      const crd = await call<
        { status?: { conditions?: { type: string; status: string }[] } }
      >(send, plane.server, "GET", `${crds}/widgets.example.com`);
      return crd.status?.conditions?.some((c) =>
        c.type === "Established" && c.status === "True"
      ) ?? false;
    },
    "the Widget CRD to be Established",
    60_000,
  );
  await eventuallyAsync(
    async () => {
      const res = await plane.fetch(
        new Request(`${plane.server}/apis/example.com/v1`),
      );
      if (!res.ok) {
        await res.body?.cancel();
        return false;
      }
      const list = await res.json() as { resources?: { name: string }[] };
      return list.resources?.some((r) => r.name === "widgets") ?? false;
    },
    "discovery to serve widgets",
    60_000,
  );
}

/**
 * A target on a real control plane, in `ns` (a fresh namespace of the
 * check's own: all checks share the plane). kubectl uses the plane's admin
 * kubeconfig.
 */
export async function realTarget(
  plane: RealControlPlane,
  ns: string,
): Promise<Target> {
  await widgetCrd(plane);
  const send = (request: Request) => plane.fetch(request);
  const kubectl = await Kubectl.for(
    { kubeconfig: plane.ready.kubeconfig },
    ns,
  );
  const api = <T>(
    method: string,
    path: string,
    body?: unknown,
    contentType?: string,
  ) => call<T>(send, plane.server, method, path, body, contentType);
  return {
    kind: "real",
    ns,
    kubectl,
    fake: undefined,
    version: /^v1\.37\./,
    endpoint: {
      server: plane.server,
      caPem: plane.caPem,
      token: plane.ready.token,
    },
    api,
    async object<T = KubeObject>(path: string): Promise<T | undefined> {
      const res = await plane.fetch(new Request(`${plane.server}${path}`));
      if (res.status === 404) {
        await res.body?.cancel();
        return undefined;
      }
      const text = await res.text();
      if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${text}`);
      return JSON.parse(text) as T;
    },
    watching: (path, what) =>
      eventuallyAsync(async () => {
        const log = await Deno.readTextFile(plane.ready.auditLog);
        return log.split("\n").some((line) => {
          if (!line.includes('"watch"')) return false;
          let event: { verb?: string; requestURI?: string };
          try {
            event = JSON.parse(line);
          } catch {
            return false; // A line still being written.
          }
          return event.verb === "watch" &&
            event.requestURI?.split("?")[0] === path;
        });
      }, what),
    async [Symbol.asyncDispose](): Promise<void> {
      await kubectl[Symbol.asyncDispose]();
    },
  };
}
