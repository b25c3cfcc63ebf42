/**
 * Conversion webhooks: a two-version kind (`v1`, stored, with
 * `spec.message`; `v1beta1` with `spec.text`; v1 is also the preferred
 * version, so the control plane's garbage collector, which watches every
 * kind in its preferred version, calls no conversion of its own) whose
 * CustomResourceDefinition names one HTTPS server on loopback by `url:`
 * with the test CA as its `caBundle`. The webhook is the library's `conversion` handler, and a
 * `mode` the steps set makes it answer wrongly in one way at a time (a
 * wrong uid, a failure, too few objects, a changed name, a wrong
 * apiVersion, changed labels). What the webhook was sent is a step of its
 * own; the invalid conversion stanzas the API server refuses are steps
 * too. It runs on the API server without the watch cache, whose reads
 * come from etcd: each object decoded in v1beta1 is one review, as the fake
 * sends them (the watch cache converts each change once per version and
 * answers lists from its copies, so lists there call no webhook).
 *
 * @module
 */

import { testCerts } from "../../certs.ts";
import {
  defineResource,
  type ObjectSchema,
  type ResourceDefinition,
} from "../../../resource/mod.ts";
import {
  conversion,
  type ConversionReview,
  type ConvertibleDefinition,
  type Webhook,
} from "../../../webhook/mod.ts";
import type { KubeObject } from "../../../apiclient/types.ts";
import type { Run } from "../_target.ts";
import { MERGE_PATCH, rvOf, type Scenario } from "./_common.ts";

const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

/** How the webhook answers: right, or wrong in one way. */
type Mode =
  | "ok"
  | "uid"
  | "failed"
  | "count"
  | "name"
  | "apiVersion"
  | "labels";

const spec = (field: string) =>
  ({
    type: "object",
    properties: {
      spec: { type: "object", properties: { [field]: { type: "string" } } },
    },
  }) as const;

/** The kind of the scenario, in the run's own group. */
function notes(
  group: string,
): ConvertibleDefinition & Pick<ResourceDefinition<ObjectSchema>, "crd"> {
  return defineResource({
    group,
    kind: "Note",
    plural: "notes",
    scope: "Namespaced",
    versions: [
      { name: "v1", storage: true, schema: spec("message") },
      { name: "v1beta1", schema: spec("text") },
    ],
  });
}

/** `spec.message` (v1) and `spec.text` (v1beta1) are the same field. */
function convertNote(object: KubeObject, version: string): KubeObject {
  const { spec = {}, ...rest } = object as KubeObject & {
    spec?: Record<string, unknown>;
  };
  const converted = version === "v1beta1"
    ? { ...rest, spec: { text: spec.message } }
    : { ...rest, spec: { message: spec.text } };
  return converted as KubeObject;
}

/** The library's webhook, made wrong as `mode()` says. */
function broken(
  inner: Webhook<ConversionReview>,
  mode: () => Mode,
): Webhook<ConversionReview> {
  return {
    type: "conversion",
    async review(body, options): Promise<ConversionReview> {
      const answer = await inner.review(body, options);
      const response = answer.response!;
      switch (mode()) {
        case "uid":
          response.uid = `${response.uid}-not`;
          break;
        case "failed":
          response.convertedObjects = [];
          response.result = {
            status: "Failure",
            message: "the converter is broken",
          };
          break;
        case "count":
          response.convertedObjects = [];
          break;
        case "name":
          for (const object of response.convertedObjects) {
            object.metadata.name = `${object.metadata.name}-renamed`;
          }
          break;
        case "apiVersion":
          for (const object of response.convertedObjects) {
            object.apiVersion = `${object.apiVersion}beta1`;
          }
          break;
        case "labels":
          for (const object of response.convertedObjects) {
            object.metadata.labels = { converted: "yes" };
          }
          break;
      }
      return answer;
    },
  };
}

