// A server-side apply's field-manager conflict is no stale copy: isStale
// tells it apart from a resourceVersion conflict, on the fake's answers
// (which the differential suite holds to kube-apiserver's).
import assert from "node:assert/strict";
import { FakeApiServer } from "../testing/mod.ts";
import {
  Client,
  ConflictError,
  isFieldManagerConflict,
  isStale,
  type KubeObject,
} from "./mod.ts";

const CONFIGMAPS = { version: "v1", resource: "configmaps", namespaced: true };

Deno.test("isStale is true for a resourceVersion conflict and false for a field-manager conflict", async () => {
  await using server = new FakeApiServer();
  const client = new Client(server.url, { fetch: server.fetch });
  const cms = client.resource<KubeObject & { data?: Record<string, string> }>(
    CONFIGMAPS,
  ).namespace("default");
  const made = await cms.apply({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "a" },
    data: { k: "1" },
  }, { fieldManager: "first" });
  const owned = await cms.apply({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "a" },
    data: { k: "2" },
  }, { fieldManager: "second" }).catch((error) => error);
  assert.ok(owned instanceof ConflictError);
  assert.equal(isFieldManagerConflict(owned), true);
  assert.equal(isStale(owned), false);
  await cms.patch("a", { data: { k: "4" } }, { type: "merge" });
  const older = await cms.replace({ ...made, data: { k: "5" } }).catch((e) =>
    e
  );
  assert.ok(older instanceof ConflictError);
  assert.equal(isStale(older), true);
  assert.equal(isFieldManagerConflict(older), false);
  const gone = await cms.get("missing").catch((error) => error);
  assert.equal(isStale(gone), true);
});
