// The informer's heartbeat presumes the connection under a silent watch
// dead: a client that replaces its pool (a function for its httpClient)
// dials a new connection for the relist, rather than sending it down the
// silent one (over HTTP/2 one connection carries every request).
import assert from "node:assert/strict";
import { Client } from "../apiclient/mod.ts";
import { Collection } from "./mod.ts";
import { DEFAULT_HEARTBEAT_TIMEOUT } from "./_heartbeat.ts";
import { harness, stallable } from "./_harness_test_util.ts";

Deno.test("a watch abandoned by the heartbeat replaces the client's pool", async () => {
  const s = stallable();
  await using h = harness({ fetch: s.fetch });
  let made = 0;
  using client = new Client(h.server.url, {
    fetch: s.fetch(h.server),
    httpClient: () => {
      made++;
      return Deno.createHttpClient({});
    },
  });
  await using c = new Collection(client, {
    version: "v1",
    resource: "configmaps",
  });
  await h.time.settle();
  // The first periodic bookmark arrives a minute in: the heartbeat is known.
  await h.time.tick(60_000);
  await h.time.settle();
  s.stall = true;
  await h.time.settle();
  assert.equal(made, 1);
  await h.time.tick(DEFAULT_HEARTBEAT_TIMEOUT);
  await h.time.settle();
  assert.equal(made, 2);
  assert.equal(c.current(), false);
});
