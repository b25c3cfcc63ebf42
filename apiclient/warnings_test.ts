import assert from "node:assert/strict";
import { ApiError, Client, type Outcome } from "./mod.ts";
import { failure, json, scripted } from "./_scripted_test_util.ts";
import { inClusterConfig } from "./_in_cluster.ts";
import { fakeServiceAccount } from "../testing/mod.ts";
import { MAX_WARNING_BYTES, MAX_WARNINGS } from "./_limits.ts";

const CM = "/api/v1/namespaces/default/configmaps";

/** A client whose every answer carries `warning` as its Warning header. */
function warned(warning: string, status = 200): {
  client: Client;
  outcomes: Outcome[];
  texts: [string, Outcome][];
} {
  const { fetch } = scripted((request) => {
    const headers = { warning };
    if (new URL(request.url).searchParams.has("watch")) {
      return new Response("", { status, headers });
    }
    return status === 200
      ? json(200, { metadata: { name: "a" } }, headers)
      : json(status, failure(status, "Invalid", "invalid"), headers);
  });
  const outcomes: Outcome[] = [];
  const texts: [string, Outcome][] = [];
  const client = new Client("http://api", {
    fetch,
    onWarning: (text, outcome) => texts.push([text, outcome]),
  }).withObserver((o) => outcomes.push(o));
  return { client, outcomes, texts };
}

Deno.test("warnings: the API server's Warning headers reach the outcome and onWarning", async () => {
  const { client, outcomes, texts } = warned(
    '299 - "v1beta1 is deprecated", 299 - "unknown field \\"spec.x\\", and a comma"',
  );
  await client.resource({ version: "v1", resource: "configmaps" })
    .namespace("default")
    .create({ metadata: { name: "a" } }, { fieldValidation: "Warn" });
  const expected = [
    "v1beta1 is deprecated",
    'unknown field "spec.x", and a comma',
  ];
  assert.deepEqual(outcomes[0]!.warnings, expected);
  assert.deepEqual(texts.map(([text]) => text), expected);
  // onWarning hears the same outcome the observer hears.
  assert.equal(texts[0]![1], outcomes[0]);
  assert.equal(texts[0]![1].method, "POST");
});

Deno.test("warnings: a watch's answer and a failed answer carry them too", async () => {
  {
    const { client, outcomes } = warned('299 - "watching v1beta1"');
    await (await client.watch(`${CM}?watch=true`)).cancel();
    assert.deepEqual(outcomes[0]!.warnings, ["watching v1beta1"]);
  }
  {
    const { client, outcomes, texts } = warned('299 - "field x is gone"', 422);
    await assert.rejects(client.get(`${CM}/a`), ApiError);
    assert.deepEqual(outcomes[0]!.warnings, ["field x is gone"]);
    assert.equal(outcomes[0]!.status, 422);
    assert.ok(outcomes[0]!.error instanceof ApiError);
    assert.equal(texts.length, 1);
  }
});

Deno.test("warnings: none when the answer has none", async () => {
  const { fetch } = scripted(() => json(200, {}));
  const outcomes: Outcome[] = [];
  const client = new Client("http://api", { fetch })
    .withObserver((o) => outcomes.push(o));
  await client.get("/api");
  assert.equal("warnings" in outcomes[0]!, false);
});

Deno.test("warnings: parsed as client-go does: code 299 only, dates, a malformed tail", async () => {
  const cases: [string, string[] | undefined][] = [
    ['299 - "a"', ["a"]],
    ['299 kube-apiserver:6443 "with agent" "Sat, 01 Jan 2000 00:00:00 GMT"', [
      "with agent",
    ]],
    ['199 - "other code", 299 - "kept"', ["kept"]],
    ['299 - "first", not a warning, 299 - "after"', ["first"]],
    ['299 - "unterminated', undefined],
    ['299 - ""', undefined],
    ["", undefined],
    ['299 - "back\\\\slash"', ["back\\slash"]],
  ];
  for (const [header, expected] of cases) {
    const { client, outcomes } = warned(header);
    await client.get("/api");
    assert.deepEqual(outcomes[0]!.warnings, expected, header);
  }
});

Deno.test("warnings: bounded in number and size, UTF-8 read, controls replaced", async () => {
  const many = Array.from({ length: 40 }, (_, i) => `299 - "w${i}"`).join(", ");
  {
    const { client, outcomes, texts } = warned(many);
    await client.get("/api");
    assert.equal(outcomes[0]!.warnings!.length, MAX_WARNINGS);
    assert.equal(texts.length, MAX_WARNINGS);
    assert.equal(outcomes[0]!.warnings![31], "w31");
  }
  {
    const { client, outcomes } = warned(`299 - "${"é".repeat(2000)}"`);
    await client.get("/api");
    const text = outcomes[0]!.warnings![0]!;
    assert.ok(new TextEncoder().encode(text).length <= MAX_WARNING_BYTES);
    assert.ok(text.endsWith("…"));
    assert.ok(text.length > 300);
  }
  {
    // UTF-8 bytes, which a header carries one character a byte; and a C1
    // control character (CSI, U+009B), which could steer a terminal.
    const bytes = new TextEncoder().encode("héllo \u009b[2J");
    const header = `299 - "${String.fromCharCode(...bytes)}"`;
    const { client, outcomes } = warned(header);
    await client.get("/api");
    assert.deepEqual(outcomes[0]!.warnings, ["héllo \ufffd[2J"]);
  }
});

Deno.test("warnings: an onWarning that throws changes nothing, and derived clients share it", async () => {
  const { fetch } = scripted(() =>
    json(200, {}, { warning: '299 - "one", 299 - "two"' })
  );
  const heard: string[] = [];
  const observed: Outcome[] = [];
  const client = new Client("http://api", {
    fetch,
    onWarning: (text) => {
      heard.push(text);
      throw new Error("Broken callback");
    },
  }).withSignal(new AbortController().signal)
    .withObserver((o) => observed.push(o));
  await client.get("/api");
  assert.deepEqual(heard, ["one", "two"]);
  assert.deepEqual(observed[0]!.warnings, ["one", "two"]);
});

Deno.test("warnings: an in-cluster client takes onWarning too", async () => {
  await using account = await fakeServiceAccount();
  const onWarning = (): void => {};
  const config = await inClusterConfig({
    serviceAccountDir: account.dir,
    server: "https://127.0.0.1:6443",
    onWarning,
  });
  assert.equal(config.options.onWarning, onWarning);
  // The client closes the Deno.HttpClient the configuration made.
  using _client = new Client(config.server, config.options);
});
