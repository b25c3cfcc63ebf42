// The store of bytes (issue #48, item 3): each object a collection holds is
// kept as its JSON text (managedFields cut out) plus the few fields the
// informer itself reads (name, namespace, resourceVersion), found by a scan
// (`_scan.ts`) instead of JSON.parse. It is parsed only when someone reads
// it: a handler call, a store read, a cached read. Parsing costs by object
// and key, and keeping a parsed graph costs GC time as the heap grows
// (bench/scale/results/issue-48.md); one string per object costs neither.
import type { KubeObject } from "../apiclient/types.ts";
import { PARSE, type Parse, type ParseOption } from "../_internal/parse.ts";
import { deepFreeze } from "./_freeze.ts";
import { type Scanned, scanObject } from "./_scan.ts";

/**
 * How a collection keeps its objects: `"objects"` parsed as they arrive,
 * `"bytes"` as their text, parsed when read.
 */
export type Storage = "objects" | "bytes";

let fallback: Storage = "objects";

/** The storage of a collection that names none. */
export function defaultStorage(): Storage {
  return fallback;
}

/**
 * Sets the storage of collections that name none; answers the one before.
 * For the test suite, which runs every informer test on both (see
 * `_bytes_preload.ts`).
 */
export function setDefaultStorage(storage: Storage): Storage {
  const before = fallback;
  fallback = storage;
  return before;
}

/** The metadata the informer reads of an object it has not parsed. */
export interface HeldMeta {
  name: string;
  namespace?: string | undefined;
  resourceVersion?: string | undefined;
}

/**
 * Where each top-level key of a held text starts (its opening quote), then
 * where the text's closing `}` is: a string of char codes when the text is
 * shorter than 65,536 characters (a few bytes an object), else an array.
 */
export type Layout = string | number[];

/**
 * An object held as its text. It stands in for the object wherever the
 * informer needs only its key and version (`metadata` has just those);
 * everything a caller sees is its read-only copy ({@linkcode Decoder.open}).
 */
export class Encoded implements HeldMeta {
  readonly text: string;
  readonly name: string;
  readonly namespace: string | undefined;
  readonly resourceVersion: string | undefined;
  /** The text's top-level keys, or undefined: the copy is parsed whole. */
  readonly layout: Layout | undefined;
  /** The copy readers get, while the decoder's recent copies hold it. */
  decoded: KubeObject | undefined = undefined;

  constructor(text: string, metadata: HeldMeta, layout?: Layout) {
    this.text = text;
    this.name = metadata.name;
    this.namespace = metadata.namespace;
    this.resourceVersion = metadata.resourceVersion;
    this.layout = layout;
  }

  /** Its own fields: one object fewer a held object than a `metadata`. */
  get metadata(): HeldMeta {
    return this;
  }
}

const COMMA = 44;
const SPACE = 32;
const CLOSE_OBJECT = 125;
const CLOSE_ARRAY = 93;
const OPEN_OBJECT = 123;

function blank(c: number): boolean {
  return c === SPACE || c === 10 || c === 13 || c === 9;
}

/** A JSON string's text, unescaped (escapes are rare in names). */
function unescaped(text: string): string {
  return text.indexOf("\\") === -1 ? text : JSON.parse(`"${text}"`);
}

/**
 * The object `scanned` found in `text`, held as a copy of its text without
 * managedFields; a plain parsed object when its name, namespace or version
 * is missing or not a string (the informer's checks then say what is
 * wrong, as they do for a parsed object).
 */
