import assert from "node:assert/strict";
import { Client, type JSONValue, type RestClient } from "./mod.ts";
import { json, scripted } from "./_scripted_test_util.ts";
import type * as v07 from "./testdata/contract_v07.ts";
import type * as v08 from "./testdata/contract_v08.ts";
import { FakeApiServer } from "../testing/mod.ts";

// Type-level: `deno check` (and `deno test`) refuse this file when Client no
// longer fits the `RestClient` of either contract version, as the generated
// classes' constructors (`new CoreV1Api(client)`) take it.
function fitsBothContracts(client: Client): [v07.RestClient, v08.RestClient] {
  const asV07: v07.RestClient = client;
  const asV08: v08.RestClient = client;
  return [asV07, asV08];
}
// A derived client is a Client too.
const _derived: (c: Client) => v08.RestClient = (c) =>
  c.withSignal(new AbortController().signal);
void _derived;

// The shape the generated classes take in their constructor.
class CoreV1Like {
  #client: RestClient;
  constructor(client: RestClient) {
    this.#client = client;
  }
  async getNamespacedConfigMap(
    name: string,
    namespace?: string,
  ): Promise<JSONValue> {
    const ns = namespace ?? this.#client.defaultNamespace ?? "default";
    return await this.#client.performRequest({
      method: "GET",
      path: `/api/v1/namespaces/${ns}/configmaps/${name}`,
      expectJson: true,
    });
  }
  async patchNamespacedConfigMap(
    name: string,
    namespace: string,
    body: JSONValue,
  ): Promise<JSONValue> {
    const querystring = new URLSearchParams({ fieldManager: "typed" });
    return await this.#client.performRequest({
      method: "PATCH",
      path: `/api/v1/namespaces/${namespace}/configmaps/${name}`,
      expectJson: true,
      querystring,
      contentType: "application/merge-patch+json",
      bodyJson: body,
    });
  }
  async getConfigMapListStream(
    namespace: string,
  ): Promise<ReadableStream<JSONValue>> {
    return await this.#client.performRequest({
      method: "GET",
      path: `/api/v1/namespaces/${namespace}/configmaps`,
      expectJson: true,
      expectStream: true,
      querystring: new URLSearchParams({ watch: "1" }),
    });
  }
  async streamPodLog(
    name: string,
    namespace: string,
  ): Promise<ReadableStream<Uint8Array>> {
    return await this.#client.performRequest({
      method: "GET",
      path: `/api/v1/namespaces/${namespace}/pods/${name}/log`,
      expectStream: true,
      accept: "*/*",
    });
  }
}

Deno.test("generated-class calls run on the client: JSON, patch, JSON stream, byte stream", async () => {
  const { fetch, seen } = scripted((request) => {
    const url = new URL(request.url);
    if (url.searchParams.get("watch")) {
      return new Response(
        '{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n{"type":"DELETED","object":{"metadata":{"name":"a"}}}\n',
      );
    }
    if (url.pathname.endsWith("/log")) return new Response("line 1\nline 2\n");
    return json(200, { metadata: { name: "cm" }, data: { k: "v" } });
  });
  using client = new Client("http://api", { fetch, namespace: "team" });
  const api = new CoreV1Like(client);
  const cm = await api.getNamespacedConfigMap("cm") as { data: { k: string } };
  assert.equal(cm.data.k, "v");
  assert.equal(seen[0]!.path, "/api/v1/namespaces/team/configmaps/cm");
  await api.patchNamespacedConfigMap("cm", "team", { data: { k: "w" } });
  assert.equal(seen[1]!.method, "PATCH");
  assert.equal(
    seen[1]!.path,
    "/api/v1/namespaces/team/configmaps/cm?fieldManager=typed",
  );
  assert.equal(
    seen[1]!.headers.get("content-type"),
    "application/merge-patch+json",
  );
  assert.deepEqual(JSON.parse(seen[1]!.body), { data: { k: "w" } });
  const events: JSONValue[] = [];
  for await (const e of await api.getConfigMapListStream("team")) {
    events.push(e);
  }
  assert.deepEqual(events.map((e) => (e as { type: string }).type), [
    "ADDED",
    "DELETED",
  ]);
  const log = await new Response(await api.streamPodLog("p", "team")).text();
  assert.equal(log, "line 1\nline 2\n");
  assert.equal(seen[3]!.headers.get("accept"), "*/*");
});

