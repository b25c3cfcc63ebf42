// Shared pieces of the informer tests: a fake server on fake time, a client,
// and a recorder of handler calls.
import { Client } from "../apiclient/mod.ts";
import type { KubeObject } from "../apiclient/types.ts";
import {
  FakeApiServer,
  type FakeApiServerOptions,
  type FakeTime,
  installFakeTime,
  type RecordedRequest,
} from "../testing/mod.ts";
import type { Handler } from "./types.ts";
import { DeletedFinalStateUnknown } from "./tombstone.ts";

export const CM = "/api/v1/namespaces/default/configmaps";

export interface Harness extends AsyncDisposable {
  time: FakeTime;
  server: FakeApiServer;
  client: Client;
}

/** Fake time, a fake server, and a client on its in-memory fetch. */
export function harness(
  options: FakeApiServerOptions & {
    fetch?: (server: FakeApiServer) => typeof fetch;
  } = {},
): Harness {
  const time = installFakeTime({ now: 1_000_000 });
  const server = new FakeApiServer(options);
  const client = new Client(server.url, {
    fetch: options.fetch?.(server) ?? server.fetch,
  });
  return {
    time,
    server,
    client,
    async [Symbol.asyncDispose](): Promise<void> {
      await server[Symbol.asyncDispose]();
      time[Symbol.dispose]();
    },
  };
}

/** Records every handler call as a line, such as `update a 3->4`. */
export function recorder<T extends KubeObject = KubeObject>(): {
  log: string[];
  handler: Handler<T>;
} {
  const log: string[] = [];
  const name = (o: KubeObject): string =>
    `${o.metadata.name} ${o.metadata.resourceVersion}`;
  return {
    log,
    handler: {
      add: (o) => void log.push(`add ${name(o)}`),
      update: (old, o) =>
        void log.push(
          `update ${o.metadata.name} ${old.metadata.resourceVersion}->${o.metadata.resourceVersion}`,
        ),
      delete: (o) =>
        void log.push(
          o instanceof DeletedFinalStateUnknown
            ? `tombstone ${o.key} ${o.object?.metadata.resourceVersion}`
            : `delete ${name(o)}`,
        ),
    },
  };
}

export function isWatch(r: RecordedRequest): boolean {
  return r.query.get("watch") === "true" || r.query.get("watch") === "1";
}

export function isStreamingList(r: RecordedRequest): boolean {
  return isWatch(r) && r.query.get("sendInitialEvents") === "true";
}

export function isList(r: RecordedRequest): boolean {
  return r.method === "GET" && !isWatch(r) && r.path.endsWith("configmaps");
}

/** The requests of the collection, described briefly. */
export function reads(server: FakeApiServer, since = 0): string[] {
  return server.requests.slice(since).filter((r) => r.method === "GET").map(
    (r) => {
      if (isStreamingList(r)) {
        return `stream rv=${r.query.get("resourceVersion") ?? ""}`;
      }
      if (isWatch(r)) return `watch rv=${r.query.get("resourceVersion")}`;
      const rv = r.query.get("resourceVersion");
      const cont = r.query.get("continue");
      return `list${rv ? ` rv=${rv}` : ""}${cont ? " continue" : ""}${
        r.query.get("limit") ? ` limit=${r.query.get("limit")}` : ""
      }`;
    },
  );
}

export async function make(
  client: Client,
  name: string,
  data: Record<string, string> = {},
): Promise<KubeObject> {
  return await client.create<KubeObject & { data: unknown }>(CM, {
    metadata: { name },
    data,
  });
}

export async function change(
  client: Client,
  name: string,
  data: Record<string, string>,
): Promise<KubeObject> {
  return await client.patch<KubeObject>(`${CM}/${name}`, { data }, {
    type: "merge",
  });
}
