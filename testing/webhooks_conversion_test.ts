// Conversion webhooks through the fake: a two-version kind (v1 stored, with
// spec.message; v2 with spec.text) whose CustomResourceDefinition names a
// WebhookServer on 127.0.0.1 (the library's conversion handler, over HTTPS
// with generateCertificates' certificates). Every object crossing between
// v1 and v2 goes through one ConversionReview, as kube-apiserver sends them
// (the testing/differential scenario conversion-webhooks holds the fake to
// the real server's answers and reviews).
import assert from "node:assert/strict";
import { FakeApiServer } from "./fake_server.ts";
import type { FakeApiServerOptions } from "./types.ts";
import { defineResource } from "../resource/mod.ts";
import type { CustomResourceConversion } from "../resource/mod.ts";
import {
  conversion,
  type ConversionReview,
  generateCertificates,
  type Webhook,
  WebhookServer,
} from "../webhook/mod.ts";
import type { KubeObject } from "../apiclient/types.ts";
import { certificates } from "./_admission/webhooks_test_util.ts";
import { testLogger } from "../_internal/_log_test_util.ts";

const GROUP = "demo.example.com";
const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const V1 = `/apis/${GROUP}/v1/namespaces/default/notes`;
const V2 = `/apis/${GROUP}/v2/namespaces/default/notes`;
const CRD_NAME = `notes.${GROUP}`;

const spec = (field: string) =>
  ({
    type: "object",
    properties: {
      spec: { type: "object", properties: { [field]: { type: "string" } } },
    },
  }) as const;

const NOTES = defineResource({
  group: GROUP,
  kind: "Note",
  plural: "notes",
  scope: "Namespaced",
  versions: [
    { name: "v1", storage: true, schema: spec("message") },
    { name: "v2", schema: spec("text") },
  ],
});

type Note = KubeObject & { spec?: Record<string, unknown> };

function convertNote(object: KubeObject, version: string): KubeObject {
  const { spec = {}, ...rest } = object as Note;
  const converted = version === "v2"
    ? { ...rest, spec: { text: spec.message } }
    : { ...rest, spec: { message: spec.text } };
  return converted as KubeObject;
}

function note(version: "v1" | "v2", name: string, value: string): Note {
  return {
    apiVersion: `${GROUP}/${version}`,
    kind: "Note",
    metadata: { name },
    spec: version === "v1" ? { message: value } : { text: value },
  };
}

/** How the test webhook answers: right, or wrong in one way. */
type Mode = "ok" | "uid" | "failed" | "count" | "name" | "meta";

interface Fixture extends AsyncDisposable {
  api: FakeApiServer;
  /** Each review the webhook got: `desiredAPIVersion` and the objects' names. */
  reviews: { desired: string; objects: string[] }[];
  mode: Mode;
  port: number;
  send(method: string, path: string, body?: unknown): Promise<{
    status: number;
    body: Record<string, unknown>;
  }>;
}

/** The library's webhook, made wrong as the fixture's mode says. */
function testWebhook(f: { mode: Mode; reviews: Fixture["reviews"] }): Webhook<
  ConversionReview
> {
  const inner = conversion(NOTES, convertNote);
  return {
    type: "conversion",
    async review(body, options): Promise<ConversionReview> {
      const request = (body as ConversionReview).request!;
      f.reviews.push({
        desired: request.desiredAPIVersion,
        objects: request.objects.map((o) => o.metadata.name ?? ""),
      });
      const answer = await inner.review(body, options);
      const response = answer.response!;
      switch (f.mode) {
        case "uid":
          response.uid = "another";
          break;
        case "failed":
          response.convertedObjects = [];
          response.result = { status: "Failure", message: "no, thanks" };
          break;
        case "count":
          response.convertedObjects = [];
          break;
        case "name":
          response.convertedObjects[0]!.metadata.name = "renamed";
          break;
        case "meta":
          // Labels are the webhook's to change; the rest is restored.
          response.convertedObjects[0]!.metadata.labels = { converted: "yes" };
          response.convertedObjects[0]!.metadata.generation = 99;
          response.convertedObjects[0]!.metadata.finalizers = ["x/y"];
          break;
      }
      return answer;
    },
  };
}

