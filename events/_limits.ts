import type { ObjectReference } from "../apiclient/types.ts";

/** The API server's limit on an Event's reason, in bytes. */
export const MAX_REASON = 128;

/** The API server's limit on an Event's note (message), in bytes. */
export const MAX_MESSAGE = 1024;

/**
 * Where Events about objects without a namespace (Nodes, cluster-wide custom
 * resources) are written. For a core/v1 Event without `eventTime`, as this
 * recorder writes them, validation admits such Events only in `default`
 * (`kube-system` only for Events that carry `eventTime`).
 */
export const CLUSTER_NAMESPACE = "default";

const ELLIPSIS = "…";
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Picks the namespace an Event about `object` must be created in. */
export function namespaceOf(object: ObjectReference): string {
  return object.namespace || CLUSTER_NAMESPACE;
}

/**
 * Trims `text` to fit `limit` UTF-8 bytes, ending with `…` when anything was
 * removed. Validation counts bytes, not characters, so the cut is made on
 * the encoded form and then moved back to the start of a character: a
 * half-encoded character would otherwise decode to U+FFFD. An over-long
 * Event is better shortened than refused outright.
 */
export function cut(text: string, limit: number): string {
  // A string of n UTF-16 units encodes to at most 3n bytes: skip the encode
  // for the common short text.
  if (text.length * 3 <= limit) return text;
  const bytes = encoder.encode(text);
  if (bytes.length <= limit) return text;
  let end = Math.max(0, limit - encoder.encode(ELLIPSIS).length);
  // Back up over continuation bytes (10xxxxxx) to the start of a character.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return decoder.decode(bytes.subarray(0, end)) + ELLIPSIS;
}
