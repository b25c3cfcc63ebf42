import assert from "node:assert/strict";
import {
  conversion,
  Denied,
  HandlerError,
  mutating,
  ReviewError,
  validating,
} from "./mod.ts";
import { defineResource } from "../resource/mod.ts";
import type { AdmissionReview } from "./types.ts";
import { admissionReview } from "./_test_util.ts";
import { testLogger } from "../_internal/_log_test_util.ts";

function patchOf(
  review: AdmissionReview,
): unknown {
  return JSON.parse(atob(review.response?.patch ?? ""));
}

Deno.test("a mutating handler's changes become an RFC 6902 JSON Patch", async () => {
  const webhook = mutating(({ object }) => {
    const o = structuredClone(object!) as
      & Record<string, unknown>
      & typeof object;
    o!.metadata.labels = { "a/b": "x", "t~": "y" };
    delete (o as Record<string, unknown>).data;
    (o as Record<string, unknown>).spec = { items: [1, 2] };
    return o!;
  });
  const review = await webhook.review(admissionReview("u1"));
  assert.equal(review.response?.uid, "u1");
  assert.equal(review.response?.patchType, "JSONPatch");
  assert.deepEqual(patchOf(review), [
    { op: "remove", path: "/data" },
    { op: "add", path: "/metadata/labels", value: { "a/b": "x", "t~": "y" } },
    { op: "add", path: "/spec", value: { items: [1, 2] } },
  ]);
});

Deno.test("a mutating handler that changes in place, or nothing", async () => {
  const inPlace = mutating(({ object }) => {
    object!.metadata.annotations = { k: "v" };
  });
  const changed = await inPlace.review(admissionReview("u1"));
  assert.deepEqual(patchOf(changed), [
    { op: "add", path: "/metadata/annotations", value: { k: "v" } },
  ]);
  const nothing = await mutating(() => {}).review(admissionReview("u2"));
  assert.deepEqual(nothing.response, { uid: "u2", allowed: true });
});

Deno.test("handlers see dryRun, the old object on UPDATE and DELETE, warnings", async () => {
  const seen: unknown[] = [];
  const webhook = validating(
    ({ operation, dryRun, object, oldObject }, { warn }) => {
      seen.push({
        operation,
        dryRun,
        object: object?.metadata.name,
        old: oldObject?.metadata.name,
      });
      warn("w1");
      warn("w2");
    },
  );
  const update = await webhook.review(admissionReview("u1", {
    operation: "UPDATE",
    dryRun: true,
    oldObject: { metadata: { name: "a" } },
  }));
  assert.deepEqual(update.response?.warnings, ["w1", "w2"]);
  await webhook.review(admissionReview("u2", {
    operation: "DELETE",
    object: null,
    oldObject: { metadata: { name: "a" } },
  }));
  assert.deepEqual(seen, [
    { operation: "UPDATE", dryRun: true, object: "a", old: "a" },
    { operation: "DELETE", dryRun: undefined, object: undefined, old: "a" },
  ]);
});

Deno.test("a handler that throws denies with its message and is reported", async () => {
  const errors: unknown[] = [];
  const webhook = validating(() => {
    throw new Error("database down");
  }, {
    name: "/validate",
    logger: testLogger({ onError: (e) => errors.push(e) }),
  });
  const review = await webhook.review(admissionReview("u1"));
  assert.deepEqual(review.response, {
    uid: "u1",
    allowed: false,
    status: { code: 500, message: "database down", metadata: {} },
  });
  assert.equal(errors.length, 1);
  assert.ok(errors[0] instanceof HandlerError);
  assert.equal(
    (errors[0] as HandlerError).message,
    "The webhook /validate failed on request u1: database down",
  );
  const denied = await validating(() => {
    throw new Denied("no", { code: 422, reason: "Invalid" });
  }, { logger: testLogger({ onError: (e) => errors.push(e) }) }).review(
    admissionReview("u2"),
  );
  assert.deepEqual(denied.response?.status, {
    code: 422,
    reason: "Invalid",
    message: "no",
    metadata: {},
  });
  assert.equal(errors.length, 1, "a denial is not an error");
});

