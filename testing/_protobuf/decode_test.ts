import assert from "node:assert/strict";
import {
  decodeMessage,
  decodeProtobufBody,
  goDuration,
  ProtobufError,
  readFields,
  readVarint,
} from "./decode.ts";
import { GOLDEN } from "./golden.ts";
import { SAMPLE } from "./sample.ts";
import { FakeApiServer } from "../mod.ts";

// A few bytes of protobuf, written by hand.
function varint(n: bigint | number): number[] {
  let v = BigInt.asUintN(64, BigInt(n));
  const out: number[] = [];
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return out;
}
function tag(field: number, wire: number): number[] {
  return varint((field << 3) | wire);
}
function len(field: number, bytes: number[]): number[] {
  return [...tag(field, 2), ...varint(bytes.length), ...bytes];
}
function str(field: number, text: string): number[] {
  return len(field, [...new TextEncoder().encode(text)]);
}
function int(field: number, n: bigint | number): number[] {
  return [...tag(field, 0), ...varint(n)];
}
function envelope(
  apiVersion: string,
  kind: string,
  raw: number[],
): Uint8Array<ArrayBuffer> {
  return new Uint8Array([
    0x6b,
    0x38,
    0x73,
    0x00,
    ...len(1, [...str(1, apiVersion), ...str(2, kind)]),
    ...len(2, raw),
  ]);
}
function base64Bytes(text: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

Deno.test("protobuf: varints of one, two and ten bytes", () => {
  assert.deepEqual(readVarint(new Uint8Array([0x01]), 0), [1n, 1]);
  assert.deepEqual(readVarint(new Uint8Array([0xac, 0x02]), 0), [300n, 2]);
  const minusOne = new Uint8Array(varint(-1));
  assert.equal(minusOne.length, 10);
  assert.deepEqual(readVarint(minusOne, 0), [2n ** 64n - 1n, 10]);
  assert.throws(
    () => readVarint(new Uint8Array([0x80, 0x80]), 0),
    /unexpected EOF/,
  );
});

Deno.test("protobuf: fields split by number and wire type", () => {
  const bytes = new Uint8Array([
    ...int(1, 150),
    ...str(2, "hi"),
    ...tag(3, 1),
    ...[1, 0, 0, 0, 0, 0, 0, 0],
    ...tag(4, 5),
    ...[2, 0, 0, 0],
    ...int(1, 7),
  ]);
  const fields = readFields(bytes);
  assert.deepEqual(fields.get(1), [{ wire: 0, value: 150n }, {
    wire: 0,
    value: 7n,
  }]);
  assert.deepEqual([...fields.get(2)![0]!.value as Uint8Array], [0x68, 0x69]);
  assert.equal((fields.get(3)![0]!.value as Uint8Array).length, 8);
  assert.equal((fields.get(4)![0]!.value as Uint8Array).length, 4);
  // A length past the end, and a group, are refused.
  assert.throws(
    () => readFields(new Uint8Array([...tag(2, 2), 5, 1])),
    /unexpected EOF/,
  );
  assert.throws(() => readFields(new Uint8Array(tag(2, 3))), /wireType = 3/);
});

Deno.test("protobuf: scalars take the Go JSON form; the last of a repeated singular wins", () => {
  // core/v1.ContainerPort: name 1, hostPort 2, containerPort 3, protocol 4.
  const port = decodeMessage(
    "core/v1.ContainerPort",
    new Uint8Array([
      ...int(3, 80),
      ...int(3, 8080),
      ...int(2, -1),
      ...str(4, "TCP"),
    ]),
  );
  assert.deepEqual(port, {
    hostPort: -1,
    containerPort: 8080,
    protocol: "TCP",
  });
});

Deno.test("protobuf: unknown fields are skipped", () => {
  const port = decodeMessage(
    "core/v1.ContainerPort",
    new Uint8Array([
      ...str(99, "from a newer release"),
      ...int(98, 5),
      ...tag(97, 1),
      ...[0, 0, 0, 0, 0, 0, 0, 0],
      ...int(3, 53),
    ]),
  );
  assert.deepEqual(port, { containerPort: 53 });
});

Deno.test("protobuf: packed and unpacked repeated ints read alike", () => {
  // batch/v1.PodFailurePolicyOnExitCodesRequirement: operator 2, values 3.
  const packed = decodeMessage(
    "batch/v1.PodFailurePolicyOnExitCodesRequirement",
    new Uint8Array([...str(2, "In"), ...len(3, [1, 2, ...varint(300)])]),
  );
  const unpacked = decodeMessage(
    "batch/v1.PodFailurePolicyOnExitCodesRequirement",
    new Uint8Array([
      ...str(2, "In"),
      ...int(3, 1),
      ...int(3, 2),
      ...int(3, 300),
    ]),
  );
  assert.deepEqual(packed, { operator: "In", values: [1, 2, 300] });
  assert.deepEqual(unpacked, packed);
});

Deno.test("protobuf: nested messages, maps, omitempty and Go zero values", () => {
  // core/v1.ConfigMap: metadata 1, data 2 (map), binaryData 3, immutable 4.
  const configMap = decodeMessage(
    "core/v1.ConfigMap",
    new Uint8Array([
      ...len(1, [...str(1, "cfg")]),
      ...len(1, [...str(3, "default")]), // a message seen twice merges
      ...len(2, [...str(1, "a"), ...str(2, "1")]),
      ...len(2, [...str(1, "b")]), // an entry without value: ""
      ...len(3, [...str(1, "bin"), ...len(2, [0, 255])]),
      ...int(4, 0), // a pointer set to false is present
    ]),
  );
  assert.deepEqual(configMap, {
    metadata: { name: "cfg", namespace: "default" },
    data: { a: "1", b: "" },
    binaryData: { bin: "AP8=" },
    immutable: false,
  });
  // core/v1.Container: name has no omitempty (""), resources is a struct
  // (always written), the lists are omitempty (left out when absent).
  assert.deepEqual(decodeMessage("core/v1.Container", new Uint8Array()), {
    name: "",
    resources: {},
  });
  // A repeated field without omitempty is null when absent, as a nil slice.
  assert.deepEqual(
    decodeMessage("core/v1.PodSpec", new Uint8Array()),
    { containers: null },
  );
});

Deno.test("protobuf: Time, MicroTime, Duration, Quantity, IntOrString", () => {
  // meta/v1.Condition: lastTransitionTime 4 (Time keeps seconds only).
  const condition = decodeMessage(
    "meta/v1.Condition",
    new Uint8Array([...len(4, [...int(1, 1_800_000_000), ...int(2, 5)])]),
  ) as Record<string, unknown>;
  assert.equal(condition.lastTransitionTime, "2027-01-15T08:00:00Z");
  // An empty Timestamp is the zero Time: null, left out by omitzero.
  const meta = decodeMessage(
    "meta/v1.ObjectMeta",
    new Uint8Array([...len(8, [])]),
  );
  assert.deepEqual(meta, {});
  // coordination/v1.LeaseSpec: renewTime 4 (MicroTime, truncated to µs).
  const lease = decodeMessage(
    "coordination/v1.LeaseSpec",
    new Uint8Array([
      ...len(4, [...int(1, 1_800_000_000), ...int(2, 123_456_789)]),
    ]),
  );
  assert.deepEqual(lease, { renewTime: "2027-01-15T08:00:00.123456Z" });
  // meta/v1.Duration inside admissionregistration? Go's String form.
  assert.equal(goDuration(0n), "0s");
  assert.equal(goDuration(90_000_000_000n), "1m30s");
  assert.equal(goDuration(3_723_500_000_000n), "1h2m3.5s");
  assert.equal(goDuration(1_500_000n), "1.5ms");
  assert.equal(goDuration(-1_000n), "-1µs");
  // core/v1.ResourceRequirements: limits 1, a map of Quantity.
  const resources = decodeMessage(
    "core/v1.ResourceRequirements",
    new Uint8Array([
      ...len(1, [...str(1, "cpu"), ...len(2, [...str(1, "250m")])]),
      ...len(1, [...str(1, "memory"), ...len(2, [])]),
    ]),
  );
  assert.deepEqual(resources, { limits: { cpu: "250m", memory: "0" } });
  // core/v1.ServicePort: targetPort 4 (IntOrString: type 1, int 2, str 3).
  const byName = decodeMessage(
    "core/v1.ServicePort",
    new Uint8Array([
      ...int(3, 80),
      ...len(4, [...int(1, 1), ...str(3, "http")]),
    ]),
  );
  const byNumber = decodeMessage(
    "core/v1.ServicePort",
    new Uint8Array([...int(3, 80), ...len(4, [...int(2, 8080)])]),
  );
  assert.deepEqual(byName, { port: 80, targetPort: "http" });
  assert.deepEqual(byNumber, { port: 80, targetPort: 8080 });
});

Deno.test("protobuf: the envelope names the kind; other kinds and encodings are unsupported", () => {
  const body = decodeProtobufBody(
    envelope("v1", "ConfigMap", [...len(1, [...str(1, "cfg")])]),
  );
  assert.deepEqual(body, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "cfg" },
  });
  const unsupported = (bytes: Uint8Array): boolean => {
    try {
      decodeProtobufBody(bytes);
    } catch (error) {
      assert.ok(error instanceof ProtobufError);
      return error.unsupported;
    }
    return false;
  };
  assert.equal(unsupported(envelope("example.com/v1", "Widget", [])), true);
  assert.equal(
    unsupported(
      new Uint8Array([
        0x6b,
        0x38,
        0x73,
        0x00,
        ...len(1, [...str(1, "v1"), ...str(2, "ConfigMap")]),
        ...str(3, "gzip"),
      ]),
    ),
    true,
  );
  assert.throws(
    () => decodeProtobufBody(new Uint8Array([0x7b, 0x7d])),
    /expected prefix/,
  );
});

