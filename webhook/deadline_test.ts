// A review's deadline on fake time: the handler's signal ends at it; the
// 504 waits a second past a caller's `?timeout=` (so the caller's own timer
// ends its call first), and never past our own `reviewTimeout`; an answer
// the handler gives after the deadline is not sent.
import assert from "node:assert/strict";
import { installFakeTime } from "../testing/fake_time.ts";
import { validating, webhookFetch } from "./mod.ts";
import { admissionReview } from "./_test_util.ts";
import { discardLogger } from "../log/mod.ts";

async function assertOutlived(
  response: Response,
  label: string,
): Promise<void> {
  assert.equal(response.status, 504);
  assert.equal(
    await response.text(),
    `the review outlived its deadline of ${label}\n`,
  );
}

/** Posts a review and notes the fake time its answer came. */
function send(
  fetch: (request: Request) => Promise<Response>,
  time: { now(): number },
  path: string,
  signal?: AbortSignal,
): { pending: Promise<Response>; answered(): number | undefined } {
  let at: number | undefined;
  const pending = fetch(
    new Request(`https://hooks.example.svc${path}`, {
      method: "POST",
      ...(signal ? { signal } : {}),
      headers: { "content-type": "application/json" },
      body: JSON.stringify(admissionReview("u")),
    }),
  ).then((r) => {
    at = time.now();
    return r;
  });
  return { pending, answered: () => at };
}

Deno.test("webhook deadline: the signal ends at ?timeout=, the 504 a second later, the late answer unsent", async () => {
  using time = installFakeTime();
  let aborted: number | undefined;
  const fetch = webhookFetch({
    "/slow": validating((_request, { signal }) =>
      new Promise<void>((resolve) => {
        signal.addEventListener("abort", () => {
          aborted = time.now();
          resolve(); // Allowed, but past the deadline.
        }, { once: true });
      })
    ),
  });
  const { pending, answered } = send(fetch, time, "/slow?timeout=2s");
  await time.tick(2_000);
  assert.equal(aborted, 2_000);
  assert.equal(answered(), undefined, "no answer at the caller's deadline");
  await time.tick(999);
  assert.equal(answered(), undefined);
  await time.tick(1);
  const response = await pending;
  assert.equal(answered(), 3_000);
  await assertOutlived(response, "2s");
});

Deno.test("webhook deadline: without ?timeout= the 504 comes at the longest deadline itself", async () => {
  using time = installFakeTime();
  const fetch = webhookFetch({
    "/slow": validating(() => new Promise<void>(() => {})),
  });
  const { pending, answered } = send(fetch, time, "/slow");
  await time.tick(30_000);
  const response = await pending;
  assert.equal(answered(), 30_000, "MAX_REVIEW_TIMEOUT, no grace");
  await assertOutlived(response, "30000ms");
});

Deno.test("webhook deadline: a handler's error after the deadline is not sent either", async () => {
  using time = installFakeTime();
  const fetch = webhookFetch({
    "/slow": validating((_request, { signal }) =>
      new Promise<void>((_, reject) => {
        signal.addEventListener("abort", () => reject(signal.reason), {
          once: true,
        });
      })
    ),
  }, { logger: discardLogger() });
  const { pending, answered } = send(fetch, time, "/slow?timeout=1s");
  await time.tick(1_000);
  assert.equal(answered(), undefined, "the error is held, not answered");
  await time.tick(1_000);
  const response = await pending;
  assert.equal(answered(), 2_000);
  assert.equal(response.status, 504);
  await response.body?.cancel();
});

Deno.test("webhook deadline: a caller gone after its deadline frees the slot at once", async () => {
  using time = installFakeTime();
  const fetch = webhookFetch({
    "/slow": validating(() => new Promise<void>(() => {})),
  });
  const caller = new AbortController();
  const { pending, answered } = send(
    fetch,
    time,
    "/slow?timeout=1s",
    caller.signal,
  );
  await time.tick(1_200);
  assert.equal(answered(), undefined);
  caller.abort();
  await time.settle();
  assert.equal(answered(), 1_200);
  const response = await pending;
  assert.equal(response.status, 504);
  await response.body?.cancel();
});
