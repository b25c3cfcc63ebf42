// The user's edits of chaos family (b) (`_edits.ts`), on the fake API
// server and fake time: an edit retried through an outage never writes its
// message over a later edit's.
import assert from "node:assert/strict";
import { Client } from "../../apiclient/mod.ts";
import { GREETING, type Greeting } from "../../examples/greeting.ts";
import { greetingPath, newGreeting } from "../../examples/samples.ts";
import { FakeApiServer } from "../fake_server.ts";
import { installFakeTime } from "../fake_time.ts";
import { GreetingEdits } from "./_edits.ts";

const NS = "default";

async function messages(client: Client): Promise<string[]> {
  return await Promise.all(
    ["g0", "g1"].map(async (name) =>
      (await client.get<Greeting>(greetingPath(NS, name))).spec.message
    ),
  );
}

Deno.test("an edit retried through an outage ends before the next starts, so the last edit's message stays", async () => {
  await using server = new FakeApiServer();
  const client = new Client(server.url, { fetch: server.fetch });
  await client.create(
    "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
    GREETING.crd(),
  );
  for (const name of ["g0", "g1"]) {
    await client.create(greetingPath(NS), newGreeting(name, "v0"));
  }
  using time = installFakeTime({ now: Date.UTC(2030, 0, 1) });
  const edits = new GreetingEdits(client, NS, 2);
  // The server goes down: the first edit retries every 200 ms.
  server.down();
  const first = edits.set("v1");
  await time.tick(1_000);
  assert.deepEqual(await messages(client).catch(() => "down"), "down");
  // Back up, the user's last edit is made at once, between two retries of
  // the first.
  server.up();
  const last = edits.set("final");
  await time.settle();
  await time.tick(1_000);
  await Promise.all([first, last]);
  assert.deepEqual(await messages(client), ["final", "final"]);
  // Both edits were made, the first one first.
  const replaced = server.requests.filter((r) =>
    r.method === "PUT" && r.path.startsWith(greetingPath(NS))
  );
  assert.equal(replaced.length, 4);
});
