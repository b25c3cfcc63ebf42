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
  // Empty: the reflector tests count objects and versions from the start.
  const server = new FakeApiServer({ freshCluster: false, ...options });
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

/**
 * Faults a proxy or a broken API server puts into plain watches (never into
 * streaming lists): each switch applies to the watches opened while it is
 * on.
 */
export interface WatchFaults {
  /** Each watch ends after its first event. */
  oneEvent: boolean;
  /** Each watch starts with a line no client decodes. */
  poison: boolean;
  /** Each watch answers its headers, then nothing: a half-open connection. */
  silent: boolean;
  /** Lines sent first on the next watch only. */
  inject: string[];
  /** How many watches the faults touched. */
  touched: number;
}

/** A line with an unknown event type: a poison line. */
export const POISON_LINE = '{"type":"POISON","object":{}}\n';

export function watchFaults(): WatchFaults {
  return {
    oneEvent: false,
    poison: false,
    silent: false,
    inject: [],
    touched: 0,
  };
}

/** A fetch on the fake server that applies `faults` to plain watches. */
export function faultyFetch(
  faults: WatchFaults,
): (server: FakeApiServer) => typeof fetch {
  return (server) => async (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    const watch = /[?&]watch=(true|1)(&|$)/.test(url) &&
      !url.includes("sendInitialEvents=true");
    const active = faults.oneEvent || faults.poison || faults.silent ||
      faults.inject.length > 0;
    if (!watch || !active) return server.fetch(input, init);
    faults.touched++;
    const response = await server.fetch(input, init);
    if (!response.ok || response.body === null) return response;
    if (faults.silent) {
      await response.body.cancel();
      return new Response(new ReadableStream<Uint8Array>({}), {
        status: 200,
        headers: response.headers,
      });
    }
    const encoder = new TextEncoder();
    const decoder = new TextDecoder();
    const prefix = faults.inject.splice(0).join("") +
      (faults.poison ? POISON_LINE : "");
    const oneEvent = faults.oneEvent;
    const reader = response.body.getReader();
    let pending = "";
    const body = new ReadableStream<Uint8Array>({
      start(controller): void {
        if (prefix !== "") controller.enqueue(encoder.encode(prefix));
      },
      async pull(controller): Promise<void> {
        let read: ReadableStreamReadResult<Uint8Array>;
        try {
          read = await reader.read();
        } catch (error) {
          controller.error(error);
          return;
        }
        if (read.done) {
          controller.close();
          return;
        }
        if (!oneEvent) {
          controller.enqueue(read.value);
          return;
        }
        pending += decoder.decode(read.value, { stream: true });
        const end = pending.indexOf("\n");
        if (end < 0) return;
        controller.enqueue(encoder.encode(pending.slice(0, end + 1)));
        controller.close();
        await reader.cancel().catch(() => {});
      },
      cancel(reason): Promise<void> {
        return reader.cancel(reason).catch(() => {});
      },
    });
    return new Response(body, { status: 200, headers: response.headers });
  };
}

/**
 * A switch that kills watch connections silently: while `stall` is on, every
 * watch stream (streaming lists too) open or opened stops for good, as a
 * half-open connection does: nothing more arrives, not even the end.
 */
export interface Stall {
  stall: boolean;
  /** Watch streams stalled so far. */
  stalled: number;
  /** Stalls every watch stream open now; later ones are left alone. */
  stallOpen(): void;
  /** A fetch that stalls watches, around `inner`. */
  wrap: (inner: typeof fetch) => typeof fetch;
  /** A fetch on the fake server that stalls watches. */
  fetch: (server: FakeApiServer) => typeof fetch;
}

export function stallable(): Stall {
  const open = new Set<() => void>();
  const switches: Stall = {
    stall: false,
    stalled: 0,
    stallOpen: () => {
      for (const kill of [...open]) kill();
    },
    fetch: (server) => switches.wrap(server.fetch),
    wrap: (inner) => async (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      const response = await inner(input, init);
      if (!/[?&]watch=(true|1)(&|$)/.test(url) || response.body === null) {
        return response;
      }
      const reader = response.body.getReader();
      let dead = false;
      const kill = (): void => {
        if (!dead) switches.stalled++;
        dead = true;
        open.delete(kill);
        void reader.cancel().catch(() => {});
      };
      open.add(kill);
      const die = (): Promise<void> => {
        kill();
        return new Promise<void>(() => {});
      };
      const body = new ReadableStream<Uint8Array>({
        async pull(controller): Promise<void> {
          if (dead || switches.stall) return await die();
          const read = await reader.read().catch(() => undefined);
          if (dead || switches.stall) return await die();
          if (read === undefined || read.done) open.delete(kill);
          if (read === undefined) controller.error(new TypeError("reset"));
          else if (read.done) controller.close();
          else controller.enqueue(read.value);
        },
        cancel(reason): Promise<void> {
          open.delete(kill);
          return reader.cancel(reason).catch(() => {});
        },
      }, { highWaterMark: 0 });
      return new Response(body, {
        status: response.status,
        headers: response.headers,
      });
    },
  };
  return switches;
}
