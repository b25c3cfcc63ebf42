import type { ObjectReference } from "../apiclient/types.ts";

/** The two types of Event. */
export type EventType = "Normal" | "Warning";

/**
 * The metadata of an Event the recorder writes: `generateName` on a create,
 * and the `name` the API server chose, which a repeat patches.
 */
export interface EventMetadata {
  /** The name the API server chose. */
  name?: string;
  /** The object's name and a dot; the API server appends a suffix. */
  generateName?: string;
  /** The namespace that holds the Event. */
  namespace?: string;
  /** The stored copy's version, as the API server answers it. */
  resourceVersion?: string;
}

/**
 * The legacy `source` field. It repeats `reportingComponent` and
 * `reportingInstance` because `kubectl describe` fills its From column from
 * here, not from the newer fields.
 */
export interface EventSource {
  /** The component, such as `machine-operator`. */
  component?: string;
  /** The instance: a pod's or a node's name. */
  host?: string;
}

/**
 * The core/v1 Event body this recorder sends.
 *
 * `eventTime` is deliberately absent. Setting it opts the Event into the
 * stricter `events.k8s.io/v1` validation (which among other things rejects
 * notes above 1024 bytes) and buys nothing: `kubectl describe` and
 * `kubectl events` display core/v1 Events without it.
 */
export interface Event {
  /** Always `v1`. */
  apiVersion: "v1";
  /** Always `Event`. */
  kind: "Event";
  /** Name (or generateName) and namespace. */
  metadata: EventMetadata;
  /** The object the Event is about. */
  involvedObject: ObjectReference;
  /** A CamelCase reason, at most 128 bytes. */
  reason: string;
  /** A sentence for a person, at most 1024 bytes. */
  message: string;
  /** `Normal` or `Warning`. */
  type: EventType;
  /** The component and instance, in the older form. */
  source: EventSource;
  /** When the series began (RFC 3339, to the second). */
  firstTimestamp: string;
  /** When the series last repeated (RFC 3339, to the second). */
  lastTimestamp: string;
  /** How many times the series happened. */
  count: number;
  /** The component that posted the Event, such as `machine-operator`. */
  reportingComponent: string;
  /** The instance of that component: a pod's or a node's name. */
  reportingInstance: string;
}

/** What an Event says: a reason for machines, a message for people. */
export interface EventNote {
  /**
   * A short CamelCase reason, such as `StepFailed`. Cut to 128 bytes, the API
   * server's limit.
   */
  reason: string;
  /**
   * A sentence for a person. Cut to 1024 bytes, the API server's limit, at a
   * character boundary and marked with `…`.
   */
  message: string;
}
