/**
 * The request contract of the generated API classes of
 * `@cloudydeno/kubernetes-apis`: the `RestClient` of
 * `@cloudydeno/kubernetes-client` (`lib/contract.ts`), declared here so
 * {@linkcode Client.performRequest} matches it structurally without a
 * dependency. Written from the 0.8.x contract; a {@linkcode Client} also
 * fits the 0.7.x one.
 *
 * @module
 */

/** A value JSON can encode. */
export type JSONValue =
  | string
  | number
  | boolean
  | null
  | undefined
  | JSONValue[]
  | { [key: string]: JSONValue };

/** The HTTP methods the generated classes use. */
export type HttpMethods =
  | "GET"
  | "POST"
  | "DELETE"
  | "PUT"
  | "PATCH"
  | "OPTIONS"
  | "HEAD";

/** One request as the generated classes describe it. */
export interface RestRequestOptions {
  /** The HTTP method. */
  method: HttpMethods;
  /** The API path, without the query. */
  path: string;
  /** The query. */
  querystring?: URLSearchParams | undefined;
  /** Ends the request (or the stream). */
  abortSignal?: AbortSignal | undefined;
  /** The body's content type (patches state their dialect here). */
  contentType?: string | undefined;
  /** A body of bytes. */
  bodyRaw?: Uint8Array | undefined;
  /** A body sent as JSON. */
  bodyJson?: JSONValue | undefined;
  /** A streamed body. */
  bodyStream?: ReadableStream<Uint8Array> | undefined;
  /** The `Accept` header. Default `application/json`. */
  accept?: string | undefined;
  /** Subprotocols of a tunnel (exec, attach, port-forward): not supported. */
  expectTunnel?: string[] | undefined;
  /** Answer a stream rather than a whole body. */
  expectStream?: boolean | undefined;
  /** Decode the answer as JSON (per line, for a stream). */
  expectJson?: boolean | undefined;
}

/**
 * A tunnel (exec, attach, port-forward) as the 0.8.x contract of
 * `@cloudydeno/kubernetes-client` declares it. {@linkcode Client} opens none:
 * its tunnel requests reject, so its own overload answers `Promise<never>`,
 * which fits this shape and the 0.7.x one alike. The type is here so code
 * written against the contract can name it.
 */
export interface KubernetesTunnel extends Disposable {
  /** The transport in use. */
  readonly transportProtocol: "SPDY" | "WebSocket" | "Opaque";
  /** The negotiated subprotocol. */
  readonly subProtocol: string;
  /**
   * The stream of one channel from the server.
   *
   * @param ids The channel's index (WebSocket) or headers (SPDY).
   * @returns The channel's bytes.
   */
  getReadableStream(ids: {
    index?: number | undefined;
    spdyHeaders?: Record<string, string | number> | undefined;
  }): ReadableStream<Uint8Array>;
  /**
   * The stream of one channel to the server.
   *
   * @param ids The channel's index (WebSocket) or headers (SPDY).
   * @returns The channel's sink.
   */
  getWritableStream(ids: {
    index?: number | undefined;
    spdyHeaders?: Record<string, string | number> | undefined;
  }): WritableStream<Uint8Array>;
  /** Called once the first channels are open. */
  whenReady(): Promise<void>;
  /** Disconnects the transport. */
  close(): Promise<void>;
}

/**
 * The `RestClient` contract of `@cloudydeno/kubernetes-client` 0.8.x, which
 * the generated classes of `@cloudydeno/kubernetes-apis` take. A
 * {@linkcode Client} satisfies it, and the 0.7.x contract too (whose tunnel
 * has `getChannel`, `ready` and `stop`, and which has no `[Symbol.dispose]`):
 * `apiclient/rest_client_test.ts` checks both shapes with `deno check`.
 *
 * @example
 * ```ts
 * import { Client, type RestClient } from "@liken/kubernetes/apiclient";
 *
 * const rest: RestClient = new Client("https://127.0.0.1:6443");
 * void rest;
 * ```
 */
export interface RestClient extends Disposable {
  /**
   * Opens a tunnel.
   *
   * @param options The request.
   * @returns The tunnel.
   */
  performRequest(
    options: RestRequestOptions & { expectTunnel: string[] },
  ): Promise<KubernetesTunnel>;
  /**
   * Streams JSON values.
   *
   * @param options The request.
   * @returns The stream.
   */
  performRequest(
    options: RestRequestOptions & { expectStream: true; expectJson: true },
  ): Promise<ReadableStream<JSONValue>>;
  /**
   * Streams bytes.
   *
   * @param options The request.
   * @returns The stream.
   */
  performRequest(
    options: RestRequestOptions & { expectStream: true },
  ): Promise<ReadableStream<Uint8Array>>;
  /**
   * Reads JSON.
   *
   * @param options The request.
   * @returns The value.
   */
  performRequest(
    options: RestRequestOptions & { expectJson: true },
  ): Promise<JSONValue>;
  /**
   * Reads bytes.
   *
   * @param options The request.
   * @returns The body.
   */
  performRequest(options: RestRequestOptions): Promise<Uint8Array>;
  /** The namespace requests default to, when known. */
  defaultNamespace?: string;
  /** Releases the client's connections (optional in the contract). */
  close?(): void;
}

/**
 * The type of {@linkcode Client.performRequest}: the contract's five
 * overloads, except that a tunnel request answers `Promise<never>` (it always
 * rejects: this client opens no tunnels). `never` fits the tunnel type of
 * every contract version, so a {@linkcode Client} is a `RestClient` of
 * `@cloudydeno/kubernetes-client` 0.7.x and 0.8.x alike.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client, type PerformRequest } from "@liken/kubernetes/apiclient";
 *
 * const send: PerformRequest = new Client("http://127.0.0.1:9").performRequest;
 * await assert.rejects(
 *   send({ method: "POST", path: "/api/v1/namespaces/a/pods/p/exec", expectTunnel: ["v5.channel.k8s.io"] }),
 *   /not supported/,
 * );
 * ```
 */
export interface PerformRequest {
  /**
   * Refuses a tunnel (exec, attach, port-forward).
   *
   * @param options The request.
   * @returns A promise that rejects.
   */
  (options: RestRequestOptions & { expectTunnel: string[] }): Promise<never>;
  /**
   * Streams JSON values, one per line.
   *
   * @param options The request.
   * @returns The stream.
   */
  (
    options: RestRequestOptions & { expectStream: true; expectJson: true },
  ): Promise<ReadableStream<JSONValue>>;
  /**
   * Streams bytes.
   *
   * @param options The request.
   * @returns The stream.
   */
  (
    options: RestRequestOptions & { expectStream: true },
  ): Promise<ReadableStream<Uint8Array>>;
  /**
   * Reads JSON.
   *
   * @param options The request.
   * @returns The value.
   */
  (options: RestRequestOptions & { expectJson: true }): Promise<JSONValue>;
  /**
   * Reads bytes.
   *
   * @param options The request.
   * @returns The body.
   */
  (options: RestRequestOptions): Promise<Uint8Array>;
}