async function fixture(
  options: {
    clientConfig?: (port: number, caBundle: string) => Record<string, unknown>;
    api?: FakeApiServerOptions;
  } = {},
): Promise<Fixture> {
  const made = await certificates();
  const state = { mode: "ok" as Mode, reviews: [] as Fixture["reviews"] };
  const hooks = new WebhookServer({
    hostname: "127.0.0.1",
    port: 0,
    cert: made.cert,
    key: made.key,
    logger: testLogger({ onError: () => {} }),
    webhooks: { "/convert": testWebhook(state) },
  });
  const api = new FakeApiServer(options.api);
  const send: Fixture["send"] = async (method, path, body) => {
    const response = await api.fetch(`${api.url}${path}`, {
      method,
      headers: {
        "content-type": path.includes("fieldManager")
          ? "application/apply-patch+yaml"
          : method === "PATCH"
          ? "application/merge-patch+json"
          : "application/json",
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: await response.json() };
  };
  const clientConfig = options.clientConfig?.(hooks.port, made.caBundle) ??
    {
      url: `https://127.0.0.1:${hooks.port}/convert`,
      caBundle: made.caBundle,
    };
  const crd = NOTES.crd({
    conversion: {
      strategy: "Webhook",
      webhook: {
        clientConfig: clientConfig as { url: string },
        conversionReviewVersions: ["v1"],
      },
    },
  });
  const created = await send("POST", CRDS, crd);
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const f: Fixture = {
    api,
    reviews: state.reviews,
    get mode(): Mode {
      return state.mode;
    },
    set mode(mode: Mode) {
      state.mode = mode;
    },
    port: hooks.port,
    send,
    async [Symbol.asyncDispose](): Promise<void> {
      await api.stop();
      await hooks.stop();
    },
  };
  return f;
}

const specOf = (body: Record<string, unknown>): unknown => body.spec;

Deno.test("conversion: a create in v2 is stored in v1 through the webhook and answered in v2; a read in v2 is converted", async () => {
  await using f = await fixture();
  const made = await f.send("POST", V2, note("v2", "a", "hello"));
  assert.equal(made.status, 201, JSON.stringify(made.body));
  assert.equal(made.body.apiVersion, `${GROUP}/v2`);
  assert.deepEqual(specOf(made.body), { text: "hello" });
  // Stored in v1, as the webhook converted it (None would lose the text).
  const stored = await f.send("GET", `${V1}/a`);
  assert.deepEqual(specOf(stored.body), { message: "hello" });
  assert.equal(stored.body.apiVersion, `${GROUP}/v1`);
  const read = await f.send("GET", `${V2}/a`);
  assert.equal(read.body.apiVersion, `${GROUP}/v2`);
  assert.deepEqual(specOf(read.body), { text: "hello" });
  assert.deepEqual(
    (read.body.metadata as { uid?: string }).uid,
    (made.body.metadata as { uid?: string }).uid,
  );
  // One review to store it, one to answer it, one for the read in v2.
  assert.deepEqual(f.reviews, [
    { desired: `${GROUP}/v1`, objects: ["a"] },
    { desired: `${GROUP}/v2`, objects: ["a"] },
    { desired: `${GROUP}/v2`, objects: ["a"] },
  ]);
});

Deno.test("conversion: reads and writes in the storage version call no webhook", async () => {
  await using f = await fixture();
  assert.equal((await f.send("POST", V1, note("v1", "a", "x"))).status, 201);
  assert.equal((await f.send("GET", `${V1}/a`)).status, 200);
  assert.equal((await f.send("GET", V1)).status, 200);
  assert.equal(
    (await f.send("PATCH", `${V1}/a`, { spec: { message: "y" } })).status,
    200,
  );
  assert.equal((await f.send("DELETE", `${V1}/a`)).status, 200);
  assert.deepEqual(f.reviews, []);
});

Deno.test("conversion: a list in v2 converts each object of the page, one review per object as kube-apiserver does", async () => {
  await using f = await fixture();
  for (const name of ["a", "b", "c"]) {
    await f.send("POST", V1, note("v1", name, `m-${name}`));
  }
  const all = await f.send("GET", V2);
  assert.equal(all.status, 200);
  assert.equal(all.body.apiVersion, `${GROUP}/v2`);
  const items = all.body.items as Note[];
  assert.deepEqual(items.map((i) => [i.apiVersion, i.spec]), [
    [`${GROUP}/v2`, { text: "m-a" }],
    [`${GROUP}/v2`, { text: "m-b" }],
    [`${GROUP}/v2`, { text: "m-c" }],
  ]);
  assert.deepEqual(f.reviews.map((r) => r.objects), [["a"], ["b"], ["c"]]);
  f.reviews.length = 0;
  const page = await f.send("GET", `${V2}?limit=2`);
  assert.equal((page.body.items as Note[]).length, 2);
  assert.deepEqual(f.reviews.map((r) => r.objects), [["a"], ["b"]]);
});

Deno.test("conversion: a watch in v2 gets each event converted, in order", async () => {
  await using f = await fixture();
  await f.send("POST", V1, note("v1", "a", "first"));
  const stop = new AbortController();
  const response = await f.api.fetch(`${f.api.url}${V2}?watch=1`, {
    signal: stop.signal,
  });
  const reader = response.body!.pipeThrough(new TextDecoderStream())
    .getReader();
  const events: { type: string; object: Note }[] = [];
  let buffer = "";
  const read = async (count: number): Promise<void> => {
    while (events.length < count) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let at: number;
      while ((at = buffer.indexOf("\n")) >= 0) {
        events.push(JSON.parse(buffer.slice(0, at)));
        buffer = buffer.slice(at + 1);
      }
    }
  };
  await read(1);
  await f.send("PATCH", `${V1}/a`, { spec: { message: "second" } });
  await f.send("POST", V1, note("v1", "b", "third"));
  await read(3);
  await reader.cancel();
  stop.abort();
  assert.deepEqual(
    events.map((e) => [e.type, e.object.apiVersion, e.object.spec]),
    [
      ["ADDED", `${GROUP}/v2`, { text: "first" }],
      ["MODIFIED", `${GROUP}/v2`, { text: "second" }],
      ["ADDED", `${GROUP}/v2`, { text: "third" }],
    ],
  );
  assert.deepEqual(f.reviews.map((r) => r.objects), [["a"], ["a"], ["b"]]);
});

Deno.test("conversion: an update and a patch in v2 convert the old object, the new one and the answer", async () => {
  await using f = await fixture();
  const made = await f.send("POST", V2, note("v2", "a", "one"));
  f.reviews.length = 0;
  const updated = await f.send("PUT", `${V2}/a`, {
    ...made.body,
    spec: { text: "two" },
  });
  assert.equal(updated.status, 200, JSON.stringify(updated.body));
  assert.deepEqual(specOf(updated.body), { text: "two" });
  const patched = await f.send("PATCH", `${V2}/a`, { spec: { text: "three" } });
  assert.deepEqual(specOf(patched.body), { text: "three" });
  assert.deepEqual(specOf((await f.send("GET", `${V1}/a`)).body), {
    message: "three",
  });
  const desired = f.reviews.map((r) => r.desired.split("/")[1]);
  assert.deepEqual(desired, ["v2", "v1", "v2", "v2", "v1", "v2"]);
});

Deno.test("conversion: the webhook may change labels; other metadata is restored", async () => {
  await using f = await fixture();
  await f.send("POST", V1, note("v1", "a", "x"));
  f.mode = "meta";
  const read = await f.send("GET", `${V2}/a`);
  assert.equal(read.status, 200, JSON.stringify(read.body));
  const metadata = read.body.metadata as Record<string, unknown>;
  assert.deepEqual(metadata.labels, { converted: "yes" });
  assert.equal(metadata.generation, 1);
  assert.equal(metadata.finalizers, undefined);
});

Deno.test("conversion: a wrong answer fails the read with the API server's 500 and its words", async () => {
  await using f = await fixture();
  const made = await f.send("POST", V1, note("v1", "a", "x"));
  const rv = (made.body.metadata as { resourceVersion: string })
    .resourceVersion;
  const storage = (error: string): string =>
    `StorageError: corrupt object, Code: 7, Key: /${GROUP}/notes/default/a, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=${rv}: conversion webhook for ${GROUP}/v1, Kind=Note ${error}`;
  const cases: [Mode, RegExp][] = [
    ["uid", /^failed: expected response\.uid="[0-9a-f-]{36}", got "another"$/],
    ["failed", /^failed: no, thanks$/],
    ["count", /^returned 0 objects, expected 1$/],
    [
      "name",
      /^returned invalid object: must have the same name: a != renamed$/,
    ],
  ];
  for (const [mode, error] of cases) {
    f.mode = mode;
    const read = await f.send("GET", `${V2}/a`);
    assert.equal(read.status, 500, mode);
    assert.equal(read.body.reason, "InternalError", mode);
    const message = String(read.body.message);
    const prefix = `Internal error occurred: ${storage("")}`;
    assert.ok(message.startsWith(prefix), `${mode}: ${message}`);
    assert.match(message.slice(prefix.length), error, mode);
    assert.deepEqual(read.body.details, {
      causes: [{ message: message.replace("Internal error occurred: ", "") }],
    });
  }
  f.mode = "failed";
  const list = await f.send("GET", V2);
  assert.equal(list.status, 500);
  assert.equal(list.body.reason, "StorageReadError");
  assert.match(
    String(list.body.message),
    /^failed to read one or more notes\.demo\.example\.com from the storage: StorageError: corrupt object, .*Key: \/registry\/demo\.example\.com\/notes\/default\/a, .*failed: no, thanks$/,
  );
});

Deno.test("conversion: a write the webhook refuses is a 500 and nothing is stored", async () => {
  await using f = await fixture();
  f.mode = "failed";
  const made = await f.send("POST", V2, note("v2", "a", "x"));
  assert.deepEqual(made, {
    status: 500,
    body: {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message:
        `conversion webhook for ${GROUP}/v2, Kind=Note failed: no, thanks`,
      code: 500,
    },
  });
  f.mode = "ok";
  assert.equal((await f.send("GET", `${V1}/a`)).status, 404);
});

Deno.test("conversion: a webhook that is down, or signed by another CA, fails the request with a 500", async () => {
  // Down: a port that was listening and is closed.
  const closed = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen(): void {} },
    () => new Response(),
  );
  const port = closed.addr.port;
  await closed.shutdown();
  {
    await using f = await fixture({
      clientConfig: (_port, caBundle) => ({
        url: `https://127.0.0.1:${port}/convert`,
        caBundle,
      }),
    });
    await f.send("POST", V1, note("v1", "a", "x"));
    const read = await f.send("GET", `${V2}/a`);
    assert.equal(read.status, 500);
    assert.match(
      String(read.body.message),
      new RegExp(
        `conversion webhook for ${GROUP}/v1, Kind=Note failed: Post "https://127\\.0\\.0\\.1:${port}/convert\\?timeout=30s": .+$`,
      ),
    );
    const write = await f.send("POST", V2, note("v2", "b", "x"));
    assert.equal(write.status, 500);
    assert.match(
      String(write.body.message),
      /^conversion webhook for .*\/v2, Kind=Note failed: Post /,
    );
  }
  {
    const other = await generateCertificates({ ipAddresses: ["127.0.0.1"] });
    await using f = await fixture({
      clientConfig: (hookPort) => ({
        url: `https://127.0.0.1:${hookPort}/convert`,
        caBundle: other.caBundle,
      }),
    });
    await f.send("POST", V1, note("v1", "a", "x"));
    const read = await f.send("GET", `${V2}/a`);
    assert.equal(read.status, 500);
    assert.match(String(read.body.message), /Kind=Note failed: Post "https:/);
    assert.deepEqual(f.reviews, []);
  }
});