function held(
  text: string,
  scanned: Scanned,
  keys: number[],
): Encoded | KubeObject {
  const { start, end } = scanned;
  if (scanned.odd || scanned.nameAt === -1) {
    return JSON.parse(text.slice(start, end));
  }
  let cutFrom = -1;
  let cutTo = -1;
  if (scanned.managedStart !== -1 && scanned.managedEnd !== -1) {
    cutFrom = scanned.managedStart;
    cutTo = scanned.managedEnd;
    // One comma goes with it: the one before, or, for the first key, the
    // one after.
    let before = cutFrom - 1;
    while (blank(text.charCodeAt(before))) before--;
    if (text.charCodeAt(before) === COMMA) cutFrom = before;
    else {
      let after = cutTo;
      while (blank(text.charCodeAt(after))) after++;
      if (text.charCodeAt(after) === COMMA) cutTo = after + 1;
    }
  }
  // A join makes a flat copy: a slice (or a concatenation of slices) would
  // keep the whole page or network read alive.
  const copy = cutFrom === -1
    ? [text.slice(start, end - 1), "}"].join("")
    : [text.slice(start, cutFrom), text.slice(cutTo, end)].join("");
  const at = (offset: number): number =>
    offset - start - (cutFrom !== -1 && offset > cutFrom ? cutTo - cutFrom : 0);
  const field = (offset: number, length: number): string =>
    unescaped(copy.slice(at(offset), at(offset) + length));
  const meta: HeldMeta = { name: field(scanned.nameAt, scanned.name!.length) };
  if (scanned.namespaceAt !== -1) {
    meta.namespace = field(scanned.namespaceAt, scanned.namespace!.length);
  }
  if (scanned.versionAt !== -1) {
    meta.resourceVersion = field(
      scanned.versionAt,
      scanned.resourceVersion!.length,
    );
  }
  // The keys' places in the copy, then its closing brace.
  for (let k = 0; k < keys.length; k++) keys[k] = at(keys[k]!);
  keys.push(copy.length - 1);
  const layout = copy.length < 0x10000
    ? String.fromCharCode.apply(null, keys)
    : keys.slice();
  return new Encoded(copy, meta, layout);
}

/** Where the scan writes the top-level keys of the object it scans. */
const keysFound: number[] = [];

/** Where the object {@linkcode scanHeld} scanned last ends. */
let scannedEnd = 0;

/** Scans the object at `text[at]` and holds it (see `held`). */
function scanHeld(text: string, at: number): Encoded | KubeObject {
  keysFound.length = 0;
  const scanned = scanObject(text, at, keysFound);
  scannedEnd = scanned.end;
  return held(text, scanned, keysFound);
}

/**
 * Parses a list page: the list's own fields by JSON.parse, its items by the
 * scan, each held as an {@linkcode Encoded} (or parsed, see `held`). A page
 * of another shape is parsed whole.
 */
export function parsePage(text: string): unknown {
  const key = text.indexOf('"items":[');
  if (key === -1) return JSON.parse(text);
  const open = key + 8;
  const items: (Encoded | KubeObject)[] = [];
  let i = open + 1;
  const n = text.length;
  while (i < n && blank(text.charCodeAt(i))) i++;
  if (text.charCodeAt(i) !== CLOSE_ARRAY) {
    for (;;) {
      if (text.charCodeAt(i) !== OPEN_OBJECT) return JSON.parse(text);
      items.push(scanHeld(text, i));
      i = scannedEnd;
      while (i < n && blank(text.charCodeAt(i))) i++;
      const c = text.charCodeAt(i);
      if (c === CLOSE_ARRAY) break;
      if (c !== COMMA) return JSON.parse(text);
      i++;
      while (i < n && blank(text.charCodeAt(i))) i++;
    }
  }
  // The rest of the list (kind, metadata, continue) parsed as JSON, which
  // checks it whole.
  const list = JSON.parse(`${text.slice(0, open)}[]${text.slice(i + 1)}`);
  list.items = items;
  return list;
}

const TYPES = ["ADDED", "MODIFIED", "DELETED"] as const;

/**
 * Parses one watch line: an object's event (`{"type":…,"object":{…}}`, as
 * the API server writes it) by the scan, anything else (a bookmark, an
 * error, another order of keys) by JSON.parse.
 */
