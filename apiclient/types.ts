/**
 * The Kubernetes object shapes this library reads and writes, declared as
 * plain JSON types. They are minimal on purpose: user types extend
 * {@linkcode KubeObject} with their own `spec` and `status`.
 *
 * @module
 */

/** An owner of an object, as `metadata.ownerReferences` holds it. */
export interface OwnerReference {
  /** API version of the owner, such as `example.com/v1`. */
  apiVersion: string;
  /** Kind of the owner. */
  kind: string;
  /** Name of the owner. */
  name: string;
  /** UID of the owner. */
  uid: string;
  /** Whether the owner is the managing controller. */
  controller?: boolean;
  /** Whether the owner cannot be deleted before this object. */
  blockOwnerDeletion?: boolean;
}

/**
 * A reference to one object (core/v1 `ObjectReference`), as an Event's
 * `involvedObject` or a status field that names another object holds it.
 * Kind and name are required here, though optional in the API: every
 * reference this library makes or reads names them. Include the UID
 * whenever it is known: `kubectl describe` matches Events to an object by
 * kind, name and UID, and the UID keeps a deleted object's Events off a
 * newer one that reuses the name.
 *
 * @example
 * ```ts
 * import type { ObjectReference } from "@liken/kubernetes/apiclient";
 *
 * const container: ObjectReference = {
 *   apiVersion: "v1",
 *   kind: "Pod",
 *   namespace: "shop",
 *   name: "web-0",
 *   uid: "u-1",
 *   fieldPath: "spec.containers{web}",
 * };
 * void container;
 * ```
 */
export interface ObjectReference {
  /** Group and version, such as `example.com/v1`. */
  apiVersion?: string | undefined;
  /** Kind, such as `Machine`. */
  kind: string;
  /**
   * Namespace; absent or empty for a cluster-scoped object (whose Events
   * go in `default`).
   */
  namespace?: string | undefined;
  /** Name of the object. */
  name: string;
  /** UID of the object. */
  uid?: string | undefined;
  /** The version of the object the reference was made from. */
  resourceVersion?: string | undefined;
  /**
   * A part of the object rather than the whole, such as
   * `spec.containers{web}` for one container of a Pod.
   */
  fieldPath?: string | undefined;
}

/** The metadata every stored object carries (metav1.ObjectMeta). */
export interface ObjectMeta {
  /** Name, unique within the namespace. */
  name?: string;
  /** Prefix from which the API server makes a unique name on create. */
  generateName?: string;
  /** Namespace; absent for cluster-scoped objects. */
  namespace?: string;
  /** Unique id the API server assigns on create. */
  uid?: string;
  /** Opaque version of this copy; compare only for equality. */
  resourceVersion?: string;
  /** Sequence number of the desired state; moves when `spec` changes. */
  generation?: number;
  /** When the object was created (RFC 3339). */
  creationTimestamp?: string;
  /** When a delete was asked for, while finalizers hold the object. */
  deletionTimestamp?: string;
  /** Labels, for selection. */
  labels?: Record<string, string>;
  /** Annotations, for tools. */
  annotations?: Record<string, string>;
  /** Objects that own this one. */
  ownerReferences?: OwnerReference[];
  /** Finalizers that hold the object after a delete. */
  finalizers?: string[];
  /** Server-side apply bookkeeping; the informer drops it. */
  managedFields?: unknown[];
}

/** Any Kubernetes object: user types extend this with `spec` and `status`. */
export interface KubeObject {
  /** Group and version, such as `v1` or `apps/v1`. */
  apiVersion?: string;
  /** Kind, such as `ConfigMap`. */
  kind?: string;
  /** The object's metadata. */
  metadata: ObjectMeta;
}

/** The metadata of a list (metav1.ListMeta). */
export interface ListMeta {
  /** The version of the collection the list shows. */
  resourceVersion?: string;
  /** Token for the next page, when the list was cut by `limit`. */
  continue?: string;
  /** How many items the later pages hold, when the server knows. */
  remainingItemCount?: number;
}

/** A list of objects as the API server answers a collection read. */
export interface KubeList<T extends KubeObject = KubeObject> {
  /** Group and version of the list. */
  apiVersion?: string;
  /** Kind of the list, such as `ConfigMapList`. */
  kind?: string;
  /** The list's metadata. */
  metadata: ListMeta;
  /** The objects. */
  items: T[];
}

/** One cause of a failure, as `Status.details.causes` holds it. */
export interface StatusCause {
  /** Machine-readable reason, such as `FieldValueInvalid`. */
  reason?: string;
  /** Human-readable description. */
  message?: string;
  /** The field the cause is about. */
  field?: string;
}

/** Extra facts about a failure (metav1.StatusDetails). */
export interface StatusDetails {
  /** Name of the object the failure is about. */
  name?: string;
  /** API group of that object. */
  group?: string;
  /** Kind (or resource) of that object. */
  kind?: string;
  /** UID of that object. */
  uid?: string;
  /** The individual causes. */
  causes?: StatusCause[];
  /** Seconds the client should wait before it asks again. */
  retryAfterSeconds?: number;
}

/** The API server's answer to a failed request (metav1.Status). */
export interface Status {
  /** Always `Status`. */
  kind?: "Status";
  /** Always `v1`. */
  apiVersion?: string;
  /** List metadata (usually empty). */
  metadata?: ListMeta;
  /** `Success` or `Failure`. */
  status?: "Success" | "Failure";
  /** Human-readable description. */
  message?: string;
  /** Machine-readable reason, such as `NotFound` or `Conflict`. */
  reason?: string;
  /** HTTP status code. */
  code?: number;
  /** Extra facts about the failure. */
  details?: StatusDetails;
}

/** The type of a watch event. */
export type WatchEventType =
  | "ADDED"
  | "MODIFIED"
  | "DELETED"
  | "BOOKMARK"
  | "ERROR";

/** One event of a watch stream: an object change, a bookmark, or an error. */
export type WatchEvent<T extends KubeObject = KubeObject> =
  | {
    /** What happened to the object. */
    type: "ADDED" | "MODIFIED" | "DELETED";
    /** The object after the change (before it, for DELETED). */
    object: T;
  }
  | {
    /** A bookmark: only `metadata.resourceVersion` (and annotations) are set. */
    type: "BOOKMARK";
    /** An object of the watched kind that carries the version. */
    object: KubeObject;
  }
  | {
    /** The server ended the watch with an error. */
    type: "ERROR";
    /** The error, such as 410 Expired. */
    object: Status;
  };
