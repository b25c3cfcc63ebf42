import assert from "node:assert/strict";
import type { KubeObject } from "../apiclient/types.ts";
import { Decoder, Encoded, parseLine, parsePage } from "./_bytes.ts";

const managed = [{ manager: "kubectl", fieldsV1: { "f:data": { "f:k": {} } } }];

function configMap(
  name: string,
  metadata: Record<string, unknown> = {},
): KubeObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name,
      namespace: "default",
      resourceVersion: "7",
      ...metadata,
    },
    data: { k: 'v"}]' },
  } as KubeObject;
}

function withoutManaged(object: KubeObject): KubeObject {
  const { managedFields: _, ...metadata } = object.metadata;
  return { ...object, metadata };
}

function page(items: unknown[]): string {
  return JSON.stringify({
    kind: "ConfigMapList",
    apiVersion: "v1",
    metadata: { resourceVersion: "9", continue: "c" },
    items,
  });
}

Deno.test("parsePage holds each item as its text, managedFields cut wherever it stands", () => {
  const first = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { managedFields: managed, name: "first", resourceVersion: "1" },
  } as unknown as KubeObject;
  const middle = configMap("middle", { managedFields: managed, uid: "u" });
  const last = configMap("last", { managedFields: managed });
  const alone = {
    metadata: { managedFields: managed },
  } as unknown as KubeObject;
  const plain = configMap("plain");
  const list = parsePage(page([first, middle, last, plain])) as {
    items: Encoded[];
    metadata: { resourceVersion: string; continue: string };
    kind: string;
  };
  assert.equal(list.kind, "ConfigMapList");
  assert.deepEqual(list.metadata, { resourceVersion: "9", continue: "c" });
  assert.equal(list.items.length, 4);
  const expected = [first, middle, last, plain].map(withoutManaged);
  list.items.forEach((item, at) => {
    assert.ok(item instanceof Encoded);
    assert.deepEqual(JSON.parse(item.text), expected[at]);
    assert.equal(item.text.includes("managedFields"), false);
  });
  const meta = ({ metadata: m }: Encoded): unknown[] => [
    m.name,
    m.namespace,
    m.resourceVersion,
  ];
  assert.deepEqual(meta(list.items[1]!), ["middle", "default", "7"]);
  assert.deepEqual(meta(list.items[0]!), ["first", undefined, "1"]);
  // No name: handed over parsed, for the informer's own checks to refuse.
  const [refused] = (parsePage(page([alone])) as { items: unknown[] }).items;
  assert.equal(refused instanceof Encoded, false);
  assert.deepEqual(refused, alone);
});

Deno.test("parsePage: escaped names are unescaped; odd fields and odd pages are parsed whole", () => {
  const escaped = configMap('we"ird\\name', { namespace: "n\u00e9" });
  const [item] = (parsePage(page([escaped])) as { items: Encoded[] }).items;
  assert.equal(item!.metadata.name, 'we"ird\\name');
  assert.equal(item!.metadata.namespace, "n\u00e9");
  const odd = configMap("odd", { namespace: ["default"] });
  const [parsed] = (parsePage(page([odd])) as { items: unknown[] }).items;
  assert.equal(parsed instanceof Encoded, false);
  assert.deepEqual(parsed, odd);
  const numbered = configMap("n", { resourceVersion: 5 });
  const [plain] = (parsePage(page([numbered])) as { items: unknown[] }).items;
  assert.deepEqual(plain, numbered);
  // An item that is not an object: the page is JSON.parse'd as it is.
  const mixed = page([configMap("a"), 5]);
  assert.deepEqual(parsePage(mixed), JSON.parse(mixed));
  assert.deepEqual(parsePage(page([])), JSON.parse(page([])));
  assert.deepEqual(parsePage('{"kind":"Status"}'), { kind: "Status" });
  assert.throws(() => parsePage(page([configMap("a")]).slice(0, -20)));
});

Deno.test("parseLine scans object events and parses the rest", () => {
  const object = configMap("a", { managedFields: managed });
  const line = JSON.stringify({ type: "MODIFIED", object });
  const event = parseLine(line) as { type: string; object: Encoded };
  assert.equal(event.type, "MODIFIED");
  assert.ok(event.object instanceof Encoded);
  assert.deepEqual(JSON.parse(event.object.text), withoutManaged(object));
  assert.equal(event.object.metadata.resourceVersion, "7");
  const bookmark = JSON.stringify({
    type: "BOOKMARK",
    object: { metadata: { resourceVersion: "8" } },
  });
  assert.deepEqual(parseLine(bookmark), JSON.parse(bookmark));
  const reordered = JSON.stringify({ object, type: "ADDED" });
  assert.deepEqual(parseLine(reordered), JSON.parse(reordered));
  const extra = `${line.slice(0, -1)},"x":1}`;
  assert.deepEqual(parseLine(extra), JSON.parse(extra));
  assert.throws(() => parseLine(line.slice(0, -2)), SyntaxError);
});

Deno.test("Decoder parses once, freezes, and keeps the last copies", () => {
  const items = ["a", "b", "c"].map((name) => {
    const [item] = (parsePage(page([configMap(name)])) as { items: Encoded[] })
      .items;
    return item! as unknown as KubeObject;
  });
  const decoder = new Decoder<KubeObject>({ metadataOnly: false, recent: 2 });
  const a = decoder.open(items[0]!);
  assert.deepEqual(a, configMap("a"));
  assert.equal(Object.isFrozen(a.metadata), true);
  assert.equal(decoder.open(items[0]!), a, "the same copy while recent");
  decoder.open(items[1]!);
  decoder.open(items[2]!);
  const again = decoder.open(items[0]!);
  assert.notEqual(again, a, "parsed again once two others came after it");
  assert.deepEqual(again, a);
  const plain = configMap("plain");
  assert.equal(decoder.open(plain), plain, "a parsed object is itself");
});

Deno.test("Decoder of a metadata-only store cuts a whole object to its metadata", () => {
  const [item] = (parsePage(page([configMap("a")])) as { items: Encoded[] })
    .items;
  const decoder = new Decoder<KubeObject>({ metadataOnly: true });
  assert.deepEqual(decoder.open(item as unknown as KubeObject), {
    apiVersion: "meta.k8s.io/v1",
    kind: "PartialObjectMetadata",
    metadata: configMap("a").metadata,
  });
});
