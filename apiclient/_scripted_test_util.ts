// A scripted `fetch` for the client's own tests: each request goes to a
// handler, is recorded, and rejects when its signal aborts, as fetch does.

/** One request the scripted fetch received. */
export interface Seen {
  method: string;
  url: string;
  path: string;
  headers: Headers;
  body: string;
}

/** A fetch that answers from a handler and records what it received. */
export function scripted(
  handler: (request: Request, index: number) => Response | Promise<Response>,
): { fetch: typeof fetch; seen: Seen[] } {
  const seen: Seen[] = [];
  const fake: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const signal = request.signal;
    signal.throwIfAborted();
    const body = await request.text();
    const url = new URL(request.url);
    seen.push({
      method: request.method,
      url: request.url,
      path: url.pathname + url.search,
      headers: request.headers,
      body,
    });
    return await new Promise<Response>((resolve, reject) => {
      const onAbort = (): void => reject(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      Promise.resolve(handler(request, seen.length - 1)).then(
        (response) => {
          signal.removeEventListener("abort", onAbort);
          resolve(response);
        },
        reject,
      );
    });
  };
  return { fetch: fake, seen };
}

/** A JSON response. */
export function json(
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify(value) + "\n", {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

export { failure } from "../_internal/status.ts";
