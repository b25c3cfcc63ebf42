// The library against a real kube-apiserver: the informer, the election,
// the controller with owned children and the garbage collector, the
// recorder and memo-aware reads.
import assert from "node:assert/strict";
import { type KubeObject, WriteRefusedError } from "../../apiclient/mod.ts";
import { Controller, finalizer } from "../../controller/mod.ts";
import { Lead } from "../../election/mod.ts";
import { Recorder } from "../../events/mod.ts";
import { cachedGet, Collection } from "../../informer/mod.ts";
import { Versions } from "../../memo/mod.ts";
import { written } from "../../_internal/_memo_test_util.ts";
import { eventually } from "./_eventually.ts";
import { suite } from "./_plane.ts";
import { testLogger } from "../../_internal/_log_test_util.ts";

const CONFIGMAPS = { version: "v1", resource: "configmaps", kind: "ConfigMap" };

function cmPath(namespace: string, name = ""): string {
  return `/api/v1/namespaces/${namespace}/configmaps${name ? `/${name}` : ""}`;
}

suite("library", [
  [
    "the informer syncs by a streaming list, then follows every change",
    async ({ plane, namespace }) => {
      const client = plane.client();
      for (const name of ["a", "b", "c"]) {
        await client.create(cmPath(namespace), { metadata: { name } });
      }
      const seen: string[] = [];
      const errors: unknown[] = [];
      const synced = Promise.withResolvers<void>();
      await using collection = new Collection(client, {
        ...CONFIGMAPS,
        namespace,
      }, {
        synced: synced.resolve,
        handler: {
          add: (o) => void seen.push(`add ${o.metadata.name}`),
          update: (_, o) => void seen.push(`update ${o.metadata.name}`),
          delete: (o) => {
            const name = o instanceof Object && "metadata" in o
              ? (o as KubeObject).metadata.name
              : "?";
            seen.push(`delete ${name}`);
          },
        },
        logger: testLogger({ onError: (error) => void errors.push(error) }),
      });
      await synced.promise;
      assert.equal(collection.synced(), true);
      assert.deepEqual(collection.store.keys().sort(), [
        `${namespace}/a`,
        `${namespace}/b`,
        `${namespace}/c`,
      ]);
      // The store trims managedFields, which the real server always sends.
      assert.equal(
        collection.store.get(`${namespace}/a`)?.metadata.managedFields,
        undefined,
      );
      await client.patch(cmPath(namespace, "a"), { data: { k: "v" } }, {
        type: "merge",
      });
      await client.delete(cmPath(namespace, "b"));
      await client.create(cmPath(namespace), { metadata: { name: "d" } });
      await eventually("the watch's events", () => seen.length >= 6 && seen);
      assert.deepEqual(seen.slice(3), ["update a", "delete b", "add d"]);
      assert.deepEqual(errors, []);
      // The first read was a streaming list, never a paged one: the audit
      // log holds every request the server took.
      const path = cmPath(namespace);
      const uris = await eventually("the audit log's watch", async () => {
        const lines = (await Deno.readTextFile(plane.ready.auditLog)).split(
          "\n",
        );
        const mine = lines.filter((l) => l.includes(`"${path}?`))
          .map((l) => (JSON.parse(l) as { requestURI: string }).requestURI);
        return mine.some((u) => u.includes("sendInitialEvents=true")) && mine;
      });
      assert.ok(
        uris.some((u) =>
          u.includes("sendInitialEvents=true") &&
          u.includes("resourceVersionMatch=NotOlderThan") &&
          u.includes("allowWatchBookmarks=true")
        ),
        uris.join("\n"),
      );
      assert.ok(!uris.some((u) => u.includes("limit=500")), uris.join("\n"));
    },
  ],
  [
    "memo-aware reads see the operator's own write even before the watch does",
    async ({ plane, namespace }) => {
      const client = plane.client();
      const versions = new Versions();
      const synced = Promise.withResolvers<void>();
      await using collection = new Collection(client, {
        ...CONFIGMAPS,
        namespace,
      }, { synced: synced.resolve });
      await synced.promise;
      const ref = { ...CONFIGMAPS, namespace, name: "m" };
      const made = await written(
        ref,
        () => client.create(cmPath(namespace), { metadata: { name: "m" } }),
        { versions },
      );
      // Read at once: when the store lags, the memo sends the read to the
      // server, so it is never older than the operator's own write.
      const read = await cachedGet(client, ref, {
        view: collection.view(),
        versions,
      });
      assert.equal(
        read?.metadata.resourceVersion,
        made.metadata.resourceVersion,
      );
    },
    { namespaced: true },
  ],
  [
    "a finalizer holds a deleted object until its cleanup ran",
    async ({ plane, namespace }) => {
      const client = plane.client();
      const cleaned: string[] = [];
      await using controller = new Controller(client, {
        name: "holder",
        for: { ...CONFIGMAPS, namespace },
        reconcile: async (context) => {
          return await finalizer(context, {
            name: "example.com/hold",
            apply: () => {},
            cleanup: (o) => void cleaned.push(o.metadata.name!),
          });
        },
      });
      await client.create(cmPath(namespace), { metadata: { name: "f" } });
      await eventually(
        "the finalizer",
        async () =>
          (await client.get<KubeObject>(cmPath(namespace, "f"))).metadata
            .finalizers?.includes("example.com/hold"),
      );
      await client.delete(cmPath(namespace, "f"));
      await eventually(
        "the object's removal",
        () =>
          client.get(cmPath(namespace, "f")).then(
            () => false,
            (e) => e.status === 404,
          ),
      );
      assert.deepEqual(cleaned, ["f"]);
      await controller.stop();
    },
    { namespaced: true },
  ],
  [
    "the recorder patches a repeated Event into a series",
    async ({ plane, namespace }) => {
      const client = plane.client();
      const made = await client.create<KubeObject>(cmPath(namespace), {
        metadata: { name: "e" },
      });
      const recorder = new Recorder(client, "real-test", { instance: "t-0" });
      const about = {
        apiVersion: "v1",
        kind: "ConfigMap",
        namespace,
        name: "e",
        uid: made.metadata.uid!,
      };
      recorder.normal(about, { reason: "Seen", message: "seen it" });
      await eventually(
        "the first Event",
        async () =>
          (await client.get<{ items: { reason: string }[] }>(
            `/api/v1/namespaces/${namespace}/events`,
          )).items.length === 1,
      );
      recorder.normal(about, { reason: "Seen", message: "seen it" });
      await recorder.stop();
      const events = await client.get<
        { items: { reason: string; count?: number }[] }
      >(`/api/v1/namespaces/${namespace}/events`);
      assert.deepEqual(
        events.items.map((e) => [e.reason, e.count]),
        [["Seen", 2]],
      );
    },
    { namespaced: true },
  ],
  [
    "the informer converges after etcd compacts the history it last saw",
    async ({ plane, namespace }) => {
      const client = plane.client();
      await client.create(cmPath(namespace), { metadata: { name: "x" } });
      const errors: unknown[] = [];
      const synced = Promise.withResolvers<void>();
      await using collection = new Collection(client, {
        ...CONFIGMAPS,
        namespace,
      }, {
        synced: synced.resolve,
        logger: testLogger({ onError: (error) => void errors.push(error) }),
      });
      await synced.promise;
      // History moves on and is compacted; a watch from the store's version
      // would then be 410 Gone. Whatever path the server takes (the watch
      // cache may still serve it), the store must converge.
      for (let i = 0; i < 5; i++) {
        await client.patch(cmPath(namespace, "x"), { data: { i: `${i}` } }, {
          type: "merge",
        });
      }
      await plane.compact();
      await client.create(cmPath(namespace), { metadata: { name: "y" } });
      await eventually(
        "the store to hold y and x's last data",
        () =>
          collection.store.get(`${namespace}/y`) !== undefined &&
          (collection.store.get(`${namespace}/x`) as { data?: { i?: string } })
              ?.data?.i === "4",
      );
      assert.deepEqual(errors, []);
    },
  ],
  [
    "two candidates: one leads, the guard refuses the other, a release hands over at once",
    async ({ plane, namespace }) => {
      const client = plane.client();
      const lease = { namespace, name: "op" };
      const first = new Lead(client, { lease, pod: "op-a", exit: () => {} });
      await first.leading();
      const second = new Lead(client, {
        lease,
        pod: "op-b",
        exit: () => {},
        logger: testLogger({ onError: () => {} }),
      });
      const guarded = client.withWriteGuard(second.mayWrite);
      await assert.rejects(
        guarded.create(cmPath(namespace), { metadata: { name: "nope" } }),
        WriteRefusedError,
      );
      const started = Date.now();
      await first.stop();
      await second.leading();
      // Released: the waiting copy took it on its next read (5 to 11 s), not
      // after a whole Lease duration.
      assert.ok(Date.now() - started < 15_000, `${Date.now() - started} ms`);
      await guarded.create(cmPath(namespace), { metadata: { name: "yes" } });
      const held = await client.get<{ spec: { holderIdentity: string } }>(
        `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases/op`,
      );
      assert.equal(held.spec.holderIdentity, second.identity);
      await second.stop();
    },
    { namespaced: true },
  ],
  [
    "a controller makes owned children; the real garbage collector removes them with their owner",
    async ({ plane, namespace }) => {
      const client = plane.client();
      const recorder = new Recorder(client, "real-test", { instance: "t-0" });
      await using controller = new Controller(client, {
        name: "children",
        for: { ...CONFIGMAPS, namespace },
        owns: [{ version: "v1", resource: "secrets", namespace }],
        wiring: {
          recorder,
        },
        reconcile: async ({ object, client }) => {
          if (object === undefined) return;
          const name = `${object.metadata.name}-child`;
          try {
            await client.create(`/api/v1/namespaces/${namespace}/secrets`, {
              metadata: {
                name,
                ownerReferences: [{
                  apiVersion: "v1",
                  kind: "ConfigMap",
                  name: object.metadata.name!,
                  uid: object.metadata.uid!,
                  controller: true,
                  blockOwnerDeletion: true,
                }],
              },
            });
            recorder.normal({
              apiVersion: "v1",
              kind: "ConfigMap",
              namespace,
              name: object.metadata.name!,
              uid: object.metadata.uid!,
            }, { reason: "ChildCreated", message: `made ${name}` });
          } catch (error) {
            if ((error as { status?: number }).status !== 409) throw error;
          }
        },
      });
      await client.create(cmPath(namespace), { metadata: { name: "p" } });
      const secret = `/api/v1/namespaces/${namespace}/secrets/p-child`;
      await eventually("the child", () => client.get(secret).then(() => true));
      await eventually(
        "the Event",
        async () =>
          (await client.get<{ items: { reason: string; count?: number }[] }>(
            `/api/v1/namespaces/${namespace}/events`,
          )).items.some((e) => e.reason === "ChildCreated"),
      );
      await client.delete(cmPath(namespace, "p"));
      await eventually(
        "the garbage collector",
        () => client.get(secret).then(() => false, (e) => e.status === 404),
        90_000,
      );
      await controller.stop();
    },
    { namespaced: true, controllers: true },
  ],
]);