Deno.test("conversion: a service reference is called where resolveService says", async () => {
  let port = 0;
  const resolved: string[] = [];
  await using f = await fixture({
    clientConfig: (_port, caBundle) => ({
      service: { namespace: "ops", name: "hooks", path: "/convert" },
      caBundle,
    }),
    api: {
      resolveService: (service) => {
        resolved.push(`${service.namespace}/${service.name}:${service.port}`);
        return `https://127.0.0.1:${port}`;
      },
    },
  });
  port = f.port;
  await f.send("POST", V1, note("v1", "a", "x"));
  const read = await f.send("GET", `${V2}/a`);
  assert.deepEqual(specOf(read.body), { text: "x" });
  // The API server's default port, 443, filled in on the definition.
  assert.deepEqual(resolved, ["ops/hooks:443"]);
  const crd = await f.send("GET", `${CRDS}/${CRD_NAME}`);
  assert.deepEqual(
    (crd.body.spec as { conversion: CustomResourceConversion }).conversion,
    {
      strategy: "Webhook",
      webhook: {
        clientConfig: {
          service: {
            namespace: "ops",
            name: "hooks",
            path: "/convert",
            port: 443,
          },
          caBundle: (await certificates()).caBundle,
        },
        conversionReviewVersions: ["v1"],
      },
    },
  );
});

