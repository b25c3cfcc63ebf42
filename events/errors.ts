import { describe } from "../_internal/errors.ts";
import type { ObjectReference } from "../apiclient/types.ts";
import type { Event, EventType } from "./types.ts";

/**
 * An Event the recorder gave up on: every attempt to write it failed (or its
 * one try during {@linkcode Recorder.stop}). The recorder logs it as an
 * error; the failed request's error is the `cause`. The message names
 * the Event and the recorder that reported it (its component, and its
 * instance when the Event has one), so it reads alone in any log.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { EventWriteError, Recorder } from "@liken/kubernetes/events";
 * import { Client } from "@liken/kubernetes/apiclient";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 * import { sinkLogger } from "@liken/kubernetes/log";
 *
 * await using server = new FakeApiServer();
 * server.refuse({ method: "POST", path: /\/events$/, status: 503 });
 * const client = new Client(server.url, { fetch: server.fetch });
 * const errors: unknown[] = [];
 * const recorder = new Recorder(client, "demo", {
 *   instance: "pod-1",
 *   logger: sinkLogger((record) => errors.push(record.err), { verbosity: -1 }),
 * });
 * recorder.warning({ kind: "Machine", name: "m1" }, { reason: "StepFailed", message: "No answer" });
 * await recorder.stop(); // one try for each queued Event
 * assert.ok(errors[0] instanceof EventWriteError);
 * assert.equal(errors[0].event.reason, "StepFailed");
 * assert.equal(errors[0].component, "demo");
 * assert.equal(errors[0].instance, "pod-1");
 * assert.match(
 *   errors[0].message,
 *   /^Could not write the Warning Event StepFailed about the Machine m1 reported by demo \(instance pod-1\): /,
 * );
 * ```
 */
export class EventWriteError extends Error {
  /** The Event that was not written. */
  readonly event: Event;
  /** The recorder's component: the Event's `reportingComponent`. */
  readonly component: string;
  /**
   * The recorder's instance: the Event's `reportingInstance`, `undefined`
   * when it has none.
   */
  readonly instance: string | undefined;

  /**
   * Makes the error.
   *
   * @param event The Event that was not written; its `reportingComponent`
   *   and `reportingInstance` name the recorder.
   * @param cause The error of its last try.
   */
  constructor(event: Event, cause: unknown) {
    const { kind, name } = event.involvedObject;
    const component = event.reportingComponent;
    const instance = event.reportingInstance || undefined;
    const by = instance === undefined
      ? component
      : `${component} (instance ${instance})`;
    super(
      `Could not write the ${event.type} Event ${event.reason} about the ${kind} ${name} reported by ${by}: ${
        describe(cause)
      }`,
      { cause },
    );
    this.name = "EventWriteError";
    this.event = event;
    this.component = component;
    this.instance = instance;
  }
}

/**
 * An Event the recorder did not queue: the queue was full (reported for the
 * first drop only; {@linkcode Recorder.dropped} counts them all), or the
 * recorder had stopped. The recorder logs it as an error.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { EventDroppedError, Recorder } from "@liken/kubernetes/events";
 * import { Client } from "@liken/kubernetes/apiclient";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 * import { sinkLogger } from "@liken/kubernetes/log";
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * const errors: unknown[] = [];
 * const recorder = new Recorder(client, "demo", {
 *   instance: "pod-1",
 *   logger: sinkLogger((record) => errors.push(record.err), { verbosity: -1 }),
 * });
 * await recorder.stop();
 * recorder.normal({ kind: "Machine", name: "m1" }, { reason: "Late", message: "" });
 * assert.ok(errors[0] instanceof EventDroppedError);
 * assert.equal(errors[0].why, "stopped");
 * ```
 */
export class EventDroppedError extends Error {
  /** The object the Event was about. */
  readonly object: ObjectReference;
  /** The Event's type. */
  readonly type: EventType;
  /** The Event's reason, as cut to the API limit. */
  readonly reason: string;
  /** Why it was dropped: the queue was full, or the recorder had stopped. */
  readonly why: "full" | "stopped";

  /**
   * Makes the error.
   *
   * @param object The object the Event was about.
   * @param type The Event's type.
   * @param reason The Event's reason.
   * @param why `full` with the queue's length, or `stopped`.
   * @param queueLength The queue's length, named in the message when full.
   */
  constructor(
    object: ObjectReference,
    type: EventType,
    reason: string,
    why: "full" | "stopped",
    queueLength?: number | undefined,
  ) {
    const because = why === "full"
      ? `${queueLength} Events wait to be written`
      : "the recorder has stopped";
    super(
      `Dropped the ${type} Event ${reason} about the ${object.kind} ${object.name}: ${because}`,
    );
    this.name = "EventDroppedError";
    this.object = object;
    this.type = type;
    this.reason = reason;
    this.why = why;
  }
}

/**
 * The {@linkcode Recorder} was given no `instance` and cannot read the host
 * name: grant `--allow-sys=hostname`, or pass `instance`. The error from
 * `Deno.hostname()` is the `cause`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HostnameError } from "@liken/kubernetes/events";
 *
 * const error = new HostnameError(new Error("Requires sys access"));
 * assert.equal(error.name, "HostnameError");
 * assert.match(error.message, /pass the instance option/);
 * ```
 */
export class HostnameError extends Error {
  /**
   * Makes the error.
   *
   * @param cause Why the host name could not be read.
   */
  constructor(cause: unknown) {
    super(
      "Cannot read the host name for the Events' reportingInstance: grant --allow-sys=hostname or pass the instance option",
      { cause },
    );
    this.name = "HostnameError";
  }
}
