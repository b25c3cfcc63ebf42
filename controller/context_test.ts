import assert from "node:assert/strict";
import { Client, type KubeObject, objectRef } from "../apiclient/mod.ts";
import type { Condition } from "../conditions/mod.ts";
import { Metrics } from "../metrics/mod.ts";
import {
  FakeApiServer,
  type FakeTime,
  installFakeTime,
} from "../testing/mod.ts";
import { Recorder } from "../events/mod.ts";
import {
  ApplyConflictError,
  Controller,
  type ControllerOptions,
  type ReconcileContext,
} from "./mod.ts";
import { guessPlural } from "./_context.ts";
import { jsonEqual as deepEqual } from "../_internal/json.ts";
import { testLogger } from "../_internal/_log_test_util.ts";

const WIDGETS = {
  group: "example.com",
  version: "v1",
  resource: "widgets",
  kind: "Widget",
};
const WIDGET_PATH = "/apis/example.com/v1/namespaces/default/widgets";
const CONFIGMAPS = { version: "v1", resource: "configmaps", namespaced: true };
const CM = "/api/v1/namespaces/default/configmaps";

type Widget = KubeObject & { status?: Record<string, unknown> };
type ConfigMap = KubeObject & { data?: Record<string, string> };

interface Harness extends AsyncDisposable {
  time: FakeTime;
  server: FakeApiServer;
  client: Client;
  widget: Widget;
}

async function setup(): Promise<Harness> {
  const time = installFakeTime({ now: Date.parse("2030-01-01T00:00:00Z") });
  const server = new FakeApiServer();
  server.register({ ...WIDGETS, statusSubresource: true });
  const client = new Client(server.url, { fetch: server.fetch });
  const widget = await client.create<Widget>(WIDGET_PATH, {
    apiVersion: "example.com/v1",
    kind: "Widget",
    metadata: { name: "w" },
  });
  return {
    time,
    server,
    client,
    widget,
    async [Symbol.asyncDispose](): Promise<void> {
      await server.stop();
      time[Symbol.dispose]();
    },
  };
}

/**
 * Runs `body` in the first reconcile of the Widget `w` (a second one, if the
 * body's writes wake the controller, does nothing), stops the controller,
 * and rethrows what the body threw.
 */
async function once<R>(
  h: Harness,
  body: (context: ReconcileContext<Widget>) => Promise<R>,
  options: Partial<ControllerOptions<Widget>> = {},
): Promise<R> {
  let outcome: { value: R } | { error: unknown } | undefined;
  const controller = new Controller<Widget>(h.client, {
    name: "widgets",
    for: WIDGETS,
    logger: testLogger({ onError: () => {} }),
    ...options,
    reconcile: async (context) => {
      if (outcome !== undefined) return;
      try {
        outcome = { value: await body(context) };
      } catch (error) {
        outcome = { error };
      }
    },
  });
  await h.time.settle();
  await controller.idle();
  await controller.stop();
  assert.ok(outcome !== undefined, "the reconcile ran");
  if ("error" in outcome) throw outcome.error;
  return outcome.value;
}

function configMap(name: string, data: Record<string, string>): ConfigMap {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace: "default" },
    data,
  };
}

Deno.test("apply: a child with the controller ownerReference, the controller's field manager and a memo note", async () => {
  await using h = await setup();
  const noted = await once(h, async (context) => {
    const applied = await context.apply(configMap("c", { k: "v" }));
    const ref = objectRef(CONFIGMAPS, applied);
    return context.versions.current(ref, applied.metadata.resourceVersion!);
  });
  assert.equal(noted, true);
  const held = h.server.object<ConfigMap>(`${CM}/c`)!;
  assert.deepEqual(held.data, { k: "v" });
  assert.deepEqual(held.metadata.ownerReferences, [{
    apiVersion: "example.com/v1",
    kind: "Widget",
    name: "w",
    uid: h.widget.metadata.uid,
    controller: true,
    blockOwnerDeletion: true,
  }]);
  const entries = held.metadata.managedFields as
    | { manager: string; operation: string }[]
    | undefined;
  const managers = entries?.map((entry) =>
    `${entry.manager} ${entry.operation}`
  );
  assert.deepEqual(managers, ["widgets Apply"]);
  const [patch] = h.server.requests.filter((r) => r.method === "PATCH");
  assert.equal(patch?.query.get("fieldManager"), "widgets");
  assert.equal(patch?.query.get("force"), "true");
});

Deno.test("apply: keeps other owners, and a `resource` option names the collection", async () => {
  await using h = await setup();
  const other = {
    apiVersion: "v1",
    kind: "Secret",
    name: "s",
    uid: "other-uid",
  };
  await once(h, async (context) => {
    const child = configMap("c", { k: "v" });
    child.metadata.ownerReferences = [other];
    await context.apply(child, { resource: CONFIGMAPS });
  });
  const held = h.server.object<ConfigMap>(`${CM}/c`)!;
  assert.deepEqual(
    held.metadata.ownerReferences?.map((reference) => reference.uid),
    ["other-uid", h.widget.metadata.uid],
  );
});

