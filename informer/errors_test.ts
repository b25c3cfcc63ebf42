// One test per path into a collection's onError: each yields its own class,
// naming the collection (its source and a readable name), the object's ref
// where there is one, and the original error as the cause.
import assert from "node:assert/strict";
import { ApiError } from "../apiclient/mod.ts";
import type { KubeObject } from "../apiclient/types.ts";
import {
  Collection,
  CollectionError,
  type CollectionOptions,
  DecodeError,
  DeletedFinalStateUnknown,
  EventHandlerError,
  ListError,
  ObjectRefusedError,
  WatchError,
} from "./mod.ts";
import { CM, harness, make } from "./_harness_test_util.ts";
import { testLogger } from "../_internal/_log_test_util.ts";
import { Client } from "../apiclient/mod.ts";
import { type LogRecord, sinkLogger } from "../log/mod.ts";
import { FakeApiServer, installFakeTime } from "../testing/mod.ts";

const SOURCE = { version: "v1", resource: "configmaps", namespace: "default" };
const ref = (name: string) => ({ ...SOURCE, name });

/** Runs a collection of SOURCE and answers what its onError heard. */
async function heard(
  h: ReturnType<typeof harness>,
  options: CollectionOptions = {},
  after: (c: Collection) => Promise<void> = async () => {},
): Promise<unknown[]> {
  const errors: unknown[] = [];
  await using c = new Collection(h.client, SOURCE, {
    ...options,
    logger: testLogger({ onError: (error) => void errors.push(error) }),
  });
  await h.time.settle();
  await after(c);
  return errors;
}

/** The fields every report carries. */
function names(error: unknown, name: string): void {
  assert.ok(error instanceof CollectionError, String(error));
  assert.equal(error.name, name);
  assert.deepEqual(error.source, SOURCE);
  assert.equal(error.collection, "default/configmaps");
}

Deno.test("a failed paginated list is a ListError with the server's error as cause", async () => {
  await using h = harness();
  // No streaming lists here (400), and the list refused once.
  h.server.refuse({ watch: true, status: 400, count: 1 });
  h.server.refuse({ watch: false, status: 500, count: 1 });
  const errors = await heard(h);
  assert.equal(errors.length, 1);
  const [error] = errors;
  names(error, "ListError");
  assert.ok(error instanceof ListError);
  assert.equal(error.streaming, false);
  assert.equal(error.ref, undefined);
  assert.ok(error.cause instanceof ApiError);
  assert.equal(error.cause.status, 500);
  assert.equal(
    error.message,
    `Listing default/configmaps failed: ${error.cause.message}`,
  );
});

Deno.test("a refused streaming list is a ListError that says it streamed", async () => {
  await using h = harness();
  h.server.refuse({ watch: true, status: 503, count: 1 });
  const errors = await heard(h);
  assert.equal(errors.length, 1);
  const [error] = errors;
  names(error, "ListError");
  assert.ok(error instanceof ListError);
  assert.equal(error.streaming, true);
  assert.ok(error.cause instanceof ApiError);
  assert.equal(error.cause.status, 503);
});

Deno.test("a refused watch is a WatchError with the server's error as cause", async () => {
  await using h = harness();
  const errors = await heard(h, {}, async () => {
    h.server.refuse({ watch: true, status: 503, count: 1 });
    h.server.cutWatches();
    await h.time.tick(2_000);
  });
  assert.equal(errors.length, 1);
  const [error] = errors;
  names(error, "WatchError");
  assert.ok(error instanceof WatchError);
  assert.equal(error.ref, undefined);
  assert.ok(error.cause instanceof ApiError);
  assert.equal(error.cause.status, 503);
  assert.match(error.message, /^Watching default\/configmaps failed: GET /);
});

Deno.test("a copy that fails decode is a DecodeError naming the object", async () => {
  await using h = harness();
  await make(h.client, "bad");
  const thrown = new Error("no data");
  const errors = await heard(h, {
    decode: () => {
      throw thrown;
    },
  });
  assert.equal(errors.length, 1);
  const [error] = errors;
  names(error, "DecodeError");
  assert.ok(error instanceof DecodeError);
  assert.deepEqual(error.ref, ref("bad"));
  assert.equal(error.cause, thrown);
  assert.equal(
    error.message,
    "Decoding default/bad of default/configmaps failed: no data",
  );
});

Deno.test("a handler, a callback or an indexer that throws is an EventHandlerError naming the call and the object", async () => {
  await using h = harness();
  await make(h.client, "a");
  const boom = new Error("boom");
  const errors = await heard(h, {
    handler: {
      update: () => Promise.reject(boom),
      delete: () => {
        throw boom;
      },
    },
    indexers: {
      byApp: (object) => {
        if (object.metadata.name === "b") throw boom;
        return [];
      },
    },
    synced: () => {
      throw boom;
    },
  }, async () => {
    await make(h.client, "b");
    await h.client.patch(`${CM}/a`, { data: { k: "v" } }, { type: "merge" });
    await h.client.delete(`${CM}/a`);
    await h.time.settle();
  });
  const calls = errors.map((error) => {
    names(error, "EventHandlerError");
    assert.ok(error instanceof EventHandlerError);
    assert.equal(error.cause, boom);
    return [error.call, error.ref?.name, error.message];
  });
  assert.deepEqual(calls, [
    ["synced", undefined, "Calling synced of default/configmaps failed: boom"],
    [
      "indexers.byApp",
      "b",
      "Calling indexers.byApp of default/configmaps for default/b failed: boom",
    ],
    [
      "handler.update",
      "a",
      "Calling handler.update of default/configmaps for default/a failed: boom",
    ],
    [
      "handler.delete",
      "a",
      "Calling handler.delete of default/configmaps for default/a failed: boom",
    ],
  ]);
  assert.deepEqual((errors[1] as EventHandlerError).ref, ref("b"));
});

