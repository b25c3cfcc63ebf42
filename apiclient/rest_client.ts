/**
 * The request contract of the generated API classes of
 * `@cloudydeno/kubernetes-apis` (their `RestClient`), declared here so
 * {@linkcode Client.performRequest} matches it structurally without a
 * dependency.
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
 * A tunnel of the generated classes' contract. This client opens none; the
 * type exists so the overloads match.
 */
export interface KubernetesTunnel {
  /** The transport in use. */
  readonly transportProtocol: "SPDY" | "WebSocket" | "Opaque";
  /** The negotiated subprotocol. */
  readonly subProtocol: string;
  /**
   * Opens a channel.
   *
   * @param options Which stream, and whether it is readable and writable.
   * @returns The channel's streams.
   */
  getChannel<R extends boolean, W extends boolean>(options: {
    spdyHeaders?: Record<string, string | number> | undefined;
    streamIndex?: number | undefined;
    readable: R;
    writable: W;
  }): Promise<{
    readable: R extends true ? ReadableStream<Uint8Array> : null;
    writable: W extends true ? WritableStream<Uint8Array> : null;
  }>;
  /** Called once the first channels are open. */
  ready(): Promise<void>;
  /** Disconnects the transport. */
  disconnect(): Promise<void>;
}

/**
 * The `RestClient` contract of `@cloudydeno/kubernetes-apis`. A
 * {@linkcode Client} satisfies it.
 *
 * @example
 * ```ts
 * import { Client, type RestClient } from "@liken/kubernetes/apiclient";
 *
 * const rest: RestClient = new Client("https://127.0.0.1:6443");
 * void rest;
 * ```
 */
export interface RestClient {
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
  /** The namespace requests default to. */
  defaultNamespace?: string | undefined;
}