for (const golden of GOLDEN) {
  Deno.test(`protobuf: golden ${golden.name} decodes to the Go types' JSON`, () => {
    assert.deepEqual(
      decodeProtobufBody(base64Bytes(golden.bytes)),
      golden.json,
    );
  });
}

Deno.test("protobuf: a random object of each kind an operator writes decodes to the Go types' JSON", () => {
  assert.ok(SAMPLE.length >= 40);
  for (const sample of SAMPLE) {
    assert.deepEqual(
      decodeProtobufBody(base64Bytes(sample.bytes)),
      sample.json,
      sample.name,
    );
  }
});

Deno.test("protobuf: a sent pointer to a zero Time is null; map values start empty, not nil", () => {
  // meta/v1.ObjectMeta: deletionTimestamp 9 (*Time, omitempty), sent empty.
  assert.deepEqual(
    decodeMessage("meta/v1.ObjectMeta", new Uint8Array(len(9, []))),
    { deletionTimestamp: null },
  );
  // A map<string, bytes> entry without value is "", a map of ExtraValue []:
  // core/v1.ConfigMap binaryData 3; authentication/v1.UserInfo extra 4.
  assert.deepEqual(
    decodeMessage("core/v1.ConfigMap", new Uint8Array(len(3, str(1, "k")))),
    { metadata: {}, binaryData: { k: "" } },
  );
  assert.deepEqual(
    decodeMessage(
      "authentication/v1.UserInfo",
      new Uint8Array(len(4, str(1, "k"))),
    ),
    { extra: { k: [] } },
  );
});

const DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments";

Deno.test("protobuf: the fake creates, updates and deletes with protobuf bodies", async () => {
  await using server = new FakeApiServer();
  const golden = GOLDEN.find((g) => g.name === "Deployment")!;
  const create = await server.fetch(`${server.url}${DEPLOYMENTS}`, {
    method: "POST",
    headers: {
      "content-type": "application/vnd.kubernetes.protobuf",
      accept: "application/vnd.kubernetes.protobuf, */*",
    },
    body: base64Bytes(golden.bytes),
  });
  assert.equal(create.status, 201, await create.clone().text());
  assert.match(create.headers.get("content-type") ?? "", /application\/json/);
  const created = await create.json();
  assert.equal(created.spec.replicas, 3);
  assert.equal(created.spec.strategy.rollingUpdate.maxSurge, "25%");
  assert.equal(
    created.spec.template.spec.containers[0].ports[0].containerPort,
    8080,
  );
  // An update: the same object with its resourceVersion, and 5 replicas.
  const update = envelope("apps/v1", "Deployment", [
    ...len(1, [
      ...str(1, "web"),
      ...str(3, "default"),
      ...str(6, created.metadata.resourceVersion),
    ]),
    ...len(2, [
      ...int(1, 5),
      ...len(2, [
        ...len(1, [...str(1, "app"), ...str(2, "web")]),
        ...len(2, [
          ...str(1, "tier"),
          ...str(2, "In"),
          ...str(3, "web"),
          ...str(3, "api"),
        ]),
      ]),
      ...len(3, [
        ...len(1, [
          ...len(11, [...str(1, "app"), ...str(2, "web")]),
          ...len(11, [...str(1, "tier"), ...str(2, "web")]),
        ]),
        ...len(2, [...len(2, [...str(1, "app"), ...str(2, "nginx")])]),
      ]),
    ]),
  ]);
  const put = await server.fetch(`${server.url}${DEPLOYMENTS}/web`, {
    method: "PUT",
    headers: { "content-type": "application/vnd.kubernetes.protobuf" },
    body: update,
  });
  const updated = await put.json();
  assert.equal(put.status, 200, JSON.stringify(updated));
  assert.equal(updated.spec.replicas, 5);
  assert.deepEqual(
    updated.spec.template.spec.containers.map((c: { image: string }) =>
      c.image
    ),
    ["nginx"],
  );
  // DeleteOptions: a precondition on another uid is read, and refused.
  const options = (uid: string): Uint8Array<ArrayBuffer> =>
    envelope("v1", "DeleteOptions", [...len(2, [...str(1, uid)])]);
  const refused = await server.fetch(`${server.url}${DEPLOYMENTS}/web`, {
    method: "DELETE",
    headers: { "content-type": "application/vnd.kubernetes.protobuf" },
    body: options("not-the-uid"),
  });
  assert.equal(refused.status, 409);
  await refused.body?.cancel();
  const deleted = await server.fetch(`${server.url}${DEPLOYMENTS}/web`, {
    method: "DELETE",
    headers: { "content-type": "application/vnd.kubernetes.protobuf" },
    body: options(created.metadata.uid),
  });
  assert.equal(deleted.status, 200);
  await deleted.body?.cancel();
});

