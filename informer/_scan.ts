// A scan of the JSON the API server sends (issue #48, item 2): it finds the
// items of a list page and the object of a watch event, and takes out of
// each only what the informer needs (name, namespace, resourceVersion, the
// labels' and owner references' text, the deletion timestamp) without
// building the object. The store of bytes (`_bytes.ts`) keeps each object
// as its text and these fields; bench/scale/scan.ts measures it against
// JSON.parse.

/**
 * What the scan takes out of one object, and where the object lies. String
 * values are their JSON text: escapes are kept (a store would unescape the
 * rare one that holds a backslash).
 */
export interface Scanned {
  /** The object's text: from its `{` to its `}` (end exclusive). */
  start: number;
  end: number;
  name: string | undefined;
  namespace: string | undefined;
  resourceVersion: string | undefined;
  deletionTimestamp: string | undefined;
  /** The text of `metadata.labels` (`{…}`), parsed only when read. */
  labels: string | undefined;
  /** The text of `metadata.ownerReferences` (`[…]`). */
  ownerReferences: string | undefined;
  /**
   * Where `"managedFields":[…]` lies in metadata (from its key's quote to
   * its `]`, end exclusive), or -1.
   */
  managedStart: number;
  managedEnd: number;
  /** Where the text of name, namespace and resourceVersion starts, or -1. */
  nameAt: number;
  namespaceAt: number;
  versionAt: number;
  /**
   * Whether name, namespace or resourceVersion holds something other than
   * a string (the scan does not say what: a caller parses the object).
   */
  odd: boolean;
}

const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_OBJECT = 123;
const CLOSE_OBJECT = 125;
const OPEN_ARRAY = 91;
const CLOSE_ARRAY = 93;
const COMMA = 44;

/** The index of the quote that ends the string whose text starts at `i`. */
function stringEnd(text: string, i: number): number {
  for (;;) {
    const quote = text.indexOf('"', i);
    if (quote === -1) throw new SyntaxError("Unterminated string");
    let slashes = 0;
    while (text.charCodeAt(quote - 1 - slashes) === BACKSLASH) slashes++;
    if ((slashes & 1) === 0) return quote;
    i = quote + 1;
  }
}

/** Which field of metadata a key names (0: none of ours). */
function fieldOf(text: string, start: number, length: number): number {
  switch (length) {
    case 4:
      return text.startsWith("name", start) ? 1 : 0;
    case 6:
      return text.startsWith("labels", start) ? 4 : 0;
    case 9:
      return text.startsWith("namespace", start) ? 2 : 0;
    case 15:
      if (text.startsWith("resourceVersion", start)) return 3;
      return text.startsWith("ownerReferences", start) ? 5 : 0;
    case 13:
      return text.startsWith("managedFields", start) ? 7 : 0;
    case 17:
      return text.startsWith("deletionTimestamp", start) ? 6 : 0;
  }
  return 0;
}

/**
 * Scans the object that starts at `text[at]` (a `{`): answers its fields
 * and its end. The text must be valid JSON (as JSON.parse would accept);
 * the scan checks only the brackets. `keys`, when given, receives where
 * each top-level key starts (its opening quote), in the text's order.
 */
export function scanObject(
  text: string,
  at: number,
  keys?: number[],
): Scanned {
  const found: Scanned = {
    start: at,
    end: -1,
    name: undefined,
    namespace: undefined,
    resourceVersion: undefined,
    deletionTimestamp: undefined,
    labels: undefined,
    ownerReferences: undefined,
    managedStart: -1,
    managedEnd: -1,
    nameAt: -1,
    namespaceAt: -1,
    versionAt: -1,
    odd: false,
  };
  // Whether the container at each depth is an object (a key comes next
  // after its `{` or a `,`).
  const objects: boolean[] = [];
  let depth = 0;
  let expectKey = false;
  /** The key just read at depth 1, "metadata" or not. */
  let metadataNext = false;
  let inMetadata = false;
  /** The metadata field whose value comes next (at depth 2). */
  let field = 0;
  let valueStart = -1;
  const n = text.length;
  for (let i = at; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i + 1);
      if (expectKey) {
        expectKey = false;
        if (depth === 1) {
          if (keys !== undefined) keys.push(i);
          metadataNext = end - i - 1 === 8 &&
            text.startsWith("metadata", i + 1);
        } else if (inMetadata && depth === 2) {
          field = fieldOf(text, i + 1, end - i - 1);
          if (field === 7) found.managedStart = i;
        }
      } else if (inMetadata && depth === 2 && field !== 0) {
        const value = text.slice(i + 1, end);
        if (field === 1) {
          found.name = value;
          found.nameAt = i + 1;
        } else if (field === 2) {
          found.namespace = value;
          found.namespaceAt = i + 1;
        } else if (field === 3) {
          found.resourceVersion = value;
          found.versionAt = i + 1;
        } else if (field === 6) found.deletionTimestamp = value;
        field = 0;
      }
      i = end;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      const isObject = c === OPEN_OBJECT;
      if (depth === 1 && metadataNext && isObject) inMetadata = true;
      else if (inMetadata && depth === 2 && field >= 4 && field !== 6) {
        valueStart = i;
      }
      metadataNext = false;
      objects[depth++] = isObject;
      expectKey = isObject;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--;
      if (depth === 0) {
        found.end = i + 1;
        return found;
      }
      if (depth === 1) {
        if (inMetadata && field !== 0 && field < 4) found.odd = true;
        inMetadata = false;
      } else if (depth === 2 && valueStart !== -1) {
        if (field === 7) found.managedEnd = i + 1;
        else {
          const value = text.slice(valueStart, i + 1);
          if (field === 4) found.labels = value;
          else found.ownerReferences = value;
        }
        valueStart = -1;
        field = 0;
      }
    } else if (c === COMMA) {
      expectKey = objects[depth - 1] === true;
      if (depth === 2) {
        // A name, namespace or version whose value was not a string.
        if (inMetadata && field !== 0 && field < 4) found.odd = true;
        field = 0;
      }
      if (depth === 1) metadataNext = false;
    }
  }
  throw new SyntaxError("Unterminated object");
}

/** The items of a list page (`{…,"items":[{…},…]}`), scanned. */
export function scanPage(text: string): Scanned[] {
  const key = text.indexOf('"items":[');
  if (key === -1) return [];
  const items: Scanned[] = [];
  let i = key + 9;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === OPEN_OBJECT) {
      const item = scanObject(text, i);
      items.push(item);
      i = item.end;
    } else if (c === CLOSE_ARRAY) break;
    else i++;
  }
  return items;
}

/** A watch event line: its type and its object, scanned. */
export function scanEvent(line: string): { type: string; object: Scanned } {
  const typeAt = line.indexOf('"type":"');
  const type = line.slice(typeAt + 8, line.indexOf('"', typeAt + 8));
  const objectAt = line.indexOf('"object":{');
  return { type, object: scanObject(line, objectAt + 9) };
}