/** What a review asked for, without what only one server can know. */
function summary(review: ConversionReview): Record<string, unknown> {
  const request = review.request!;
  return {
    desiredAPIVersion: request.desiredAPIVersion,
    objects: request.objects.map((o) =>
      `${o.apiVersion} ${o.metadata.name ?? ""}`
    ),
  };
}

/** Waits (quietly) until the definition at `path` is Established. */
async function established(r: Run, path: string): Promise<void> {
  await r.until("the definition's Established condition", async () => {
    const { body } = await r.send("poll", "GET", path, { quiet: true });
    const conditions = (body as {
      status?: { conditions?: { type: string; status: string }[] | null };
    }).status?.conditions ?? [];
    return conditions.some((c) =>
      c.type === "Established" && c.status === "True"
    );
  });
}

async function conversionWebhooks(r: Run): Promise<void> {
  const group = `${r.namespace}.example.com`;
  const NOTES = notes(group);
  const crdPath = `${CRDS}/notes.${group}`;
  let mode: Mode = "ok";
  const seen: Record<string, unknown>[] = [];
  // The library's handler, served by Deno.serve to see each call's
  // connection: the recording control plane runs a second API server (with
  // the watch cache) on the same etcd, whose watch cache converts every
  // change for its own copies when something there reads the kind (the
  // namespace controller cleaning up earlier runs, say). Only the calls
  // on the connection of the server under test are recorded: the one that
  // converted a write (the fake opens a connection per call, so all of
  // its calls are kept).
  const hook = broken(conversion(NOTES, convertNote), () => mode);
  let ours: number | undefined;
  await using server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    cert: testCerts.serverCert,
    key: testCerts.serverKey,
    onListen(): void {},
  }, async (request, info) => {
    const body = await request.json() as ConversionReview;
    const from = info.remoteAddr.port;
    if (body.request?.desiredAPIVersion === `${group}/v1`) ours ??= from;
    if (r.target.name !== "real" || from === ours) seen.push(summary(body));
    return Response.json(await hook.review(body));
  });
  const url = `https://127.0.0.1:${server.addr.port}/convert`;
  const caBundle = btoa(testCerts.caCert);
  const webhook = {
    clientConfig: { url, caBundle },
    conversionReviewVersions: ["v1"],
  };
  const v1 = r.path("notes", `${group}/v1`);
  const v1beta1 = r.path("notes", `${group}/v1beta1`);
  const note = (
    version: "v1" | "v1beta1",
    name: string,
    value: string,
  ): Record<string, unknown> => ({
    apiVersion: `${group}/${version}`,
    kind: "Note",
    metadata: { name },
    spec: version === "v1" ? { message: value } : { text: value },
  });
  try {
    // The invalid stanzas first: each a definition of its own group.
    const invalid: [string, unknown][] = [
      ["webhook without its config", { strategy: "Webhook" }],
      ["webhook without review versions", {
        strategy: "Webhook",
        webhook: { clientConfig: { url, caBundle } },
      }],
      ["webhook with no known review version", {
        strategy: "Webhook",
        webhook: { ...webhook, conversionReviewVersions: ["v9"] },
      }],
      ["webhook with url and service", {
        strategy: "Webhook",
        webhook: {
          ...webhook,
          clientConfig: {
            url,
            caBundle,
            service: { namespace: r.namespace, name: "hooks" },
          },
        },
      }],
      ["webhook with neither url nor service", {
        strategy: "Webhook",
        webhook: { ...webhook, clientConfig: { caBundle } },
      }],
      ["webhook over http", {
        strategy: "Webhook",
        webhook: {
          ...webhook,
          clientConfig: { url: url.replace("https:", "http:") },
        },
      }],
      ["none with a webhook", { strategy: "None", webhook }],
      ["unknown strategy", { strategy: "Sometimes" }],
    ];
    for (const [i, [step, stanza]] of invalid.entries()) {
      const crd = notes(`bad${i}.${group}`).crd();
      (crd.spec as { conversion?: unknown }).conversion = stanza;
      await r.send(step, "POST", CRDS, { body: crd });
    }

    await r.send("create definition", "POST", CRDS, {
      body: NOTES.crd({
        conversion: {
          strategy: "Webhook",
          webhook,
        },
      }),
    });
    await established(r, crdPath);
    // The API server serves a new definition's conversion a moment after
    // it is Established: wait until a write in v1beta1 keeps its text.
    let probe = 0;
    await r.until("the conversion webhook to be in force", async () => {
      const name = `probe-${probe++}`;
      const { status, body } = await r.send("probe", "POST", v1beta1, {
        body: note("v1beta1", name, "probe"),
        quiet: true,
      });
      await r.send("probe", "DELETE", `${v1}/${name}`, { quiet: true });
      return status === 201 &&
        (body as { spec?: { text?: string } }).spec?.text === "probe";
    }, 30_000);
    seen.length = 0;

    const made = await r.send("create in v1beta1", "POST", v1beta1, {
      body: note("v1beta1", "a", "hello"),
    });
    await r.send("get in v1 (no call)", "GET", `${v1}/a`);
    await r.send("get in v1beta1", "GET", `${v1beta1}/a`);
    await r.send("create in v1 (no call)", "POST", v1, {
      body: note("v1", "b", "from v1"),
    });
    const listed = await r.send("list in v1beta1", "GET", v1beta1);
    await r.send("list in v1beta1, a page", "GET", `${v1beta1}?limit=1`);
    await r.send("list in v1 (no call)", "GET", v1);
    await r.watch(
      "watch in v1beta1",
      `${v1beta1}?watch=1&resourceVersion=${rvOf(listed.body)}`,
      {
        events: 1,
        during: async () => {
          await r.send("patch in v1 during the watch", "PATCH", `${v1}/b`, {
            body: { spec: { message: "patched" } },
            contentType: MERGE_PATCH,
            quiet: true,
          });
        },
      },
    );
    await r.send("update in v1beta1", "PUT", `${v1beta1}/a`, {
      body: {
        ...(made.body as Record<string, unknown>),
        spec: { text: "updated" },
      },
    });
    await r.send("patch in v1beta1", "PATCH", `${v1beta1}/a`, {
      body: { spec: { text: "patched" } },
      contentType: MERGE_PATCH,
    });
    await r.send("get the patch in v1", "GET", `${v1}/a`);

    for (
      const wrong of [
        "uid",
        "failed",
        "count",
        "name",
        "apiVersion",
      ] as const
    ) {
      mode = wrong;
      await r.send(`get in v1beta1, ${wrong}`, "GET", `${v1beta1}/a`);
    }
    mode = "failed";
    await r.send("list in v1beta1, failed", "GET", v1beta1);
    await r.send("create in v1beta1, failed", "POST", v1beta1, {
      body: note("v1beta1", "c", "never"),
    });
    await r.send("not created", "GET", `${v1}/c`);
    mode = "labels";
    await r.send("get in v1beta1, labels", "GET", `${v1beta1}/a`);
    mode = "ok";
    await r.send("delete in v1beta1", "DELETE", `${v1beta1}/a`);
    r.steps.push({
      step: "what the webhook was sent",
      request: "WEBHOOK reviews",
      status: 0,
      body: seen,
    });
  } finally {
    mode = "ok";
    for (let i = 0; i < 8; i++) {
      await r.send("cleanup", "DELETE", `${CRDS}/notes.bad${i}.${group}`, {
        quiet: true,
      });
    }
    await r.send("cleanup", "DELETE", crdPath, { quiet: true });
  }
}

/** The scenarios of this area, in order. */
export const CONVERSION: readonly Scenario[] = [
  { name: "conversion-webhooks", noWatchCache: true, run: conversionWebhooks },
];
