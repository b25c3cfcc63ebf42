import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import { microTime, rfc3339 } from "./time.ts";

Deno.test("rfc3339 cuts to the second, in UTC, and reads the clock at call time", () => {
  assert.equal(
    rfc3339(Date.parse("2030-01-01T00:00:05.999Z")),
    "2030-01-01T00:00:05Z",
  );
  assert.equal(rfc3339(0), "1970-01-01T00:00:00Z");
  const clock = FakeTimers.install({
    toFake: [
      "setTimeout",
      "clearTimeout",
      "setInterval",
      "clearInterval",
      "Date",
    ],
    now: Date.parse("2031-02-03T04:05:06.789Z"),
  });
  try {
    assert.equal(rfc3339(), "2031-02-03T04:05:06Z");
  } finally {
    clock.uninstall();
  }
});

Deno.test("microTime writes RFC 3339 in UTC with six digits", () => {
  const ms = Date.UTC(2026, 11, 2, 11, 38, 29, 123);
  assert.equal(microTime(ms), "2026-12-02T11:38:29.123000Z");
  assert.equal(microTime(new Date(ms)), "2026-12-02T11:38:29.123000Z");
  assert.equal(microTime(0), "1970-01-01T00:00:00.000000Z");
});
