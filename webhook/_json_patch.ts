// RFC 6902 JSON Patch between two JSON values: the operations that turn
// `before` into `after` (add, remove, replace), pointers escaped per RFC 6901.

import { isObject, jsonEqual } from "../_internal/json.ts";
import type { JsonPatchOperation } from "./types.ts";
import { own } from "../_internal/own.ts";

/** Escapes one reference token of a JSON Pointer. */
export function escapeToken(token: string): string {
  return token.replaceAll("~", "~0").replaceAll("/", "~1");
}

/**
 * The operations that turn `before` into `after`. Objects are compared key
 * by key; arrays of the same length item by item, else replaced whole.
 */
export function diff(
  before: unknown,
  after: unknown,
  path = "",
  out: JsonPatchOperation[] = [],
): JsonPatchOperation[] {
  if (jsonEqual(before, after)) return out;
  if (isObject(before) && isObject(after)) {
    // Own keys only: a label named `constructor` is a label, not a function.
    for (const key of Object.keys(before)) {
      if (before[key] === undefined) continue;
      if (own(after, key) === undefined) {
        out.push({ op: "remove", path: `${path}/${escapeToken(key)}` });
      }
    }
    for (const [key, value] of Object.entries(after)) {
      if (value === undefined) continue;
      const at = `${path}/${escapeToken(key)}`;
      const was = own(before, key);
      if (was === undefined) {
        out.push({ op: "add", path: at, value });
      } else diff(was, value, at, out);
    }
    return out;
  }
  if (
    Array.isArray(before) && Array.isArray(after) &&
    before.length === after.length
  ) {
    before.forEach((item, i) => diff(item, after[i], `${path}/${i}`, out));
    return out;
  }
  out.push({ op: "replace", path, value: after });
  return out;
}

/** Base64 of a string's UTF-8 bytes. */
export function base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}