Deno.test("conversion: an invalid conversion stanza is refused with 422, as kube-apiserver refuses it", async () => {
  await using api = new FakeApiServer();
  const send = async (conversion: unknown): Promise<[number, string[]]> => {
    const crd = NOTES.crd();
    (crd.spec as { conversion?: unknown }).conversion = conversion;
    const response = await api.fetch(`${api.url}${CRDS}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(crd),
    });
    const body = await response.json();
    const causes = (body.details?.causes ?? []) as {
      field: string;
      message: string;
    }[];
    return [response.status, causes.map((c) => `${c.field}: ${c.message}`)];
  };
  const url = "https://127.0.0.1:1/convert";
  const webhook = { clientConfig: { url }, conversionReviewVersions: ["v1"] };
  const at = "spec.conversion";
  assert.deepEqual(await send({ strategy: "Webhook" }), [422, [
    `${at}.webhookClientConfig: Required value: required when strategy is set to Webhook`,
    `${at}.conversionReviewVersions: Required value`,
  ]]);
  assert.deepEqual(
    await send({ strategy: "Webhook", webhook: { clientConfig: { url } } }),
    [422, [`${at}.conversionReviewVersions: Required value`]],
  );
  assert.deepEqual(
    await send({
      strategy: "Webhook",
      webhook: { ...webhook, conversionReviewVersions: ["v9"] },
    }),
    [422, [
      `${at}.conversionReviewVersions: Invalid value: ["v9"]: must include at least one of v1, v1beta1`,
    ]],
  );
  assert.deepEqual(
    await send({
      strategy: "Webhook",
      webhook: {
        ...webhook,
        clientConfig: { url, service: { namespace: "a", name: "b" } },
      },
    }),
    [422, [
      `${at}.webhookClientConfig: Required value: exactly one of url or service is required`,
    ]],
  );
  assert.deepEqual(
    await send({
      strategy: "Webhook",
      webhook: { ...webhook, clientConfig: { url: "http://127.0.0.1/x" } },
    }),
    [422, [
      `${at}.webhookClientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
    ]],
  );
  assert.deepEqual(await send({ strategy: "None", webhook }), [422, [
    `${at}.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook`,
    `${at}.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook`,
  ]]);
  assert.deepEqual(await send({ strategy: "Sometimes" }), [422, [
    `${at}.strategy: Unsupported value: "Sometimes": supported values: "None", "Webhook"`,
  ]]);
  // A valid one is taken.
  assert.deepEqual(await send({ strategy: "Webhook", webhook }), [201, []]);
});