export function parseLine(line: string): unknown {
  if (!line.startsWith('{"type":"')) return JSON.parse(line);
  const typeEnd = line.indexOf('"', 9);
  const type = TYPES.find((t) =>
    t.length === typeEnd - 9 && line.startsWith(t, 9)
  );
  if (type === undefined || !line.startsWith(',"object":{', typeEnd + 1)) {
    return JSON.parse(line);
  }
  const object = scanHeld(line, typeEnd + 11);
  let i = scannedEnd;
  while (i < line.length && blank(line.charCodeAt(i))) i++;
  if (line.charCodeAt(i) !== CLOSE_OBJECT) return JSON.parse(line);
  i++;
  while (i < line.length && blank(line.charCodeAt(i))) i++;
  if (i !== line.length) return JSON.parse(line);
  return { type, object };
}

/** The internal options that make the client's reads answer held text. */
export function parseOptions(
  parse: Parse,
): ParseOption {
  return { [PARSE]: parse };
}

/** How many parsed copies a store keeps at once, besides its own. */
export const RECENT = 1024;

// A reader pays for what it reads: the copy readers get of a held text is a
// plain, frozen object whose `apiVersion` and `kind` are copied at once and
// whose other top-level fields (metadata, spec, status, data…) are getters
// that parse their own span of the text the first time they are read, then
// answer the same frozen value. Its own enumerable keys are the text's, in
// its order, and its prototype is Object.prototype, so JSON.stringify,
// spread, structuredClone, deep equality and freezing see the parsed
// object; the state behind the getters is a private field (invisible to
// reflection and to structuredClone). Measured (bench/scale/path.ts
// --handlers): a getter costs about what parsing 70 bytes of JSON does, so
// a 700-byte ConfigMap whose metadata is read costs a little more than a
// whole parse, one that is not read much less, and a Pod less either way.

const INSPECT = Symbol.for("nodejs.util.inspect.custom");

/** Top-level fields parsed with the copy, not when first read. */
const EAGER = new Set(["apiVersion", "kind", "metadata"]);

/**
 * How held texts are opened: `"lazy"` (the default) parses every field but
 * `apiVersion` and `kind` (short strings, copied at once) when first read;
 * `"metadata"` parses `metadata` with the copy too; `"sized"` parses a text
 * shorter than {@linkcode LAZY_FROM} whole and opens a longer one as
 * `"metadata"` does; `"whole"` parses the whole text and deep-freezes it
 * (the store before lazy copies). The benches compare them
 * (bench/scale/path.ts --handlers).
 */
export type CopyMode = "lazy" | "metadata" | "sized" | "whole";

/** The length from which `"sized"` opens a held text lazily. */
export const LAZY_FROM = 1024;

let mode: CopyMode = "lazy";

/** Sets how held texts are opened; answers the mode before. For benches. */
export function setCopyMode(next: CopyMode): CopyMode {
  const before = mode;
  mode = next;
  return before;
}

let fieldParses = 0;

/**
 * The names of the fields of a lazy copy parsed so far, in the text's
 * order, or undefined for any other object: for the tests.
 */
export function fieldsParsed(copy: unknown): string[] | undefined {
  const state = Stamp.of(copy);
  if (state === undefined) return undefined;
  const parsed: string[] = [];
  const { text, layout, values } = state;
  for (let k = 0; k < places(layout); k++) {
    if (values[k] !== undefined) {
      const at = place(layout, k);
      parsed.push(keyName(text, at + 1, keyEnd(text, at)));
    }
  }
  return parsed;
}

/**
 * How many fields of held copies were parsed when first read (not with
 * the copy), ever: for the tests.
 */
export function lazyParses(): number {
  return fieldParses;
}

/** The state behind a copy's getters: its text and where its fields lie. */
class Lazy {
  readonly text: string;
  readonly layout: Layout;
  /**
   * Each field's value once parsed, by its place in the layout (undefined:
   * not yet; no JSON value is undefined).
   */
  readonly values: unknown[];

  constructor(text: string, layout: Layout) {
    this.text = text;
    this.layout = layout;
    this.values = new Array(places(layout));
  }

  /** The field at place `k`, parsed and frozen the first time. */
  field(k: number): unknown {
    const values = this.values;
    let value = values[k];
    if (value !== undefined) return value;
    value = deepFreeze(parseField(this.text, this.layout, k));
    values[k] = value;
    return value;
  }
}

