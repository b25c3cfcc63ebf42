// The reads and the controller take their object types from typed
// Resources (the built-in ones of `@liken/kubernetes/api`, and
// `defineResource` definitions), as `client.resource(R)` does: pinned by the
// compiler (a wrong field fails `deno check`) and run on the fake.
import assert from "node:assert/strict";
import { Client } from "../apiclient/mod.ts";
import { type Deployment, DEPLOYMENTS } from "../api/apps/v1/mod.ts";
import { type Job, JOBS } from "../api/batch/v1/mod.ts";
import { type ConfigMap, CONFIGMAPS } from "../api/core/v1/mod.ts";
import { cachedGet, cachedList, Collection } from "../informer/mod.ts";
import { FakeApiServer } from "../testing/mod.ts";
import { Controller, type ReconcileContext } from "./mod.ts";

type Equal<A, B> = (<X>() => X extends A ? 1 : 2) extends
  (<X>() => X extends B ? 1 : 2) ? true : false;
const same = <A, B>(_proof: Equal<A, B>): void => {};

Deno.test("typed Resources type the cached reads, collections and a controller's reconcile", async () => {
  await using server = new FakeApiServer();
  const client = new Client(server.url, { fetch: server.fetch });
  await client.resource(CONFIGMAPS).namespace("default").create({
    metadata: { name: "web" },
    data: { color: "blue" },
  });
  const web = { ...CONFIGMAPS, namespace: "default", name: "web" };
  const read = await cachedGet(client, web);
  same<typeof read, ConfigMap>(true);
  assert.equal(read.data?.color, "blue");
  const listed = await cachedList(client, {
    ...CONFIGMAPS,
    namespace: "default",
  });
  same<typeof listed, ConfigMap[]>(true);
  // @ts-expect-error A ConfigMap has no spec.
  void listed[0]?.spec;
  await using watch = new Collection(client, DEPLOYMENTS);
  same<typeof watch, Collection<Deployment>>(true);
  let seen: Job[] | undefined;
  await using controller = new Controller(client, {
    name: "typed",
    for: CONFIGMAPS,
    owns: [JOBS],
    reconcile: async (context) => {
      same<typeof context, ReconcileContext<ConfigMap>>(true);
      const jobs = await context.children(JOBS);
      same<typeof jobs, Job[]>(true);
      seen = jobs;
    },
  });
  await controller.idle();
  assert.deepEqual(seen, []);
});
