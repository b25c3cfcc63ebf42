// A streaming list (sendInitialEvents) of many objects from the real
// kube-apiserver. It gzips such a stream, one gzip member per flush, for a
// client that accepts gzip (WatchListCompression), and Deno's fetch ends the
// body after the first member: a list of 1,000 ConfigMaps ended after 23
// objects, without its bookmark, and the informer asked again forever. The
// client asks for watches uncompressed.
import assert from "node:assert/strict";
import { Collection } from "../../informer/mod.ts";
import { suite } from "./_plane.ts";
import { testLogger } from "../../_internal/_log_test_util.ts";

const COUNT = 500;
/** About 200 bytes each, so that the list spans many flushes. */
const DATA = { v: "x".repeat(200) };

suite("streaming list", [
  [
    `a streaming list of ${COUNT} ConfigMaps arrives whole, then the informer syncs`,
    async ({ plane, namespace }) => {
      const client = plane.client();
      const path = `/api/v1/namespaces/${namespace}/configmaps`;
      for (let i = 0; i < COUNT; i += 50) {
        await Promise.all(
          Array.from({ length: 50 }, (_, j) =>
            client.create(path, {
              metadata: { name: `c${i + j}` },
              data: DATA,
            })),
        );
      }
      let added = 0;
      let ended = "the stream ended";
      {
        await using stream = await client.watch(
          `${path}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`,
        );
        for await (const event of stream) {
          if (event.type === "ADDED") added++;
          if (
            event.type === "BOOKMARK" &&
            event.object.metadata.annotations?.["k8s.io/initial-events-end"] ===
              "true"
          ) {
            ended = "the bookmark";
            break;
          }
        }
      }
      assert.deepEqual({ added, ended }, {
        added: COUNT,
        ended: "the bookmark",
      });

      const errors: unknown[] = [];
      const synced = Promise.withResolvers<void>();
      await using collection = new Collection(client, {
        version: "v1",
        resource: "configmaps",
        namespace,
      }, {
        synced: synced.resolve,
        logger: testLogger({ onError: (error) => void errors.push(error) }),
      });
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        synced.promise,
        new Promise((_, reject) => {
          timer = setTimeout(
            () =>
              reject(new Error(`Not synced in 30 s: ${errors.length} errors`)),
            30_000,
          );
        }),
      ]).finally(() => clearTimeout(timer));
      assert.equal(collection.store.keys().length, COUNT);
      assert.deepEqual(errors, []);
    },
  ],
], { timeout: 120_000 });