/** The getter of the field at place `k` of any copy, shared by all. */
const getters: (() => unknown)[] = [];

function getterAt(k: number): () => unknown {
  return getters[k] ??= function (this: unknown): unknown {
    const state = Stamp.of(this);
    if (state === undefined) return undefined;
    if (state.values[k] === undefined) fieldParses++;
    return state.field(k);
  };
}

/** Shows a copy as the plain object it stands for (console.log). */
function inspect(
  this: Record<string, unknown>,
  _depth: number,
  options: unknown,
  show: (value: unknown, options: unknown) => string,
): string {
  return show({ ...this }, options);
}

function place(layout: Layout, k: number): number {
  return typeof layout === "string" ? layout.charCodeAt(k) : layout[k]!;
}

function places(layout: Layout): number {
  return layout.length - 1;
}

const KEYS = [
  "apiVersion",
  "kind",
  "metadata",
  "spec",
  "status",
  "data",
  "binaryData",
  "stringData",
  "type",
  "immutable",
];

/** The name of the key whose text is `text[from, to)`. */
function keyName(text: string, from: number, to: number): string {
  for (const key of KEYS) {
    if (key.length === to - from && text.startsWith(key, from)) return key;
  }
  return unescaped(text.slice(from, to));
}

/** Where {@linkcode span} found the value: its start and its end. */
let spanFrom = 0;
let spanTo = 0;

/** Finds where the value of the key at place `k` starts and ends. */
function span(text: string, layout: Layout, k: number): void {
  let from = text.indexOf(":", keyEnd(text, place(layout, k)) + 1) + 1;
  while (blank(text.charCodeAt(from))) from++;
  // Back from the next key's quote (past its comma) or the closing brace.
  let to = place(layout, k + 1) - 1;
  while (blank(text.charCodeAt(to))) to--;
  if (k + 1 < places(layout)) {
    to--;
    while (blank(text.charCodeAt(to))) to--;
  }
  spanFrom = from;
  spanTo = to + 1;
}

/** The closing quote of the key whose opening quote is at `at`. */
function keyEnd(text: string, at: number): number {
  let i = text.indexOf('"', at + 1);
  while (text.charCodeAt(i - 1) === 92) {
    let slashes = 1;
    while (text.charCodeAt(i - 1 - slashes) === 92) slashes++;
    if ((slashes & 1) === 0) break;
    i = text.indexOf('"', i + 1);
  }
  return i;
}

function parseField(text: string, layout: Layout, k: number): unknown {
  span(text, layout, k);
  const from = spanFrom;
  const to = spanTo;
  if (text.charCodeAt(from) === 34) {
    // A string without escapes (an apiVersion, a kind): no parse needed.
    const value = text.slice(from + 1, to - 1);
    if (value.indexOf("\\") === -1) return value;
  }
  return JSON.parse(text.slice(from, to));
}

/** The read-only copy of a held text (see above). */
function lazyCopy(
  text: string,
  layout: Layout,
  metadataOnly: boolean,
): KubeObject {
  const n = places(layout);
  const state = new Lazy(text, layout);
  names.length = n;
  for (let k = 0; k < n; k++) {
    const at = place(layout, k);
    names[k] = keyName(text, at + 1, keyEnd(text, at));
  }
  // The usual first keys as one literal: one hidden class, no lookups.
  // apiVersion and kind are short strings, cheaper to copy than to defer.
  let copy: Record<string, unknown>;
  let from = 0;
  const eager = mode !== "lazy";
  if (
    n >= 2 && (names[0] === "apiVersion" && names[1] === "kind" ||
      names[0] === "kind" && names[1] === "apiVersion")
  ) {
    copy = names[0] === "kind"
      ? { kind: state.field(0), apiVersion: state.field(1) }
      : { apiVersion: state.field(0), kind: state.field(1) };
    from = 2;
    if (eager && n >= 3 && names[2] === "metadata") {
      copy.metadata = state.field(2);
      from = 3;
    }
  } else if (eager && n >= 1 && names[0] === "metadata") {
    copy = { metadata: state.field(0) };
    from = 1;
  } else copy = {};
  new Stamp(copy, state);
  Object.defineProperty(copy, INSPECT, { value: inspect });
  for (let k = from; k < n; k++) {
    const name = names[k]!;
    // A key twice keeps its first place and its last value, as JSON.parse
    // has it; defineProperty makes `__proto__` an own key, as JSON.parse.
    if (EAGER.has(name) && (eager || name !== "metadata")) {
      copy[name] = state.field(k);
    } else {
      Object.defineProperty(copy, name, {
        get: getterAt(k),
        enumerable: true,
        configurable: true,
      });
    }
  }
  if (metadataOnly && copy.kind !== "PartialObjectMetadata") {
    // A server that cannot answer metadata alone answered whole objects.
    const metadata = names.indexOf("metadata");
    return Object.freeze({
      apiVersion: "meta.k8s.io/v1",
      kind: "PartialObjectMetadata",
      metadata: metadata === -1 ? undefined : state.field(metadata),
    }) as KubeObject;
  }
  return Object.freeze(copy) as unknown as KubeObject;
}

