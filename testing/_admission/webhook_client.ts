/**
 * How the fake reaches a webhook, admission or conversion, as
 * kube-apiserver does: the `clientConfig`'s `url`, or its `service`
 * (`https://<name>.<namespace>.svc:<port><path>`, port 443 by default),
 * with `?timeout=Ns`, over HTTPS trusting the `caBundle`, and what a
 * failure to call it is called (client-go's words). A test that runs on
 * fake time gives the fake a `webhookFetch` instead of real sockets, and
 * the deadline then runs on the global (fake) clock.
 *
 * @module
 */
import { isObject } from "../_store/objects.ts";

/** How the fake calls webhooks (from {@linkcode FakeApiServerOptions}). */
export interface WebhookTransport {
  /** Sends the call instead of `fetch` (an in-memory transport). */
  fetch?: ((request: Request) => Promise<Response>) | undefined;
  /** The origin a `service` reference is called at; default its DNS name. */
  resolveService?:
    | ((service: ServiceReference) => string | undefined)
    | undefined;
}

/** A `clientConfig.service`, with its defaults filled in. */
export interface ServiceReference {
  /** The Service's namespace. */
  namespace: string;
  /** The Service's name. */
  name: string;
  /** The port, 443 unless given. */
  port: number;
  /** The path, `/` unless given. */
  path: string;
}

/** A failure to call a webhook (its message says why, as client-go does). */
export class CallError extends Error {}

/** Where a `clientConfig` points; throws a `CallError` if nowhere. */
export function callUrl(
  config: Record<string, unknown>,
  transport: WebhookTransport,
): URL {
  if (typeof config.url === "string" && config.url !== "") {
    return new URL(config.url);
  }
  const service = config.service;
  if (!isObject(service)) {
    throw new CallError("failed to call webhook: no url or service given");
  }
  const reference: ServiceReference = {
    namespace: String(service.namespace ?? ""),
    name: String(service.name ?? ""),
    port: typeof service.port === "number" ? service.port : 443,
    path: typeof service.path === "string" && service.path !== ""
      ? service.path
      : "/",
  };
  const origin = transport.resolveService?.(reference) ??
    `https://${reference.name}.${reference.namespace}.svc:${reference.port}`;
  return new URL(reference.path, origin);
}

/**
 * Posts a review to a webhook and answers its JSON body; throws a
 * `CallError` for anything but a 2xx with JSON, and when `timeoutSeconds`
 * pass (`context deadline exceeded`).
 */
export async function postReview(
  config: Record<string, unknown>,
  review: unknown,
  options: {
    timeoutSeconds: number;
    transport: WebhookTransport;
    signal: AbortSignal;
  },
): Promise<unknown> {
  const { timeoutSeconds: seconds, transport, signal } = options;
  const url = callUrl(config, transport);
  url.searchParams.set("timeout", `${seconds}s`);
  // As client-go prints it: a Service's DNS name with its port always
  // (Go joins host and port; a WHATWG URL drops a default 443).
  const dns = `https://${url.hostname}/`;
  const shown = url.port === "" && url.href.startsWith(dns) &&
      !(typeof config.url === "string" && config.url !== "") &&
      url.hostname.endsWith(".svc")
    ? url.href.replace(dns, `https://${url.hostname}:443/`)
    : url.href;
  const where = `Post ${JSON.stringify(shown)}`;
  let client: Deno.HttpClient | undefined;
  // The global clock, so that fake time drives the deadline too.
  const deadline = new AbortController();
  let expired = false;
  const timer = setTimeout(() => {
    expired = true;
    deadline.abort(new Error("context deadline exceeded"));
  }, seconds * 1000);
  try {
    const init: RequestInit = {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, */*",
      },
      body: JSON.stringify(review),
      signal: AbortSignal.any([signal, deadline.signal]),
    };
    let response: Response;
    if (transport.fetch !== undefined) {
      response = await raceAbort(
        transport.fetch(new Request(url, init)),
        init.signal!,
      );
    } else {
      if (typeof config.caBundle === "string" && config.caBundle !== "") {
        client = Deno.createHttpClient({ caCerts: [atob(config.caBundle)] });
      }
      response = await fetch(url, {
        ...init,
        ...(client === undefined ? {} : { client }),
      } as RequestInit);
    }
    const text = await raceAbort(response.text(), init.signal!);
    if (response.status < 200 || response.status > 299) {
      throw new CallError(
        `failed to call webhook: ${serverError(response, text)}`,
      );
    }
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new CallError(
        `failed to call webhook: ${(error as Error).message}`,
      );
    }
  } catch (error) {
    if (error instanceof CallError) throw error;
    if (signal.aborted) throw error;
    const reason = expired ? "context deadline exceeded" : messageOf(error);
    throw new CallError(`failed to call webhook: ${where}: ${reason}`);
  } finally {
    clearTimeout(timer);
    client?.close();
  }
}

// An in-memory transport may ignore the signal; the deadline still holds.
function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() =>
      signal.removeEventListener("abort", onAbort)
    );
  });
}

function messageOf(error: unknown): string {
  let at: unknown = error;
  const parts: string[] = [];
  while (at instanceof Error) {
    parts.push(at.message);
    at = at.cause;
  }
  return parts.length > 0 ? parts[parts.length - 1]! : String(error);
}

// client-go's answer to a non-2xx: the Status it carries, or
// apierrors.NewGenericServerResponse's words.
function serverError(response: Response, text: string): string {
  try {
    const status = JSON.parse(text);
    if (
      isObject(status) && status.kind === "Status" &&
      typeof status.message === "string"
    ) return status.message;
  } catch { /* not a Status */ }
  const type = response.headers.get("content-type") ?? "";
  const shown = type === "" || type.startsWith("text/") ||
      type.includes("json")
    ? text.trim()
    : "unknown";
  const words: Record<number, string> = {
    400: "the server rejected our request for an unknown reason",
    401: "the server has asked for the client to provide credentials",
    403: shown,
    404: "the server could not find the requested resource",
    405: "the server does not allow this method on the requested resource",
    409: "the server reported a conflict",
    422: "the server rejected our request due to an error in our request",
    429:
      "the server has received too many requests and has asked us to try again later",
    503: "the server is currently unable to handle the request",
    504:
      "the server was unable to return a response in the time allotted, but may still be processing the request",
  };
  const known = words[response.status];
  if (known !== undefined) return known;
  if (response.status >= 500) {
    return `an error on the server (${
      JSON.stringify(shown)
    }) has prevented the request from succeeding`;
  }
  return `the server responded with the status code ${response.status} but did not return more information`;
}
