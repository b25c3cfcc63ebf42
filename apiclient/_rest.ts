// Requests in the shape of the generated API classes of
// `@cloudydeno/kubernetes-apis` (their RestClient contract).
import type {
  JSONValue,
  KubernetesTunnel,
  RestRequestOptions,
} from "./rest_client.ts";
import { WatchStream } from "./watch.ts";
import { outcomeOf, request, tell } from "./_request.ts";
import {
  type Answer,
  type Bound,
  open,
  type SendOptions,
  type Shared,
  streamSignal,
} from "./_transport.ts";

/**
 * Sends a request the generated classes describe. JSON streams answer one
 * parsed object per NDJSON line; tunnels are refused.
 */
export async function performRequest(
  shared: Shared,
  bound: Bound,
  options: RestRequestOptions,
): Promise<
  | KubernetesTunnel
  | ReadableStream<JSONValue>
  | ReadableStream<Uint8Array>
  | JSONValue
  | Uint8Array
> {
  const query = options.querystring?.toString();
  const path = query ? `${options.path}?${query}` : options.path;
  if (options.expectTunnel) {
    throw new Error(
      `${options.method} ${path}: tunnels (exec, attach, port-forward) are not supported by this client`,
    );
  }
  const send: SendOptions = {};
  if (options.abortSignal) send.signal = options.abortSignal;
  if (options.contentType) send.contentType = options.contentType;
  if (options.accept) send.accept = options.accept;
  if (options.bodyJson !== undefined) send.body = options.bodyJson;
  else if (options.bodyRaw !== undefined) send.body = options.bodyRaw;
  else if (options.bodyStream !== undefined) send.body = options.bodyStream;
  if (!options.expectStream) {
    return await request(
      shared,
      bound,
      options.method,
      path,
      send,
      options.expectJson ? "json" : "bytes",
    ) as JSONValue | Uint8Array;
  }
  const answer: Answer = { status: 0 };
  const started = Date.now();
  try {
    const response = await open(
      shared,
      bound,
      options.method,
      path,
      send,
      "stream",
      answer,
    );
    tell(shared, bound, outcomeOf(options.method, path, answer, started));
    if (!options.expectJson) return response.body!;
    const lines = new WatchStream(response.body!, {
      method: options.method,
      path,
      signal: streamSignal(bound, options.abortSignal),
      raw: true,
    });
    return ReadableStream.from(
      lines as AsyncIterable<unknown>,
    ) as ReadableStream<JSONValue>;
  } catch (error) {
    tell(
      shared,
      bound,
      outcomeOf(options.method, path, answer, started, [error]),
    );
    throw error;
  }
}
