import assert from "node:assert/strict";
import type { KubeObject } from "../apiclient/types.ts";
import {
  cachedGet,
  cachedList,
  cachedPeek,
  Collection,
  finalState,
} from "./mod.ts";
import { CM, harness, isList, isStreamingList } from "./_harness_test_util.ts";
import type { FakeApiServer } from "../testing/mod.ts";

const CONFIGMAPS = { version: "v1", resource: "configmaps" };
const WATCH_ACCEPT =
  "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json";
const LIST_ACCEPT =
  "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";

function put(server: FakeApiServer, name: string, v: string): void {
  server.put(`${CM}/${name}`, {
    metadata: { labels: { app: "web" } },
    data: { v, big: "x".repeat(1_000) },
  } as KubeObject);
}

/** What a metadata-only store must hold for one object. */
function partial(object: KubeObject): KubeObject {
  return {
    apiVersion: "meta.k8s.io/v1",
    kind: "PartialObjectMetadata",
    metadata: object.metadata,
  };
}

for (const read of ["streaming list", "paginated list"] as const) {
  Deno.test(`metadataOnly holds each object's metadata alone, read by a ${read} and watched`, async () => {
    const accepts = new Set<string>();
    await using h = harness({
      namespaceLifecycle: false,
      fetch: (server) => (input, init) => {
        const request = new Request(input, init);
        const watch = new URL(request.url).searchParams.has("watch");
        accepts.add(
          `${watch ? "watch" : "list"} ${request.headers.get("accept")}`,
        );
        return server.fetch(request);
      },
    });
    put(h.server, "a", "1");
    if (read === "paginated list") {
      h.server.refuse({ watch: true, status: 422, count: 1 });
    }
    const kinds: string[] = [];
    await using c = new Collection(h.client, CONFIGMAPS, {
      metadataOnly: true,
      handler: {
        add: (o) => void kinds.push(`add ${o.kind}`),
        update: (_, o) => void kinds.push(`update ${o.kind}`),
        delete: (o) => void kinds.push(`delete ${finalState(o)?.kind}`),
      },
    });
    await h.time.settle();
    assert.equal(
      h.server.requests.some(
        read === "paginated list" ? isList : (r) => isStreamingList(r),
      ),
      true,
    );
    put(h.server, "b", "1");
    put(h.server, "a", "2");
    await h.time.settle();
    assert.deepEqual(
      [...accepts],
      read === "paginated list"
        ? [`watch ${WATCH_ACCEPT}`, `list ${LIST_ACCEPT}`]
        : [`watch ${WATCH_ACCEPT}`],
    );
    const whole = await h.client.get<KubeObject>(`${CM}/a`);
    assert.deepEqual(c.store.get("default/a"), partial(whole));
    assert.equal(c.store.get("default/a")!.metadata.labels!.app, "web");
    assert.deepEqual(c.store.keys(), ["default/a", "default/b"]);
    h.server.remove(`${CM}/b`);
    await h.time.settle();
    assert.deepEqual(kinds, [
      "add PartialObjectMetadata",
      "add PartialObjectMetadata",
      "update PartialObjectMetadata",
      "delete PartialObjectMetadata",
    ]);
  });
}

Deno.test("metadataOnly cuts whole objects down when the server ignores the Accept header", async () => {
  await using h = harness({
    fetch: (server) => (input, init) => {
      const request = new Request(input, init);
      request.headers.set("accept", "application/json");
      return server.fetch(request);
    },
  });
  put(h.server, "a", "1");
  await using c = new Collection(h.client, CONFIGMAPS, { metadataOnly: true });
  await h.time.settle();
  put(h.server, "b", "1");
  await h.time.settle();
  for (const key of ["default/a", "default/b"]) {
    const held = c.store.get(key)!;
    assert.equal(held.kind, "PartialObjectMetadata", key);
    assert.equal((held as { data?: unknown }).data, undefined, key);
  }
});

Deno.test("without metadataOnly the store holds whole objects", async () => {
  await using h = harness();
  put(h.server, "a", "1");
  await using c = new Collection(h.client, CONFIGMAPS);
  await h.time.settle();
  assert.equal(c.store.get("default/a")!.kind, "ConfigMap");
});

Deno.test("the memo-aware reads refuse a metadata-only view; the store and cached still answer", async () => {
  await using h = harness();
  put(h.server, "a", "1");
  await using c = new Collection(h.client, CONFIGMAPS, { metadataOnly: true });
  await h.time.settle();
  const view = c.view();
  assert.equal(c.metadataOnly, true);
  assert.equal(view.metadataOnly, true);
  const ref = { ...CONFIGMAPS, namespace: "default", name: "a" };
  assert.equal(cachedPeek(view, ref)?.kind, "PartialObjectMetadata");
  const refused = (error: unknown): boolean =>
    error instanceof TypeError && /holds metadata only/.test(error.message);
  await assert.rejects(cachedGet(h.client, ref, { view }), refused);
  await assert.rejects(cachedList(h.client, CONFIGMAPS, { view }), refused);
  await assert.rejects(cachedList(h.client, CONFIGMAPS, { view }), refused);
  // Without the view, the read goes to the API server: a whole object.
  const whole = await cachedGet<KubeObject & { data?: { v?: string } }>(
    h.client,
    ref,
  );
  assert.equal(whole.data?.v, "1");
});
