import type { ObjectReference } from "./types.ts";

/** The API server's limit on an Event's reason, in bytes. */
export const MAX_REASON = 128;

/** The API server's limit on an Event's note (message), in bytes. */
export const MAX_MESSAGE = 1024;

/**
 * The namespace of the Events about cluster-scoped objects: the API server
 * accepts those only in `default` or `kube-system`.
 */
export const CLUSTER_NAMESPACE = "default";

const ELLIPSIS = "…";
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Answers the namespace that holds the Events about `object`. */
export function namespaceOf(object: ObjectReference): string {
  return object.namespace || CLUSTER_NAMESPACE;
}

/**
 * Shortens `text` to at most `limit` UTF-8 bytes, at a character boundary,
 * and marks a cut with `…`, so the API server never refuses an Event for its
 * length.
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
