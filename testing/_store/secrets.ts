/**
 * A core/v1 Secret's `stringData`: a write-only field that the API server
 * merges into `data` (base64) when it decodes a write, and never stores.
 *
 * @module
 */
import type { KubeObject } from "../../apiclient/types.ts";
import { isObject } from "./objects.ts";
import type { RegisteredResource } from "../types.ts";

/**
 * The object as stored: for a core/v1 Secret, `stringData` merged into
 * `data` (its keys win over `data`'s, as the API server's conversion
 * does) and dropped; any other object as it is.
 */
export function secretData<T extends KubeObject>(
  resource: RegisteredResource,
  object: T,
): T {
  if (resource.group !== "" || resource.resource !== "secrets") return object;
  const record = object as T & {
    data?: Record<string, string>;
    stringData?: unknown;
  };
  if (!isObject(record.stringData)) return object;
  const data: Record<string, string> = { ...record.data };
  for (const [key, value] of Object.entries(record.stringData)) {
    if (typeof value === "string") data[key] = base64(value);
  }
  const { stringData: _, ...rest } = record;
  return { ...rest, data } as T;
}

function base64(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) {
    binary += String.fromCharCode(byte);
  }
  return btoa(binary);
}
