/**
 * Metadata-only answers: what a request for
 * `application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1` (one object,
 * or a watch's events) or `...as=PartialObjectMetadataList...` (a list) gets,
 * as controller-runtime's metadata client and kube-rs's `metadata_watcher`
 * ask; and the encoder interface Tables share.
 *
 * @module
 */
import type { KubeObject, WatchEvent } from "../../apiclient/types.ts";

/** Turns what a read answers into another representation. */
export interface Encoder {
  /** One object. */
  object(object: KubeObject): unknown;
  /** A list. */
  list(
    list: { metadata?: Record<string, unknown>; items: KubeObject[] },
  ): unknown;
  /** One watch event. */
  event(event: WatchEvent): unknown;
}

/** The list metadata a converted list keeps. */
export const LIST_METADATA = [
  "resourceVersion",
  "continue",
  "remainingItemCount",
] as const;

/** Answers each object as a `PartialObjectMetadata`: its kind and metadata alone. */
export class MetadataEncoder implements Encoder {
  /** `meta.k8s.io/v1` or `meta.k8s.io/v1beta1`. */
  readonly apiVersion: string;

  /** An encoder answering objects of `apiVersion`. */
  constructor(apiVersion: string) {
    this.apiVersion = apiVersion;
  }

  /** The object's metadata, as a `PartialObjectMetadata`. */
  object(object: KubeObject): unknown {
    return {
      kind: "PartialObjectMetadata",
      apiVersion: this.apiVersion,
      metadata: object.metadata ?? {},
    };
  }

  /** A `PartialObjectMetadataList` of the items' metadata. */
  list(
    list: { metadata?: Record<string, unknown>; items: KubeObject[] },
  ): unknown {
    const metadata: Record<string, unknown> = {};
    for (const key of LIST_METADATA) {
      if (list.metadata?.[key] !== undefined) {
        metadata[key] = list.metadata[key];
      }
    }
    return {
      kind: "PartialObjectMetadataList",
      apiVersion: this.apiVersion,
      metadata,
      items: list.items.map((item) => this.object(item)),
    };
  }

  /** The event with its object converted; an ERROR's Status passes. */
  event(event: WatchEvent): unknown {
    const object = event.object as KubeObject;
    if (object?.kind === "Status" && object.apiVersion === "v1") return event;
    return { type: event.type, object: this.object(object) };
  }
}