Deno.test("protobuf: subresource bodies (scale, eviction) are read too", async () => {
  await using server = new FakeApiServer();
  const golden = GOLDEN.find((g) => g.name === "Deployment")!;
  const create = await server.fetch(`${server.url}${DEPLOYMENTS}`, {
    method: "POST",
    headers: { "content-type": "application/vnd.kubernetes.protobuf" },
    body: base64Bytes(golden.bytes),
  });
  assert.equal(create.status, 201);
  await create.body?.cancel();
  // autoscaling/v1.Scale: metadata 1, spec 2 (replicas 1).
  const scale = await server.fetch(`${server.url}${DEPLOYMENTS}/web/scale`, {
    method: "PUT",
    headers: { "content-type": "application/vnd.kubernetes.protobuf" },
    body: envelope("autoscaling/v1", "Scale", [
      ...len(1, [...str(1, "web"), ...str(3, "default")]),
      ...len(2, int(1, 7)),
    ]),
  });
  const scaled = await scale.json();
  assert.equal(scale.status, 200, JSON.stringify(scaled));
  assert.equal(scaled.spec.replicas, 7);
  const pods = "/api/v1/namespaces/default/pods";
  const pod = GOLDEN.find((g) => g.name === "Pod")!;
  const made = await server.fetch(`${server.url}${pods}`, {
    method: "POST",
    headers: { "content-type": "application/vnd.kubernetes.protobuf" },
    body: base64Bytes(pod.bytes),
  });
  assert.equal(made.status, 201);
  await made.body?.cancel();
  // policy/v1.Eviction: metadata 1, deleteOptions 2.
  const evicted = await server.fetch(`${server.url}${pods}/web-0/eviction`, {
    method: "POST",
    headers: { "content-type": "application/vnd.kubernetes.protobuf" },
    body: envelope("policy/v1", "Eviction", [
      ...len(1, [...str(1, "web-0"), ...str(3, "default")]),
    ]),
  });
  assert.equal(evicted.status, 201, await evicted.clone().text());
  await evicted.body?.cancel();
  // The golden Pod has a finalizer: evicted, it is being deleted.
  const gone = await server.fetch(`${server.url}${pods}/web-0`);
  assert.equal(typeof (await gone.json()).metadata.deletionTimestamp, "string");
});

Deno.test("protobuf: the fake refuses an unknown kind with 415 and a broken body with 400", async () => {
  await using server = new FakeApiServer();
  const unknown = await server.fetch(`${server.url}${DEPLOYMENTS}`, {
    method: "POST",
    headers: { "content-type": "application/vnd.kubernetes.protobuf" },
    body: envelope("example.com/v1", "Widget", []),
  });
  assert.equal(unknown.status, 415);
  const status = await unknown.json();
  assert.equal(status.reason, "UnsupportedMediaType");
  assert.match(status.message, /application\/json/);
  assert.match(
    status.message,
    /example\.com\/v1\/Widget is not a built-in kind/,
  );
  const broken = await server.fetch(`${server.url}${DEPLOYMENTS}`, {
    method: "POST",
    headers: { "content-type": "application/vnd.kubernetes.protobuf" },
    body: new Uint8Array([0x6b, 0x38, 0x73, 0x00, 0x0a]),
  });
  assert.equal(broken.status, 400);
  assert.match((await broken.json()).message, /unexpected EOF/);
});
