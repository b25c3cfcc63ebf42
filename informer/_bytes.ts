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
 * An object held as its text. It stands in for the object wherever the
 * informer needs only its key and version (`metadata` has just those);
 * everything a caller sees is its parsed copy ({@linkcode Decoder.open}).
 */
export class Encoded implements HeldMeta {
  readonly text: string;
  readonly name: string;
  readonly namespace: string | undefined;
  readonly resourceVersion: string | undefined;
  /** The parsed copy, while the decoder's recent copies hold it. */
  decoded: KubeObject | undefined = undefined;

  constructor(text: string, metadata: HeldMeta) {
    this.text = text;
    this.name = metadata.name;
    this.namespace = metadata.namespace;
    this.resourceVersion = metadata.resourceVersion;
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
function held(text: string, scanned: Scanned): Encoded | KubeObject {
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
  return new Encoded(copy, meta);
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
      const scanned = scanObject(text, i);
      items.push(held(text, scanned));
      i = scanned.end;
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
  const scanned = scanObject(line, typeEnd + 11);
  let i = scanned.end;
  while (i < line.length && blank(line.charCodeAt(i))) i++;
  if (line.charCodeAt(i) !== CLOSE_OBJECT) return JSON.parse(line);
  i++;
  while (i < line.length && blank(line.charCodeAt(i))) i++;
  if (i !== line.length) return JSON.parse(line);
  return { type, object: held(line, scanned) };
}

/** The internal options that make the client's reads answer held text. */
export function parseOptions(
  parse: Parse,
): ParseOption {
  return { [PARSE]: parse };
}

/** How many parsed copies a store keeps at once, besides its own. */
export const RECENT = 1024;

/**
 * Parses held objects for the readers of one store. The copy is deep-frozen
 * (every reader gets the same one) and kept while it is among the last
 * {@linkcode RECENT} parsed, so a handler's `update(old, object)`, the
 * controller's check of what changed and a reconcile's cached read of the
 * same version get the same object, as with the objects store.
 */
export class Decoder<T extends KubeObject> {
  #recent: (Encoded | undefined)[];
  #next = 0;
  #metadataOnly: boolean;

  constructor(options: { metadataOnly: boolean; recent?: number }) {
    this.#metadataOnly = options.metadataOnly;
    this.#recent = new Array(options.recent ?? RECENT);
  }

  /** The object a store holds, parsed if it is held as text. */
  open = (item: T): T => {
    if (!(item instanceof Encoded)) return item;
    const decoded = item.decoded;
    if (decoded !== undefined) return decoded as T;
    let object = JSON.parse(item.text) as KubeObject;
    if (this.#metadataOnly && object.kind !== "PartialObjectMetadata") {
      // A server that cannot answer metadata alone answered whole objects.
      object = {
        apiVersion: "meta.k8s.io/v1",
        kind: "PartialObjectMetadata",
        metadata: object.metadata,
      };
    }
    deepFreeze(object);
    item.decoded = object;
    const slot = this.#next;
    const evicted = this.#recent[slot];
    if (evicted !== undefined) evicted.decoded = undefined;
    this.#recent[slot] = item;
    this.#next = slot + 1 === this.#recent.length ? 0 : slot + 1;
    return object as T;
  };
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
