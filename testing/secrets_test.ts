import assert from "node:assert/strict";
import { FakeApiServer } from "./fake_server.ts";
import { call } from "./_test_util.ts";

const SECRETS = "/api/v1/namespaces/default/secrets";
const APPLY = "application/apply-patch+yaml";

const secret = (fields: Record<string, unknown>) => ({
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name: "s", namespace: "default" },
  ...fields,
});

Deno.test("a Secret's stringData is merged into data on create and never stored", async () => {
  await using server = new FakeApiServer();
  const made = await call(
    server,
    "POST",
    SECRETS,
    secret({
      data: { a: btoa("old"), b: btoa("kept") },
      stringData: { a: "né" },
    }),
  );
  assert.equal(made.status, 201);
  // stringData wins over data; UTF-8 before base64.
  assert.deepEqual(made.body.data, {
    a: btoa(String.fromCharCode(...new TextEncoder().encode("né"))),
    b: btoa("kept"),
  });
  assert.equal(made.body.stringData, undefined);
  const read = await call(server, "GET", `${SECRETS}/s`);
  assert.equal(read.body.stringData, undefined);
  assert.equal(read.body.data.b, btoa("kept"));
});

Deno.test("a Secret's stringData replaces data on update, merge patch and apply", async () => {
  await using server = new FakeApiServer();
  await call(server, "POST", SECRETS, secret({ data: { v: btoa("0") } }));
  const got = await call(server, "GET", `${SECRETS}/s`);
  const put = await call(server, "PUT", `${SECRETS}/s`, {
    ...got.body,
    stringData: { v: "1" },
  });
  assert.equal(put.status, 200);
  assert.deepEqual(put.body.data, { v: btoa("1") });
  const merged = await call(
    server,
    "PATCH",
    `${SECRETS}/s`,
    { stringData: { v: "2" } },
    "application/merge-patch+json",
  );
  assert.deepEqual(merged.body.data, { v: btoa("2") });
  for (const value of ["3", "4"]) {
    const applied = await call(
      server,
      "PATCH",
      `${SECRETS}/s?fieldManager=m&force=true`,
      secret({ stringData: { v: value } }),
      APPLY,
    );
    assert.equal(applied.status, 200);
    assert.deepEqual(applied.body.data, { v: btoa(value) });
    assert.equal(applied.body.stringData, undefined);
  }
});
