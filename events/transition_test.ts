import assert from "node:assert/strict";
import { Client } from "../apiclient/mod.ts";
import type { Condition } from "../conditions/mod.ts";
import { FakeApiServer, installFakeTime } from "../testing/mod.ts";
import { type Event, Recorder, setCondition, transition } from "./mod.ts";

const machine = { kind: "Machine", name: "m1", uid: "u-1" };
const ready = (
  status: Condition["status"],
  reason: string,
  message = "",
): Condition => ({ type: "Ready", status, reason, message });

function recorderOn(server: FakeApiServer): Recorder {
  return new Recorder(new Client(server.url, { fetch: server.fetch }), "c", {
    instance: "i",
  });
}

function written(
  server: FakeApiServer,
): Pick<Event, "type" | "reason" | "message">[] {
  return (server.eventsAbout(machine) as unknown as Event[]).map((
    { type, reason, message },
  ) => ({ type, reason, message }));
}

Deno.test("transition posts a Warning for the bad status of each condition type and Normal otherwise", async () => {
  using _time = installFakeTime({ now: 0 });
  await using server = new FakeApiServer();
  const recorder = recorderOn(server);
  // One map for conditions of opposite polarity.
  const bad = { Ready: "False", Stalled: "True" } as const;
  const stalled = (status: "True" | "False", reason: string): Condition => ({
    type: "Stalled",
    status,
    reason,
    message: "",
  });
  transition(recorder, machine, {
    condition: ready("False", "MountFailed", "No answer"),
    bad,
  });
  transition(recorder, machine, {
    condition: ready("True", "Serving", "Up"),
    bad,
  });
  transition(recorder, machine, { condition: stalled("True", "Stuck"), bad });
  transition(recorder, machine, { condition: stalled("False", "Moving"), bad });
  // A type the map does not name is never alarming.
  transition(recorder, machine, {
    condition: { type: "Other", status: "False", reason: "Off", message: "" },
    bad,
  });
  // No bad statuses: always Normal.
  transition(recorder, machine, { condition: ready("False", "Starting") });
  await recorder.stop();
  assert.deepEqual(written(server), [
    { type: "Warning", reason: "MountFailed", message: "No answer" },
    { type: "Normal", reason: "Serving", message: "Up" },
    { type: "Warning", reason: "Stuck", message: "" },
    { type: "Normal", reason: "Moving", message: "" },
    { type: "Normal", reason: "Off", message: "" },
    { type: "Normal", reason: "Starting", message: "" },
  ]);
});

Deno.test("setCondition posts one Event per transition, none for a new message alone", async () => {
  using _time = installFakeTime({ now: 0 });
  await using server = new FakeApiServer();
  const recorder = recorderOn(server);
  const list: Condition[] = [];
  const set = (next: Condition): boolean =>
    setCondition(recorder, machine, { list, next, bad: { Ready: "False" } });
  assert.equal(set(ready("False", "Starting", "0 of 3")), true); // new
  assert.equal(set(ready("False", "Starting", "2 of 3")), false); // message only
  assert.equal(set(ready("False", "MountFailed", "No answer")), true); // reason
  assert.equal(set(ready("True", "Serving", "Up")), true); // status
  assert.equal(set(ready("True", "Serving", "Up")), false); // same
  await recorder.stop();
  assert.equal(list.length, 1);
  assert.equal(list[0]?.reason, "Serving");
  assert.deepEqual(written(server), [
    { type: "Warning", reason: "Starting", message: "0 of 3" },
    { type: "Warning", reason: "MountFailed", message: "No answer" },
    { type: "Normal", reason: "Serving", message: "Up" },
  ]);
});

Deno.test("an undefined recorder posts nothing, and setCondition still sets", () => {
  const list: Condition[] = [];
  transition(undefined, machine, {
    condition: ready("False", "X"),
    bad: { Ready: "False" },
  });
  assert.equal(
    setCondition(undefined, machine, { list, next: ready("False", "X") }),
    true,
  );
  assert.equal(list[0]?.status, "False");
  assert.equal(
    setCondition(undefined, machine, { list, next: ready("True", "Y") }),
    true,
  );
  assert.equal(list[0]?.status, "True");
});
