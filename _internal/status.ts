/**
 * Kubernetes `Status` bodies, as the API server answers a failed request
 * (`metav1.Status`, see the Kubernetes API conventions), shared by the fake
 * API server and the client's tests.
 *
 * @module
 */
import type { Status, StatusDetails } from "../apiclient/types.ts";

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
export function failure(
  code: number,
  reason: string,
  message: string,
  details?: StatusDetails,
): Status {
  const status: Status = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason,
  };
  if (details !== undefined) status.details = details;
  status.code = code;
  return status;
}