Deno.test("a byte answer is bytes; a tunnel is refused clearly; dispose exists", async () => {
  const { fetch } = scripted(() => new Response("raw"));
  using client = new Client("http://api", { fetch });
  const bytes = await client.performRequest({ method: "GET", path: "/x" });
  assert.equal(new TextDecoder().decode(bytes), "raw");
  await assert.rejects(
    client.performRequest({
      method: "GET",
      path: "/api/v1/namespaces/a/pods/p/exec",
      expectTunnel: ["v4.channel.k8s.io"],
    }),
    /tunnels \(exec, attach, port-forward\) are not supported/,
  );
  assert.equal(typeof client[Symbol.dispose], "function");
});

Deno.test("cancelling a JSON stream releases the response body", async () => {
  let cancelled = false;
  const { fetch } = scripted(() =>
    new Response(
      new ReadableStream({
        start(c): void {
          c.enqueue(
            new TextEncoder().encode(
              '{"type":"ADDED","object":{"metadata":{}}}\n',
            ),
          );
        },
        cancel(): void {
          cancelled = true;
        },
      }),
    )
  );
  const client = new Client("http://api", { fetch });
  const stream = await client.performRequest({
    method: "GET",
    path: "/w",
    expectStream: true,
    expectJson: true,
  });
  const reader = stream.getReader();
  assert.equal(((await reader.read()).value as { type: string }).type, "ADDED");
  await reader.cancel();
  assert.equal(cancelled, true);
});

Deno.test("Client fits the RestClient of contracts 0.7.x and 0.8.x, and its defaultNamespace is absent when unknown", () => {
  using plain = new Client("http://127.0.0.1:9");
  using named = new Client("http://127.0.0.1:9", { namespace: "team" });
  const [asV07, asV08] = fitsBothContracts(named);
  assert.equal(asV07.defaultNamespace, "team");
  assert.equal(asV08.defaultNamespace, "team");
  assert.equal(plain.defaultNamespace, undefined);
  assert.equal(
    named.withSignal(new AbortController().signal).defaultNamespace,
    "team",
  );
});

// The five overloads, called through each contract's type against the fake.
for (const version of ["0.7.x", "0.8.x"] as const) {
  Deno.test(`the five performRequest overloads through the ${version} contract, on the fake`, async () => {
    await using server = new FakeApiServer();
    using client = new Client(server.url, {
      fetch: server.fetch,
      namespace: "default",
    });
    const rest: v07.RestClient | v08.RestClient = version === "0.7.x"
      ? fitsBothContracts(client)[0]
      : fitsBothContracts(client)[1];
    const path = `/api/v1/namespaces/${rest.defaultNamespace}/configmaps`;
    // JSON.
    const made = await rest.performRequest({
      method: "POST",
      path,
      expectJson: true,
      bodyJson: { metadata: { name: "a" }, data: { k: "v" } },
    }) as { metadata: { name: string; resourceVersion: string } };
    assert.equal(made.metadata.name, "a");
    // Bytes (text).
    const bytes = await rest.performRequest({
      method: "GET",
      path: `${path}/a`,
    });
    assert.ok(bytes instanceof Uint8Array);
    assert.equal(
      (JSON.parse(new TextDecoder().decode(bytes)) as { data: { k: string } })
        .data.k,
      "v",
    );
    // A stream of bytes, read as lines of text.
    const lineStream = await rest.performRequest({
      method: "GET",
      path,
      expectStream: true,
      querystring: new URLSearchParams({
        watch: "1",
        resourceVersion: "0",
      }),
    });
    const reader = lineStream.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("\n")) text += (await reader.read()).value ?? "";
    await reader.cancel();
    assert.match(text.split("\n")[0]!, /"type":"ADDED"/);
    // A watch stream of parsed JSON values.
    const events = await rest.performRequest({
      method: "GET",
      path,
      expectStream: true,
      expectJson: true,
      querystring: new URLSearchParams({
        watch: "1",
        resourceVersion: made.metadata.resourceVersion,
      }),
    });
    const eventReader = events.getReader();
    await client.request("DELETE", `${path}/a`);
    const event = (await eventReader.read()).value as {
      type: string;
      object: { metadata: { name: string } };
    };
    await eventReader.cancel();
    assert.equal(event.type, "DELETED");
    assert.equal(event.object.metadata.name, "a");
    // A tunnel is refused, naming the request.
    await assert.rejects(
      rest.performRequest({
        method: "POST",
        path: "/api/v1/namespaces/default/pods/p/exec",
        expectTunnel: ["v5.channel.k8s.io"],
      }),
      (error: Error) => {
        assert.match(
          error.message,
          /^POST \/api\/v1\/namespaces\/default\/pods\/p\/exec: tunnels \(exec, attach, port-forward\) are not supported by this client$/,
        );
        return true;
      },
    );
  });
}
