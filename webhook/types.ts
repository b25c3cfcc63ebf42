/**
 * The wire types of admission (`admission.k8s.io/v1` `AdmissionReview`) and
 * conversion (`apiextensions.k8s.io/v1` `ConversionReview`) webhooks, as
 * the API server sends and reads them.
 *
 * @module
 */
import type { KubeObject } from "../apiclient/types.ts";
import type { Logger } from "../_internal/log.ts";

/** A kind, as `AdmissionRequest.kind` names it (metav1.GroupVersionKind). */
export interface GroupVersionKind {
  /** The API group; `""` for the core group. */
  group: string;
  /** The version, such as `v1`. */
  version: string;
  /** The kind, such as `Greeting`. */
  kind: string;
}

/** A resource, as `AdmissionRequest.resource` names it (metav1.GroupVersionResource). */
export interface GroupVersionResource {
  /** The API group; `""` for the core group. */
  group: string;
  /** The version, such as `v1`. */
  version: string;
  /** The plural resource name, such as `greetings`. */
  resource: string;
}

/** Who made the request (authentication.k8s.io/v1 UserInfo). */
export interface UserInfo {
  /** The user's name. */
  username?: string | undefined;
  /** The user's uid. */
  uid?: string | undefined;
  /** The user's groups. */
  groups?: string[] | undefined;
  /** Anything else the authenticator said. */
  extra?: Record<string, string[]> | undefined;
}

/** The operation an admission request is about. */
export type Operation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";

/**
 * One admission request (admission.k8s.io/v1 `AdmissionRequest`).
 *
 * @typeParam T The object's type.
 */
export interface AdmissionRequest<T extends KubeObject = KubeObject> {
  /** Identifies this request; the response carries it back. */
  uid: string;
  /** The kind of the object, as the webhook registered for it. */
  kind: GroupVersionKind;
  /** The resource, as the webhook registered for it. */
  resource: GroupVersionResource;
  /** The subresource, such as `status`, if any. */
  subResource?: string | undefined;
  /** The kind the client asked for (differs under `matchPolicy: Equivalent`). */
  requestKind?: GroupVersionKind | undefined;
  /** The resource the client asked for. */
  requestResource?: GroupVersionResource | undefined;
  /** The subresource the client asked for. */
  requestSubResource?: string | undefined;
  /** The object's name; absent on a create that uses `generateName`. */
  name?: string | undefined;
  /** The object's namespace; absent for a cluster-scoped object. */
  namespace?: string | undefined;
  /** What is being done. */
  operation: Operation;
  /** Who is doing it. */
  userInfo: UserInfo;
  /** The new object: on CREATE and UPDATE; absent on DELETE. */
  object?: T | null | undefined;
  /** The existing object: on UPDATE and DELETE. */
  oldObject?: T | null | undefined;
  /** Whether nothing is written (`dryRun=All`): no side effects allowed. */
  dryRun?: boolean | undefined;
  /** The operation's options (CreateOptions, UpdateOptions, DeleteOptions). */
  options?: Record<string, unknown> | null | undefined;
}

/** The `Status` a denial carries (a metav1.Status without kind). */
export interface AdmissionStatus {
  /** The HTTP status code the API server answers with (400–599 on a denial). */
  code?: number | undefined;
  /** Why. */
  message?: string | undefined;
  /** A machine-readable reason, such as `Forbidden`. */
  reason?: string | undefined;
  /** `Success` or `Failure`. */
  status?: string | undefined;
  /** List metadata (always `{}`). */
  metadata?: Record<string, unknown> | undefined;
}

/** One admission response (admission.k8s.io/v1 `AdmissionResponse`). */
export interface AdmissionResponse {
  /** The request's uid. */
  uid: string;
  /** Whether the request may proceed. */
  allowed: boolean;
  /** Why it may not (on a denial). */
  status?: AdmissionStatus | undefined;
  /** The base64 RFC 6902 JSON Patch of a mutating webhook. */
  patch?: string | undefined;
  /** `JSONPatch` when `patch` is set. */
  patchType?: "JSONPatch" | undefined;
  /** Annotations for the audit log. */
  auditAnnotations?: Record<string, string> | undefined;
  /** Warnings the client sees as `Warning` headers. */
  warnings?: string[] | undefined;
}