Deno.test("apply: the plural is guessed as apimachinery's UnsafeGuessKindToResource does", () => {
  assert.equal(guessPlural("ConfigMap"), "configmaps");
  assert.equal(guessPlural("NetworkPolicy"), "networkpolicies");
  assert.equal(guessPlural("Ingress"), "ingresses");
  assert.equal(guessPlural("Endpoints"), "endpointses");
});

Deno.test("apply: refusals come before any request", async (t) => {
  await using h = await setup();
  const refusals: [string, ConfigMap, RegExp][] = [
    [
      "another namespace",
      { ...configMap("c", {}), metadata: { name: "c", namespace: "other" } },
      /^The ConfigMap c in namespace other cannot be owned by Widget default\/w: an owner must be in the child's namespace$/,
    ],
    [
      "a cluster-scoped child",
      { apiVersion: "v1", kind: "Namespace", metadata: { name: "n" } },
      /^The cluster-scoped Namespace n cannot be owned by the namespaced Widget default\/w$/,
    ],
    [
      "another controller",
      {
        ...configMap("c", {}),
        metadata: {
          name: "c",
          namespace: "default",
          ownerReferences: [{
            apiVersion: "v1",
            kind: "Secret",
            name: "s",
            uid: "u",
            controller: true,
          }],
        },
      },
      /^The ConfigMap c names another controller: Secret s$/,
    ],
    [
      "no kind",
      { metadata: { name: "c", namespace: "default" } },
      /^A child to apply needs an apiVersion and a kind$/,
    ],
  ];
  for (const [name, child, message] of refusals) {
    await t.step(name, async () => {
      const before = h.server.requests.length;
      let during = 0;
      await assert.rejects(
        once(h, async (context) => {
          during = h.server.requests.length;
          await context.apply(child);
        }),
        (error: unknown) =>
          error instanceof TypeError && message.test(error.message),
      );
      // The controller's own list and watch only; no write.
      assert.ok(before <= during);
      assert.equal(
        h.server.requests.slice(before).filter((r) => r.method !== "GET")
          .length,
        0,
      );
    });
  }
  await t.step("a resource of another group", async () => {
    await assert.rejects(
      once(h, (context) =>
        context.apply(configMap("c", {}), {
          resource: { group: "apps", version: "v1", resource: "deployments" },
        })),
      /The ConfigMap c is v1, not of the resource apps\/v1 deployments$/,
    );
  });
});

Deno.test("apply: with force off, a field another manager owns is an ApplyConflictError; with force on it is taken", async () => {
  await using h = await setup();
  await h.client.resource(CONFIGMAPS).namespace("default").apply(
    configMap("c", { k: "theirs" }),
    { fieldManager: "other" },
  );
  const error = await once(h, async (context) => {
    try {
      await context.apply(configMap("c", { k: "mine" }));
      return undefined;
    } catch (error) {
      return error;
    }
  }, { applyForce: false });
  assert.ok(error instanceof ApplyConflictError, String(error));
  assert.deepEqual(error.fields, [".data.k"]);
  assert.equal(error.controller, "widgets");
  assert.equal(error.ref.name, "c");
  assert.equal(h.server.object<ConfigMap>(`${CM}/c`)?.data?.k, "theirs");
  // Per call, force wins over the controller's policy.
  await once(h, async (context) => {
    await context.apply(configMap("c", { k: "mine" }), { force: true });
  }, { applyForce: false });
  assert.equal(h.server.object<ConfigMap>(`${CM}/c`)?.data?.k, "mine");
});

Deno.test("context.client notes its writes in the memo without a wrapper, for the collections the controller watches", async () => {
  await using h = await setup();
  const SECRETS = { version: "v1", resource: "secrets", namespaced: true };
  const [own, other] = await once(h, async (context) => {
    const made = await context.client.resource(CONFIGMAPS).namespace("default")
      .create({ metadata: { name: "mine" } });
    const secret = await context.client.resource(SECRETS).namespace("default")
      .create({ metadata: { name: "s" } });
    return [
      context.versions.current(
        objectRef(CONFIGMAPS, made),
        made.metadata.resourceVersion!,
      ) && !context.versions.current(objectRef(CONFIGMAPS, made), "0"),
      context.versions.noted(objectRef(SECRETS, secret)),
    ];
  }, { owns: [CONFIGMAPS] });
  assert.equal(own, true, "a write of an owned collection is noted");
  assert.equal(other, false, "an unwatched collection's write is not");
});

