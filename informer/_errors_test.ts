import assert from "node:assert/strict";
import {
  ApiError,
  MalformedResponseError,
  ThrottledError,
  WatchIdleError,
} from "../apiclient/mod.ts";
import {
  eventError,
  isExpired,
  isForbidden,
  isTooLargeVersion,
  isTransient,
  retryAfterMs,
} from "./_errors.ts";

const at = { method: "GET", path: "/x" };

Deno.test("410 Expired and Gone are expired", () => {
  assert.ok(isExpired(new ApiError("", { ...at, status: 410 })));
  assert.ok(isExpired(eventError({ code: 410, reason: "Expired" }, "/x")));
  assert.ok(!isExpired(new ApiError("", { ...at, status: 500 })));
  assert.ok(!isExpired(new Error("x")));
});

Deno.test("too large resource version by cause, or by message on a timeout", () => {
  assert.ok(isTooLargeVersion(
    new ApiError("", {
      ...at,
      status: 504,
      statusObject: {
        details: { causes: [{ reason: "ResourceVersionTooLarge" }] },
      },
    }),
  ));
  assert.ok(isTooLargeVersion(
    new ApiError("", {
      ...at,
      status: 504,
      statusObject: { message: "Too large resource version: 9" },
    }),
  ));
  assert.ok(
    !isTooLargeVersion(
      new ApiError("", {
        ...at,
        status: 500,
        statusObject: { message: "Too large resource version" },
      }),
    ),
  );
});

Deno.test("transient failures: no answer, 429, 5xx, an idle stream", () => {
  assert.ok(isTransient(new TypeError("connection refused")));
  assert.ok(isTransient(new WatchIdleError("/x", 1)));
  assert.ok(isTransient(new ThrottledError("", { ...at, status: 429 }, 1)));
  assert.ok(isTransient(new ApiError("", { ...at, status: 503 })));
  assert.ok(!isTransient(new ApiError("", { ...at, status: 403 })));
  assert.ok(!isTransient(new MalformedResponseError("bad", at)));
  assert.ok(isForbidden(new ApiError("", { ...at, status: 401 })));
});

Deno.test("the wait a server asks for, from the header or the Status", () => {
  assert.equal(
    retryAfterMs(new ThrottledError("", { ...at, status: 429 }, 3)),
    3_000,
  );
  assert.equal(
    retryAfterMs(
      new ApiError("", {
        ...at,
        status: 503,
        statusObject: { details: { retryAfterSeconds: 2 } },
      }),
    ),
    2_000,
  );
  assert.equal(retryAfterMs(new Error("x")), 0);
});

Deno.test("a watch ERROR event whose Status message is not text shows it as JSON", () => {
  const error = eventError(
    { code: 500, message: { nested: true } as unknown as string },
    "/x",
  );
  assert.equal(
    error.message,
    'GET /x: watch ended with 500: {"nested":true}',
  );
  assert.doesNotMatch(error.message, /\[object Object\]/);
});

Deno.test("a huge wait the server asks for is capped", () => {
  assert.equal(
    retryAfterMs(
      new ApiError("", {
        ...at,
        status: 503,
        statusObject: { details: { retryAfterSeconds: 1e9 } },
      }),
    ),
    60_000,
  );
});
