// Test fixture, not shipped: the shape of `RestClient` in `lib/contract.ts` of
// `@cloudydeno/kubernetes-client` 0.7.x (which `@cloudydeno/kubernetes-apis`
// 0.5.x takes), declared anew from that contract. Optional fields are plain
// `?:` as there, so under `exactOptionalPropertyTypes` a `string | undefined`
// field does not fit. The 0.7.x tunnel opens channels with `getChannel`,
// signals `ready()` and ends with `stop()` (the `WebsocketTunnel` of 0.7.x
// implements exactly these); the client is not `Disposable`. The 0.7.5
// changelog made clients closable: the optional `close()` below, as 0.8.x
// declares it (a client without one fits either way).

export type HttpMethods =
  | "GET"
  | "POST"
  | "DELETE"
  | "PUT"
  | "PATCH"
  | "OPTIONS"
  | "HEAD";

export type JSONPrimitive = string | number | boolean | null | undefined;
export type JSONValue = JSONPrimitive | JSONObject | JSONArray;
export type JSONObject = { [key: string]: JSONValue };
export type JSONArray = JSONValue[];

export interface RequestOptions {
  method: HttpMethods;
  path: string;
  querystring?: URLSearchParams;
  abortSignal?: AbortSignal;
  contentType?: string;
  bodyRaw?: Uint8Array;
  bodyJson?: JSONValue;
  bodyStream?: ReadableStream<Uint8Array>;
  accept?: string;
  expectTunnel?: string[];
  expectStream?: boolean;
  expectJson?: boolean;
}

export interface KubernetesTunnel {
  readonly transportProtocol: "SPDY" | "WebSocket" | "Opaque";
  readonly subProtocol: string;
  getChannel<R extends boolean, W extends boolean>(opts: {
    spdyHeaders?: Record<string, string | number>;
    streamIndex?: number;
    readable: R;
    writable: W;
  }): Promise<{
    readable: R extends true ? ReadableStream<Uint8Array> : null;
    writable: W extends true ? WritableStream<Uint8Array> : null;
  }>;
  ready(): Promise<void>;
  stop(): Promise<void>;
}

export interface RestClient {
  performRequest(
    opts: RequestOptions & { expectTunnel: string[] },
  ): Promise<KubernetesTunnel>;
  performRequest(
    opts: RequestOptions & { expectStream: true; expectJson: true },
  ): Promise<ReadableStream<JSONValue>>;
  performRequest(
    opts: RequestOptions & { expectStream: true },
  ): Promise<ReadableStream<Uint8Array>>;
  performRequest(
    opts: RequestOptions & { expectJson: true },
  ): Promise<JSONValue>;
  performRequest(opts: RequestOptions): Promise<Uint8Array>;
  defaultNamespace?: string;
  close?(): void;
}
