// Shared by the webhook tests: reviews to send.

/** An AdmissionReview of a ConfigMap write. */
export function admissionReview(
  uid: string,
  request: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid,
      kind: { group: "", version: "v1", kind: "ConfigMap" },
      resource: { group: "", version: "v1", resource: "configmaps" },
      namespace: "default",
      name: "a",
      operation: "CREATE",
      userInfo: { username: "tester" },
      object: { metadata: { name: "a", namespace: "default" }, data: {} },
      ...request,
    },
  };
}

/** Posts JSON to a URL with a client. */
export async function post(
  url: string,
  body: unknown,
  client: Deno.HttpClient,
  headers: Record<string, string> = { "content-type": "application/json" },
): Promise<{ status: number; text: string }> {
  const response = await fetch(url, {
    client,
    method: "POST",
    headers,
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}
