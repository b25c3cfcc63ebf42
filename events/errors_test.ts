// The recorder's errors say which recorder failed.
import assert from "node:assert/strict";
import { FakeApiServer, installFakeTime } from "../testing/mod.ts";
import { type Event, EventWriteError } from "./mod.ts";
import { failed, machine, setup, START } from "./_recorder_test_util.ts";

function event(reportingInstance: string): Event {
  const now = "2030-01-01T00:00:00Z";
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: { generateName: "m1.", namespace: "default" },
    involvedObject: { kind: "Machine", name: "m1" },
    reason: "StepFailed",
    message: "",
    type: "Warning",
    source: { component: "machine-operator", host: reportingInstance },
    firstTimestamp: now,
    lastTimestamp: now,
    count: 1,
    reportingComponent: "machine-operator",
    reportingInstance,
  };
}

Deno.test("EventWriteError names the recorder's component and instance, and carries them", () => {
  const error = new EventWriteError(event("pod-1"), new Error("503"));
  assert.equal(
    error.message,
    "Could not write the Warning Event StepFailed about the Machine m1 reported by machine-operator (instance pod-1): 503",
  );
  assert.equal(error.component, "machine-operator");
  assert.equal(error.instance, "pod-1");
  // An Event without an instance: the component alone.
  const bare = new EventWriteError(event(""), "refused");
  assert.equal(
    bare.message,
    "Could not write the Warning Event StepFailed about the Machine m1 reported by machine-operator: refused",
  );
  assert.equal(bare.component, "machine-operator");
  assert.equal(bare.instance, undefined);
});

Deno.test("the recorder's EventWriteError reads alone: its component and instance are in the message", async () => {
  using _time = installFakeTime({ now: START });
  await using server = new FakeApiServer();
  server.refuse({ method: "POST", path: /\/events$/, status: 503 });
  const { recorder, errors } = setup(server);
  recorder.warning(machine, failed);
  await recorder.stop(); // one try
  const [error] = errors;
  assert.ok(error instanceof EventWriteError);
  assert.equal(error.component, "test-operator");
  assert.equal(error.instance, "pod-1");
  assert.match(
    error.message,
    /^Could not write the Warning Event StepFailed about the Machine m1 reported by test-operator \(instance pod-1\): /,
  );
});