/** An `AdmissionReview` (admission.k8s.io/v1), request or response. */
export interface AdmissionReview<T extends KubeObject = KubeObject> {
  /** `admission.k8s.io/v1`. */
  apiVersion: "admission.k8s.io/v1";
  /** `AdmissionReview`. */
  kind: "AdmissionReview";
  /** What the API server asks. */
  request?: AdmissionRequest<T> | undefined;
  /** What the webhook answers. */
  response?: AdmissionResponse | undefined;
}

/** One conversion request (apiextensions.k8s.io/v1 `ConversionRequest`). */
export interface ConversionRequest {
  /** Identifies this request; the response carries it back. */
  uid: string;
  /** The `apiVersion` to convert to, such as `example.com/v1`. */
  desiredAPIVersion: string;
  /** The objects to convert, each in its own version. */
  objects: KubeObject[];
}

/** One conversion response (apiextensions.k8s.io/v1 `ConversionResponse`). */
export interface ConversionResponse {
  /** The request's uid. */
  uid: string;
  /** The converted objects, in the order sent (on success). */
  convertedObjects: KubeObject[];
  /** `Success`, or `Failure` with a message. */
  result: AdmissionStatus;
}

/** A `ConversionReview` (apiextensions.k8s.io/v1), request or response. */
export interface ConversionReview {
  /** `apiextensions.k8s.io/v1`. */
  apiVersion: "apiextensions.k8s.io/v1";
  /** `ConversionReview`. */
  kind: "ConversionReview";
  /** What the API server asks. */
  request?: ConversionRequest | undefined;
  /** What the webhook answers. */
  response?: ConversionResponse | undefined;
}

/** One RFC 6902 JSON Patch operation, of the kinds the library computes. */
export interface JsonPatchOperation {
  /** `add`, `remove` or `replace`. */
  op: "add" | "remove" | "replace";
  /** The JSON Pointer (RFC 6901) of the value. */
  path: string;
  /** The new value (for `add` and `replace`). */
  value?: unknown;
}

/** What a webhook handler is given beside the request. */
export interface ReviewContext {
  /** Ends at the request's deadline (the API server's `?timeout=`). */
  signal: AbortSignal;
  /** Adds a warning that the client sees as a `Warning` header. */
  warn(text: string): void;
}

/**
 * A webhook: it answers the review the API server posted. Made by
 * `validating`, `mutating` or `conversion`; served by `WebhookServer`.
 *
 * @typeParam R The review it answers.
 */
export interface Webhook<
  R extends AdmissionReview | ConversionReview =
    | AdmissionReview
    | ConversionReview,
> {
  /** Which review it answers. */
  readonly type: "admission" | "conversion";
  /**
   * Answers one review, as parsed from JSON. The body becomes the
   * handler's: it is not copied (a review can be megabytes), so a handler
   * that changes its request changes `body`.
   *
   * @throws {ReviewError} When the review is malformed (answered 400).
   */
  review(
    body: unknown,
    options?: {
      /** Ends the handler's work (the review's deadline). */
      signal?: AbortSignal | undefined;
      /** Where handler errors go unless the webhook was given its own `logger`. */
      logger?: Logger | undefined;
    } | undefined,
  ): Promise<R>;
}

/** The label values of one metric series. */
export type MetricLabels = Record<string, string | number>;

/** The options a metric is made with. */
export interface MetricFamilyOptions {
  /** The `# HELP` text. */
  help: string;
  /** The label names. */
  labels?: readonly string[] | undefined;
}

/**
 * Where the webhook server registers its metrics: the `Registry` of the
 * metrics module (`metrics.registry`) fits.
 */
export interface MetricsRegistry {
  /** The metric of this name, if made already. */
  get(name: string): unknown;
  /** Makes a counter. */
  counter(
    name: string,
    options: MetricFamilyOptions,
  ): { inc(labels: MetricLabels, by?: number): void };
  /** Makes a gauge. */
  gauge(
    name: string,
    options: MetricFamilyOptions,
  ): {
    inc(labels: MetricLabels, by?: number): void;
    dec(labels: MetricLabels, by?: number): void;
  };
  /** Makes a histogram. */
  histogram(
    name: string,
    options: MetricFamilyOptions,
  ): { observe(labels: MetricLabels, value: number): void };
}
