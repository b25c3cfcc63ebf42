// A reconcile reads its children from the owns store, through the index of
// children by controlling owner: never by a list request, never older than
// the controller's own writes.
import assert from "node:assert/strict";
import {
  Client,
  type KubeObject,
  type OwnerReference,
} from "../apiclient/mod.ts";
import { Collections } from "../informer/mod.ts";
import {
  FakeApiServer,
  type FakeTime,
  installFakeTime,
  type RecordedRequest,
} from "../testing/mod.ts";
import {
  Controller,
  CONTROLLER_UID_INDEX,
  controllerUid,
  type ReconcileContext,
} from "./mod.ts";

const CONFIGMAPS = { version: "v1", resource: "configmaps", kind: "ConfigMap" };
const SECRETS = { version: "v1", resource: "secrets" };
const cm = (namespace: string): string =>
  `/api/v1/namespaces/${namespace}/configmaps`;
const secrets = (namespace: string): string =>
  `/api/v1/namespaces/${namespace}/secrets`;

interface Harness extends AsyncDisposable {
  time: FakeTime;
  server: FakeApiServer;
  client: Client;
}

function setup(): Harness {
  const time = installFakeTime({ now: Date.parse("2030-01-01T00:00:00Z") });
  const server = new FakeApiServer({
    freshCluster: false,
    namespaceLifecycle: false,
  });
  const client = new Client(server.url, { fetch: server.fetch });
  return {
    time,
    server,
    client,
    async [Symbol.asyncDispose](): Promise<void> {
      await server.stop();
      time[Symbol.dispose]();
    },
  };
}

function owner(
  object: KubeObject,
  kind = "ConfigMap",
  controller = true,
): OwnerReference {
  return {
    apiVersion: "v1",
    kind,
    name: object.metadata.name!,
    uid: object.metadata.uid!,
    controller,
  };
}

async function child(
  h: Harness,
  namespace: string,
  name: string,
  ownerReferences: OwnerReference[],
): Promise<void> {
  await h.client.create(secrets(namespace), {
    metadata: { name, ownerReferences },
  });
}

/** A list request: a GET of a collection that is not a watch. */
function isList(r: RecordedRequest): boolean {
  return r.method === "GET" && /\/(secrets|configmaps)$/.test(r.path) &&
    r.query.get("watch") !== "true";
}

const names = (items: KubeObject[]): string[] =>
  items.map((item) => `${item.metadata.namespace}/${item.metadata.name}`);

Deno.test("context.children answers the primary's own children from the store, in its namespace, with no list request per pass", async () => {
  await using h = setup();
  const a = await h.client.create<KubeObject>(cm("default"), {
    metadata: { name: "a" },
  });
  const b = await h.client.create<KubeObject>(cm("default"), {
    metadata: { name: "b" },
  });
  await child(h, "default", "a-2", [owner(a)]);
  await child(h, "default", "a-1", [owner(b, "ConfigMap", false), owner(a)]);
  await child(h, "default", "b-1", [owner(b)]);
  // Not a's: owned but not controlled, controlled by another kind of the
  // same uid, or in another namespace than a.
  await child(h, "default", "x-1", [owner(a, "ConfigMap", false)]);
  await child(h, "default", "x-2", [owner(a, "Deployment")]);
  await child(h, "other", "x-3", [owner(a)]);
  const seen = new Map<string, string[]>();
  await using controller = new Controller(h.client, {
    name: "t",
    for: CONFIGMAPS,
    owns: [SECRETS],
    reconcile: async (context) => {
      seen.set(context.key, names(await context.children(SECRETS)));
    },
  });
  await h.time.settle();
  await controller.idle();
  assert.deepEqual(Object.fromEntries(seen), {
    "default/a": ["default/a-1", "default/a-2"],
    "default/b": ["default/b-1"],
    // x-3 wakes other/a, which does not exist: no children.
    "other/a": [],
  });
  // The watches read by streaming lists: no plain list was sent.
  assert.equal(h.server.requests.filter(isList).length, 0);
  // Three more passes: the request log holds no new request at all.
  const before = h.server.requests.length;
  for (let pass = 0; pass < 3; pass++) {
    controller.reconcileAll();
    await controller.idle();
  }
  assert.equal(h.server.requests.length, before);
});

