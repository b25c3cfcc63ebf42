// What the benchmark scripts share: the ConfigMaps they measure with, the
// limit's line reader, and the median.
import type { KubeObject } from "../apiclient/types.ts";

/** Options of {@linkcode configMap}. */
export interface ConfigMapOptions {
  /** Characters of `data.payload`. Default 380 (about 1.1 KB an object). */
  payload?: number | undefined;
  /**
   * A resourceVersion; given, the object also gets a uid and a
   * creationTimestamp, as the API server's copy has.
   */
  version?: number | undefined;
}

/**
 * The i-th ConfigMap of a benchmark: ten namespaces, labels, and the
 * `managedFields` kubectl leaves, which the informer trims.
 */
export function configMap(
  i: number,
  options: ConfigMapOptions = {},
): KubeObject {
  const name = `cm-${String(i).padStart(5, "0")}`;
  const metadata: KubeObject["metadata"] = {
    name,
    namespace: `ns-${i % 10}`,
    labels: { app: "bench", shard: String(i % 16) },
    managedFields: [{
      manager: "kubectl-client-side-apply",
      operation: "Update",
      apiVersion: "v1",
      time: "2026-12-02T11:00:00Z",
      fieldsType: "FieldsV1",
      fieldsV1: {
        "f:data": { ".": {}, "f:color": {}, "f:payload": {} },
        "f:metadata": {
          "f:labels": { ".": {}, "f:app": {}, "f:shard": {} },
        },
      },
    }],
  };
  if (options.version !== undefined) {
    metadata.uid = `0b7f2c3e-5a1d-4c8e-9f00-${String(i).padStart(12, "0")}`;
    metadata.resourceVersion = String(options.version);
    metadata.creationTimestamp = "2026-12-02T11:00:00Z";
  }
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata,
    data: { color: "blue-000000", payload: "x".repeat(options.payload ?? 380) },
  } as KubeObject;
}

/** The median of some figures. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * The limit's reader: BYOB into one reused buffer, split lines, parse, and
 * nothing else. `onLine` answers `true` to stop.
 */
export async function readLines<T = unknown>(
  body: ReadableStream<Uint8Array>,
  onLine: (value: T) => boolean,
): Promise<void> {
  const reader = body.getReader({ mode: "byob" });
  const decoder = new TextDecoder();
  let view = new Uint8Array(256 * 1024);
  let pending = "";
  try {
    for (;;) {
      const { value, done } = await reader.read(view);
      if (done) return;
      pending += decoder.decode(value, { stream: true });
      view = new Uint8Array(value!.buffer);
      let start = 0;
      let end: number;
      while ((end = pending.indexOf("\n", start)) !== -1) {
        const stop = onLine(JSON.parse(pending.slice(start, end)));
        start = end + 1;
        if (stop) return;
      }
      pending = pending.slice(start);
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
