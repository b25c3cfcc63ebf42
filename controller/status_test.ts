import assert from "node:assert/strict";
import { Client } from "../apiclient/mod.ts";
import type { Condition } from "../conditions/mod.ts";
import { defineResource, type ObjectOf } from "../resource/mod.ts";
import {
  FakeApiServer,
  type FakeTime,
  installFakeTime,
} from "../testing/mod.ts";
import {
  Controller,
  type ReconcileContext,
  type StatusOptions,
  type StatusPatch,
} from "./mod.ts";
import { testLogger } from "../_internal/_log_test_util.ts";

// A kubebuilder-style status: no observedGeneration, neither on the status
// nor on its conditions, and a defaulted field.
const JOBS = defineResource({
  group: "example.com",
  version: "v1",
  kind: "Batch",
  plural: "batches",
  scope: "Namespaced",
  status: true,
  schema: {
    type: "object",
    properties: {
      spec: { type: "object", properties: { size: { type: "integer" } } },
      status: {
        type: "object",
        properties: {
          active: { type: "integer" },
          phase: { type: "string", default: "Pending" },
          conditions: {
            type: "array",
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["type"],
            items: {
              type: "object",
              required: ["type", "status", "reason", "message"],
              properties: {
                type: { type: "string" },
                status: { type: "string" },
                reason: { type: "string" },
                message: { type: "string" },
                lastTransitionTime: { type: "string", format: "date-time" },
              },
            },
          },
        },
      },
    },
  },
});
type Batch = ObjectOf<typeof JOBS>;
const PATH = "/apis/example.com/v1/namespaces/default/batches";

interface Harness extends AsyncDisposable {
  time: FakeTime;
  server: FakeApiServer;
  client: Client;
  /** The status PUTs the server has seen. */
  writes(): number;
}

async function setup(): Promise<Harness> {
  const time = installFakeTime({ now: Date.parse("2030-01-01T00:00:00Z") });
  const server = new FakeApiServer();
  const client = new Client(server.url, { fetch: server.fetch });
  await client.create(
    "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
    JOBS.crd(),
  );
  await client.create(PATH, {
    apiVersion: JOBS.apiVersion,
    kind: JOBS.kind,
    metadata: { name: "b" },
    spec: { size: 1 },
  });
  return {
    time,
    server,
    client,
    writes: () => server.count({ method: "PUT", path: `${PATH}/b/status` }),
    async [Symbol.asyncDispose](): Promise<void> {
      await server.stop();
      time[Symbol.dispose]();
    },
  };
}

/**
 * Reconciles the Batch `b` every second for `seconds`, each pass calling
 * `body`; answers what each pass's call settled to (value or error).
 */
async function passes(
  h: Harness,
  seconds: number,
  body: (context: ReconcileContext<Batch>) => Promise<unknown>,
): Promise<unknown[]> {
  const outcomes: unknown[] = [];
  const controller = new Controller<Batch>(h.client, {
    name: "batches",
    for: JOBS,
    logger: testLogger({ onError: () => {} }),
    reconcile: async (context) => {
      try {
        outcomes.push(await body(context));
      } catch (error) {
        outcomes.push(error);
      }
      return { requeueAfter: 1_000 };
    },
  });
  await h.time.settle();
  for (let i = 0; i < seconds; i++) {
    await h.time.tick(1_000);
    await controller.idle();
  }
  await controller.stop();
  return outcomes;
}

const available = (status: "True" | "False"): Condition => ({
  type: "Available",
  status,
  reason: status === "True" ? "Running" : "Idle",
  message: "",
});

Deno.test("status: a schema without observedGeneration is written once, however often the reconcile runs", async () => {
  await using h = await setup();
  const outcomes = await passes(
    h,
    5,
    (context) => context.status({ active: 2, conditions: [available("True")] }),
  );
  assert.ok(outcomes.length >= 5, `${outcomes.length} passes`);
  assert.deepEqual(outcomes.slice(0, 2), [true, false]);
  assert.equal(h.writes(), 1);
  const held = h.server.object<Batch>(`${PATH}/b`)!;
  assert.equal(held.status?.active, 2);
  assert.equal("observedGeneration" in (held.status ?? {}), false);
  assert.equal(
    "observedGeneration" in (held.status?.conditions?.[0] ?? {}),
    false,
  );
});

Deno.test("status: a field the schema would prune is refused before any request, naming it", async () => {
  await using h = await setup();
  const refused = (patch: StatusPatch, options?: StatusOptions) =>
    passes(h, 1, (context) => context.status(patch, options));
  const [extra] = await refused({ active: 1, lastRun: "x" });
  assert.ok(extra instanceof TypeError);
  assert.equal(
    extra.message,
    "The status of Batch default/b has fields its schema does not, which the API server would drop: status.lastRun",
  );
  // The option asks for a field the schema lacks; a condition states one.
  const [asked] = await refused({ active: 1 }, { observedGeneration: true });
  assert.match((asked as Error).message, /drop: status\.observedGeneration$/);
  const [stated] = await refused({
    conditions: [{ ...available("True"), observedGeneration: 1 }],
  });
  assert.match(
    (stated as Error).message,
    /drop: status\.conditions\[0\]\.observedGeneration$/,
  );
  assert.equal(h.writes(), 0);
});

Deno.test("status: compared as the server holds it, defaults included", async () => {
  await using h = await setup();
  await passes(h, 1, (context) => context.status({ active: 1 }));
  assert.equal(h.writes(), 1);
  const held = h.server.object<Batch>(`${PATH}/b`)!;
  assert.equal(held.status?.phase, "Pending");
  // Removing a defaulted field: the server would default it again, so
  // nothing changes and nothing is sent.
  const outcomes = await passes(
    h,
    3,
    (context) => context.status({ active: 1, phase: null }),
  );
  assert.equal(outcomes[0], false);
  assert.equal(h.writes(), 1);
});

Deno.test("status: per-type bad statuses post each condition's Event with its own polarity", async () => {
  await using h = await setup();
  const controller = new Controller<Batch>(h.client, {
    name: "batches",
    for: JOBS,
    wiring: {
      events: { instance: "pod-1" },
    },
    reconcile: async (context) => {
      await context.status({
        conditions: [available("False"), {
          type: "Degraded",
          status: "False",
          reason: "Healthy",
          message: "",
        }, {
          type: "Progressing",
          status: "True",
          reason: "Working",
          message: "",
        }],
      }, { bad: { Available: "False", Degraded: "True" } });
    },
  });
  await h.time.settle();
  await controller.idle();
  await controller.stop();
  const about = h.server.eventsAbout({ kind: "Batch", name: "b" });
  assert.deepEqual(
    about.map((event) => `${event.type} ${event.reason}`).sort(),
    ["Normal Healthy", "Normal Working", "Warning Idle"],
  );
});