/** The names of the keys of the text {@linkcode lazyCopy} opens. */
const names: string[] = [];

/** The copy's state, held in a private field no reader can see. */
class Base {
  constructor(object: object) {
    // A constructor that answers an object lets a subclass put its private
    // fields on that object: a plain object, prototype and all.
    return object;
  }
}

class Stamp extends Base {
  #state: Lazy;

  constructor(object: object, state: Lazy) {
    super(object);
    this.#state = state;
  }

  static of(object: unknown): Lazy | undefined {
    return typeof object === "object" && object !== null && #state in object
      ? object.#state
      : undefined;
  }
}

/**
 * Opens held objects for the readers of one store: each gets a read-only
 * copy whose fields past its metadata are parsed when first read (see
 * above), kept while it is among the last {@linkcode RECENT} opened, so a
 * handler's `update(old, object)`, the controller's check of what changed
 * and a reconcile's cached read of the same version get the same object,
 * as with the objects store.
 */
export class Decoder<T extends KubeObject> {
  #recent: (Encoded | undefined)[];
  #next = 0;
  #metadataOnly: boolean;

  constructor(options: { metadataOnly: boolean; recent?: number }) {
    this.#metadataOnly = options.metadataOnly;
    this.#recent = new Array(options.recent ?? RECENT);
  }

  /** The object a store holds, opened if it is held as text. */
  open = (item: T): T => {
    if (!(item instanceof Encoded)) return item;
    const decoded = item.decoded;
    if (decoded !== undefined) return decoded as T;
    const layout = item.layout;
    const text = item.text;
    const whole = layout === undefined || mode === "whole" ||
      mode === "sized" && text.length < LAZY_FROM;
    const object = whole
      ? this.#whole(text)
      : lazyCopy(text, layout, this.#metadataOnly);
    item.decoded = object;
    const slot = this.#next;
    const evicted = this.#recent[slot];
    if (evicted !== undefined) evicted.decoded = undefined;
    this.#recent[slot] = item;
    this.#next = slot + 1 === this.#recent.length ? 0 : slot + 1;
    return object as T;
  };

  #whole(text: string): KubeObject {
    let object = JSON.parse(text) as KubeObject;
    if (this.#metadataOnly && object.kind !== "PartialObjectMetadata") {
      object = {
        apiVersion: "meta.k8s.io/v1",
        kind: "PartialObjectMetadata",
        metadata: object.metadata,
      };
    }
    return deepFreeze(object);
  }
}

/**
 * Whether a collection keeps text: its `storage` (or the default) is
 * `"bytes"`, and it has no `transform` or `decode`, which must see every
 * object as it arrives (their failures are reported then, and the object
 * held without a value).
 */
export function storesText(
  options: {
    storage?: Storage | undefined;
    transform?: unknown;
    decode?: unknown;
  },
): boolean {
  return (options.storage ?? fallback) === "bytes" &&
    options.transform === undefined && options.decode === undefined;
}
