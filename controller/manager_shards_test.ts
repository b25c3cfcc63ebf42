import assert from "node:assert/strict";
import { Client } from "../apiclient/mod.ts";
import { REQUEST_TIMEOUT } from "../election/mod.ts";
import { Metrics } from "../metrics/mod.ts";
import { memberHash, shardLabel } from "../shard/mod.ts";
import { FakeApiServer, installFakeTime } from "../testing/mod.ts";
import { Manager } from "./mod.ts";
import { testLogger } from "../_internal/_log_test_util.ts";

const CONFIGMAPS = { version: "v1", resource: "configmaps", kind: "ConfigMap" };
const SECRETS = { version: "v1", resource: "secrets", kind: "Secret" };
const LABEL = shardLabel("mirror");

Deno.test("Manager shards: two replicas share the objects, each watches and reconciles only its own, children follow", async () => {
  using time = installFakeTime({ now: Date.parse("2030-01-01T00:00:00Z") });
  await using server = new FakeApiServer({ freshCluster: false });
  const user = new Client(server.url, { fetch: server.fetch });
  const configMaps = user.resource(CONFIGMAPS).namespace("default");
  for (let i = 0; i < 20; i++) {
    await configMaps.create({ metadata: { name: `cm-${i}` } });
  }
  // A child the reconcile never applies: the sharder labels it.
  const first = await configMaps.get("cm-0");
  await user.resource(SECRETS).namespace("default").create({
    metadata: {
      name: "extra",
      ownerReferences: [{
        apiVersion: "v1",
        kind: "ConfigMap",
        name: "cm-0",
        uid: first.metadata.uid!,
        controller: true,
      }],
    },
  });
  const errors: unknown[] = [];
  const onError = (error: unknown): void => {
    // Replicas racing for the sharder's Lease: one creates it, one is told
    // it exists.
    if ((error as Error).name !== "LeaseRequestError") errors.push(error);
  };
  const seen = new Map<string, Set<string>>();
  const metrics = new Metrics();
  const replica = (pod: string, options: { metrics?: Metrics } = {}) => {
    const mine = new Set<string>();
    seen.set(pod, mine);
    return new Manager(
      new Client(server.url, { fetch: server.fetch, timeout: REQUEST_TIMEOUT }),
      {
        shards: { namespace: "default", identity: pod, exit: () => {} },
        logger: testLogger({ onError }),
        controllers: [{
          name: "mirror",
          for: CONFIGMAPS,
          owns: [SECRETS],
          reconcile: async (context) => {
            if (context.object === undefined) return;
            mine.add(context.key);
            await context.apply({
              apiVersion: "v1",
              kind: "Secret",
              metadata: { name: context.ref.name, namespace: "default" },
            });
          },
        }],
        ...options,
      },
    );
  };
  await using a = replica("op-a", { metrics });
  await using b = replica("op-b");
  const done = (): boolean =>
    seen.get("op-a")!.size + seen.get("op-b")!.size === 20;
  for (let i = 0; i < 120 && !done(); i++) await time.tick(1_000);
  assert.ok(done(), `${seen.get("op-a")!.size} + ${seen.get("op-b")!.size}`);
  const [onA, onB] = [seen.get("op-a")!, seen.get("op-b")!];
  assert.ok(onA.size > 0 && onB.size > 0, `${onA.size} / ${onB.size}`);
  assert.equal([...onA].filter((key) => onB.has(key)).length, 0);
  // Every primary and child is labelled with its member, and each
  // replica's caches hold only its own.
  const hash = { "op-a": memberHash("op-a"), "op-b": memberHash("op-b") };
  for (const object of (await configMaps.list()).items) {
    const key = `default/${object.metadata.name}`;
    const member = onA.has(key) ? hash["op-a"] : hash["op-b"];
    assert.equal(object.metadata.labels?.[LABEL], member, key);
    const child = await user.resource(SECRETS).namespace("default")
      .get(object.metadata.name!);
    assert.equal(child.metadata.labels?.[LABEL], member, `child ${key}`);
  }
  for (const [manager, keys] of [[a, onA], [b, onB]] as const) {
    const [controller] = manager.controllers;
    assert.deepEqual(controller!.primary.store.keys().sort(), [...keys].sort());
  }
  const secrets = user.resource(SECRETS).namespace("default");
  let extra = await secrets.get("extra");
  for (let i = 0; i < 30 && extra.metadata.labels?.[LABEL] === undefined; i++) {
    await time.tick(1_000);
    extra = await secrets.get("extra");
  }
  assert.equal(
    extra.metadata.labels?.[LABEL],
    onA.has("default/cm-0") ? hash["op-a"] : hash["op-b"],
  );
  // Each replica's shared child cache holds only its own children.
  for (
    const [manager, pod, keys] of [[a, "op-a", onA], [b, "op-b", onB]] as const
  ) {
    const children = manager.collections.register({
      ...SECRETS,
      labelSelector: `${LABEL}=${hash[pod]}`,
    });
    const want = keys.has("default/cm-0")
      ? [...keys, "default/extra"]
      : [...keys];
    assert.deepEqual(children.store.keys().sort(), want.sort(), pod);
    await children.stop();
  }
  assert.deepEqual(errors, []);
  const text = metrics.render();
  assert.match(text, /^shard_assigned_total\{ring="mirror"\} \d+$/m);
  assert.match(text, /^shard_children_total\{ring="mirror"\} \d+$/m);
  assert.match(
    text,
    /^leader_election_master_status\{name="mirror-sharder"\} [01]$/m,
  );
});

Deno.test("Manager shards refuses an election", () => {
  const client = new Client("http://127.0.0.1:1");
  assert.throws(
    () =>
      new Manager(client, {
        shards: { namespace: "default", identity: "op-a" },
        election: { lease: { namespace: "default", name: "op" }, pod: "op-a" },
        controllers: [],
      }),
    {
      name: "TypeError",
      message: "The manager takes shards or an election, not both",
    },
  );
});
