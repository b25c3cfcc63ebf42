// The fake calls admission webhooks as kube-apiserver does: over real HTTPS
// to a WebhookServer on 127.0.0.1, trusting the configuration's caBundle.
// Real sockets: these tests run on real time, with short timeouts.
import assert from "node:assert/strict";
import { testCerts } from "./certs.ts";
import type { KubeObject } from "../apiclient/types.ts";
import {
  ADMISSION,
  fixture,
  type Greeting,
  greeting,
  GREETINGS,
  GROUP,
} from "./_admission/webhooks_test_util.ts";

Deno.test({
  name: "webhooks: a configuration gets its defaults; a bad one is refused",
  async fn(): Promise<void> {
    await using f = await fixture();
    const path = `${ADMISSION}/validatingwebhookconfigurations`;
    const { timeoutSeconds: _, ...bare } = f.hook("/record");
    const made = await f.send("POST", path, {
      metadata: { name: "defaults" },
      webhooks: [bare],
    });
    assert.equal(made.status, 201);
    const hook = (made.body.webhooks as Record<string, unknown>[])[0]!;
    assert.equal(hook.failurePolicy, "Fail");
    assert.equal(hook.matchPolicy, "Equivalent");
    assert.equal(hook.timeoutSeconds, 10);
    assert.deepEqual(hook.namespaceSelector, {});
    assert.deepEqual(hook.objectSelector, {});
    assert.equal((hook.rules as { scope: string }[])[0]!.scope, "*");
    assert.equal((made.body.metadata as { generation: number }).generation, 1);
    const {
      sideEffects: _s,
      admissionReviewVersions: _a,
      ...invalid
    } = f.hook("/record", { timeoutSeconds: 31 });
    const refused = await f.send("POST", path, {
      metadata: { name: "bad" },
      webhooks: [invalid],
    });
    assert.equal(refused.status, 422);
    assert.equal(refused.body.reason, "Invalid");
    assert.equal(
      refused.body.message,
      'ValidatingWebhookConfiguration.admissionregistration.k8s.io "bad" is invalid: [webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun, webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds, webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1]',
    );
  },
});

Deno.test({
  name:
    "webhooks: a mutating patch is stored; a validating denial and warnings reach the client",
  async fn(): Promise<void> {
    await using f = await fixture();
    await f.configure("Mutating", "defaulter", [f.hook("/default")]);
    await f.configure("Validating", "validator", [f.hook("/validate")]);
    const made = await f.send("POST", GREETINGS, greeting("a", {}));
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.equal(made.headers.get("warning"), '299 - "saw CREATE"');
    const stored = f.api.object<Greeting>(`${GREETINGS}/a`)!;
    assert.equal(stored.spec?.message, "hello");
    assert.equal(stored.metadata.labels?.defaulted, "yes");
    // The validating webhook saw the object as stored: uid and all.
    const validated = f.seen.find((r) =>
      r.operation === "CREATE" && r.resource.resource === "greetings" &&
      r.object?.metadata.uid !== undefined
    )!;
    assert.equal(validated.object!.metadata.uid, stored.metadata.uid);
    assert.equal(
      validated.object!.metadata.creationTimestamp,
      stored.metadata.creationTimestamp,
    );
    assert.equal(validated.namespace, "default");
    assert.equal(validated.dryRun, false);
    // A PATCH the webhook denies: nothing changes.
    const denied = await f.send(
      "PATCH",
      `${GREETINGS}/a`,
      { spec: { message: "" } },
      { "content-type": "application/merge-patch+json" },
    );
    assert.equal(denied.status, 403);
    assert.deepEqual(denied.body, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message:
        'admission webhook "validate.demo.liken.dev" denied the request: spec.message must not be empty',
      reason: "Forbidden",
      code: 403,
    });
    assert.equal(denied.headers.get("warning"), '299 - "saw UPDATE"');
    assert.equal(
      f.api.object<Greeting>(`${GREETINGS}/a`)!.spec?.message,
      "hello",
    );
    const update = f.seen.findLast((r) => r.operation === "UPDATE")!;
    assert.equal((update.oldObject as Greeting).spec!.message, "hello");
    // DELETE: the old object, and the webhook's own code and reason.
    const kept = await f.send("DELETE", `${GREETINGS}/a`);
    assert.equal(kept.status, 409);
    assert.equal(kept.body.reason, "Conflict");
    assert.equal(
      kept.body.message,
      'admission webhook "validate.demo.liken.dev" denied the request: keep it',
    );
    assert.ok(f.api.object(`${GREETINGS}/a`));
    const deleting = f.seen.findLast((r) => r.operation === "DELETE")!;
    assert.equal(deleting.object, null);
    assert.equal(deleting.oldObject!.metadata.name, "a");
  },
});

