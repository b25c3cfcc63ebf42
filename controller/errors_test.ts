// The failures a controller reports say what they are about.
import assert from "node:assert/strict";
import { Client } from "../apiclient/mod.ts";
import { EventHandlerError } from "../informer/mod.ts";
import { FakeApiServer, installFakeTime } from "../testing/mod.ts";
import { Controller, WatchMapError } from "./mod.ts";
import { testLogger } from "../_internal/_log_test_util.ts";

const CONFIGMAPS = { version: "v1", resource: "configmaps", kind: "ConfigMap" };
const SECRETS = { version: "v1", resource: "secrets", namespace: "default" };

Deno.test("a watches[].map that throws is a WatchMapError naming the controller, the collection and the object; other objects still map", async () => {
  using time = installFakeTime({ now: Date.parse("2030-01-01T00:00:00Z") });
  await using server = new FakeApiServer();
  const client = new Client(server.url, { fetch: server.fetch });
  await client.create("/api/v1/namespaces/default/configmaps", {
    metadata: { name: "a" },
  });
  const errors: unknown[] = [];
  const seen: string[] = [];
  const thrown = new Error("no owner label");
  await using controller = new Controller(client, {
    name: "mirror",
    for: CONFIGMAPS,
    watches: [{
      source: SECRETS,
      map: (secret) => {
        const owner = secret.metadata.labels?.["for"];
        if (owner === undefined) throw thrown;
        return [{ ...CONFIGMAPS, namespace: "default", name: owner }];
      },
    }],
    reconcile: ({ key }) => void seen.push(key),
    logger: testLogger({ onError: (error) => void errors.push(error) }),
  });
  await time.settle();
  await controller.idle();
  seen.length = 0;
  await client.create("/api/v1/namespaces/default/secrets", {
    metadata: { name: "stray" },
  });
  await client.create("/api/v1/namespaces/default/secrets", {
    metadata: { name: "tls", labels: { for: "a" } },
  });
  await time.settle();
  await controller.idle();
  assert.deepEqual(seen, ["default/a"]);
  assert.equal(errors.length, 1);
  const [error] = errors;
  assert.ok(error instanceof WatchMapError);
  // Not an EventHandlerError: the controller's own map, not the caller's handler.
  assert.ok(!(error instanceof EventHandlerError));
  assert.equal(error.name, "WatchMapError");
  assert.equal(error.controller, "mirror");
  assert.deepEqual(error.source, SECRETS);
  assert.equal(error.collection, "default/secrets");
  assert.deepEqual(error.ref, { ...SECRETS, name: "stray" });
  assert.equal(error.cause, thrown);
  assert.equal(
    error.message,
    "Mapping default/stray of default/secrets to mirror keys failed: no owner label",
  );
});

Deno.test("a watches[].map that answers a ref of another resource or scope is a WatchMapError", async () => {
  using time = installFakeTime({ now: Date.parse("2030-01-01T00:00:00Z") });
  await using server = new FakeApiServer();
  const client = new Client(server.url, { fetch: server.fetch });
  await client.create("/api/v1/namespaces/default/configmaps", {
    metadata: { name: "a" },
  });
  const errors: unknown[] = [];
  const seen: string[] = [];
  await using controller = new Controller(client, {
    name: "mirror",
    for: CONFIGMAPS,
    watches: [{
      source: SECRETS,
      map: (secret) => {
        const name = secret.metadata.labels?.["for"] ?? "";
        return secret.metadata.name === "wrong"
          ? [{ ...SECRETS, name }, { ...CONFIGMAPS, name }]
          : [{ ...CONFIGMAPS, namespace: "default", name }];
      },
    }],
    reconcile: ({ key }) => void seen.push(key),
    logger: testLogger({ onError: (error) => void errors.push(error) }),
  });
  await time.settle();
  await controller.idle();
  seen.length = 0;
  await client.create("/api/v1/namespaces/default/secrets", {
    metadata: { name: "wrong", labels: { for: "a" } },
  });
  await client.create("/api/v1/namespaces/default/secrets", {
    metadata: { name: "right", labels: { for: "a" } },
  });
  await time.settle();
  await controller.idle();
  assert.deepEqual(seen, ["default/a"]);
  assert.deepEqual(
    errors.map((error) => (error as WatchMapError).message),
    [
      "Mapping default/wrong of default/secrets to mirror keys failed: map answered secrets a, not a ref of the primary ConfigMap",
    ],
  );
});