Deno.test("malformed admission reviews are ReviewErrors with clear messages", async () => {
  const webhook = validating(() => {});
  const cases: [unknown, string][] = [
    [null, "The body is not a AdmissionReview object"],
    [[], "The body is not a AdmissionReview object"],
    [
      {
        apiVersion: "admission.k8s.io/v1beta1",
        kind: "AdmissionReview",
        request: {},
      },
      'Expected a AdmissionReview of admission.k8s.io/v1, got kind "AdmissionReview" of "admission.k8s.io/v1beta1"',
    ],
    [
      { apiVersion: "apiextensions.k8s.io/v1", kind: "ConversionReview" },
      'Expected a AdmissionReview of admission.k8s.io/v1, got kind "ConversionReview" of "apiextensions.k8s.io/v1"',
    ],
    [
      { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview" },
      "The AdmissionReview has no request",
    ],
    [admissionReview(""), "The AdmissionReview request has no uid"],
    [
      admissionReview("u", { operation: "PATCH" }),
      'The request\'s operation "PATCH" is not one of CREATE, UPDATE, DELETE, CONNECT',
    ],
    [
      admissionReview("u", { object: "x" }),
      "The request's object is not an object",
    ],
    [
      admissionReview("u", { operation: "UPDATE" }),
      "The request has no oldObject",
    ],
    [
      admissionReview("u", { object: { metadata: 3 } }),
      "The request's object.metadata is not an object",
    ],
  ];
  for (const [body, message] of cases) {
    await assert.rejects(
      webhook.review(body),
      (e) =>
        e instanceof ReviewError && e.message === message && e.status === 400,
      message,
    );
  }
});

const spec = (field: string) =>
  ({
    type: "object",
    properties: {
      spec: { type: "object", properties: { [field]: { type: "integer" } } },
    },
  }) as const;
const GADGETS = defineResource({
  group: "example.com",
  kind: "Gadget",
  plural: "gadgets",
  scope: "Namespaced",
  versions: [
    { name: "v1", storage: true, schema: spec("size") },
    { name: "v1beta1", schema: spec("count") },
  ],
});

function conversionReview(
  objects: unknown[],
  desired = "example.com/v1",
): unknown {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "ConversionReview",
    request: { uid: "c1", desiredAPIVersion: desired, objects },
  };
}
const OLD = {
  apiVersion: "example.com/v1beta1",
  kind: "Gadget",
  metadata: {
    name: "g",
    namespace: "d",
    uid: "1",
    labels: { a: "1" },
    resourceVersion: "5",
  },
  spec: { count: 3 },
};

Deno.test("conversion keeps only label and annotation changes, refuses uid/name/namespace changes", async () => {
  const webhook = conversion(GADGETS, (object) => ({
    ...object,
    metadata: {
      ...object.metadata,
      labels: { b: "2" },
      resourceVersion: "99",
      generation: 7,
    },
    spec: { size: (object as unknown as typeof OLD).spec.count },
  }));
  const ok = await webhook.review(
    conversionReview([OLD, {
      ...OLD,
      apiVersion: "example.com/v1",
      spec: { size: 1 },
    }]),
  );
  assert.equal(ok.response?.result.status, "Success");
  assert.deepEqual(ok.response?.convertedObjects[0], {
    apiVersion: "example.com/v1",
    kind: "Gadget",
    metadata: {
      name: "g",
      namespace: "d",
      uid: "1",
      labels: { b: "2" },
      resourceVersion: "5",
    },
    spec: { size: 3 },
  });
  assert.deepEqual(
    ok.response?.convertedObjects[1]?.apiVersion,
    "example.com/v1",
  );
  for (const field of ["uid", "name", "namespace"]) {
    const bad = conversion(
      GADGETS,
      (object) => ({
        ...object,
        metadata: { ...object.metadata, [field]: "other" },
      }),
    );
    const review = await bad.review(conversionReview([OLD]));
    assert.deepEqual(review.response?.result, {
      status: "Failure",
      message:
        `The conversion of "d/g" changed metadata.${field}, which it may not`,
    });
    assert.deepEqual(review.response?.convertedObjects, []);
  }
});

Deno.test("conversion to an unknown version, a throwing converter, malformed reviews", async () => {
  const errors: unknown[] = [];
  const webhook = conversion(GADGETS, () => {
    throw new Error("nope");
  }, { logger: testLogger({ onError: (e) => errors.push(e) }) });
  const unknown = await webhook.review(
    conversionReview([OLD], "example.com/v2"),
  );
  assert.deepEqual(unknown.response?.result, {
    status: "Failure",
    message: "example.com/v2 is not a version of Gadget.example.com",
  });
  const threw = await webhook.review(conversionReview([OLD]));
  assert.deepEqual(threw.response?.result, {
    status: "Failure",
    message: "nope",
  });
  assert.equal(errors.length, 1);
  await assert.rejects(webhook.review(admissionReview("u")), ReviewError);
  await assert.rejects(
    webhook.review(conversionReview([{ kind: "x" }])),
    /objects\[0\] is not an object with metadata/,
  );
});

Deno.test("a review's object reaches the handler as parsed, not copied (a review can be megabytes)", async () => {
  const body = admissionReview("u1");
  const sent = (body.request as { object?: unknown }).object;
  let seen: unknown;
  await validating(({ object }) => void (seen = object)).review(body);
  assert.equal(seen, sent, "the validating handler's object");
  // A mutating handler's diff copies the object it compares with, once.
  let mutated: unknown;
  const answer = await mutating(({ object }) => {
    mutated = object;
    object!.metadata.labels = { changed: "yes" };
  }).review(body);
  assert.equal(mutated, sent);
  assert.deepEqual(patchOf(answer), [
    { op: "add", path: "/metadata/labels", value: { changed: "yes" } },
  ]);
});