Deno.test({
  name:
    "webhooks: a call that fails refuses the write under Fail and lets it through under Ignore",
  async fn(): Promise<void> {
    await using f = await fixture();
    const wrongCa = { url: "", caBundle: btoa(testCerts.otherCaCert) };
    const port = f.hooks.port;
    const failing: [string, Record<string, unknown>, RegExp][] = [
      [
        "wrong-ca",
        { ...wrongCa, url: `https://127.0.0.1:${port}/record` },
        new RegExp(
          `^Internal error occurred: failed calling webhook "wrong-ca\\.demo\\.liken\\.dev": failed to call webhook: Post "https://127\\.0\\.0\\.1:${port}/record\\?timeout=1s": .+`,
        ),
      ],
      [
        "not-found",
        {
          url: `https://127.0.0.1:${port}/nowhere`,
          caBundle: f.certificates.caBundle,
        },
        /failed to call webhook: the server could not find the requested resource$/,
      ],
      [
        "timeout",
        {
          url: `https://127.0.0.1:${port}/slow`,
          caBundle: f.certificates.caBundle,
        },
        /\?timeout=1s": context deadline exceeded$/,
      ],
      [
        "mutating-answer",
        {
          url: `https://127.0.0.1:${port}/default`,
          caBundle: f.certificates.caBundle,
        },
        /received invalid webhook response: validating webhook may not return response\.patch$/,
      ],
    ];
    for (const [name, clientConfig, message] of failing) {
      const config = `${name}-config`;
      await f.configure("Validating", config, [{
        ...f.hook("/record", { timeoutSeconds: 1 }),
        name: `${name}.${GROUP}`,
        clientConfig,
      }]);
      const refused = await f.send("POST", GREETINGS, greeting(name));
      assert.equal(refused.status, 500, name);
      assert.equal(refused.body.reason, "InternalError");
      assert.match(String(refused.body.message), message);
      assert.equal(f.api.object(`${GREETINGS}/${name}`), undefined);
      const path = `${ADMISSION}/validatingwebhookconfigurations/${config}`;
      const now = (await f.send("GET", path)).body as {
        webhooks: Record<string, unknown>[];
      };
      now.webhooks[0]!.failurePolicy = "Ignore";
      assert.equal((await f.send("PUT", path, now)).status, 200);
      const through = await f.send("POST", GREETINGS, greeting(name));
      assert.equal(through.status, 201, name);
    }
  },
});

