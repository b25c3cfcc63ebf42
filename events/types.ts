/** The two types of Event. */
export type EventType = "Normal" | "Warning";

/**
 * An expected transition, or an action the component took. `kubectl describe`
 * shows it; nobody needs to act.
 */
export const NORMAL: EventType = "Normal";

/** Something a person may need to act on. */
export const WARNING: EventType = "Warning";

/**
 * The object an Event is about: the Event's `involvedObject`. `kubectl
 * describe` finds an object's Events by its kind, name and UID, so pass the
 * UID when you have it: it also tells apart an object and a later one of the
 * same name.
 */
export interface ObjectReference {
  /** Group and version, such as `example.com/v1`. */
  apiVersion?: string;
  /** Kind, such as `Machine`. */
  kind: string;
  /**
   * Namespace; absent or empty for a cluster-scoped object, whose Events go
   * in `default`.
   */
  namespace?: string;
  /** Name of the object. */
  name: string;
  /** UID of the object. */
  uid?: string;
}

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
 * The older form of `reportingComponent` and `reportingInstance`, which
 * `kubectl describe` prints in its From column.
 */
export interface EventSource {
  /** The component, such as `machine-operator`. */
  component?: string;
  /** The instance: a pod's or a node's name. */
  host?: string;
}

/**
 * A core/v1 Event as the recorder writes it.
 *
 * It states no `eventTime` on purpose: the API server applies the strict
 * checks of `events.k8s.io/v1` (which refuse, among others, a note longer
 * than 1024 bytes) only to an Event that states one, while `kubectl describe`
 * and `kubectl events` read core/v1 either way.
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
