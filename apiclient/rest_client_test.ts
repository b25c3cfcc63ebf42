import assert from "node:assert/strict";
import { Client, type JSONValue, type RestClient } from "./mod.ts";
import { json, scripted } from "./_scripted_test_util.ts";

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
