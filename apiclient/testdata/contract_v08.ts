// Test fixture, not shipped: the shape of `RestClient` in `lib/contract.ts` of
// `@cloudydeno/kubernetes-client` 0.8.x, declared anew from that contract.
// 0.8.0 rebuilt the tunnel: per-channel `getReadableStream` and
// `getWritableStream`, `whenReady()`, `close()`, and `[Symbol.dispose]`; the
// client itself became `Disposable`, with an optional `close()`.

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

export interface KubernetesTunnel extends Disposable {
  readonly transportProtocol: "SPDY" | "WebSocket" | "Opaque";
  readonly subProtocol: string;
  getReadableStream(ids: {
    index?: number;
    spdyHeaders?: Record<string, string | number>;
  }): ReadableStream<Uint8Array>;
  getWritableStream(ids: {
    index?: number;
    spdyHeaders?: Record<string, string | number>;
  }): WritableStream<Uint8Array>;
  whenReady(): Promise<void>;
  close(): Promise<void>;
}

export interface RestClient extends Disposable {
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
