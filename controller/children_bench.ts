// The cost of reading a primary's children: context.children (the owns
// store's index of children by controlling owner) against what a reconcile
// had to do before (#41): list every child and filter by owner uid, from
// the API server or by walking the store. 1,000 owners with 10 children
// each, all in one namespace (the worst case for a namespace scan).
import { Client, type KubeObject } from "../apiclient/mod.ts";
import { cachedList, Collection } from "../informer/mod.ts";
import { Versions } from "../memo/mod.ts";
import { FakeApiServer } from "../testing/mod.ts";
import {
  Controller,
  CONTROLLER_UID_INDEX,
  controllerUid,
  type ReconcileContext,
} from "./mod.ts";

const OWNERS = 1_000;
const CHILDREN = 10;
const CONFIGMAPS = { version: "v1", resource: "configmaps", kind: "ConfigMap" };
const SECRETS = { version: "v1", resource: "secrets" };
const NAMESPACE = "default";

const server = new FakeApiServer();
const client = new Client(server.url, { fetch: server.fetch });
const owners = client.resource(CONFIGMAPS).namespace(NAMESPACE);
const secrets = client.resource(SECRETS).namespace(NAMESPACE);
const uids: string[] = [];
for (let i = 0; i < OWNERS; i++) {
  const owner = await owners.create({ metadata: { name: `owner-${i}` } });
  const uid = owner.metadata.uid!;
  uids.push(uid);
  for (let j = 0; j < CHILDREN; j++) {
    await secrets.create({
      metadata: {
        name: `owner-${i}-${j}`,
        ownerReferences: [{
          apiVersion: "v1",
          kind: "ConfigMap",
          name: `owner-${i}`,
          uid,
          controller: true,
        }],
      },
    });
  }
}

function check(count: number): void {
  if (count !== CHILDREN) throw new Error(`Read ${count} children`);
}

// One read, as one reconcile does it.
const { promise: synced, resolve } = Promise.withResolvers<void>();
const watch = new Collection(client, SECRETS, {
  indexers: { [CONTROLLER_UID_INDEX]: controllerUid },
  synced: resolve,
});
await synced;
const versions = new Versions();
const inNamespace = { ...SECRETS, namespace: NAMESPACE };
let next = 0;
const someUid = (): string => uids[next++ % OWNERS]!;
const owned = (uid: string) => (child: KubeObject): boolean =>
  child.metadata.ownerReferences?.some((ref) =>
    ref.controller === true && ref.uid === uid
  ) ?? false;

Deno.bench({
  name: "cachedList through the owner index (context.children)",
  group: "one children read, 1,000 owners x 10 children",
  baseline: true,
  async fn(): Promise<void> {
    const items = await cachedList(client, inNamespace, {
      view: watch.view({ whole: true }),
      versions,
      index: { name: CONTROLLER_UID_INDEX, value: someUid() },
    });
    check(items.length);
  },
});

Deno.bench({
  name: "walk the store and filter by owner uid",
  group: "one children read, 1,000 owners x 10 children",
  fn(): void {
    check(watch.store.values().filter(owned(someUid())).length);
  },
});

Deno.bench({
  name: "list from the API server and filter (the port before #41)",
  group: "one children read, 1,000 owners x 10 children",
  n: 20,
  async fn(): Promise<void> {
    const { items } = await secrets.list();
    check(items.filter(owned(someUid())).length);
  },
});

// A whole pass: every owner reconciled once, reading its children or not.
let read = true;
const controller = new Controller(client, {
  name: "bench",
  for: CONFIGMAPS,
  owns: [SECRETS],
  reconcile: async (context: ReconcileContext) => {
    if (read) check((await context.children(SECRETS)).length);
  },
});
await controller.idle();

for (const reading of [false, true]) {
  Deno.bench({
    name: reading
      ? "reconcile reads context.children"
      : "reconcile reads nothing",
    group: "a reconcile pass over 1,000 owners x 10 children",
    baseline: !reading,
    n: 20,
    async fn(): Promise<void> {
      read = reading;
      controller.reconcileAll();
      await controller.idle();
    },
  });
}

// Not a measure: stops what the benches ran on, after the last one (the
// watches' timers would otherwise keep the process alive).
Deno.bench({
  name: "stop the controller, the watch and the server",
  group: "teardown (not a measure)",
  n: 1,
  warmup: 0,
  async fn(): Promise<void> {
    await controller.stop();
    await watch.stop();
    await server.stop();
  },
});
