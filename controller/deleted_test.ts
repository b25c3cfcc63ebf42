// A primary that vanished while no watch was open reaches the handler as a
// DeletedFinalStateUnknown marker after the relist; the controller still
// reconciles its key, which the marker always carries.
import assert from "node:assert/strict";
import { Client } from "../apiclient/mod.ts";
import { FakeApiServer, installFakeTime } from "../testing/mod.ts";
import { Controller } from "./mod.ts";

const CM = "/api/v1/namespaces/default/configmaps";
const CONFIGMAPS = { version: "v1", resource: "configmaps", kind: "ConfigMap" };

Deno.test("a primary deleted while no watch was open is reconciled as gone after the relist", async () => {
  using time = installFakeTime({ now: Date.parse("2030-01-01T00:00:00Z") });
  await using server = new FakeApiServer({ freshCluster: false });
  const client = new Client(server.url, { fetch: server.fetch });
  await client.create(CM, { metadata: { name: "a" } });
  await client.create(CM, { metadata: { name: "b" } });
  const seen: string[] = [];
  await using controller = new Controller(client, {
    name: "t",
    for: CONFIGMAPS,
    reconcile: ({ key, object }) =>
      void seen.push(`${key} ${object === undefined ? "gone" : "present"}`),
  });
  await time.settle();
  await controller.idle();
  seen.length = 0;
  // The watch ends; meanwhile a goes and the history is compacted, so the
  // resumed watch gets 410 and the relist no longer finds it.
  server.cutWatches();
  server.remove(`${CM}/a`);
  server.compact();
  await time.tick(3_000);
  await time.settle();
  await controller.idle();
  assert.ok(seen.includes("default/a gone"), seen.join(", "));
  assert.deepEqual(controller.primary.store.keys(), ["default/b"]);
});