Deno.test("deleteChild: deletes once; a gone child is fine", async () => {
  await using h = await setup();
  await h.client.create(CM, { metadata: { name: "c" } });
  const answers = await once(h, async (context) => {
    const ref = { ...CONFIGMAPS, namespace: "default", name: "c" };
    return [await context.deleteChild(ref), await context.deleteChild(ref)];
  });
  assert.deepEqual(answers, [true, false]);
  assert.equal(h.server.object(`${CM}/c`), undefined);
});

Deno.test("deleteChild: a ref outside the primary's namespace is refused, and nothing is sent", async () => {
  await using h = await setup();
  const deletes = (): number => h.server.count({ method: "DELETE" });
  const errors = await once(h, async (context) => {
    const found: unknown[] = [];
    for (const namespace of ["other", undefined]) {
      const ref = { ...CONFIGMAPS, namespace, name: "c" };
      found.push(await context.deleteChild(ref).catch((error) => error));
    }
    return found;
  });
  for (const error of errors) {
    assert.ok(error instanceof TypeError, String(error));
    assert.match(
      error.message,
      /a namespaced owner's children are in its namespace$/,
    );
  }
  assert.match(String(errors[0]), /configmaps other\/c cannot be a child/);
  assert.equal(deletes(), 0);
});

const ready = (status: "True" | "False", message = ""): Condition => ({
  type: "Ready",
  status,
  reason: status === "True" ? "Serving" : "Starting",
  message,
});

Deno.test("status: sets observedGeneration and conditions, and writes only when something changed", async () => {
  await using h = await setup();
  const puts = (): number =>
    h.server.count({ method: "PUT", path: `${WIDGET_PATH}/w/status` });
  // Without a schema, status.observedGeneration only when asked for.
  const first = await once(
    h,
    (context) =>
      context.status({ conditions: [ready("False")], phase: "Starting" }, {
        observedGeneration: true,
      }),
  );
  assert.equal(first, true);
  assert.equal(puts(), 1);
  let held = h.server.object<Widget>(`${WIDGET_PATH}/w`)!;
  assert.equal(held.status?.observedGeneration, held.metadata.generation);
  assert.equal(held.status?.phase, "Starting");
  const [condition] = held.status?.conditions as Condition[];
  assert.equal(condition?.observedGeneration, held.metadata.generation);
  assert.equal(condition?.lastTransitionTime, "2030-01-01T00:00:00Z");
  // The same status again, its fields in another order: nothing is sent.
  await h.time.tick(5_000);
  const again = await once(
    h,
    (context) =>
      context.status({ phase: "Starting", conditions: [ready("False")] }),
  );
  assert.equal(again, false);
  assert.equal(puts(), 1);
  // A new message: written, the transition time kept.
  await once(
    h,
    (context) => context.status({ conditions: [ready("False", "1 of 2")] }),
  );
  assert.equal(puts(), 2);
  held = h.server.object<Widget>(`${WIDGET_PATH}/w`)!;
  const [kept] = held.status?.conditions as Condition[];
  assert.equal(kept?.message, "1 of 2");
  assert.equal(kept?.lastTransitionTime, "2030-01-01T00:00:00Z");
  assert.equal(held.status?.phase, "Starting");
  // A changed status: the time moves; `null` removes a field.
  await once(
    h,
    (context) => context.status({ conditions: [ready("True")], phase: null }),
  );
  held = h.server.object<Widget>(`${WIDGET_PATH}/w`)!;
  const [moved] = held.status?.conditions as Condition[];
  assert.equal(moved?.status, "True");
  assert.notEqual(moved?.lastTransitionTime, "2030-01-01T00:00:00Z");
  assert.equal("phase" in (held.status ?? {}), false);
});

Deno.test("status: a transition posts an Event about the primary through the controller's recorder", async () => {
  await using h = await setup();
  const events = { instance: "pod-1" };
  await once(h, (context) => context.status({ conditions: [ready("False")] }), {
    wiring: {
      events,
    },
  });
  // A message alone is no transition: no Event.
  await once(
    h,
    (context) => context.status({ conditions: [ready("False", "1 of 2")] }),
    { wiring: { events } },
  );
  await once(
    h,
    (context) =>
      context.status({ conditions: [ready("True")] }, {
        bad: { Ready: "False" },
      }),
    { wiring: { events } },
  );
  const about = h.server.eventsAbout({ kind: "Widget", name: "w" });
  assert.deepEqual(
    about.map((event) => `${event.type} ${event.reason}`),
    ["Normal Starting", "Normal Serving"],
  );
  assert.equal(
    "observedGeneration" in
      (h.server.object<Widget>(`${WIDGET_PATH}/w`)?.status ?? {}),
    false,
  );
  assert.deepEqual(about[0]?.involvedObject, {
    apiVersion: "example.com/v1",
    kind: "Widget",
    name: "w",
    namespace: "default",
    uid: h.widget.metadata.uid,
  });
  assert.equal(
    (about[0] as { reportingComponent?: string }).reportingComponent,
    "widgets",
  );
});

