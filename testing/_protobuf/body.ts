/**
 * The fake API server's side of protobuf bodies: the JSON text it reads
 * them as, and the Status of a body it cannot read.
 *
 * @module
 */
import { failure, StatusError } from "../_verbs/status.ts";
import {
  decodeProtobufBody,
  isProtobuf,
  PROTOBUF,
  ProtobufError,
} from "./decode.ts";

export { isProtobuf, PROTOBUF };

// The refusal of each request whose body could not be read, said once the
// route is known (an unknown path still answers 404 first).
const refusals = new WeakMap<Request, StatusError>();

/**
 * Reads a protobuf body as the JSON text a JSON client would have sent; `""`
 * when it cannot, and {@linkcode protobufRefusal} then says why.
 */
export async function protobufText(request: Request): Promise<string> {
  const bytes = new Uint8Array(await request.arrayBuffer());
  if (bytes.length === 0) return "";
  try {
    return JSON.stringify(decodeProtobufBody(bytes));
  } catch (error) {
    // Whatever the decoder trips on is the body's fault: a 400, not a 500.
    const unsupported = error instanceof ProtobufError && error.unsupported;
    const message = error instanceof Error ? error.message : String(error);
    refusals.set(
      request,
      unsupported
        ? new StatusError(failure(
          415,
          "UnsupportedMediaType",
          `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml (the fake API server decodes protobuf only for built-in kinds, and ${message}: send JSON)`,
        ))
        : new StatusError(failure(
          400,
          "BadRequest",
          `the body of the request could not be decoded as protobuf: ${message}`,
        )),
    );
    return "";
  }
}

/** The Status of a protobuf body that could not be read, if any. */
export function protobufRefusal(request: Request): StatusError | undefined {
  return refusals.get(request);
}
