// Over real sockets: the fake served by Deno.serve on loopback, real timers.
import assert from "node:assert/strict";
import { Client } from "../apiclient/mod.ts";
import { FakeApiServer } from "../testing/mod.ts";
import { Collection } from "./mod.ts";

const CM = "/api/v1/namespaces/default/configmaps";

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 5));
}

Deno.test({
  name:
    "over HTTP the informer syncs, follows, resumes after a restart, and stops",
  timeout: 20_000,
  async fn(): Promise<void> {
    await using server = new FakeApiServer({ freshCluster: false });
    await using served = await server.serve();
    server.put(`${CM}/a`, { metadata: {} });
    const client = new Client(served.url);
    const added: string[] = [];
    const synced = Promise.withResolvers<void>();
    const collection = new Collection(
      client,
      { version: "v1", resource: "configmaps" },
      {
        handler: { add: (o) => void added.push(o.metadata.name!) },
        synced: synced.resolve,
      },
    );
    await synced.promise;
    assert.equal(collection.synced(), true);
    await client.create(CM, { metadata: { name: "b" } });
    await until(() => added.length === 2);
    server.down();
    server.put(`${CM}/c`, { metadata: {} });
    await new Promise((r) => setTimeout(r, 50));
    server.up();
    await until(() => added.length === 3); // after a backoff of about 1 s
    assert.deepEqual(added, ["a", "b", "c"]);
    const watches = server.requests.filter((r) => r.query.has("watch"));
    assert.equal(watches.at(-1)!.query.get("resourceVersion"), "2");
    await collection.stop();
    await until(() => server.openWatches === 0); // the server sees the close
  },
});
