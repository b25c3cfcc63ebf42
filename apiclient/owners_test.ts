import assert from "node:assert/strict";
import { controllerOf, controllerRef } from "./owners.ts";

const GREETING = {
  group: "demo.liken.dev",
  version: "v1alpha1",
  resource: "greetings",
  kind: "Greeting",
};

Deno.test("controllerRef: the controller reference of an owner, which controllerOf reads back", () => {
  const owner = { metadata: { name: "hello", namespace: "demo", uid: "u-1" } };
  const reference = controllerRef(owner, GREETING);
  assert.deepEqual(reference, {
    apiVersion: "demo.liken.dev/v1alpha1",
    kind: "Greeting",
    name: "hello",
    uid: "u-1",
    controller: true,
    blockOwnerDeletion: true,
  });
  const child = {
    metadata: { name: "c", namespace: "demo", ownerReferences: [reference] },
  };
  assert.deepEqual(controllerOf(child, GREETING), {
    key: "demo/hello",
    uid: "u-1",
  });
  // The core group: the apiVersion is the version alone.
  assert.equal(
    controllerRef(owner, { version: "v1", kind: "ConfigMap" }).apiVersion,
    "v1",
  );
});

Deno.test("controllerRef: an owner without a uid is refused", () => {
  assert.throws(
    () => controllerRef({ metadata: { name: "hello" } }, GREETING),
    new TypeError(
      "A Greeting needs a metadata.name and a metadata.uid to own a child",
    ),
  );
});