Deno.test("a reopened, recovered or relisted that throws is an EventHandlerError naming the callback", async () => {
  await using h = harness();
  await make(h.client, "a");
  const thrower = (call: string) => () => {
    throw new Error(`${call} broke`);
  };
  const errors = await heard(h, {
    reopened: thrower("reopened"),
    recovered: thrower("recovered"),
    relisted: thrower("relisted"),
  }, async () => {
    // A refused watch, then one that opens: reopened and recovered.
    h.server.refuse({ watch: true, status: 503, count: 1 });
    h.server.cutWatches();
    await h.time.tick(5_000);
    // The resumed watch gets 410: the collection is read again.
    h.server.refuse({ watch: true, status: 410, count: 1 });
    h.server.cutWatches();
    await h.time.tick(5_000);
    await h.time.settle();
  });
  const handlers = errors.filter((e) => e instanceof EventHandlerError);
  assert.deepEqual(
    handlers.map((e) => [e.call, e.ref, (e.cause as Error).message]),
    [
      ["reopened", undefined, "reopened broke"],
      ["recovered", undefined, "recovered broke"],
      // The streaming list after the 410 is a watch too.
      ["reopened", undefined, "reopened broke"],
      ["relisted", undefined, "relisted broke"],
    ],
  );
  for (const error of handlers) names(error, "EventHandlerError");
  assert.equal(
    handlers[3]!.message,
    "Calling relisted of default/configmaps failed: relisted broke",
  );
});

Deno.test("an object that cannot be held is an ObjectRefusedError with the reason and no ref", async () => {
  await using h = harness({
    fetch: (server) => async (input, init) => {
      const response = await server.fetch(new Request(input, init));
      const url = new URL(new Request(input, init).url);
      if (url.searchParams.has("watch") || !response.ok) return response;
      const list = await response.json();
      list.items.push({ kind: "ConfigMap", metadata: { namespace: "x" } });
      return Response.json(list);
    },
  });
  h.server.refuse({ watch: true, status: 400, count: 1 }); // a list, please
  const errors = await heard(h);
  assert.equal(errors.length, 1);
  const [error] = errors;
  names(error, "ObjectRefusedError");
  assert.ok(error instanceof ObjectRefusedError);
  assert.equal(error.ref, undefined);
  assert.equal(error.kind, "ConfigMap");
  assert.equal(
    error.reason,
    "its metadata.name is missing, not a non-empty string",
  );
  assert.equal(
    error.message,
    "Refused a ConfigMap of default/configmaps: its metadata.name is missing, not a non-empty string",
  );
});

Deno.test("a listFailed or absent that throws is an EventHandlerError too, and listFailed hears the ListError", async () => {
  await using h = harness();
  h.server.refuse({ watch: true, status: 400, count: 1 });
  h.server.refuse({ watch: false, status: 404, count: 1 });
  const told: unknown[] = [];
  const errors = await heard(h, {
    absent: () => {
      throw new Error("absent broke");
    },
    listFailed: (error) => {
      told.push(error);
      throw new Error("listFailed broke");
    },
  });
  assert.deepEqual(
    errors.map((e) => [(e as Error).name, (e as EventHandlerError).call]),
    [
      // Asked of the refused streaming list, then of the refused list.
      ["EventHandlerError", "absent"],
      ["EventHandlerError", "absent"],
      ["ListError", undefined],
      ["EventHandlerError", "listFailed"],
    ],
  );
  assert.equal(told.length, 1);
  assert.equal(told[0], errors[2]);
});

Deno.test("a delete of an object that never decoded hands the handler a marker with its key and no copy", async () => {
  await using h = harness();
  await make(h.client, "bad");
  const deleted: (KubeObject | DeletedFinalStateUnknown)[] = [];
  await heard(h, {
    decode: () => {
      throw new Error("never");
    },
    handler: { delete: (object) => void deleted.push(object) },
  }, async (c) => {
    // Not decoded, yet known to exist.
    assert.equal(c.store.has("default/bad"), true);
    await h.client.delete(`${CM}/bad`);
    await h.time.settle();
  });
  assert.equal(deleted.length, 1);
  const [marker] = deleted;
  assert.ok(marker instanceof DeletedFinalStateUnknown);
  assert.equal(marker.key, "default/bad");
  assert.equal(marker.object, undefined);
});

Deno.test("a collection's error line names the code that reported it as its caller", async () => {
  using time = installFakeTime({ now: Date.parse("2030-01-01T00:00:00Z") });
  await using server = new FakeApiServer();
  server.refuse({ method: "GET", path: /\/configmaps$/, status: 500 });
  const client = new Client(server.url, { fetch: server.fetch });
  const records: LogRecord[] = [];
  await using _watch = new Collection(client, SOURCE, {
    logger: sinkLogger((record) => records.push(record)),
  });
  await time.settle();
  const failed = records.find((r) => r.msg === "List failed");
  assert.ok(failed, JSON.stringify(records.map((r) => r.msg)));
  assert.ok(failed.err instanceof ListError);
  assert.equal(failed.fields.collection, "default/configmaps");
  assert.match(failed.caller!, /^informer\/_reflector\.ts:\d+$/);
});
