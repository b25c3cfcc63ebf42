// managedFields by default, as a real API server answers every read; the
// manager of a write without fieldManager comes from the User-Agent.
import assert from "node:assert/strict";
import { Client, type KubeObject } from "../apiclient/mod.ts";
import { FakeApiServer } from "./mod.ts";

const CM = "/api/v1/namespaces/default/configmaps";

interface Entry {
  manager: string;
  operation: string;
  apiVersion: string;
  fieldsType: string;
}

function entries(object: KubeObject | undefined): Entry[] {
  return (object?.metadata.managedFields ?? []) as Entry[];
}

Deno.test("reads show managedFields by default; the manager of a write without fieldManager is the User-Agent's first word", async () => {
  await using server = new FakeApiServer();
  const client = new Client(server.url, {
    fetch: (input, init) => {
      const request = new Request(input, init);
      request.headers.set("user-agent", "greeter/1.2 (linux/amd64)");
      return server.fetch(request);
    },
  });
  const made = await client.create(CM, {
    metadata: { name: "a" },
    data: { k: "v" },
  });
  assert.deepEqual(
    entries(made).map((e) => [e.manager, e.operation, e.fieldsType]),
    [["greeter", "Update", "FieldsV1"]],
  );
  const read = await client.get<KubeObject>(`${CM}/a`);
  assert.deepEqual(entries(read), entries(made));
  await client.patch(`${CM}/a`, { data: { k: "w" } }, {
    type: "merge",
    fieldManager: "editor",
  });
  const after = await client.get<KubeObject>(`${CM}/a`);
  assert.deepEqual(entries(after).map((e) => e.manager).sort(), [
    "editor",
    "greeter",
  ]);
});

Deno.test("managedFields: false keeps them out of the objects; an apply without fieldManager is refused either way", async () => {
  await using server = new FakeApiServer({ managedFields: false });
  const client = new Client(server.url, { fetch: server.fetch });
  const made = await client.create(CM, { metadata: { name: "a" } });
  assert.equal(made.metadata.managedFields, undefined);
  const answer = await server.fetch(
    new Request(`${server.url}${CM}/b`, {
      method: "PATCH",
      headers: { "content-type": "application/apply-patch+yaml" },
      body: JSON.stringify({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "b" },
      }),
    }),
  );
  assert.equal(answer.status, 422);
  const status = await answer.json();
  assert.equal(status.reason, "Invalid");
  assert.deepEqual(status.details.causes, [{
    field: "fieldManager",
    reason: "FieldValueRequired",
    message: "Required value: is required for apply patch",
  }]);
});
