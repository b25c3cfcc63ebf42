import assert from "node:assert/strict";
import type { KubeObject } from "../apiclient/types.ts";
import { meaningfulChange } from "../controller/changes.ts";
import { jsonEqual } from "../_internal/json.ts";
import {
  Decoder,
  Encoded,
  fieldsParsed,
  LAZY_FROM,
  lazyParses,
  parseLine,
  parsePage,
  setCopyMode,
} from "./_bytes.ts";
import { deepFreeze } from "./_freeze.ts";

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

/** The read-only copy a decoder opens of `text`, scanned as a page item. */
function opened(
  text: string,
  decoder = new Decoder<KubeObject>({ metadataOnly: false }),
): KubeObject {
  const list = parsePage(`{"kind":"List","items":[${text}]}`) as {
    items: Encoded[];
  };
  const [item] = list.items;
  assert.ok(item instanceof Encoded, "held as text");
  return decoder.open(item as unknown as KubeObject);
}

const odd = JSON.stringify({
  kind: "ConfigMap",
  apiVersion: "v1",
  metadata: { name: "a", namespace: "default", resourceVersion: "7" },
  "2": ["two"],
  'q"uote': { x: null },
  data: { k: 'v"}]', n: "1" },
  immutable: false,
});

Deno.test("a held copy is, to every reader, the parsed object: keys in order, values, prototype, frozen", () => {
  const expected = JSON.parse(odd);
  for (const mode of ["sized", "metadata", "lazy", "whole"] as const) {
    const before = setCopyMode(mode);
    try {
      const copy = opened(odd);
      assert.equal(Object.getPrototypeOf(copy), Object.prototype);
      assert.deepStrictEqual(Object.keys(copy), Object.keys(expected));
      assert.deepStrictEqual(copy, expected);
      assert.deepStrictEqual(Object.entries(copy), Object.entries(expected));
      assert.deepStrictEqual({ ...copy }, expected);
      assert.equal(JSON.stringify(copy), JSON.stringify(expected));
      assert.equal(JSON.stringify(copy), odd);
      assert.deepStrictEqual(structuredClone(copy), expected);
      assert.equal(jsonEqual(copy, expected), true);
      assert.equal(jsonEqual(expected, copy), true);
      assert.notDeepStrictEqual(copy, { ...expected, immutable: true });
      assert.equal(Deno.inspect(copy), Deno.inspect(expected));
      assert.deepStrictEqual(
        Object.getOwnPropertySymbols(copy).filter((s) =>
          Object.getOwnPropertyDescriptor(copy, s)!.enumerable
        ),
        [],
      );
      assert.equal(Object.isFrozen(copy), true);
      assert.equal(deepFreeze(copy), copy);
      const fields = copy as unknown as Record<string, Record<string, unknown>>;
      assert.equal(Object.isFrozen(fields.data), true);
      assert.equal(Object.isFrozen(fields.metadata), true);
      assert.equal(fields.data, fields.data, "one value for every read");
      assert.throws(() => {
        fields.data = {};
      }, TypeError);
      assert.throws(() => {
        fields.metadata = {};
      }, TypeError);
      assert.throws(() => {
        fields.data!.k = "w";
      }, TypeError);
      assert.throws(() => {
        fields.spec = {};
      }, TypeError);
    } finally {
      setCopyMode(before);
    }
  }
});

Deno.test("a held copy parses each field when first read, once; metadata alone for a check of what changed", () => {
  const copy = opened(odd) as KubeObject & { data?: Record<string, string> };
  const other = opened(odd);
  assert.deepEqual(fieldsParsed(copy), ["kind", "apiVersion"]);
  const before = lazyParses();
  assert.equal(copy.kind, "ConfigMap");
  assert.equal(copy.apiVersion, "v1");
  assert.equal(lazyParses(), before, "copied with the copy");
  assert.equal(meaningfulChange(copy, other), false);
  assert.equal(lazyParses(), before + 2, "the metadata of each");
  assert.deepEqual(fieldsParsed(copy), ["kind", "apiVersion", "metadata"]);
  assert.deepEqual(fieldsParsed(other), ["kind", "apiVersion", "metadata"]);
  assert.equal(copy.data?.k, 'v"}]');
  assert.equal(copy.data?.n, "1");
  assert.equal(lazyParses(), before + 3, "parsed once");
  assert.deepEqual(fieldsParsed(copy), [
    "kind",
    "apiVersion",
    "metadata",
    "data",
  ]);
  // Metadata parsed with the copy, a short text parsed whole.
  for (
    const [mode, parsed] of [["metadata", 3], ["sized", undefined]] as const
  ) {
    const previous = setCopyMode(mode);
    try {
      const at = lazyParses();
      const eager = opened(odd) as typeof copy;
      assert.equal(eager.metadata.name, "a");
      assert.equal(lazyParses(), at);
      assert.equal(fieldsParsed(eager)?.length, parsed);
      const long = opened(JSON.stringify({
        ...JSON.parse(odd),
        data: { pad: "p".repeat(LAZY_FROM) },
      }));
      assert.deepEqual(fieldsParsed(long), ["kind", "apiVersion", "metadata"]);
    } finally {
      setCopyMode(previous);
    }
  }
});

Deno.test("a held copy with spaces, escapes, a long text or odd keys reads as parsed", () => {
  const spaced = ' {\n "kind" : "Config\\u004dap" ,\t"metadata":{"name":"a",' +
    '"resourceVersion":"1"} , "da\\"ta" : [ 1 , {"x":"}"} ] \r\n} ';
  assert.deepStrictEqual(opened(spaced), JSON.parse(spaced));
  const long = JSON.stringify({
    metadata: { name: "big", resourceVersion: "1" },
    data: { k: "x".repeat(70_000) },
    kind: "ConfigMap",
  });
  const big = opened(long);
  assert.deepStrictEqual(big, JSON.parse(long));
  assert.equal(big.kind, "ConfigMap");
  // Odd keys read as JSON.parse has them: a key twice in its first place
  // with its last value, `__proto__` an own key.
  const twice =
    '{"metadata":{"name":"a"},"kind":"A","data":1,"x":0,"kind":"B","data":2}';
  assert.deepStrictEqual(Object.entries(opened(twice)), [
    ["metadata", { name: "a" }],
    ["kind", "B"],
    ["data", 2],
    ["x", 0],
  ]);
  assert.deepStrictEqual(opened(twice), JSON.parse(twice));
  const proto = '{"metadata":{"name":"a"},"__proto__":{"x":1}}';
  const parsed = opened(proto);
  assert.deepStrictEqual(parsed, JSON.parse(proto));
  assert.equal(Object.getPrototypeOf(parsed), Object.prototype);
  assert.deepStrictEqual(Object.keys(parsed), ["metadata", "__proto__"]);
});

Deno.test("a held copy stays the same object while recent, as do its fields", () => {
  const decoder = new Decoder<KubeObject>({ metadataOnly: false, recent: 2 });
  const big = { ...configMap("a"), data: { k: "v".repeat(LAZY_FROM) } };
  const list = parsePage(page([big])) as { items: Encoded[] };
  const item = list.items[0]! as unknown as KubeObject;
  const copy = decoder.open(item) as KubeObject & { data?: unknown };
  const data = copy.data;
  assert.equal(decoder.open(item), copy);
  assert.equal((decoder.open(item) as typeof copy).data, data);
});