Deno.test({
  name:
    "webhooks: rules match operations, resources (not subresources unless named) and scope",
  async fn(): Promise<void> {
    await using f = await fixture();
    const rule = (
      resources: string[],
      extra: Record<string, unknown> = {},
    ) => ({
      operations: ["UPDATE"],
      apiGroups: ["*"],
      apiVersions: ["*"],
      resources,
      ...extra,
    });
    await f.configure("Validating", "rules", [
      {
        ...f.hook("/record"),
        name: `main.${GROUP}`,
        rules: [rule(["greetings"])],
      },
      {
        ...f.hook("/record"),
        name: `status.${GROUP}`,
        rules: [rule(["greetings/status"])],
      },
      {
        ...f.hook("/record"),
        name: `cluster.${GROUP}`,
        rules: [rule(["*"], { scope: "Cluster" })],
      },
    ]);
    const made = await f.send("POST", GREETINGS, greeting("r"));
    assert.equal(made.status, 201);
    assert.equal(f.seen.length, 0, "CREATE is not in the rules");
    const object = made.body as unknown as Greeting;
    const status = await f.send("PUT", `${GREETINGS}/r/status`, {
      ...object,
      status: { seen: true },
    });
    assert.equal(status.status, 200, JSON.stringify(status.body));
    assert.deepEqual(
      f.seen.map((r) => [r.resource.resource, r.subResource]),
      [["greetings", "status"]],
    );
    f.seen.length = 0;
    const main = await f.send("PUT", `${GREETINGS}/r`, {
      ...(status.body as unknown as Greeting),
      spec: { message: "again" },
    });
    assert.equal(main.status, 200);
    assert.deepEqual(
      f.seen.map((r) => [r.resource.resource, r.subResource]),
      [["greetings", undefined]],
    );
    f.seen.length = 0;
    // Scope Cluster: a Namespace update matches, a ConfigMap does not.
    const ns = await f.send("POST", "/api/v1/namespaces", {
      metadata: { name: "scoped" },
    });
    const labelled = ns.body as {
      metadata: { labels: Record<string, string> };
    };
    labelled.metadata.labels.changed = "yes";
    assert.equal(
      (await f.send("PUT", "/api/v1/namespaces/scoped", labelled)).status,
      200,
    );
    assert.deepEqual(f.seen.map((r) => r.resource.resource), ["namespaces"]);
  },
});

Deno.test({
  name: "webhooks: namespaceSelector and objectSelector",
  async fn(): Promise<void> {
    await using f = await fixture();
    await f.configure("Validating", "selectors", [
      {
        ...f.hook("/record"),
        name: `ns.${GROUP}`,
        namespaceSelector: { matchLabels: { team: "a" } },
        rules: [{
          operations: ["CREATE"],
          apiGroups: ["*"],
          apiVersions: ["*"],
          resources: ["greetings", "namespaces"],
        }],
      },
      {
        ...f.hook("/record"),
        name: `object.${GROUP}`,
        objectSelector: {
          matchExpressions: [{ key: "watched", operator: "Exists" }],
        },
      },
    ]);
    const names = () => f.seen.map((r) => `${r.name}`);
    await f.send("POST", GREETINGS, greeting("plain"));
    assert.deepEqual(names(), []);
    await f.send("POST", GREETINGS, greeting("w", undefined, { watched: "" }));
    assert.deepEqual(names(), ["w"]);
    f.seen.length = 0;
    // A Namespace is matched by its own labels; then its objects are.
    const made = await f.send("POST", "/api/v1/namespaces", {
      metadata: { name: "team-a", labels: { team: "a" } },
    });
    assert.equal(made.status, 201);
    assert.deepEqual(names(), ["team-a"]);
    await f.send(
      "POST",
      `/apis/${GROUP}/v1/namespaces/team-a/greetings`,
      greeting("in-a"),
    );
    assert.deepEqual(names(), ["team-a", "in-a"]);
  },
});

Deno.test({
  name:
    "webhooks: a dry run reaches webhooks that declare no side effects and is refused by others",
  async fn(): Promise<void> {
    await using f = await fixture();
    await f.configure("Validating", "dry", [
      f.hook("/record", { sideEffects: "NoneOnDryRun" }),
    ]);
    const dry = await f.send(
      "POST",
      `${GREETINGS}?dryRun=All`,
      greeting("d"),
    );
    assert.equal(dry.status, 201);
    assert.equal(f.seen.at(-1)?.dryRun, true);
    assert.equal(f.api.object(`${GREETINGS}/d`), undefined);
    // v1 refuses Some and Unknown; a configuration written past the checks
    // (from an older API version) has them.
    const path = `${ADMISSION}/validatingwebhookconfigurations/dry`;
    const config = f.api.object(path) as KubeObject & {
      webhooks: Record<string, unknown>[];
    };
    config.webhooks[0]!.sideEffects = "Some";
    f.api.put(path, config);
    const refused = await f.send(
      "POST",
      `${GREETINGS}?dryRun=All`,
      greeting("d"),
    );
    assert.equal(refused.status, 400);
    assert.equal(refused.body.reason, "BadRequest");
    assert.equal(
      refused.body.message,
      'admission webhook "record.demo.liken.dev" does not support dry run',
    );
    assert.equal((await f.send("POST", GREETINGS, greeting("d"))).status, 201);
  },
});