Deno.test("context.children is never older than the controller's own applies and deletes", async () => {
  await using h = setup();
  await h.client.create(cm("default"), { metadata: { name: "a" } });
  const passes: string[][] = [];
  await using controller = new Controller(h.client, {
    name: "t",
    for: CONFIGMAPS,
    owns: [SECRETS],
    reconcile: async (context: ReconcileContext) => {
      const read = async (): Promise<void> =>
        void passes.push(names(await context.children(SECRETS)));
      await read();
      // The watch is down: the store learns nothing of these writes.
      h.server.refuse({ watch: true, status: 503 });
      h.server.cutWatches();
      for (const name of ["a-1", "a-2"]) {
        await context.apply({
          apiVersion: "v1",
          kind: "Secret",
          metadata: { name, namespace: "default" },
        });
      }
      await read();
      await context.deleteChild({
        ...SECRETS,
        namespace: "default",
        name: "a-1",
      });
      await read();
    },
  });
  await h.time.settle();
  await controller.idle();
  assert.deepEqual(passes, [[], ["default/a-1", "default/a-2"], [
    "default/a-2",
  ]]);
  assert.equal(controller.primary.store.size, 1);
});

Deno.test("an owns collection registered first with an owner index of its own shares its watch with the controller's index", async () => {
  await using h = setup();
  const a = await h.client.create<KubeObject>(cm("default"), {
    metadata: { name: "a" },
  });
  await child(h, "default", "a-1", [owner(a)]);
  await using collections = new Collections(h.client);
  const byOwnerName = (object: KubeObject): string[] =>
    (object.metadata.ownerReferences ?? []).map((ref) => ref.name);
  // Registered before the controller, with another index (and the very
  // same function under the controller's index name).
  const mine = collections.register(SECRETS, {
    indexers: { byOwnerName, [CONTROLLER_UID_INDEX]: controllerUid },
  });
  const seen: string[][] = [];
  await using controller = new Controller(h.client, {
    name: "t",
    for: CONFIGMAPS,
    owns: [SECRETS],
    wiring: {
      collections,
    },
    reconcile: async (context) => {
      seen.push(names(await context.children(SECRETS)));
    },
  });
  await h.time.settle();
  await controller.idle();
  assert.deepEqual(seen, [["default/a-1"]]);
  assert.deepEqual(mine.store.indexKeys("byOwnerName", "a"), ["default/a-1"]);
  assert.equal(
    h.server.requests.filter((r) =>
      r.path === "/api/v1/secrets" && r.query.get("watch") === "true"
    ).length,
    1,
  );
  // Another function under the controller's index name is refused by name.
  assert.throws(
    () =>
      collections.register(SECRETS, {
        indexers: { [CONTROLLER_UID_INDEX]: () => [] },
      }),
    {
      name: "TypeError",
      message: /its index controllerUID is another function/,
    },
  );
  await mine.stop();
});

Deno.test("context.children of a resource the controller does not own is a TypeError", async () => {
  await using h = setup();
  await h.client.create(cm("default"), { metadata: { name: "a" } });
  const errors: unknown[] = [];
  await using controller = new Controller(h.client, {
    name: "t",
    for: CONFIGMAPS,
    owns: [SECRETS],
    reconcile: async (context) => {
      try {
        await context.children({ version: "v1", resource: "pods" });
      } catch (error) {
        errors.push(error);
      }
    },
  });
  await h.time.settle();
  await controller.idle();
  assert.equal(errors.length, 1);
  assert.ok(errors[0] instanceof TypeError);
  assert.equal(
    (errors[0] as TypeError).message,
    "The controller t does not own pods: add it to owns to read its children",
  );
});
