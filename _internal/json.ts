/**
 * JSON values: the one test for a plain object and the one deep equality
 * the package uses.
 *
 * @module
 */

/** Whether a value is a plain JSON object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Whether two JSON values are equal as JSON: objects by their own keys in
 * any order (a key whose value is `undefined` counts as absent, as in JSON),
 * arrays item by item.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length &&
      a.every((item, i) => jsonEqual(item, b[i]));
  }
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a).filter((key) => a[key] !== undefined);
  const others = Object.keys(b).filter((key) => b[key] !== undefined);
  return keys.length === others.length &&
    keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key], b[key]));
}
