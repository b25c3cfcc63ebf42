// A watch's ERROR event becomes an error whose text is cut as the client
// cuts an error body: a Status may carry a message megabytes long.
import assert from "node:assert/strict";
import { eventError } from "./_errors.ts";

Deno.test("the error of a watch ERROR event with a 1 MB message is cut to 2 KiB", () => {
  const error = eventError({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    code: 500,
    message: "m".repeat(1 << 20),
  }, "/api/v1/pods");
  assert.ok(error.message.length < 2200, String(error.message.length));
  assert.match(
    error.message,
    /^GET \/api\/v1\/pods: watch ended with 500: m+…$/,
  );
  // A short one is whole.
  const short = eventError({ code: 410, message: "too old" } as never, "/x");
  assert.equal(short.message, "GET /x: watch ended with 410: too old");
});