Deno.test("apply and status: a gone primary is refused", async () => {
  await using h = await setup();
  await h.client.delete(`${WIDGET_PATH}/w`);
  const seen: string[] = [];
  const controller = new Controller<Widget>(h.client, {
    name: "widgets",
    for: WIDGETS,
    reconcile: async (context) => {
      await assert.rejects(
        context.status({}),
        /Cannot write the status: the primary default\/w is gone$/,
      );
      await assert.rejects(
        context.apply(configMap("c", {})),
        /Cannot apply a ConfigMap: the primary default\/w is gone$/,
      );
      seen.push(context.key);
    },
  });
  controller.queue.add("default/w");
  await h.time.settle();
  await controller.idle();
  await controller.stop();
  assert.deepEqual(seen, ["default/w"]);
});

Deno.test("metrics: one option wires the controller, its queue, watches, client and recorder", async () => {
  await using h = await setup();
  const metrics = new Metrics();
  await once(
    h,
    (context) => context.status({ conditions: [ready("True")] }),
    { wiring: { metrics, events: { instance: "pod-1" } } },
  );
  const text = metrics.render();
  assert.match(
    text,
    /^controller_runtime_reconcile_total\{controller="widgets",result="success"\} [12]$/m,
  );
  assert.match(text, /^workqueue_adds_total\{name="widgets"\} [1-9]\d*$/m);
  assert.match(
    text,
    /^informer_synced\{collection="widgets\.example\.com"\} 1$/m,
  );
  assert.match(
    text,
    /^rest_client_requests_total\{code="200",method="PUT",host="[^"]+"\} 1$/m,
  );
  assert.match(
    text,
    /^event_recorder_events_total\{component="widgets",result="created"\} 1$/m,
  );
  // The old way still works beside it: the user's observers still hear.
  const heard: string[] = [];
  const second = new Metrics();
  await once(h, () => Promise.resolve(), {
    name: "again",
    wiring: {
      metrics: second,
      observer: { reconciled: (result) => void heard.push(result) },
    },
    queue: {
      observer: {
        added: () => void heard.push("added"),
        taken: () => {},
        finished: () => {},
        retried: () => {},
      },
    },
  });
  assert.ok(heard.includes("success") && heard.includes("added"), `${heard}`);
  assert.match(
    second.render(),
    /^controller_runtime_reconcile_total\{controller="again",result="success"\} [12]$/m,
  );
});

Deno.test("a recorder and events together are refused", async () => {
  await using h = await setup();
  const recorder = new Recorder(h.client, "x", { instance: "pod-1" });
  assert.throws(
    () =>
      new Controller(h.client, {
        name: "widgets",
        for: WIDGETS,
        reconcile: () => {},
        wiring: {
          recorder,
          events: {},
        },
      }),
    /The controller widgets takes a recorder or events, not both$/,
  );
  await recorder.stop();
});

Deno.test("deepEqual compares objects by keys in any order, arrays in order", () => {
  assert.equal(
    deepEqual({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 }),
    true,
  );
  assert.equal(deepEqual({ a: [1, 2] }, { a: [2, 1] }), false);
  assert.equal(deepEqual({ a: 1 }, { a: 1, b: 2 }), false);
  assert.equal(deepEqual({ a: 1, b: undefined }, { a: 1 }), true);
  assert.equal(deepEqual([], {}), false);
});

Deno.test("normal and warning: Events about the primary, its reference made from it", async () => {
  await using h = await setup();
  await once(h, (context) => {
    context.normal({ reason: "Made", message: "Made the thing" });
    context.warning({ reason: "Broke", message: "It broke" });
    return Promise.resolve();
  }, { wiring: { events: { component: "widgets" } } });
  const events = h.server.eventsAbout({ kind: "Widget", name: "w" });
  assert.deepEqual(
    events.map((e) => [e.type, e.reason, e.message]).sort(),
    [["Normal", "Made", "Made the thing"], ["Warning", "Broke", "It broke"]],
  );
  for (const event of events) {
    assert.deepEqual(event.involvedObject, {
      apiVersion: "example.com/v1",
      kind: "Widget",
      namespace: "default",
      name: "w",
      uid: h.widget.metadata.uid,
    });
  }
});

Deno.test("normal and warning without a recorder do nothing", async () => {
  await using h = await setup();
  await once(h, (context) => {
    assert.equal(context.recorder, undefined);
    context.normal({ reason: "Made", message: "Made the thing" });
    return Promise.resolve();
  });
  assert.equal(h.server.count({ method: "POST", path: /\/events$/ }), 0);
});
