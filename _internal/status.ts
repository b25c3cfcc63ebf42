/**
 * The failure `Status` body the API server answers a refused request with
 * (`metav1.Status`), shared by the fake API server and the client's tests.
 * Typed here without the client's types, which sit a layer above.
 *
 * @module
 */

/** A failure Status, its `details` of the caller's type. */
export interface FailureStatus<D> {
  /** Always `Status`. */
  kind: "Status";
  /** Always `v1`. */
  apiVersion: "v1";
  /** Empty list metadata. */
  metadata: Record<string, never>;
  /** Always `Failure`. */
  status: "Failure";
  /** The human-readable message. */
  message: string;
  /** The machine-readable reason, such as `NotFound`. */
  reason: string;
  /** Extra facts, such as the object's name and kind. */
  details?: D;
  /** The HTTP status code. */
  code: number;
}

/**
 * A Failure Status: `kind: Status`, `apiVersion: v1`, empty metadata, then
 * the message, the reason, the details when given, and the code, in the
 * order the API server writes them.
 *
 * @param code The HTTP status code, such as 404.
 * @param reason The machine-readable reason, such as `NotFound`.
 * @param message The human-readable message.
 * @param details The details, such as the name and kind of the object.
 * @returns The Status body.
 */
export function failure<D extends object>(
  code: number,
  reason: string,
  message: string,
  details?: D,
): FailureStatus<D> {
  // Built field by field: the order is the API server's JSON order.
  const status = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason,
  } as FailureStatus<D>;
  if (details !== undefined) status.details = details;
  status.code = code;
  return status;
}
