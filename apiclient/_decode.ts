// Decoding an answer: a whole body read within the request's signal, a 2xx
// body as JSON, and a status outside 2xx as the typed error it maps to.
import {
  ApiError,
  type ApiErrorOptions,
  ConflictError,
  MalformedResponseError,
  NotFoundError,
  ThrottledError,
} from "./errors.ts";
import type { Status } from "./types.ts";

// Past this size the connection is cheaper to lose than to drain.
const MAX_DRAIN = 4 << 20;
const ERROR_TEXT_LIMIT = 2048;

/**
 * Reads a whole body with the runtime's native reader (far cheaper than a JS
 * read loop), but answers the moment `signal` aborts: a body that stalls part
 * way must not hold the request past its timeout, even if the runtime's own
 * abort leaves the read pending.
 */
export function readBody<T>(
  response: Response,
  signal: AbortSignal | undefined,
  read: (response: Response) => Promise<T>,
): Promise<T> {
  if (signal === undefined) return read(response);
  if (signal.aborted) {
    response.body?.cancel(signal.reason).catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    read(response).then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener("abort", onAbort);
        reject(signal.aborted ? signal.reason : error);
      },
    );
  });
}

/** Reads a body as text. */
export const textOf = (response: Response): Promise<string> => response.text();
/** Reads a body as bytes. */
export const bytesOf = (response: Response): Promise<Uint8Array> =>
  response.bytes();

/**
 * Decodes a 2xx body as JSON: an empty body is `undefined`, anything else
 * that does not parse is a {@linkcode MalformedResponseError}.
 */
export function decodeJson(
  text: string,
  status: number,
  method: string,
  path: string,
): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    // Checked only on failure, so a normal answer is not scanned twice.
    if (text.trim() === "") return undefined;
    throw new MalformedResponseError(
      `malformed JSON answer (status ${status}): ${
        text.slice(0, 200).trimEnd()
      }`,
      { method, path, cause },
    );
  }
}

/**
 * Reads the first 2 KiB of an error body, then drains up to a cap so the
 * connection can be reused, and cancels whatever is left.
 */
export async function readErrorText(
  response: Response,
  signal: AbortSignal | undefined,
): Promise<string> {
  const body = response.body;
  if (!body) return "";
  const reader = body.getReader();
  const kept: Uint8Array[] = [];
  let keptBytes = 0;
  let total = 0;
  const onAbort = (): void => {
    reader.cancel(signal?.reason).catch(() => {});
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    while (total < MAX_DRAIN) {
      const { value, done } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (keptBytes < ERROR_TEXT_LIMIT) {
        const part = value.subarray(0, ERROR_TEXT_LIMIT - keptBytes);
        kept.push(part);
        keptBytes += part.byteLength;
      }
    }
  } catch {
    // The text is best effort; the status already says what failed.
  } finally {
    signal?.removeEventListener("abort", onAbort);
    await reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(keptBytes);
  let offset = 0;
  for (const part of kept) {
    bytes.set(part, offset);
    offset += part.byteLength;
  }
  return new TextDecoder().decode(bytes).trimEnd();
}

/**
 * The typed error of an answer outside 2xx: 404 {@linkcode NotFoundError},
 * 409 {@linkcode ConflictError}, 429 {@linkcode ThrottledError}, any other
 * {@linkcode ApiError}. The detail is the `Status` message when the body is a
 * `Status` (metav1.Status, the Kubernetes API docs), else the body's text.
 */
export function errorFor(
  method: string,
  path: string,
  response: Response,
  text: string,
): ApiError {
  const status = response.status;
  let statusObject: Status | undefined;
  try {
    const parsed = JSON.parse(text);
    if (parsed && typeof parsed === "object" && parsed.kind === "Status") {
      statusObject = parsed as Status;
    }
  } catch {
    statusObject = undefined;
  }
  const detail = statusObject?.message ?? text;
  const statusText = response.statusText ? ` ${response.statusText}` : "";
  const message = `${method} ${path}: ${status}${statusText}${
    detail ? `: ${detail}` : ""
  }`;
  const options: ApiErrorOptions = {
    method,
    path,
    status,
    statusObject,
    text: statusObject ? undefined : text,
  };
  if (status === 404) return new NotFoundError(message, options);
  if (status === 409) return new ConflictError(message, options);
  if (status === 429) {
    return new ThrottledError(
      message,
      options,
      retryAfter(response.headers.get("Retry-After"), statusObject),
    );
  }
  return new ApiError(message, options);
}

/** The seconds a 429 asks for: Retry-After, else the Status's, else 0. */
function retryAfter(header: string | null, status: Status | undefined): number {
  const seconds = header === null ? NaN : Number(header.trim());
  if (Number.isInteger(seconds) && seconds > 0) return seconds;
  const stated = status?.details?.retryAfterSeconds;
  return typeof stated === "number" && stated > 0 ? Math.floor(stated) : 0;
}
