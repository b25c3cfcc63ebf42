// Mutating webhooks: what a patch does to managedFields on a PATCH, and
// reinvocationPolicy (IfNeeded: called once more when a later webhook
// changed the object; Never: not).
import assert from "node:assert/strict";
import { mutating } from "../webhook/mod.ts";
import {
  fixture,
  type Greeting,
  greeting,
  GREETINGS,
  GROUP,
} from "./_admission/webhooks_test_util.ts";

interface ManagedEntry {
  manager: string;
  operation: string;
  fieldsV1: Record<string, unknown>;
}

Deno.test({
  name:
    "webhooks: a mutating webhook's patch on a PATCH is stored, and what only it set is owned by no one",
  async fn(): Promise<void> {
    await using f = await fixture({
      webhooks: {
        "/stamp": mutating<Greeting>(({ object, operation }) => {
          if (object && operation === "UPDATE") {
            object.metadata.labels = {
              ...object.metadata.labels,
              stamped: "yes",
            };
          }
        }),
      },
    });
    const made = await f.send(
      "POST",
      `${GREETINGS}?fieldManager=creator`,
      greeting("m"),
    );
    assert.equal(made.status, 201);
    await f.configure("Mutating", "stamp", [f.hook("/stamp")]);
    const patched = await f.send(
      "PATCH",
      `${GREETINGS}/m?fieldManager=patcher`,
      { spec: { message: "changed" } },
      { "content-type": "application/merge-patch+json" },
    );
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    const stored = f.api.object<Greeting>(`${GREETINGS}/m`)!;
    assert.equal(stored.spec?.message, "changed");
    assert.equal(stored.metadata.labels?.stamped, "yes");
    const managed = (patched.body as unknown as Greeting).metadata
      .managedFields as unknown as ManagedEntry[];
    const byManager = new Map(managed.map((e) => [e.manager, e]));
    assert.deepEqual([...byManager.keys()].sort(), ["creator", "patcher"]);
    const patcher = byManager.get("patcher")!;
    assert.equal(patcher.operation, "Update");
    assert.deepEqual(
      (patcher.fieldsV1["f:spec"] as Record<string, unknown>)["f:message"],
      {},
    );
    // kube-apiserver records ownership before mutating admission (since
    // kubernetes/kubernetes#87671), so a field only the webhook set is
    // owned by no one (testing/differential/golden/admission-webhooks.json:
    // "create mutated" and "update mutated").
    for (const entry of managed) {
      const labels = (entry.fieldsV1["f:metadata"] as
        | Record<string, Record<string, unknown>>
        | undefined)?.["f:labels"];
      assert.equal(labels?.["f:stamped"], undefined, entry.manager);
    }
    // The creator keeps what it wrote and the patcher took over.
    const creator = byManager.get("creator")!;
    assert.equal(
      (creator.fieldsV1["f:spec"] as Record<string, unknown> | undefined)?.[
        "f:message"
      ],
      undefined,
    );
  },
});

// Two mutating configurations, called in name order: `a-first` (the policy
// under test) records the label `second` it sees; `b-second` sets it.
async function reinvocation(
  policy: "IfNeeded" | "Never",
  secondChanges: boolean,
): Promise<{ first: string[]; second: number; stored: Greeting }> {
  const first: string[] = [];
  let second = 0;
  await using f = await fixture({
    webhooks: {
      "/first": mutating<Greeting>(({ object }) => {
        const seen = object!.metadata.labels?.second ?? "none";
        first.push(seen);
        object!.metadata.labels = {
          ...object!.metadata.labels,
          "first-saw": seen,
        };
      }),
      "/second": mutating<Greeting>(({ object }) => {
        second++;
        if (secondChanges) {
          object!.metadata.labels = {
            ...object!.metadata.labels,
            second: "yes",
          };
        }
      }),
    },
  });
  await f.configure("Mutating", "b-second", [f.hook("/second")]);
  await f.configure("Mutating", "a-first", [
    f.hook("/first", { reinvocationPolicy: policy }),
  ]);
  const made = await f.send("POST", GREETINGS, greeting("r"));
  assert.equal(made.status, 201, JSON.stringify(made.body));
  return { first, second, stored: f.api.object<Greeting>(`${GREETINGS}/r`)! };
}

Deno.test({
  name:
    "webhooks: reinvocationPolicy IfNeeded calls a webhook once more after a later one changed the object",
  async fn(): Promise<void> {
    const { first, second, stored } = await reinvocation("IfNeeded", true);
    assert.deepEqual(first, ["none", "yes"]);
    assert.equal(second, 1, "a Never webhook is not called again");
    assert.equal(stored.metadata.labels?.["first-saw"], "yes");
    assert.equal(stored.metadata.labels?.second, "yes");
  },
});

Deno.test({
  name:
    "webhooks: reinvocationPolicy Never, or IfNeeded with no later change, calls a webhook once",
  async fn(): Promise<void> {
    const never = await reinvocation("Never", true);
    assert.deepEqual(never.first, ["none"]);
    assert.equal(never.stored.metadata.labels?.["first-saw"], "none");
    assert.equal(never.stored.metadata.labels?.second, "yes");
    // `first` changes the object itself, `second` changes nothing: a
    // webhook is not reinvoked for its own change.
    const unchanged = await reinvocation("IfNeeded", false);
    assert.deepEqual(unchanged.first, ["none"]);
    assert.equal(unchanged.second, 1);
  },
});

Deno.test({
  name:
    "webhooks: an IfNeeded webhook in the same configuration is reinvoked too; the reinvocation round is the last",
  async fn(): Promise<void> {
    const calls: string[] = [];
    await using f = await fixture({
      webhooks: {
        "/count": mutating<Greeting>(({ object }) => {
          calls.push("count");
          const n = Number(object!.metadata.labels?.count ?? "0") + 1;
          object!.metadata.labels = {
            ...object!.metadata.labels,
            count: String(n),
          };
        }),
        "/bump": mutating<Greeting>(({ object }) => {
          calls.push("bump");
          const n = Number(object!.metadata.labels?.bump ?? "0") + 1;
          object!.metadata.labels = {
            ...object!.metadata.labels,
            bump: String(n),
          };
        }),
      },
    });
    // Both IfNeeded and both always changing the object: count, bump (which
    // makes count due again), then count once more; bump is not due (count
    // ran before it only in the first round), and there is no third round.
    await f.configure("Mutating", "both", [
      f.hook("/count", { reinvocationPolicy: "IfNeeded" }),
      f.hook("/bump", {
        reinvocationPolicy: "IfNeeded",
        name: `bump.${GROUP}`,
      }),
    ]);
    const made = await f.send("POST", GREETINGS, greeting("c"));
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.deepEqual(calls, ["count", "bump", "count"]);
    const labels = f.api.object<Greeting>(`${GREETINGS}/c`)!.metadata.labels;
    assert.equal(labels?.count, "2");
    assert.equal(labels?.bump, "1");
  },
});
