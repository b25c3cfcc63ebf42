/**
 * What the scenarios of the differential suite share: their shape, the
 * patch media types, and small helpers.
 *
 * @module
 */

import type { Run } from "../_target.ts";

/** One named scenario. */
export interface Scenario {
  /** Its name, also its golden file's. */
  name: string;
  /** Prefixes of `generateName` it uses (normalised to `<gen>`). */
  generated?: readonly string[];
  /** Needs the garbage collector or the namespace controller. */
  controllers?: boolean;
  /**
   * Runs on the API server without the watch cache, whose reads come from
   * etcd, so a compaction shows at once (410 Gone).
   */
  noWatchCache?: boolean;
  /** Sends its requests. */
  run(run: Run, hooks: Hooks): Promise<void>;
}

/** What a scenario may ask of the server beyond requests. */
export interface Hooks {
  /** Compacts the server's history up to now (etcd's compaction). */
  compact(): Promise<void>;
}

export const JSON_PATCH = "application/json-patch+json";
export const MERGE_PATCH = "application/merge-patch+json";
export const STRATEGIC_PATCH = "application/strategic-merge-patch+json";
export const APPLY_PATCH = "application/apply-patch+yaml";

/** A ConfigMap named `name` with `data` and more metadata. */
export function configMap(
  name: string,
  data: Record<string, string> = {},
  metadata: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, ...metadata },
    data,
  };
}

/** The resourceVersion of an answered object. */
export function rvOf(body: unknown): string {
  return (body as { metadata: { resourceVersion: string } }).metadata
    .resourceVersion;
}

/** The uid of an answered object. */
export function uidOf(body: unknown): string {
  return (body as { metadata: { uid: string } }).metadata.uid;
}

/** Every scenario, in order. */

/** A protobuf field: its key, then a varint or a length and the bytes. */
export function pb(
  num: number,
  value: number | string | Uint8Array,
): Uint8Array {
  const varint = (n: number): number[] => {
    const out: number[] = [];
    do {
      out.push((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
      n = Math.floor(n / 128);
    } while (n > 0);
    return out;
  };
  if (typeof value === "number") {
    return new Uint8Array([...varint(num << 3), ...varint(value)]);
  }
  const bytes = typeof value === "string"
    ? new TextEncoder().encode(value)
    : value;
  return new Uint8Array([
    ...varint((num << 3) | 2),
    ...varint(bytes.length),
    ...bytes,
  ]);
}

/** Fields one after another: a message. */
export function msg(...fields: Uint8Array[]): Uint8Array {
  return new Uint8Array(fields.flatMap((f) => [...f]));
}

/** The `k8s\x00` envelope of a protobuf body of `apiVersion` and `kind`. */
export function envelope(
  apiVersion: string,
  kind: string,
  raw: Uint8Array,
): Uint8Array<ArrayBuffer> {
  return new Uint8Array([
    0x6b,
    0x38,
    0x73,
    0x00,
    ...msg(
      pb(1, msg(pb(1, apiVersion), pb(2, kind))),
      pb(2, raw),
      pb(3, ""),
      pb(4, ""),
    ),
  ]);
}
