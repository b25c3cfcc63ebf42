/**
 * The in-memory transport: a `fetch`-compatible function that calls the
 * server's handler directly, with no sockets, so a test runs on fake time.
 *
 * @module
 */

/** The server side of the in-memory transport. */
export type Handler = (request: Request) => Promise<Response>;

/** The error Deno's `fetch` rejects with when a connection is refused. */
export function refusedError(url: string): TypeError {
  return new TypeError("fetch failed", {
    cause: new Error(
      `error sending request for url (${url}): client error (Connect): tcp connect error: Connection refused (os error 111)`,
    ),
  });
}

/** The error Deno's body read throws when the connection is reset. */
export function resetError(): TypeError {
  return new TypeError("error reading a body from connection");
}

/**
 * Wraps a handler as `fetch`. The handler gets a request whose `signal`
 * fires when the client aborts; the client's body read ends with the abort
 * reason, and cancelling the client's body cancels the handler's.
 */
export function memoryFetch(handler: Handler): typeof fetch {
  const memory = async (
    input: RequestInfo | URL,
    init?: RequestInit,
  ): Promise<Response> => {
    // A Deno.HttpClient means nothing here, and new Request() refuses one.
    const { client: _client, ...rest } = (init ?? {}) as RequestInit & {
      client?: unknown;
    };
    const clientRequest = new Request(input, rest);
    const signal = clientRequest.signal;
    if (signal.aborted) throw signal.reason;
    const connection = new AbortController();
    const onClientAbort = () => connection.abort(signal.reason);
    signal.addEventListener("abort", onClientAbort, { once: true });
    const request = new Request(clientRequest, { signal: connection.signal });
    let response: Response;
    try {
      response = await answerOrAbort(handler(request), signal);
    } catch (error) {
      signal.removeEventListener("abort", onClientAbort);
      throw error;
    }
    const upstream = response.body;
    if (upstream === null) {
      signal.removeEventListener("abort", onClientAbort);
      return response;
    }
    const reader = upstream.getReader();
    let onAbort = () => {};
    const done = () => {
      signal.removeEventListener("abort", onAbort);
      signal.removeEventListener("abort", onClientAbort);
    };
    const body = new ReadableStream<Uint8Array>({
      start(controller): void {
        onAbort = () => {
          done();
          try {
            controller.error(signal.reason);
          } catch { /* already closed */ }
          reader.cancel(signal.reason).catch(() => {});
        };
        signal.addEventListener("abort", onAbort, { once: true });
      },
      async pull(controller): Promise<void> {
        try {
          const { value, done: ended } = await reader.read();
          if (ended) {
            done();
            controller.close();
          } else controller.enqueue(value);
        } catch (error) {
          done();
          try {
            controller.error(error);
          } catch { /* already errored by an abort */ }
        }
      },
      cancel(reason): Promise<void> {
        done();
        connection.abort(reason);
        return reader.cancel(reason);
      },
    }, { highWaterMark: 0 });
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
  return memory as typeof fetch;
}

// Rejects with the abort reason as soon as the client aborts; a response
// that arrives later has its body cancelled so nothing leaks.
function answerOrAbort(
  answer: Promise<Response>,
  signal: AbortSignal,
): Promise<Response> {
  return new Promise<Response>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    answer.then(
      (response) => {
        signal.removeEventListener("abort", onAbort);
        if (signal.aborted) {
          response.body?.cancel(signal.reason).catch(() => {});
          reject(signal.reason);
        } else resolve(response);
      },
      (error) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
