/** Test helpers of the recorder's tests: a fetch that holds requests, a set-up recorder, counts. */

import { Client } from "../apiclient/mod.ts";
import type { FakeApiServer } from "../testing/mod.ts";
import { describe } from "../_internal/errors.ts";
import { Gate } from "../_internal/_gate_test_util.ts";
import { type Event, Recorder, type RecorderOptions } from "./mod.ts";
import { testLogger } from "../_internal/_log_test_util.ts";

export const START = Date.parse("2030-01-01T00:00:00.400Z");
export const machine = { kind: "Machine", name: "m1", uid: "u-1" };
export const pod = {
  apiVersion: "v1",
  kind: "Pod",
  namespace: "apps",
  name: "p1",
  uid: "u-2",
};
export const failed = {
  reason: "StepFailed",
  message: "The mount did not answer",
};

export interface Setup {
  server: FakeApiServer;
  client: Client;
  gate: Gate;
  /** The log lines and the messages of the errors reported, in order. */
  logs: string[];
  /** The errors reported to onError. */
  errors: unknown[];
  recorder: Recorder;
}

export function setup(
  server: FakeApiServer,
  options: RecorderOptions = {},
): Setup {
  const gate = new Gate(server.fetch);
  const client = new Client(server.url, { fetch: gate.fetch });
  const logs: string[] = [];
  const errors: unknown[] = [];
  const recorder = new Recorder(client, "test-operator", {
    instance: "pod-1",
    logger: testLogger({
      log: (line) => logs.push(line),
      onError: (error) => {
        errors.push(error);
        logs.push(describe(error));
      },
    }),
    ...options,
  });
  return { server, client, gate, logs, errors, recorder };
}

export function posts(server: FakeApiServer): number {
  return server.requests.filter((r) =>
    r.method === "POST" && r.path.endsWith("/events")
  ).length;
}

export function patches(server: FakeApiServer): number {
  return server.requests.filter((r) =>
    r.method === "PATCH" && r.path.includes("/events/")
  ).length;
}

export function about(
  server: FakeApiServer,
  object: { kind: string; name: string; namespace?: string },
): Event[] {
  return server.eventsAbout(object) as unknown as Event[];
}
