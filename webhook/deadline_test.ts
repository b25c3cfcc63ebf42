// A review's deadline on fake time: the handler's signal ends at it; the
// 504 waits a second past a caller's `?timeout=` (so the caller's own timer
// ends its call first), and never past our own `reviewTimeout`; an answer
// the handler gives after the deadline is not sent.
import assert from "node:assert/strict";
import { installFakeTime } from "../testing/fake_time.ts";
import { validating, webhookFetch } from "./mod.ts";
import { admissionReview } from "./_test_util.ts";
import { discardLogger } from "../log/mod.ts";

function review(path: string, signal?: AbortSignal): Request {
  return new Request(`https://hooks.example.svc${path}`, {
    method: "POST",
    ...(signal ? { signal } : {}),
    headers: { "content-type": "application/json" },
    body: JSON.stringify(admissionReview("u")),
  });
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
  let answered: number | undefined;
  const pending = fetch(review("/slow?timeout=2s")).then((r) => {
    answered = time.now();
    return r;
  });
  await time.tick(2_000);
  assert.equal(aborted, 2_000);
  assert.equal(answered, undefined, "no answer at the caller's deadline");
  await time.tick(999);
  assert.equal(answered, undefined);
  await time.tick(1);
  const response = await pending;
  assert.equal(answered, 3_000);
  assert.equal(response.status, 504);
  assert.equal(
    await response.text(),
    "the review outlived its deadline of 2s\n",
  );
});

Deno.test("webhook deadline: without ?timeout= the 504 comes at the longest deadline itself", async () => {
  using time = installFakeTime();
  const fetch = webhookFetch({
    "/slow": validating(() => new Promise<void>(() => {})),
  });
  let answered: number | undefined;
  const pending = fetch(review("/slow")).then((r) => {
    answered = time.now();
    return r;
  });
  await time.tick(30_000);
  const response = await pending;
  assert.equal(answered, 30_000, "MAX_REVIEW_TIMEOUT, no grace");
  assert.equal(response.status, 504);
  assert.equal(
    await response.text(),
    "the review outlived its deadline of 30000ms\n",
  );
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
  let answered: number | undefined;
  const pending = fetch(review("/slow?timeout=1s")).then((r) => {
    answered = time.now();
    return r;
  });
  await time.tick(1_000);
  assert.equal(answered, undefined, "the error is held, not answered");
  await time.tick(1_000);
  const response = await pending;
  assert.equal(answered, 2_000);
  assert.equal(response.status, 504);
  await response.body?.cancel();
});

Deno.test("webhook deadline: a caller gone after its deadline frees the slot at once", async () => {
  using time = installFakeTime();
  const fetch = webhookFetch({
    "/slow": validating(() => new Promise<void>(() => {})),
  });
  const caller = new AbortController();
  let answered: number | undefined;
  const pending = fetch(review("/slow?timeout=1s", caller.signal)).then(
    (r) => {
      answered = time.now();
      return r;
    },
  );
  await time.tick(1_200);
  assert.equal(answered, undefined);
  caller.abort();
  await time.settle();
  assert.equal(answered, 1_200);
  const response = await pending;
  assert.equal(response.status, 504);
  await response.body?.cancel();
});
